/**
 * The contract's reading of text into search words (§9), written independently of the service's (lib/text/words.ts),
 * so that the scan tests compare the service's index with a plain reading: Unicode word segments, NFKC, case folding,
 * Latin/Greek/Cyrillic marks removed; in Han, Kana and Thai text every character also starts a word.
 */
const LATIN_GREEK_CYRILLIC = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u;
const EVERY_CHARACTER = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;
const segmenter = new Intl.Segmenter('und', { granularity: 'word' });

function fold(text: string): string {
  let out = '';
  let base = '';
  for (const ch of text.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFD')) {
    if (/\p{M}/u.test(ch)) {
      if (!LATIN_GREEK_CYRILLIC.test(base)) out += ch;
      continue;
    }
    base = ch;
    out += ch;
  }
  return out.normalize('NFC');
}

const wordsOf = (text: string): string[] => [...segmenter.segment(fold(text))].filter((s) => s.isWordLike).map((s) => s.segment);

/** Every word and, in Han/Kana/Thai, every suffix starting at such a character (kept per text: the texts repeat). */
const starts = new Map<string, string[]>();
function startsOfWords(text: string): string[] {
  let out = starts.get(text);
  if (out) return out;
  out = [];
  for (const w of wordsOf(text)) {
    const chars = [...w];
    chars.forEach((c, i) => { if (i === 0 || EVERY_CHARACTER.test(c)) out!.push(chars.slice(i).join('')); });
  }
  starts.set(text, out);
  return out;
}

/** Whether every word of the query begins a word of one of the texts. */
export const matches = (query: string, texts: string[]): boolean => {
  const found = texts.flatMap(startsOfWords);
  return wordsOf(query).every((q) => found.some((s) => s.startsWith(q)));
};
