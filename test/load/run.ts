/**
 * `npm run load`: the mixed concurrent workload (./workload.ts) against a freshly started local server — the real
 * runtime of `npm start` (lib/local/start.ts) with its embedded DynamoDB Local in memory, on a free port — then a
 * summary table (requests and statuses per kind, invariants, busy events, final totals). Exits 1 when an invariant
 * was violated, 2 when the server could not be started.
 *
 *   LOAD_SECONDS   how long the users run (default 60)
 *   LOAD_USERS     virtual users (default 30)
 *   LOAD_SEED      seed of the users' choices (default 1)
 *   DYNAMODB_ENDPOINT  an existing DynamoDB instead of DynamoDB Local (a table of the run's own is created there)
 */
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { startLocalApi, stopLocalApi } from '../support/global-setup.js';
import { formatReport, runWorkload } from './workload.js';

const log = (line: string) => process.stderr.write(`[load ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    process.stderr.write(`${name} must be a positive number, not "${raw}".\n`);
    process.exit(2);
  }
  return n;
}

async function main(): Promise<number> {
  const seconds = positive('LOAD_SECONDS', 60);
  const users = Math.round(positive('LOAD_USERS', 30));
  const seed = Math.round(positive('LOAD_SEED', 1));
  const secret = `load-secret-${process.pid}-0123456789abcdef`;
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const logPath = join(tmpdir(), `calendar-load-server-${process.pid}.log`);
  log(`starting a local server (embedded DynamoDB Local in memory; server log: ${logPath})`);
  let child: ChildProcess;
  let url: string;
  try {
    ({ child, url } = await startLocalApi(root, {
      PORT: '0', HOST: '127.0.0.1', CALENDAR_DATA_DIR: ':memory:', DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT ?? '',
      CALENDAR_TABLE_NAME: `calendar-load-${Date.now()}`, CALENDAR_JWT_SECRET: secret, CALENDAR_JWT_ISSUER: '', CALENDAR_TIMEZONE: 'UTC',
      CALENDAR_SITE_URL: '', CALENDAR_METER: '', CALENDAR_CACHE_SECONDS: '0',
      // Every user reserves from 127.0.0.1: the per-address limit would turn the rush into 429s (contract §19 tests it).
      CALENDAR_RSVP_RATE_LIMIT: '0',
    }, createWriteStream(logPath)));
  } catch (e) {
    log(`the server did not start: ${(e as Error).message}`);
    return 2;
  }
  const stop = () => void stopLocalApi(child).then(() => process.exit(130));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    log(`server ready at ${url}`);
    const report = await runWorkload({ apiUrl: url, secret, users, durationMs: seconds * 1000, seed, log });
    process.stdout.write(`\n${formatReport(report)}\n`);
    return report.ok ? 0 : 1;
  } finally {
    await stopLocalApi(child);
  }
}

main().then((code) => process.exit(code), (e: unknown) => {
  process.stderr.write(`npm run load failed: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(2);
});
