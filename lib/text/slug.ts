/** Slugs are cut to this many code points (contract §2 allows 200; the margin leaves room for "-2", "-3"…). */
const SLUG_CHARS = 190;

/** The first `n` code points of `s` (never half of a surrogate pair). */
export const firstCodePoints = (s: string, n: number): string => {
  let out = '';
  let count = 0;
  for (const c of s) {
    if (count++ === n) break;
    out += c;
  }
  return out;
};

/** URL slugs like WordPress' sanitize_title: lower case, accents folded, words joined by hyphens. */
const LIGATURES: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ł: 'l', þ: 'th' };

export function slugify(text: string): string {
  const slug = text
    .toLowerCase()
    .normalize('NFD')
    // Only Latin letters lose their accents (as in WordPress); other scripts keep every mark.
    .replace(/(\p{Script=Latin})\p{M}+/gu, '$1')
    .normalize('NFC')
    .replace(/[ßæœøđłþ]/g, (c) => LIGATURES[c]!)
    .replace(/['’]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-');
  return trimHyphens(firstCodePoints(slug, SLUG_CHARS));
}

/** Without leading and trailing hyphens, in linear time (a regex anchored at the end backtracks on long runs). */
function trimHyphens(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s[start] === '-') start++;
  while (end > start && s[end - 1] === '-') end--;
  return s.slice(start, end);
}

/** "jazz-night" → ["jazz-night", "jazz-night-2", … "jazz-night-<n>"]. */
export function slugCandidates(base: string, from: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => (from + i === 1 ? base : `${base}-${from + i}`));
}
