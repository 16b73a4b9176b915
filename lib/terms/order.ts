/**
 * The name order of term lists (lib/store/README.md "Terms"): a term sorts by a key made from its name as shown in
 * the request language — case-folded, diacritics of Latin, Greek and Cyrillic letters removed (lib/text/words.ts) —
 * then by id. The same key is the sort key of the name-ordered index, so a list read from the index and a list
 * sorted in memory agree; keys compare as DynamoDB compares strings, by their UTF-8 bytes.
 */
import { pad } from '../store/keys.js';
import { foldText } from '../text/words.js';

/** Below every character a key holds (control characters are dropped from keys), so "ab" sorts before "ab c". */
const SEPARATOR = '\u0001';
/** Key budget: a sort key may hold 1,024 bytes; names are at most 200 characters, NFKC may lengthen them. */
const MAX_KEY_BYTES = 600;

/** The ordering key of a name. */
export function nameKey(name: string): string {
  // eslint-disable-next-line no-control-regex
  let key = foldText(name).replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) {
    key = Buffer.from(key).subarray(0, MAX_KEY_BYTES).toString('utf8').replace(/\uFFFD+$/, '');
  }
  return key;
}

/** The sort key of a term in name order: its name's key, then its id. */
export const nameSortKey = (name: string, id: number): string => `${nameKey(name)}${SEPARATOR}${pad(id)}`;

/** DynamoDB's string order (UTF-8 bytes), which differs from JavaScript's for characters beyond U+FFFF. */
export const compareUtf8 = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
