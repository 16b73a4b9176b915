/**
 * Words for `search` (contract §9): Unicode word segments (Intl.Segmenter), NFKC-normalised and case-folded, with
 * diacritics removed from Latin, Greek and Cyrillic letters only; in Han, Kana and Thai text every character also
 * starts a word. A query matches a text when every query word is a prefix of one of the text's words.
 */
/** Made on first use: creating a segmenter loads ICU's word rules, which a cold start should not pay for unless it searches. */
let segmenter: Intl.Segmenter | undefined;

/** A base letter whose combining marks are dropped: Latin, Greek, Cyrillic. */
const STRIPPED_BASE = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u;
/** Scripts written without spaces between words: each character also starts a word. */
const EVERY_CHARACTER = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** NFKC, full case folding (ß → ss, final sigma → σ), diacritics of Latin, Greek and Cyrillic letters removed. */
export function foldText(text: string): string {
  // ASCII has no marks, and NFKC leaves it alone: lower case is all there is to do.
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase();
  const folded = text.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFD');
  let out = '';
  let base = '';
  for (const ch of folded) {
    if (/\p{M}/u.test(ch)) {
      if (!STRIPPED_BASE.test(base)) out += ch;
      continue;
    }
    base = ch;
    out += ch;
  }
  return out.normalize('NFC');
}

/** The word segments of a text, folded (the words a query is made of). */
export function queryWords(text: string): string[] {
  const words: string[] = [];
  segmenter ??= new Intl.Segmenter('und', { granularity: 'word' });
  for (const s of segmenter.segment(foldText(text))) if (s.isWordLike) words.push(s.segment);
  return [...new Set(words)];
}

/** At most this many distinct words in a query: matching costs (query words × text length) stay small. */
export const MAX_QUERY_WORDS = 32;

/** Whether a character is of a script written without spaces (Han, Kana, Thai), where every character starts a word. */
export const everyCharacterStarts = (ch: string): boolean => EVERY_CHARACTER.test(ch);

const startsWithEveryCharacterScript = (q: string): boolean => EVERY_CHARACTER.test(String.fromCodePoint(q.codePointAt(0)!));

/**
 * Whether every query word begins a word of one of the texts (no query words: no restriction). A word in Han, Kana
 * or Thai text also begins at each of its characters, so a query word that starts with such a character matches
 * anywhere inside such a word. Linear in the texts' length for each query word; nothing is materialised per suffix.
 */
export function matchesWords(query: readonly string[], texts: readonly string[]): boolean {
  if (query.length === 0) return true;
  const words = [...new Set(texts.flatMap(queryWords))].sort();
  const scripted = words.filter((w) => EVERY_CHARACTER.test(w));
  return query.every((q) => hasPrefix(words, q) || (startsWithEveryCharacterScript(q) && scripted.some((w) => w.includes(q))));
}

/** Whether a sorted list holds a word that begins with q (binary search for the first word ≥ q). */
function hasPrefix(sorted: readonly string[], q: string): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < q) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo]!.startsWith(q);
}

/**
 * The search index holds every prefix of every word up to this many code points (lib/store/words.ts); a longer
 * query word is looked up by its first PREFIX_LIMIT code points and checked on the records.
 */
export const PREFIX_LIMIT = 10;
/** In Han, Kana and Thai text every character starts a word: prefixes from each of them, up to this length. */
export const SCRIPT_PREFIX_LIMIT = 4;

/** The index term that finds a query word, and whether it finds exactly that word's matches. */
export function termOf(q: string): { term: string; exact: boolean } {
  const chars = [...q];
  const limit = startsWithEveryCharacterScript(q) ? SCRIPT_PREFIX_LIMIT : PREFIX_LIMIT;
  return { term: chars.slice(0, limit).join(''), exact: chars.length <= limit };
}

/**
 * The index terms of texts: the prefixes (up to the limits above) of their words and, in Han, Kana and Thai words,
 * of the word from each such character on. A query word matches the texts (matchesWords) exactly when its term is
 * among these and, for a longer word, the texts say so.
 */
export function indexTerms(texts: readonly string[], into: Set<string> = new Set()): Set<string> {
  for (const word of new Set(texts.flatMap(queryWords))) {
    const chars = [...word];
    for (let start = 0; start < chars.length; start++) {
      const scripted = EVERY_CHARACTER.test(chars[start]!);
      if (start > 0 && !scripted) continue;
      const limit = Math.min(chars.length - start, scripted ? SCRIPT_PREFIX_LIMIT : PREFIX_LIMIT);
      let prefix = '';
      for (let n = 0; n < limit; n++) into.add(prefix += chars[start + n]!);
    }
  }
  return into;
}
