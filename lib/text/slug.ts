/** URL slugs like WordPress' sanitize_title: lower case, accents folded, words joined by hyphens. */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
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
