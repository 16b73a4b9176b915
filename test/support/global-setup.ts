/**
 * Jest globalSetup: starts the real local runtime (`lib/local/start.ts`: local API Gateway + the handlers +
 * DynamoDB Local, in memory) as a child process, and hands its URL to the tests through the environment:
 *   CALENDAR_TEST_API         e.g. http://127.0.0.1:41234/calendar/events/v1
 *   CALENDAR_TEST_JWT_SECRET  the HS256 secret the server accepts (see tokenFor in ./api.ts)
 *   CALENDAR_TEST_SERVER_LOG  file with the server's stdout and stderr (handler logs, crashes)
 * Set CALENDAR_TEST_DYNAMODB_ENDPOINT to use an existing DynamoDB instead of DynamoDB Local (no Java needed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEST_JWT_SECRET = 'test-secret-0123456789abcdef0123456789';

declare global {
  // eslint-disable-next-line no-var
  var __CALENDAR_TEST_SERVER__: { pid: number; child: ChildProcess; stop: () => Promise<void> } | undefined;
}

export default async function globalSetup(): Promise<void> {
  // Handlers that tests import write warnings and errors only, and no metrics (tests of those set their own).
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const logPath = join(tmpdir(), `calendar-test-server-${process.pid}.log`);
  const log = createWriteStream(logPath);
  const t0 = Date.now();
  const external = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT || undefined;
  // A table of the run's own (also when another DynamoDB is used), named so bundle tests can reach it.
  const tableName = `calendar-test-${Date.now()}`;
  const { child, output, url } = await startLocalApi(root, {
    PORT: '0',
    HOST: '127.0.0.1',
    CALENDAR_DATA_DIR: ':memory:',
    CALENDAR_JWT_SECRET: TEST_JWT_SECRET,
    CALENDAR_TIMEZONE: 'UTC',
    // Whatever the developer's shell says: the embedded database, the defaults, HS256 tokens. Without Java,
    // CALENDAR_TEST_DYNAMODB_ENDPOINT runs the tests against another DynamoDB, in a table of their own.
    DYNAMODB_ENDPOINT: external ?? '',
    CALENDAR_TABLE_NAME: tableName,
    CALENDAR_SITE_URL: '',
    CALENDAR_JWT_ISSUER: '',
    // Every response carries X-Calendar-Meter (DynamoDB requests of the call): tests guard request budgets with it.
    CALENDAR_METER: '1',
  }, log);
  // The teardown runs in this process and stops the server through `stop` (it cannot import this module).
  globalThis.__CALENDAR_TEST_SERVER__ = { pid: child.pid!, child, stop: () => stopLocalApi(child) };
  child.unref();
  (child.stdout as unknown as { unref?: () => void }).unref?.();
  (child.stderr as unknown as { unref?: () => void }).unref?.();

  // The database the server uses, for tests that reach it directly (bundles, races, benchmark code). Without it those
  // tests would have nothing to run against: the whole run fails here rather than letting them pass unrun.
  const dynamo = /DynamoDB Local ready on (\S+)|Using DynamoDB at (\S+) /.exec(output);
  const endpoint = external ?? dynamo?.[1] ?? dynamo?.[2];
  if (!endpoint) {
    await stopLocalApi(child);
    throw new Error(`the local API did not say which DynamoDB it uses; its output was:\n${output}`);
  }
  process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT = endpoint;
  process.env.CALENDAR_TEST_TABLE = tableName;
  process.env.CALENDAR_TEST_API = url;
  process.env.CALENDAR_TEST_JWT_SECRET = TEST_JWT_SECRET;
  process.env.CALENDAR_TEST_SERVER_LOG = logPath;
  process.stderr.write(`\nLocal API ready in ${Date.now() - t0} ms at ${url} (server log: ${logPath})\n`);
}

/**
 * Starts the real local runtime (`lib/local/start.ts`) as a child process with the given environment and waits
 * until it says it listens; kills it if it does not. Also used by tests that need a server on a table of their own.
 */
export const READY = /Calendar API listening on (http:\/\/\S+)/;
const READY_TIMEOUT_MS = 90_000;

/** Resolves with the child and its output so far (which holds the URL) once it is ready; kills it on failure. */
export async function startLocalApi(root: string, env: Record<string, string>, log: Writable):
  Promise<{ child: ChildProcess; output: string; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/start.ts'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log.write(chunk);
      output += chunk.toString();
      const m = READY.exec(output);
      if (m) {
        cleanup();
        resolve(m[1]!);
      }
    };
    // 'close', not 'exit': by then all of the child's output has been read.
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`the server exited (${signal ?? `code ${code}`}) before it was ready`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`the server was not ready after ${READY_TIMEOUT_MS / 1000} s`));
    }, READY_TIMEOUT_MS);
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      child.off('close', onExit);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('close', onExit);
    child.once('error', (e) => {
      cleanup();
      reject(e);
    });
  }).catch(async (e: Error) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    process.stderr.write(`\nCould not start the local API for the tests: ${e.message}. Its output:\n${output}\n`);
    throw e;
  });
  // Keep the server's later output (handler logs) in the log file, not in Jest's report.
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  return { child, output, url };
}

/** SIGTERM, then SIGKILL after 10 s; resolves when the process has exited (for tests that start their own). */
export async function stopLocalApi(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    process.stderr.write(`The local API (pid ${child.pid}) did not stop within 10 s of SIGTERM; killing it.\n`);
    child.kill('SIGKILL');
  }, 10_000);
  await exited;
  clearTimeout(timer);
}
