/**
 * Every link in the repository's Markdown files resolves: a relative link names a file or folder inside the
 * repository, an anchor names a heading of its target, and nothing points outside the repository except the few
 * http(s) URLs listed here. Code blocks and code spans are not links.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Absolute URLs the documents may link to; a new one must be added here on purpose (and one no longer used, removed). */
const ALLOWED_URLS = ['https://keepachangelog.com/en/1.1.0/', 'https://semver.org/spec/v2.0.0.html'];

/** Folders that hold no documents of the repository's own: installed packages, build output, local data. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'cdk.out', '.calendar-data', 'coverage']);

function markdownFiles(dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : markdownFiles(path);
    return entry.isFile() && entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside fenced code blocks, with code spans blanked; headings and links are read from it. */
function prose(text: string): string[] {
  const lines: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      lines.push('');
    } else if (marker) {
      fence = marker;
      lines.push('');
    } else {
      lines.push(line.replace(/(`+)[\s\S]*?\1/g, (span) => ' '.repeat(span.length)));
    }
  }
  return lines;
}

/** GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const lines = prose(text);
  const raw = text.split('\n');
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  const add = (heading: string) => {
    const plain = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[*`]/g, '')
      .trim();
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  };
  lines.forEach((line, i) => {
    // Headings keep their code spans' text, so they are read from the raw line once prose() says it is not code.
    const atx = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line) && /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(raw[i]!);
    if (atx) add(atx[1]!);
    else if (i > 0 && /^\s{0,3}(=+|-+)\s*$/.test(line) && /\S/.test(lines[i - 1]!) && !/^\s*([-*+]|\d+\.|\||#)/.test(lines[i - 1]!)) {
      add(raw[i - 1]!);
    }
    for (const m of line.matchAll(/<a\s[^>]*(?:name|id)="([^"]+)"/g)) ids.add(m[1]!);
  });
  return ids;
}

interface Link {
  file: string;
  line: number;
  target: string;
}

function links(file: string, text: string): Link[] {
  const out: Link[] = [];
  prose(text).forEach((line, i) => {
    const at = (target: string) => out.push({ file, line: i + 1, target });
    for (const m of line.matchAll(/!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) at(m[1]!);
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/.exec(line);
    if (definition) at(definition[1]!);
    for (const m of line.matchAll(/<([a-z][a-z0-9+.-]*:[^\s<>]*)>/gi)) at(m[1]!);
    // Bare URLs outside links and code, which GitHub turns into links too.
    const rest = line.replace(/!?\[(?:[^\][]|\[[^\]]*\])*\]\([^)]*\)/g, '').replace(/<[^>]*>/g, '');
    for (const m of rest.matchAll(/\bhttps?:\/\/[^\s)>\]]+/g)) at(m[0]!.replace(/[.,;:]+$/, ''));
  });
  return out;
}

const files = markdownFiles();
const texts = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
const all = files.flatMap((f) => links(f, texts.get(f)!));
const where = (l: Link) => `${relative(root, l.file)}:${l.line} → ${l.target}`;

test('finds the repository documents and their links', () => {
  const names = files.map((f) => relative(root, f).split(sep).join('/'));
  expect(names).toEqual(expect.arrayContaining(['README.md', 'ARCHITECTURE.md', 'CHANGELOG.md', 'CONTRIBUTING.md', 'SECURITY.md']));
  expect(names.some((n) => n.includes('node_modules'))).toBe(false);
  expect(all.length).toBeGreaterThan(50);
});

test('every relative link names a file or folder inside the repository, and every anchor a heading of it', () => {
  const broken: string[] = [];
  for (const link of all) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue; // absolute URLs: next test
    const [rawPath = '', fragment] = link.target.split('#', 2);
    const path = decodeURIComponent(rawPath);
    if (path.startsWith('/')) {
      broken.push(`${where(link)} (an absolute path)`);
      continue;
    }
    const target = path === '' ? link.file : resolve(dirname(link.file), path);
    const inside = relative(root, target);
    if (inside.startsWith('..') || resolve(root, inside) !== target) broken.push(`${where(link)} (outside the repository)`);
    else if (!existsSync(target)) broken.push(`${where(link)} (no such file)`);
    else if (fragment !== undefined) {
      if (statSync(target).isDirectory() || !target.endsWith('.md')) broken.push(`${where(link)} (an anchor into a file that is not Markdown)`);
      else if (!anchors(texts.get(target) ?? readFileSync(target, 'utf8')).has(decodeURIComponent(fragment))) {
        broken.push(`${where(link)} (no such heading)`);
      }
    }
  }
  expect(broken).toEqual([]);
});

test('absolute links are http(s) URLs from the short list above, each still used', () => {
  const absolute = all.filter((l) => /^[a-z][a-z0-9+.-]*:/i.test(l.target));
  expect(absolute.filter((l) => !/^https?:\/\//i.test(l.target)).map(where)).toEqual([]);
  expect(absolute.filter((l) => !ALLOWED_URLS.includes(l.target)).map(where)).toEqual([]);
  expect([...new Set(absolute.map((l) => l.target))].sort()).toEqual([...ALLOWED_URLS].sort());
});

test('heading ids follow GitHub: punctuation dropped, code kept, repeats numbered', () => {
  const ids = anchors('# Syncing a copy with `/changes`\n## Sanitising cost (`npm run bench:sanitize`)\n## Tests\n## Tests\n```\n# not a heading\n```\n');
  expect([...ids]).toEqual(['syncing-a-copy-with-changes', 'sanitising-cost-npm-run-benchsanitize', 'tests', 'tests-1']);
});
