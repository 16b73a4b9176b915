/**
 * Cold start (budget 9): every function bundle built with the stack's esbuild settings (infra/bundling.ts
 * esbuildBuildOptions), next to a bundle of only the DynamoDB document client built the same way; for each, the
 * minified size of what a cold start loads (index.mjs with the chunks it imports statically: coldStartFiles()) and the
 * median time to import index.mjs in a fresh Node process (an .mjs runner, as the Lambda runtime imports it, with the
 * stack's NODE_OPTIONS=--enable-source-maps). Runs are interleaved round by round, after
 * one discarded round that warms the file cache.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { coldStartFiles, esbuildBuildOptions } from '../../infra/bundling.js';
import { median, percentile } from './common.js';

export const DOCCLIENT = 'docclient';

/** The reference bundle: the document client and nothing else, constructed as the store constructs it. */
const DOCCLIENT_ENTRY = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
export const client = DynamoDBDocumentClient.from(new DynamoDBClient({ maxAttempts: 3 }), {
  marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
});
`;

/** Imports the bundle given as argv[2] and prints how long the import took. */
const RUNNER = `
const t0 = performance.now();
await import(process.argv[2]);
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms }));
`;

export interface BundleTiming {
  name: string;
  bytes: number;
  runs: number;
  /** Import time in the fresh process, ms. */
  medianMs: number;
  p90Ms: number;
  minMs: number;
  /** Whole process (spawn to exit) as seen from outside, ms: Node's own start-up included. */
  processMedianMs: number;
}

export interface ColdStartResult {
  runs: number;
  nodeOptions: string;
  bundles: BundleTiming[];
  reference: BundleTiming;
}

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The function groups: one bundle per functions/<group>.ts. */
export const functionGroups = (): string[] =>
  readdirSync(join(root, 'functions')).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).map((f) => f.slice(0, -3)).sort();

/** What a cold start of a bundle imports (index.mjs) and how many bytes it loads (index.mjs with its static chunks). */
export interface BuiltBundle {
  file: string;
  bytes: number;
}

export async function buildBundles(work: string): Promise<Record<string, BuiltBundle>> {
  const out: Record<string, BuiltBundle> = {};
  const built = (metafile: Metafile): BuiltBundle => {
    const files = coldStartFiles(metafile);
    return { file: join(root, files[0]!), bytes: files.reduce((bytes, f) => bytes + statSync(join(root, f)).size, 0) };
  };
  for (const group of functionGroups()) {
    const dir = join(work, group);
    const result = await build({ ...esbuildBuildOptions(`functions/${group}.ts`, dir), metafile: true, logLevel: 'error' });
    out[group] = built(result.metafile);
  }
  const dir = join(work, DOCCLIENT);
  const entry = join(dir, 'docclient-entry.ts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(entry, DOCCLIENT_ENTRY);
  // The entry is outside the project: its packages are the project's.
  const result = await build({ ...esbuildBuildOptions(entry, dir), nodePaths: [join(root, 'node_modules')], metafile: true, logLevel: 'error' });
  out[DOCCLIENT] = built(result.metafile);
  return out;
}

function importOnce(runner: string, bundle: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; processMs: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [runner, bundle], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const processMs = performance.now() - t0;
      if (code !== 0) return reject(new Error(`importing ${bundle} failed (exit ${code}): ${stderr.slice(0, 500)}`));
      try {
        resolve({ ms: (JSON.parse(stdout) as { ms: number }).ms, processMs });
      } catch {
        reject(new Error(`importing ${bundle} printed ${stdout.slice(0, 200)} ${stderr.slice(0, 300)}`));
      }
    });
  });
}

export async function runColdStart(o: { runs: number; log?: (line: string) => void }): Promise<ColdStartResult> {
  const work = mkdtempSync(join(tmpdir(), 'calendar-bench-bundles-'));
  try {
    const bundles = await buildBundles(work);
    const runner = join(work, 'runner.mjs');
    writeFileSync(runner, RUNNER);
    const nodeOptions = '--enable-source-maps';
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? '', NODE_OPTIONS: nodeOptions, AWS_REGION: 'local', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', CALENDAR_TABLE_NAME: 'bench-cold', CALENDAR_TIMEZONE: 'UTC',
    };
    const names = Object.keys(bundles);
    const samples = new Map(names.map((n) => [n, { ms: [] as number[], processMs: [] as number[] }]));
    for (let round = -1; round < o.runs; round++) {
      // Rotate the order each round so no bundle always runs right after the same neighbour.
      const order = names.map((_, i) => names[(i + Math.max(round, 0)) % names.length]!);
      for (const name of order) {
        const r = await importOnce(runner, bundles[name]!.file, env);
        if (round >= 0) {
          samples.get(name)!.ms.push(r.ms);
          samples.get(name)!.processMs.push(r.processMs);
        }
      }
      if (round >= 0 && (round + 1) % 5 === 0) o.log?.(`cold start: ${round + 1}/${o.runs} rounds`);
    }
    const timing = (name: string): BundleTiming => {
      const s = samples.get(name)!;
      return {
        name, bytes: bundles[name]!.bytes, runs: s.ms.length, medianMs: median(s.ms), p90Ms: percentile(s.ms, 90),
        minMs: Math.min(...s.ms), processMedianMs: median(s.processMs),
      };
    };
    return { runs: o.runs, nodeOptions, bundles: names.filter((n) => n !== DOCCLIENT).map(timing), reference: timing(DOCCLIENT) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
