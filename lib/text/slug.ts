/** URL slugs like WordPress' sanitize_title: lower case, accents folded, words joined by hyphens. */
const LIGATURES: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ł: 'l', þ: 'th' };

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFD')
    // Only Latin letters lose their accents (as in WordPress); other scripts keep every mark.
    .replace(/(\p{Script=Latin})\p{M}+/gu, '$1')
    .normalize('NFC')
    .replace(/[ßæœøđłþ]/g, (c) => LIGATURES[c]!)
    .replace(/['’]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 190)
    .replace(/-+$/g, '');
}

/** "jazz-night" → ["jazz-night", "jazz-night-2", … "jazz-night-<n>"]. */
export function slugCandidates(base: string, from: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => (from + i === 1 ? base : `${base}-${from + i}`));
}
