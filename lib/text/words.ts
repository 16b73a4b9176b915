/**
 * Words for `search` (contract §9): Unicode word segments (Intl.Segmenter), NFKC-normalised and case-folded, with
 * diacritics removed from Latin, Greek and Cyrillic letters only; in Han, Kana and Thai text every character also
 * starts a word. A query matches a text when every query word is a prefix of one of the text's words.
 */
const segmenter = new Intl.Segmenter('und', { granularity: 'word' });

/** A base letter whose combining marks are dropped: Latin, Greek, Cyrillic. */
const STRIPPED_BASE = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u;
/** Scripts written without spaces between words: each character also starts a word. */
const EVERY_CHARACTER = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** NFKC, full case folding (ß → ss, final sigma → σ), diacritics of Latin, Greek and Cyrillic letters removed. */
export function foldText(text: string): string {
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
  for (const s of segmenter.segment(foldText(text))) if (s.isWordLike) words.push(s.segment);
  return [...new Set(words)];
}

/** The words a text offers to prefix matching: its segments, and in Han, Kana and Thai each character's suffix. */
export function textWords(text: string): string[] {
  const words = new Set<string>();
  for (const word of queryWords(text)) {
    words.add(word);
    const chars = [...word];
    for (let i = 1; i < chars.length; i++) if (EVERY_CHARACTER.test(chars[i]!)) words.add(chars.slice(i).join(''));
  }
  return [...words];
}

/** Whether every query word is a prefix of a word of one of the texts (no query words: no restriction). */
export function matchesWords(query: readonly string[], texts: readonly string[]): boolean {
  if (query.length === 0) return true;
  const words = texts.flatMap(textWords);
  return query.every((q) => words.some((w) => w.startsWith(q)));
}
