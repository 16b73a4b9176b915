/**
 * `npm run bench` (test/bench/README.md): cold start and warm overhead first (nothing else running), then
 * DynamoDB Local in memory and, for each N, a worker process that seeds a fresh table and measures the scenarios
 * and the Scan baseline; finally the budgets, a Markdown report and a JSON file under the output directory.
 *
 *   npm run bench                      N = 10,000 and 100,000
 *   npm run bench -- --quick           N = 1,000 and 2,000, fewer venues etc., shorter loops (under a minute)
 *   npm run bench -- --n 20000 --out /tmp/bench --runs 30
 *
 * Options: --quick, --n <list>, --out <dir>, --seed <n>, --runs <cold-start runs>, --warm-iterations <n>,
 * --endpoint <url> (an existing DynamoDB instead of DynamoDB Local), --skip coldstart,warm,baseline, --keep-tables,
 * --only <scenario ids> (e.g. 14a,14b,14c,14d: only those scenarios),
 * --pages (only the calendar pages next to the API calls they show, pages.ts; N = 2,000 unless --n says otherwise).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, platform, release, tmpdir, totalmem } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoopBounds } from './common.js';
import type { ColdStartResult } from './coldstart.js';
import type { BenchResult, Machine } from './report.js';
import type { ScaleOptions, ScaleResult } from './scale.js';
import type { LinkedCounts } from './seed.js';

/** Records created through the API before the events: the issue's calendar, and a smaller one for --quick. */
export const FULL_LINKED: LinkedCounts = { venues: 200, organizers: 300, categories: 50, tags: 200 };
export const QUICK_LINKED: LinkedCounts = { venues: 20, organizers: 30, categories: 50, tags: 30 };
import type { WarmOptions, WarmResult } from './warm.js';
import type { ListsOptions, ListsResult } from './lists.js';
import type { WritesOptions, WritesResult } from './writes.js';
import type { ImportsOptions, ImportsResult } from './imports.js';

const log = (line: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const self = fileURLToPath(import.meta.url);
const root = fileURLToPath(new URL('../../', import.meta.url));

export interface CliOptions {
  quick: boolean;
  ns: number[];
  out: string;
  seed: number;
  runs: number;
  warmIterations: number;
  endpoint?: string;
  skip: Set<string>;
  keepTables: boolean;
  /** Only the lists of linked records, at these records per kind (lists.ts). */
  lists: number[] | null;
  /** The share of seeded events that are occurrences of recurring series (--recurring 0.2), and the series scenarios. */
  recurring: number;
  /** Only these scenario ids (--only 14a,14b); null: all. */
  only: string[] | null;
  /** Only the calendar pages (pages.ts). */
  pages: boolean;
  /** Only seeding through the API and the write scenarios (writes.ts), of the checkout at `root` (default: this one). */
  writes: boolean;
  /** Only an import of N single events from an iCalendar file and its rerun (imports.ts). */
  imports: boolean;
  root: string;
  samples: number;
}

class UsageError extends Error {}

export function parseArgs(argv: string[]): CliOptions {
  const quick = argv.includes('--quick');
  const o: CliOptions = {
    quick,
    ns: quick ? [1_000, 2_000] : [10_000, 100_000],
    out: 'test/bench/results',
    seed: 42,
    runs: quick ? 4 : 25,
    warmIterations: quick ? 500 : 5_000,
    skip: new Set(),
    keepTables: false,
    lists: argv.includes('--lists') ? (quick ? [100, 1_000] : [1_000, 10_000]) : null,
    recurring: 0,
    only: null,
    pages: argv.includes('--pages'),
    writes: argv.includes('--writes'),
    imports: argv.includes('--imports'),
    root,
    samples: quick ? 5 : 30,
  };
  if (o.pages || o.writes || o.imports) o.ns = [2_000];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
      return v;
    };
    const int = (v: string, name: string) => {
      const n = Number(v.replace(/_/g, ''));
      if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${name} must be a positive integer, not "${v}"`);
      return n;
    };
    if (a === '--quick' || a === '--lists' || a === '--pages' || a === '--writes' || a === '--imports') continue;
    else if (a === '--root') o.root = resolve(value());
    else if (a === '--samples') o.samples = int(value(), '--samples');
    else if (a === '--per-kind') o.lists = value().split(',').map((v) => int(v.trim(), '--per-kind'));
    else if (a === '--n') o.ns = value().split(',').map((v) => int(v.trim(), '--n'));
    else if (a === '--out') o.out = value();
    else if (a === '--seed') o.seed = int(value(), '--seed');
    else if (a === '--runs') o.runs = int(value(), '--runs');
    else if (a === '--warm-iterations') o.warmIterations = int(value(), '--warm-iterations');
    else if (a === '--endpoint') o.endpoint = value();
    else if (a === '--skip') value().split(',').forEach((s) => o.skip.add(s.trim()));
    else if (a === '--keep-tables') o.keepTables = true;
    else if (a === '--only') o.only = value().split(',').map((v) => v.trim()).filter(Boolean);
    else if (a === '--recurring') {
      o.recurring = Number(value());
      if (!(o.recurring > 0 && o.recurring < 1)) throw new UsageError('--recurring takes a share between 0 and 1, e.g. 0.2');
    }
    else if (a === '--help' || a === '-h') throw new UsageError('usage: npm run bench -- [--quick] [--n 10000,100000] [--out DIR] [--seed N] [--runs N] [--warm-iterations N] [--endpoint URL] [--skip coldstart,warm,baseline] [--keep-tables] [--lists [--per-kind 1000,10000]] [--recurring 0.2] [--only 14a,14b] [--pages] [--writes [--root DIR] [--samples N]] [--imports [--n 2000]]');
    else throw new UsageError(`unknown option ${a} (see --help)`);
  }
  for (const s of o.skip) if (!['coldstart', 'warm', 'baseline'].includes(s)) throw new UsageError(`--skip takes coldstart, warm, baseline; not "${s}"`);
  o.ns = [...new Set(o.ns)].sort((a, b) => a - b);
  return o;
}

/** Loop bounds per mode: latency loops stop at maxCount calls or after maxMs, whichever first, but take minCount. */
export function boundsFor(quick: boolean): { read: LoopBounds; write: LoopBounds; baseline: LoopBounds } {
  return quick
    ? { read: { maxCount: 40, maxMs: 250, minCount: 3 }, write: { maxCount: 10, maxMs: 250, minCount: 3 }, baseline: { maxCount: 3, maxMs: 300, minCount: 1 } }
    : { read: { maxCount: 300, maxMs: 6_000, minCount: 3 }, write: { maxCount: 50, maxMs: 6_000, minCount: 5 }, baseline: { maxCount: 3, maxMs: 10_000, minCount: 1 } };
}

function machine(): Machine {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const javaLine = `${java.stderr ?? ''}${java.stdout ?? ''}`.split('\n')[0]?.trim() || 'java: unknown';
  return {
    cpus: typeof availableParallelism === 'function' ? availableParallelism() : cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    os: `${platform()} ${release()}`,
    node: process.version,
    java: javaLine.replace(/^openjdk version/, 'OpenJDK'),
  };
}

/** Runs this file as a worker process (its own module state and environment); resolves its JSON result. */
async function worker<T>(kind: 'scale' | 'warm' | 'lists' | 'writes' | 'imports', config: unknown): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-bench-'));
  try {
    const input = join(dir, 'config.json');
    const output = join(dir, 'result.json');
    writeFileSync(input, JSON.stringify(config));
    const child = spawn(process.execPath, ['--import', 'tsx', self, '--worker', kind, input, output], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    const code = await new Promise<number | null>((ok, fail) => {
      child.once('error', fail);
      child.once('exit', (c, signal) => ok(signal ? -1 : c));
    });
    if (code !== 0) throw new Error(`the ${kind} worker failed (exit ${code}); its output is above`);
    return JSON.parse(readFileSync(output, 'utf8')) as T;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runWorker(kind: string, input: string, output: string): Promise<void> {
  const config = JSON.parse(readFileSync(input, 'utf8')) as unknown;
  let result: unknown;
  if (kind === 'scale') {
    const { runScale } = await import('./scale.js');
    result = await runScale({ ...(config as ScaleOptions), log });
  } else if (kind === 'warm') {
    const { runWarm } = await import('./warm.js');
    result = await runWarm({ ...(config as WarmOptions), log });
  } else if (kind === 'lists') {
    const { runLists } = await import('./lists.js');
    result = await runLists({ ...(config as ListsOptions), log });
  } else if (kind === 'writes') {
    const { runWrites } = await import('./writes.js');
    result = await runWrites({ ...(config as WritesOptions), log });
  } else if (kind === 'imports') {
    const { runImports } = await import('./imports.js');
    result = await runImports({ ...(config as ImportsOptions), log });
  } else throw new UsageError(`unknown worker ${kind}`);
  writeFileSync(output, JSON.stringify(result));
}

async function main(argv: string[]): Promise<void> {
  const w = argv.indexOf('--worker');
  if (w >= 0) {
    await runWorker(argv[w + 1]!, argv[w + 2]!, argv[w + 3]!);
    process.exit(0); // the handlers' keep-alive sockets would otherwise hold the worker open
  }
  const o = parseArgs(argv);
  if (o.writes) return runWritesMode(o);
  if (o.imports) return runImportsMode(o);
  if (o.lists) return runListsMode(o);
  if (o.pages) return runPagesMode(o);
  const t0 = performance.now();
  const mode: BenchResult['meta']['mode'] = o.quick ? 'quick' : o.ns.join(',') === '10000,100000' && !o.only ? 'full' : 'custom';
  log(`mode ${mode}: N = ${o.ns.join(', ')}`);
  const bounds = boundsFor(o.quick);

  // CPU-sensitive measurements first, while nothing else runs.
  let coldStart: ColdStartResult | null = null;
  if (!o.skip.has('coldstart')) {
    log(`cold start: building the bundles and importing each ${o.runs} times…`);
    const { runColdStart } = await import('./coldstart.js');
    coldStart = await runColdStart({ runs: o.runs, log });
  }
  let warm: WarmResult | null = null;
  if (!o.skip.has('warm')) {
    log(`warm overhead: ${o.warmIterations} invocations per route…`);
    warm = await worker<WarmResult>('warm', {
      iterations: o.warmIterations, maxMsPerRoute: o.quick ? 150 : 10_000, warmup: o.quick ? 50 : 500,
    } satisfies Omit<WarmOptions, 'log'>);
  }

  const scales: ScaleResult[] = [];
  let stopDb: (() => Promise<void>) | null = null;
  try {
    let endpoint = o.endpoint;
    if (!endpoint) {
      const { startDynamoDbLocal } = await import('../../lib/local/dynamodb-local.js');
      const t = performance.now();
      const db = await startDynamoDbLocal({ dataDir: ':memory:' });
      stopDb = db.stop;
      endpoint = db.endpoint;
      log(`DynamoDB Local (in memory) on ${endpoint} in ${Math.round(performance.now() - t)} ms`);
    }
    const linked: LinkedCounts = o.quick ? QUICK_LINKED : FULL_LINKED;
    for (const n of o.ns) {
      const config: Omit<ScaleOptions, 'log'> = {
        n, endpoint, table: `bench-${n}-${Date.now().toString(36)}`, seed: o.seed, linked,
        readBounds: bounds.read, writeBounds: bounds.write,
        baselineBounds: o.skip.has('baseline') ? { maxCount: 0, maxMs: 0, minCount: 0 } : bounds.baseline,
        writeConcurrency: 8, keepTable: o.keepTables, recurring: o.recurring, only: o.only,
      };
      const r = await worker<ScaleResult>('scale', config);
      if (o.skip.has('baseline')) r.baseline = [];
      scales.push(r);
    }
  } finally {
    await stopDb?.();
  }

  const { evaluateBudgets, renderMarkdown } = await import('./report.js');
  const result: BenchResult = {
    meta: { date: new Date().toISOString(), mode, ns: o.ns, seed: o.seed, machine: machine(), args: argv, totalMs: performance.now() - t0 },
    scales, coldStart, warm, budgets: evaluateBudgets(scales, coldStart, warm),
  };
  const out = resolve(root, o.out);
  mkdirSync(out, { recursive: true });
  const base = join(out, `bench-${mode}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(`${base}.md`, renderMarkdown(result));
  log(`report: ${relative(process.cwd(), `${base}.md`)} and .json (${Math.round(result.meta.totalMs / 1000)} s)`);
  for (const b of result.budgets) log(`budget ${b.budget}: ${b.pass === true ? 'PASS' : b.pass === false ? 'FAIL' : 'n/a'} — ${b.detail}`);
}

/** Runs `fn` against `--endpoint`, or against a DynamoDB Local in memory started for it and stopped after. */
async function withDynamoDb(o: CliOptions, fn: (endpoint: string) => Promise<void>): Promise<void> {
  if (o.endpoint) return fn(o.endpoint);
  const { startDynamoDbLocal } = await import('../../lib/local/dynamodb-local.js');
  const db = await startDynamoDbLocal({ dataDir: ':memory:' });
  try {
    await fn(db.endpoint);
  } finally {
    await db.stop();
  }
}

/** `--pages`: a calendar of N events, then only the pages next to the API calls they show (no cold start, no baseline). */
async function runPagesMode(o: CliOptions): Promise<void> {
  const t0 = performance.now();
  const sections: string[] = [];
  await withDynamoDb(o, async (endpoint) => {
    const { renderPages } = await import('./pages.js');
    for (const n of o.ns) {
      const r = await worker<ScaleResult>('scale', {
        n, endpoint, table: `bench-pages-${n}-${Date.now().toString(36)}`, seed: o.seed, linked: o.quick ? QUICK_LINKED : FULL_LINKED,
        readBounds: boundsFor(o.quick).read, writeBounds: boundsFor(o.quick).write, baselineBounds: { maxCount: 0, maxMs: 0, minCount: 0 },
        writeConcurrency: 8, keepTable: o.keepTables, recurring: o.recurring, only: o.only ?? [], pages: true,
      } satisfies Omit<ScaleOptions, 'log'>);
      sections.push(renderPages(r.pages ?? [], n));
    }
  });
  const out = resolve(root, o.out);
  mkdirSync(out, { recursive: true });
  const base = join(out, 'bench-pages');
  writeFileSync(`${base}.md`, `# Calendar pages (${new Date().toISOString().slice(0, 10)})\n\n${sections.join('\n')}`);
  log(`report: ${relative(process.cwd(), `${base}.md`)} (${Math.round((performance.now() - t0) / 1000)} s)`);
}

/** Runs a worker of `kind` for each N of the run, on one DynamoDB, in order; its results. */
async function eachN<T>(o: CliOptions, kind: 'writes' | 'imports', config: (endpoint: string, n: number) => object): Promise<T[]> {
  const results: T[] = [];
  await withDynamoDb(o, async (endpoint) => {
    for (const n of o.ns) results.push(await worker<T>(kind, config(endpoint, n)));
  });
  return results;
}

/** `--writes`: for each N, a fresh table seeded through POST /events only, then the write scenarios (writes.ts). */
async function runWritesMode(o: CliOptions): Promise<void> {
  const t0 = performance.now();
  const results = await eachN<WritesResult>(o, 'writes', (endpoint, n) => ({
    root: o.root, endpoint, table: `bench-writes-${n}-${Date.now().toString(36)}`, n, concurrency: 8, seed: o.seed, samples: o.samples,
  } satisfies Omit<WritesOptions, 'log'>));
  const { renderWriteScenarios } = await import('./report.js');
  const out = resolve(root, o.out);
  mkdirSync(out, { recursive: true });
  const base = join(out, 'bench-writes');
  const lines = results.map((r) => [`## ${num(r.n)} events seeded through POST /events (${relative(root, r.root) || 'this checkout'})`, '',
    `${r.seeding.eventsPerSecond.toFixed(1)} events/s (${(r.seeding.ms / 1000).toFixed(1)} s); per event: ${r.seeding.requestsPerEvent.toFixed(1)} DynamoDB requests, `
      + `${r.seeding.transactionsPerEvent.toFixed(1)} transactions, ${r.seeding.actionsPerEvent.toFixed(0)} items written, `
      + `${r.seeding.writeUnitsPerEvent.toFixed(0)} write units, ${r.seeding.storedItemsPerEvent.toFixed(1)} stored items.`, '',
    renderWriteScenarios(r.scenarios.map((s) => ({ ...s, n: r.n }))), ''].join('\n'));
  writeFileSync(`${base}.json`, `${JSON.stringify({ date: new Date().toISOString(), machine: machine(), results }, null, 2)}\n`);
  writeFileSync(`${base}.md`, `# Writes (${new Date().toISOString().slice(0, 10)})\n\n${lines.join('\n')}`);
  log(`report: ${relative(process.cwd(), `${base}.md`)} (${Math.round((performance.now() - t0) / 1000)} s)`);
}

const num = (n: number): string => n.toLocaleString('en-US');

/** `--imports`: for each N, a fresh table, an iCalendar file of N single events imported through POST /imports, then rerun. */
async function runImportsMode(o: CliOptions): Promise<void> {
  const t0 = performance.now();
  const results = await eachN<ImportsResult>(o, 'imports', (endpoint, n) => ({
    root: o.root, endpoint, table: `bench-imports-${n}-${Date.now().toString(36)}`, n, seed: o.seed,
  } satisfies Omit<ImportsOptions, 'log'>));
  const { describeImportRun } = await import('./imports.js');
  const out = resolve(root, o.out);
  mkdirSync(out, { recursive: true });
  const base = join(out, 'bench-imports');
  const lines = results.map((r) => [`## ${num(r.n)} single events from an iCalendar file of ${num(Math.round(r.fileBytes / 1024))} KB (${relative(root, r.root) || 'this checkout'})`, '',
    `- first run: ${describeImportRun(r.first)}`, `- rerun, nothing changed: ${describeImportRun(r.rerun)}`, ''].join('\n'));
  writeFileSync(`${base}.json`, `${JSON.stringify({ date: new Date().toISOString(), machine: machine(), results }, null, 2)}\n`);
  writeFileSync(`${base}.md`, `# Imports (${new Date().toISOString().slice(0, 10)})\n\n${lines.join('\n')}`);
  log(`report: ${relative(process.cwd(), `${base}.md`)} (${Math.round((performance.now() - t0) / 1000)} s)`);
}

/** `--lists`: only the list scenarios, each size of linked records in a fresh table (no events, no cold start). */
async function runListsMode(o: CliOptions): Promise<void> {
  const t0 = performance.now();
  const results: ListsResult[] = [];
  await withDynamoDb(o, async (endpoint) => {
    for (const perKind of o.lists!) {
      log(`lists: ${perKind} venues, organizers, categories and tags…`);
      results.push(await worker<ListsResult>('lists', {
        perKind, endpoint, table: `bench-lists-${perKind}-${Date.now().toString(36)}`, seed: o.seed,
        readBounds: boundsFor(o.quick).read, writeConcurrency: 8,
      } satisfies Omit<ListsOptions, 'log'>));
    }
  });
  const { renderLists } = await import('./lists.js');
  const out = resolve(root, o.out);
  mkdirSync(out, { recursive: true });
  const base = join(out, `bench-lists${o.quick ? '-quick' : ''}`);
  writeFileSync(`${base}.json`, `${JSON.stringify({ date: new Date().toISOString(), machine: machine(), results }, null, 2)}\n`);
  writeFileSync(`${base}.md`, `# List scenarios (${new Date().toISOString().slice(0, 10)})\n\n${renderLists(results)}`);
  log(`report: ${relative(process.cwd(), `${base}.md`)} (${Math.round((performance.now() - t0) / 1000)} s)`);
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === self;
if (invokedDirectly) main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`\nbench: ${e instanceof UsageError ? e.message : String((e as Error)?.stack ?? e)}\n`);
  process.exit(e instanceof UsageError ? 2 : 1);
});
