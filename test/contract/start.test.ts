/**
 * `npm start` (lib/local/start.ts) as a process: what the API cannot show — the ready line, the data directory,
 * DYNAMODB_ENDPOINT, clean shutdown without orphan java processes, and the start-up failures.
 * Each test starts its own instance next to the harness server.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiUrl } from '../support/api.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const READY = /^Calendar API listening on (http:\/\/127\.0\.0\.1:(\d+)\/calendar\/events\/v1)$/m;

interface Instance {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(env: Record<string, string>): Instance {
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/start.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      CALENDAR_JWT_SECRET: 'start-test-secret-0123456789abcdef',
      DYNAMODB_ENDPOINT: '',
      // npm start's own defaults for the handlers' logs and metrics, whatever the shell running the tests says.
      POWERTOOLS_LOG_LEVEL: '',
      POWERTOOLS_METRICS_DISABLED: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function ready(instance: Instance, timeoutMs = 60_000): Promise<string> {
  const t0 = Date.now();
  for (;;) {
    const m = READY.exec(instance.stdout());
    if (m) return m[1]!;
    if (instance.child.exitCode !== null || instance.child.signalCode !== null || Date.now() - t0 > timeoutMs) {
      throw new Error(`not ready; stdout:\n${instance.stdout()}\nstderr:\n${instance.stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until the instance's stdout holds a match of `pattern` (it arrives through a pipe). */
async function output(instance: Instance, pattern: RegExp, timeoutMs = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!pattern.test(instance.stdout())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`no ${pattern} on stdout:\n${instance.stdout()}\nstderr:\n${instance.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Stops an instance (if still running) so a failing test leaves nothing behind. */
async function kill(instance: Instance | undefined): Promise<void> {
  if (!instance || instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  instance.child.kill('SIGKILL');
  await instance.exited;
}

/** pid and command line of every process whose command line contains `needle`. */
function processesWith(needle: string): { pid: number; args: string }[] {
  const ps = execFileSync('ps', ['-A', '-o', 'pid=,args='], { encoding: 'utf8' });
  return ps
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && m[2]!.includes(needle) && !m[2]!.startsWith('ps '))
    .map((m) => ({ pid: Number(m[1]), args: m[2]! }));
}

/** The direct children of a process. */
function childrenOf(ppid: number): { pid: number; args: string }[] {
  const ps = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' });
  return ps
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && Number(m[2]) === ppid && !m[3]!.startsWith('ps '))
    .map((m) => ({ pid: Number(m[1]), args: m[3]! }));
}

async function stopWithin(instance: Instance, signal: NodeJS.Signals, ms: number): Promise<{ code: number | null; ms: number }> {
  const t0 = Date.now();
  instance.child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([instance.exited, new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)))]);
  clearTimeout(timer);
  if (!result) throw new Error(`did not exit within ${ms} ms of ${signal}; stderr:\n${instance.stderr()}`);
  return { code: result.code, ms: Date.now() - t0 };
}

describe('npm start (lib/local/start.ts)', () => {
  let dir: string;
  const running: Instance[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-start-test-'));
  });
  afterAll(async () => {
    await Promise.all(running.map(kill));
    rmSync(dir, { recursive: true, force: true });
  });

  test('persists to CALENDAR_DATA_DIR, serves the API, and stops cleanly on SIGTERM without leaving java behind', async () => {
    const dataDir = join(dir, 'data', 'nested'); // does not exist yet
    const first = start({ CALENDAR_DATA_DIR: dataDir });
    running.push(first);
    const url = await ready(first);

    // stdout is exactly the one ready line
    expect(first.stdout()).toBe(`Calendar API listening on ${url}\n`);
    expect(url).not.toBe(apiUrl());
    expect(readdirSync(dataDir).some((f) => f.endsWith('.db'))).toBe(true);

    // it answers (the root handler: 404 JSON for a path outside the API)
    const res = await fetch(`${new URL(url).origin}/not-the-api`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    // Then one line per request on stdout, and nothing else: the handlers log warnings and errors only, and no metrics.
    await output(first, /^GET \/not-the-api 404 \d+ ms$/m);
    expect(first.stdout()).toMatch(new RegExp(`^Calendar API listening on ${url}\nGET /not-the-api 404 \\d+ ms\n$`));

    // its java child runs DynamoDB Local on our data directory
    const javas = processesWith(dataDir).filter((p) => /java/.test(p.args));
    expect(javas).toHaveLength(1);

    // A second instance can use the first one's DynamoDB through DYNAMODB_ENDPOINT, starting no java of its own.
    const endpoint = /DynamoDB Local ready on (http:\/\/\S+)/.exec(first.stderr())?.[1];
    expect(endpoint).toBeDefined();
    const second = start({ DYNAMODB_ENDPOINT: endpoint!, CALENDAR_DATA_DIR: join(dir, 'unused') });
    running.push(second);
    await ready(second);
    expect(childrenOf(second.child.pid!).filter((p) => /java/.test(p.args))).toEqual([]);
    expect(existsSync(join(dir, 'unused'))).toBe(false);
    expect((await stopWithin(second, 'SIGTERM', 15_000)).code).toBe(0);

    const stopped = await stopWithin(first, 'SIGTERM', 15_000);
    expect(stopped.code).toBe(0);
    expect(processesWith(dataDir)).toEqual([]);
    for (const { pid } of javas) {
      expect(() => process.kill(pid, 0)).toThrow();
      expect(processesWith(`kill -9 ${pid} `)).toEqual([]); // nor its watchdog
    }
    expect(first.stderr()).not.toMatch(/Error|did not start/);
  }, 120_000);

  test('starts again on the same data directory (the table exists) and stops on SIGINT', async () => {
    const dataDir = join(dir, 'data', 'nested');
    const again = start({ CALENDAR_DATA_DIR: dataDir });
    running.push(again);
    await ready(again);
    const stopped = await stopWithin(again, 'SIGINT', 15_000);
    expect(stopped.code).toBe(0);
    expect(processesWith(dataDir)).toEqual([]);
  }, 90_000);

  test('a port in use fails at once with exit 1 and a clear message, starting no java', async () => {
    const taken = new URL(apiUrl()).port;
    const instance = start({ PORT: taken, CALENDAR_DATA_DIR: join(dir, 'taken') });
    running.push(instance);
    const { code } = await instance.exited;
    expect(code).toBe(1);
    expect(instance.stderr()).toMatch(new RegExp(`Port ${taken} on 127\\.0\\.0\\.1 is already in use`));
    expect(instance.stderr()).not.toMatch(/\n\s+at /); // a message, not a stack trace
    expect(instance.stdout()).toBe('');
    expect(existsSync(join(dir, 'taken'))).toBe(false);
  }, 30_000);

  test('without java it fails with exit 1 and says how to install it', async () => {
    const emptyBin = join(dir, 'empty-bin');
    const instance = start({ PATH: emptyBin, CALENDAR_DATA_DIR: ':memory:' });
    running.push(instance);
    const { code } = await instance.exited;
    expect(code).toBe(1);
    const err = instance.stderr();
    expect(err).toMatch(/Java 17/);
    expect(err).toContain('sudo apt-get install -y openjdk-17-jre-headless');
    expect(err).toContain('brew install openjdk@17');
    expect(err).toContain('DYNAMODB_ENDPOINT');
    expect(instance.stdout()).toBe('');
  }, 30_000);
});
