/**
 * How the event word index (./README.md) groups what it holds, so that a save writes a few dozen items instead of two
 * per word prefix: an event's terms (every prefix of its words, lib/text/words.ts) are posted per first letter and day,
 * and counted per first two letters and month.
 *
 * - A **posting** value (one per event, letter and day) is `<utc start>|<utc end>|<status>|<author>|<tokens>`: the
 *   event's terms of that letter that no longer term of it extends in the same languages, each written
 *   `<shown><hidden><term>` (bit masks of LANGUAGES: shown text, and text only a password shows). Every term of the
 *   event is a prefix of a token, and its languages are the union of the tokens it begins.
 * - A **count** attribute, in the item of its group (a term's first two characters) and the month of the event's start,
 *   is `<status><shown mask><rest of a word>|<k>|<n>`: the events of that status whose smallest word holding a prefix of
 *   the word of k or more characters is that word (countContributions), on each day, packed four decimal digits a day into
 *   eight numbers (n = 0…7: days 1–4, 5–8, …, 29–31). The events holding a prefix are those counted by the words it
 *   begins whose k it reaches, each event once. A number stays below 2^53 (exact in JavaScript) because a day's count
 *   is bounded by its letter's posting item of that day: at most some 8,000 entries fit in DynamoDB's 400 KB before the
 *   event is held whole instead.
 */
import { LANGUAGES, type Language } from '../model/language.js';
import { statusCode } from '../store/event-counts.js';
import { everyCharacterStarts } from '../text/words.js';

/** What the index holds for one event: its list facts, and each term with the languages showing it. */
export interface EventWords {
  startUtc: string;
  endUtc: string;
  status: string;
  author: number;
  /** Term → [shown mask, hidden mask] over LANGUAGES (bit i: LANGUAGES[i]). */
  terms: Map<string, readonly [number, number]>;
}

export const langBit = (lang: Language): number => 1 << LANGUAGES.indexOf(lang);
export const ALL_LANGUAGES = (1 << LANGUAGES.length) - 1;

/** The posting partition of a term: its first character. */
export const letterOf = (term: string): string => String.fromCodePoint(term.codePointAt(0)!);

/**
 * The count group of a term: its first two characters. One-character terms are spread over four groups by their code
 * point (`#0`…`#3`): every event has a dozen or more first letters, and one group holding them all would be the largest
 * item a search reads; a character of a script written without spaces is a group of its own. Null for a term of five
 * or more characters holding a digit: numbers and codes are mostly unique, and counting their prefixes would fill their
 * group's items with one-off entries; a search for such a prefix reads the postings instead (lib/search/source.ts).
 */
export function countGroupOf(term: string): string | null {
  const chars = [...term];
  if (chars.length >= 5 && /\p{Nd}/u.test(term)) return null;
  if (chars.length === 1) return everyCharacterStarts(term) ? term : `#${term.codePointAt(0)! % SINGLE_GROUPS}`;
  return chars[0]! + chars[1]!;
}

const SINGLE_GROUPS = 4;

/** The rest of a term after its count group's characters (a one-character term is all rest). */
export const restOf = (term: string, group: string): string => (group.startsWith('#') ? term : term.slice(group.length));

/**
 * Count items are kept apart for published events and the rest (`p#<month>`, `x#<month>`): a save touches one of them,
 * and anonymous searches, which see published events only, read half the bytes.
 */
export const countSortKey = (status: string, month: string): string => `${status === 'publish' ? 'p' : 'x'}#${month}`;

/**
 * The count attribute of the events of `status` whose smallest word (in the languages `shown`) holding a prefix of
 * `word` of at least `k` characters is `word`, packed number `n` (README "Counting words, not prefixes").
 */
export const countAttribute = (status: string, shown: number, rest: string, k: number, n: number): string =>
  `${statusCode(status)}${shown}${rest}|${k}|${n}`;

/** Days per packed number. */
export const DAYS_PER_NUMBER = 4;

/** The packed number and its increment of an event starting on day `dd` (1–31) of its month. */
export function dayDelta(dd: number): { n: number; unit: number } {
  return { n: Math.floor((dd - 1) / DAYS_PER_NUMBER), unit: 10_000 ** ((dd - 1) % DAYS_PER_NUMBER) };
}

/** The events a packed number counts on each of its days (index 0: its first day). */
export function unpack(value: number): number[] {
  const days: number[] = [];
  let v = value;
  for (let i = 0; i < DAYS_PER_NUMBER; i++) {
    days.push(v % 10_000);
    v = Math.floor(v / 10_000);
  }
  return days;
}

/** A count attribute's parts (null: not one). */
export function parseCountAttribute(name: string): { status: string; shown: number; rest: string; k: number; n: number } | null {
  const second = name.lastIndexOf('|');
  const first = name.lastIndexOf('|', second - 1);
  if (first < 2) return null;
  return { status: name[0]!, shown: Number(name[1]), rest: name.slice(2, first), k: Number(name.slice(first + 1, second)), n: Number(name.slice(second + 1)) };
}

/** Whether a count attribute counts its events for `term`: its word begins with the term, and its attribution does. */
export const attributeCounts = (a: { rest: string; k: number }, group: string, term: string): boolean =>
  ((group.startsWith('#') ? '' : group) + a.rest).startsWith(term) && a.k <= [...term].length;

/** The tokens of one letter's terms: those that no other term of the event extends in (at least) the same languages. */
function tokensOf(terms: [string, readonly [number, number]][]): string[] {
  const sorted = terms.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const tokens: string[] = [];
  sorted.forEach(([term, [shown, hidden]], i) => {
    let s = 0;
    let h = 0;
    for (let j = i + 1; j < sorted.length && sorted[j]![0].startsWith(term); j++) {
      s |= sorted[j]![1][0];
      h |= sorted[j]![1][1];
    }
    if ((s & shown) !== shown || (h & hidden) !== hidden) tokens.push(`${shown}${hidden}${term}`);
  });
  return tokens;
}

/** The posting value of each letter of an event's terms. */
export function postingValues(w: EventWords): Map<string, string> {
  const byLetter = new Map<string, [string, readonly [number, number]][]>();
  for (const entry of w.terms) {
    const letter = letterOf(entry[0]);
    let list = byLetter.get(letter);
    if (!list) byLetter.set(letter, (list = []));
    list.push(entry);
  }
  const head = `${w.startUtc}|${w.endUtc}|${w.status}|${w.author}|`;
  return new Map([...byLetter].map(([letter, terms]) => [letter, head + tokensOf(terms).join(' ')]));
}

/** A posting value read back: the facts, and the languages (shown, hidden) in which it holds `term` (0, 0: not at all). */
export interface Posting {
  startUtc: string;
  endUtc: string;
  status: string;
  author: number;
  tokens: string;
}

export function parsePosting(value: string): Posting {
  const [startUtc, endUtc, status, author, tokens] = value.split('|');
  return { startUtc: startUtc!, endUtc: endUtc!, status: status!, author: Number(author), tokens: tokens ?? '' };
}

/** The languages in which a posting's tokens hold `term` (a prefix of one of them): [shown mask, hidden mask]. */
export function masksOf(tokens: string, term: string): [number, number] {
  let shown = 0;
  let hidden = 0;
  for (const token of tokens.split(' ')) {
    if (token.length > 2 && token.startsWith(term, 2)) {
      shown |= Number(token[0]);
      hidden |= Number(token[1]);
    }
  }
  return [shown, hidden];
}

/** The terms (with their masks) that a letter's posting value holds: every prefix of its tokens. */
export function termsOfPosting(value: string, into: Map<string, [number, number]>): void {
  for (const token of parsePosting(value).tokens.split(' ')) {
    if (token.length <= 2) continue;
    const shown = Number(token[0]);
    const hidden = Number(token[1]);
    let prefix = '';
    for (const ch of token.slice(2)) {
      prefix += ch;
      const m = into.get(prefix) ?? [0, 0];
      into.set(prefix, [m[0] | shown, m[1] | hidden]);
    }
  }
}

/** An event's words as its posting values hold them (what a marker keeps of the index before a write). */
export function wordsOfPostings(values: Map<string, string>): EventWords | null {
  const first = values.values().next().value;
  if (first === undefined) return null;
  const facts = parsePosting(first);
  const terms = new Map<string, [number, number]>();
  for (const v of values.values()) termsOfPosting(v, terms);
  return { startUtc: facts.startUtc, endUtc: facts.endUtc, status: facts.status, author: facts.author, terms };
}

const lcp = (a: string[], b: string[]): number => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

/**
 * The count attributes an event contributes to, by count group: attribute → increment. A term is not counted for
 * itself: each of the event's words (a counted term that no longer counted term of the event extends) counts the event
 * for the prefixes of which it is the event's smallest word, which are its prefixes of at least k characters (k: one
 * more than it shares with the event's word before it). The events holding a prefix are then the events of the words
 * that begin with it and whose k it reaches, each counted once — so a group's item holds a few numbers per word, not
 * per prefix. Languages whose text differs attribute apart.
 */
export function countContributions(w: EventWords): Map<string, Map<string, number>> {
  const { n, unit } = dayDelta(Number(w.startUtc.slice(8, 10)));
  // Counted terms by group, each with the languages showing it.
  const byGroup = new Map<string, [string[], number][]>();
  for (const [term, [shown]] of w.terms) {
    if (shown === 0) continue;
    const group = countGroupOf(term);
    if (group === null) continue;
    let list = byGroup.get(group);
    if (!list) byGroup.set(group, (list = []));
    list.push([[...term], shown]);
  }
  const groups = new Map<string, Map<string, number>>();
  for (const [group, terms] of byGroup) {
    const attrs = new Map<string, number>();
    const ownLength = group.startsWith('#') ? 1 : [...group].length;
    // Per language: its words, in order, and the attribution of each; the same (word, k) in several languages is one mask.
    const masks = new Map<string, number>();
    for (let bit = 1; bit <= ALL_LANGUAGES; bit <<= 1) {
      const shown = terms.filter(([, m]) => m & bit).map(([chars]) => chars).sort((a, b) => (a.join('') < b.join('') ? -1 : 1));
      const words = shown.filter((chars, i) => !(i + 1 < shown.length && lcp(chars, shown[i + 1]!) === chars.length));
      words.forEach((chars, i) => {
        const k = i === 0 ? ownLength : lcp(words[i - 1]!, chars) + 1;
        const key = `${chars.join('')}\u0000${k}`;
        masks.set(key, (masks.get(key) ?? 0) | bit);
      });
    }
    for (const [key, mask] of masks) {
      const [word, k] = key.split('\u0000');
      attrs.set(countAttribute(w.status, mask, restOf(word!, group), Number(k), n), unit);
    }
    groups.set(group, attrs);
  }
  return groups;
}
