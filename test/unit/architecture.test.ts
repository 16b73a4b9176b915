/**
 * The shape of the code (ARCHITECTURE.md): the import graph of lib/ and functions/ has no cycles, type imports
 * included, and the layers point one way — the store, auth, time and text modules never import the HTTP layer or
 * the route definitions; casts around the type system (`as never`, `as unknown as`, `as any`) stay at most MAX_CASTS.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT = /^\s*(?:import|export)\s(?:[^'"]*?\sfrom\s)?['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Every relative import of every module (type-only ones too), as repository-relative .ts paths. */
function graph(): Map<string, string[]> {
  const files = [...sources(join(root, 'lib')), ...sources(join(root, 'functions'))];
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) => relative(root, resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts'))));
    edges.set(relative(root, file), [...new Set(targets)]);
  }
  return edges;
}

function cycles(edges: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'active' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'active');
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === 'active') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of edges.keys()) if (!state.has(node)) visit(node);
  return found;
}

const edges = graph();

test('the import graph has no cycles', () => {
  expect(cycles(edges).map((c) => c.join(' → '))).toEqual([]);
});

test('store, auth, time and text never import the HTTP layer or the route definitions', () => {
  const lower = ['lib/store/', 'lib/auth/', 'lib/time/', 'lib/text/'];
  const upper = ['lib/http/', 'lib/routes/'];
  const wrong = [...edges].flatMap(([from, tos]) => (lower.some((l) => from.startsWith(l))
    ? tos.filter((to) => upper.some((u) => to.startsWith(u))).map((to) => `${from} → ${to}`) : []));
  expect(wrong).toEqual([]);
});

test('the graph was read (a sanity check on the parser)', () => {
  expect(edges.size).toBeGreaterThan(50);
  expect(edges.get('functions/events.ts')).toContain('lib/http/handler.ts');
});

/** Casts that switch the type system off; the few left wrap what a library's types cannot say (lib/store/idempotency.ts and its lazy stand-in). */
const MAX_CASTS = 3;
const CAST = /\bas\s+(?:never|any|unknown\s+as)\b/g;

test(`casts around types (as never, as unknown as, as any) in lib/ and functions/ number at most ${MAX_CASTS}`, () => {
  const found = [...sources(join(root, 'lib')), ...sources(join(root, 'functions'))].flatMap((file) =>
    readFileSync(file, 'utf8').split('\n').flatMap((line, i) => (/^\s*(\*|\/\/|\/\*)/.test(line) ? [] // comments are prose
      : [...line.matchAll(CAST)].map(() => `${relative(root, file)}:${i + 1}`))));
  expect(found.length).toBeLessThanOrEqual(MAX_CASTS);
  // A sanity check on the pattern: it finds the casts that remain.
  expect(found.length).toBeGreaterThan(0);
});
