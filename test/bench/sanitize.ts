/**
 * `npm run bench:sanitize`: the cost of sanitising hostile descriptions (contract §2: every input within the bounds
 * is handled in linear time). For each family of hostile input at 10, 50 and 100 KB it prints the time of
 * sanitizeHtml + htmlToText and the ratio time(100 KB) / time(10 KB) — about 10 when linear — and exits non-zero
 * when a ratio passes 25 or one input takes more than 500 ms.
 */
import { htmlToText, sanitizeHtml } from '../../lib/text/sanitize.js';

const FAMILIES: Record<string, (bytes: number) => string> = {
  'many "<"': (n) => '<'.repeat(n),
  'one <img> with repeated attributes': (n) => `<img ${'a=1 '.repeat(n / 4)}>`,
  'deeply nested tags': (n) => '<b>'.repeat(n / 3),
  'unclosed tags': (n) => '<p>x'.repeat(n / 4),
  'a long attribute of entities': (n) => `<a href="${'&amp;'.repeat(n / 5)}">x</a>`,
  'script bodies': (n) => '<script>'.repeat(n / 8),
  'random markup': (n) => {
    let s = '';
    let seed = 7;
    const pieces = ['<p>', '</p>', '<a href="https://x.org/?a=1&b=2">', '</a>', 'text ', '&amp; ', '<img src=x onerror=y>', '<b>', '</i>'];
    while (s.length < n) s += pieces[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % pieces.length];
    return s;
  },
};

function timeOf(input: string): number {
  const runs = 5;
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) htmlToText(sanitizeHtml(input));
  return (performance.now() - t0) / runs;
}

let failed = false;
console.log('family | 10 KB ms | 50 KB ms | 100 KB ms | ratio 100/10');
for (const [name, make] of Object.entries(FAMILIES)) {
  timeOf(make(10_000)); // warm up
  const times = [10_000, 50_000, 100_000].map((n) => timeOf(make(n)));
  const ratio = times[2]! / Math.max(times[0]!, 0.05);
  const bad = ratio > 25 || times.some((t) => t > 500);
  failed ||= bad;
  console.log(`${name} | ${times.map((t) => t.toFixed(1)).join(' | ')} | ${ratio.toFixed(1)}${bad ? '  ← over budget' : ''}`);
}
process.exit(failed ? 1 : 0);
