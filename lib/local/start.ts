/**
 * `npm start`: the whole API on http://HOST:PORT/calendar/events/v1 with an embedded DynamoDB Local (contract §11).
 * Informational lines go to stderr; stdout carries the ready line, then one line per request (lib/local/server.ts).
 */
import './observability-env.js';
import { createServer as createNetServer } from 'node:net';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { loadConfig, resetConfig } from '../config.js';
import { NAMESPACE } from '../routes/types.js';
import { normalizeTimezone } from '../time/zones.js';
import { DynamoDbLocalError, ensureTable, startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local.js';
import { createLocalServer, functionTimeoutMs } from './server.js';
import { rebuildNonEmpty } from '../store/nonempty-rebuild.js';

const env = process.env;
const info = (line: string) => process.stderr.write(`${line}\n`);

class StartError extends Error {}

let ddb: DynamoDbLocal | null = null;
let server: Server | null = null;
let stopping = false;

async function shutdown(signal: string): Promise<void> {
  if (stopping) {
    info(`${signal} again: exiting now.`);
    process.exit(1); // the 'exit' hook of dynamodb-local kills java
  }
  stopping = true;
  info(`${signal}: stopping the Calendar API…`);
  if (server?.listening) {
    const closed = new Promise<void>((ok) => server!.close(() => ok()));
    server.closeAllConnections();
    await closed;
  }
  await ddb?.stop();
  process.exit(0);
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 3000;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new StartError(`PORT must be a port number (0-65535, 0 = any free port), not "${raw}".`);
  return port;
}

const portProblem = (e: NodeJS.ErrnoException, host: string, port: number): StartError =>
  new StartError(
    e.code === 'EADDRINUSE'
      ? `Port ${port} on ${host} is already in use, so the Calendar API cannot listen there. Stop the program that uses it, or start on another port, e.g. \`PORT=3001 npm start\` (PORT=0 picks any free port).`
      : e.code === 'EACCES'
        ? `Not allowed to listen on ${host}:${port} (ports below 1024 need privileges). Choose another port, e.g. \`PORT=3001 npm start\`.`
        : e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND'
          ? `Cannot listen on HOST=${host}: no such address on this machine. Use 127.0.0.1 (the default) or 0.0.0.0.`
          : `Cannot listen on ${host}:${port}: ${e.message}`,
  );

/** Fails fast (before starting Java) when the port is taken; the real listen below still reports races. */
function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((ok, fail) => {
    const probe = createNetServer();
    probe.once('error', (e: NodeJS.ErrnoException) => fail(portProblem(e, host, port)));
    probe.listen(port, host, () => probe.close(() => ok()));
  });
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((ok, fail) => {
    server.once('error', (e: NodeJS.ErrnoException) => fail(portProblem(e, host, port)));
    server.listen(port, host, () => ok((server.address() as AddressInfo).port));
  });
}

/** Settings the handlers read per request, checked once here so that a typo fails at start, not on every request. */
function checkSettings(): void {
  const zone = env.CALENDAR_TIMEZONE;
  if (zone) {
    try {
      normalizeTimezone(zone);
    } catch (e) {
      throw new StartError(`CALENDAR_TIMEZONE ${(e as Error).message}, not "${zone}".`);
    }
  }
  const site = env.CALENDAR_SITE_URL;
  if (site && !/^https?:\/\/[^/\s]+/i.test(site)) {
    throw new StartError(`CALENDAR_SITE_URL must be an absolute http(s) URL such as https://example.org, not "${site}".`);
  }
  try {
    functionTimeoutMs(env);
  } catch (e) {
    throw new StartError((e as Error).message);
  }
}

async function main(): Promise<void> {
  const host = env.HOST || '127.0.0.1';
  const port = parsePort(env.PORT);
  const dataDir = env.CALENDAR_DATA_DIR || '.calendar-data';
  checkSettings();

  if (!env.CALENDAR_JWT_SECRET) {
    info('Using the development JWT secret (set CALENDAR_JWT_SECRET to use your own). Get a token with: npm run -s token -- --role editor');
  }
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal));
  // Orphaned (the parent that started us died without signalling): shut down rather than serve forever.
  const parent = process.ppid;
  setInterval(() => {
    if (!stopping && process.ppid !== parent) void shutdown('parent exited');
  }, 1000).unref();

  await checkPortFree(host, port);

  let endpoint = env.DYNAMODB_ENDPOINT;
  if (endpoint) {
    info(`Using DynamoDB at ${endpoint} (DYNAMODB_ENDPOINT).`);
  } else {
    const t0 = Date.now();
    ddb = await startDynamoDbLocal({ dataDir });
    endpoint = ddb.endpoint;
    info(
      `DynamoDB Local ready on ${endpoint} in ${Date.now() - t0} ms (${dataDir === ':memory:' ? 'in memory, nothing is kept' : `data in ${dataDir}`}).`,
    );
  }
  env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
  env.AWS_REGION ||= 'local';
  // Our own DynamoDB Local (-sharedDb) takes any credentials: never resolve a real profile for it.
  if (ddb || (!env.AWS_ACCESS_KEY_ID && !env.AWS_PROFILE)) {
    env.AWS_ACCESS_KEY_ID = 'local';
    env.AWS_SECRET_ACCESS_KEY = 'local';
    delete env.AWS_SESSION_TOKEN;
    delete env.AWS_PROFILE;
  }
  resetConfig();
  const { tableName } = loadConfig(env);

  const client = new DynamoDBClient({ endpoint, region: env.AWS_REGION });
  try {
    await ensureTable(client, tableName);
  } catch (e) {
    throw new StartError(`Could not create or find the table "${tableName}" at ${endpoint}: ${(e as Error).message}`);
  } finally {
    client.destroy();
  }

  // A table written before the non-empty counts existed gets them now, before anything else can write to it.
  try {
    const built = await rebuildNonEmpty({ onlyMissing: true });
    if (built.length) info(`Built the non-empty counts of ${built.join(', ')} (lib/store/nonempty-rebuild.ts).`);
  } catch (e) {
    throw new StartError(`Could not build the non-empty counts in "${tableName}": ${(e as Error).message}`);
  }

  // A table whose events were indexed for search by an earlier layout is indexed anew (lib/events/reindex.ts).
  try {
    const { reindexEvents, wordIndexCurrent } = await import('../events/reindex.js');
    if (!await wordIndexCurrent()) {
      const done = await reindexEvents();
      if (done) info(`Search index: indexed ${done} event(s) written before its present layout (lib/events/reindex.ts).`);
    }
  } catch (e) {
    throw new StartError(`Could not index the events of "${tableName}" for search: ${(e as Error).message}`);
  }

  server = createLocalServer();
  const actualPort = await listen(server, host, port);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  process.stdout.write(`Calendar API listening on http://${shownHost}:${actualPort}/${NAMESPACE}\n`);
  // Search index work that a stopped server left unfinished (lib/search/commit.ts), now and every ten minutes.
  void finishIndexWork(true);
  setInterval(() => void finishIndexWork(false), 600_000).unref();
  // The recurring series' horizon job (contract §13), now and daily; regenerations of requests that died, every minute.
  void horizonWork(true);
  setInterval(() => void horizonWork(true), 86_400_000).unref();
  setInterval(() => void horizonWork(false), 60_000).unref();
  // Venue moves whose requests died before moving every event (lib/geo/relocate.ts): at start, then every minute.
  void finishVenueMoves(Date.now() + 60_000);
  setInterval(() => void finishVenueMoves(Date.now()), 60_000).unref();
  // Imports (contract §20): the worker runs queued runs at once, the dispatcher due and stalled ones every minute.
  const { startLocalImports } = await import('./imports.js');
  startLocalImports(info);
}

async function finishVenueMoves(now: number): Promise<void> {
  try {
    const { repairRelocations } = await import('../geo/relocate.js');
    const done = await repairRelocations(100, now);
    if (done) info(`Geolocation: finished moving the events of ${done} venue(s) of earlier writes.`);
  } catch (e) {
    info(`Geolocation: could not finish earlier venue moves (${(e as Error).message}); it is tried again later.`);
  }
}

async function horizonWork(extend: boolean): Promise<void> {
  try {
    const { finishDeadRegenerations, runHorizonJob } = await import('../events/horizon.js');
    const r = extend ? await runHorizonJob() : await finishDeadRegenerations();
    if (r.finished || r.extended) info(`Recurring series: extended ${r.extended}, finished ${r.finished} regeneration(s) of earlier requests.`);
  } catch (e) {
    info(`Recurring series: the horizon job failed (${(e as Error).message}); it runs again later.`);
  }
}

async function finishIndexWork(all: boolean): Promise<void> {
  try {
    const [{ repairWordIndex }, { indexState }] = await Promise.all([import('../search/commit.js'), import('../events/index-state.js')]);
    const done = await repairWordIndex(indexState, 100, all ? 0 : 60_000);
    if (done) info(`Search index: finished the work of ${done} earlier write(s).`);
  } catch (e) {
    info(`Search index: could not finish earlier writes' work (${(e as Error).message}); it is tried again later.`);
  }
}

main().catch(async (e: unknown) => {
  const known = e instanceof StartError || e instanceof DynamoDbLocalError;
  process.stderr.write(`\nThe Calendar API did not start: ${known ? e.message : String((e as Error)?.stack ?? e)}\n`);
  await ddb?.stop();
  process.exit(1);
});
