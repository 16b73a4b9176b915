/**
 * Runs that die are taken up again and finish without duplicates; runs of one import never overlap (contract §20).
 * - A target instance is killed (SIGKILL) in the middle of a run; another started on its table takes the run over once its
 *   lease lapses, and the import ends with each source event brought in exactly once, counted as created.
 * - The narrowest window, a worker dying after it sent a create and before it recorded the event: the identity item says
 *   what was sent (its reference and fields), the run taken over sends it again, and the once-item the first send's
 *   transaction put (lib/store/create-once.ts) answers the event that send made.
 * - The lease on the store itself: of many workers taking one run at once exactly one gets it; a lapsed lease is taken
 *   over, and the worker that lost it can no longer save.
 */
import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { readTecSource, type SourceFetcher } from '../../lib/imports/tec.js';
import { startLocalApi, stopLocalApi } from '../support/global-setup.js';
import type { OwnServer } from '../support/own-server.js';
import {
  eventsIn, finished, instanceOf, type Instance, rerun, SOURCE_SECRET, startInstance, TARGET_ENV, TARGET_SECRET, tecUrl,
} from './helpers/imports.js';

const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
if (!endpoint) throw new Error('CALENDAR_TEST_DYNAMODB_ENDPOINT is not set: the global setup did not start DynamoDB Local');
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: process.env.AWS_REGION || 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));

const TABLE = `imports-resume-${Date.now()}`;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OWNER = 'imports-resume-editor';
const SLOW = 180_000;

let source: Instance;
let target: Instance;
let child: ChildProcess | null = null;

/** A target on TABLE, in a process of the test's own, so that it can be killed. */
async function startTarget(n: number): Promise<Instance> {
  const started = await startLocalApi(ROOT, {
    PORT: '0', HOST: '127.0.0.1', CALENDAR_DATA_DIR: ':memory:', DYNAMODB_ENDPOINT: endpoint!, CALENDAR_TABLE_NAME: TABLE,
    CALENDAR_JWT_SECRET: TARGET_SECRET, CALENDAR_JWT_ISSUER: '', CALENDAR_TIMEZONE: 'UTC', CALENDAR_SITE_URL: '', CALENDAR_METER: '', ...TARGET_ENV,
  }, createWriteStream(join(tmpdir(), `imports-resume-target-${n}-${process.pid}.log`)));
  child = started.child;
  const server: OwnServer = { url: started.url, origin: new URL(started.url).origin, stop: () => stopLocalApi(started.child) };
  return instanceOf(server, TARGET_SECRET, OWNER);
}

beforeAll(async () => {
  [source, target] = await Promise.all([startInstance('imports-resume-source', SOURCE_SECRET), startTarget(1)]);
}, 120_000);

afterAll(async () => {
  await Promise.all([source?.server.stop(), target?.server.stop()]);
});

const seed = (title: string, start: string, end: string) =>
  source.ok('POST', '/events', { title, status: 'publish', timezone: 'UTC', start_date: start, end_date: end });

describe('a run whose worker dies', () => {
  test('is taken over by another server on the same table and finishes with every event once, counted once', async () => {
    const count = 150;
    for (let i = 0; i < count; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, count - i) }, (_, j) => {
        const n = i + j;
        const day = String(1 + (n % 28)).padStart(2, '0');
        const hour = String(6 + Math.floor(n / 28)).padStart(2, '0');
        return seed(`Bulk ${n}`, `2033-01-${day} ${hour}:00:00`, `2033-01-${day} ${hour}:30:00`);
      }));
    }
    const res = await target.call('POST', '/imports', { name: 'Killed', source: { type: 'tec', url: tecUrl(source) }, start_date: '2033-01-01',
      end_date: '2033-01-31' });
    expect(res.status).toBe(202);
    const id = res.json.id;
    let progress = 0;
    for (const end = Date.now() + 60_000; Date.now() < end && progress < 20; await new Promise((r) => setTimeout(r, 50))) {
      progress = (await target.ok('GET', `/imports/${id}`)).last_run.processed;
    }
    expect(progress).toBeGreaterThanOrEqual(20);
    child!.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    const killed = (await db.send(new GetCommand({ TableName: TABLE, Key: { PK: `IMPORT#${id}`, SK: 'RUN' } }))).Item!;
    expect(killed.state).toBe('running');
    expect(killed.processed).toBeLessThan(count);

    target = await startTarget(2);
    const done = await finished(target, id, 120_000);
    expect(done.last_run).toMatchObject({ state: 'done', total: count, processed: count, created: count, updated: 0, unchanged: 0, failed: 0 });
    const events = await eventsIn(target, '2033-01-01', '2033-01-31');
    expect(events).toHaveLength(count);
    expect(new Set(events.map((e) => e.title)).size).toBe(count);
    // And a rerun finds nothing to do.
    expect((await rerun(target, id)).last_run).toMatchObject({ unchanged: count, created: 0, updated: 0, removed: 0 });
  }, SLOW);

  test('after it sent a create and before it recorded the event: the create is sent again and answers the same event', async () => {
    await seed('First', '2033-02-03 10:00:00', '2033-02-03 11:00:00');
    const res = await target.call('POST', '/imports', { name: 'Crash window', source: { type: 'tec', url: tecUrl(source) }, start_date: '2033-02-01',
      end_date: '2033-02-28' });
    const id = res.json.id;
    expect((await finished(target, id)).last_run.created).toBe(1);
    const later = await seed('Second', '2033-02-10 10:00:00', '2033-02-10 11:00:00');
    // What the source says of it now (the reader the run uses), and the run the next POST /run will queue.
    const read = await readTecSource({ url: tecUrl(source) }, { window: { startUtc: '2033-02-01 00:00:00', endUtc: '2033-02-28 23:59:59' },
      limit: 100, fetch: loopbackFetch });
    const theirs = read.events.find((e) => e.key === `tec:${later.id}`)!;
    const run = (await db.send(new GetCommand({ TableName: TABLE, Key: { PK: `IMPORT#${id}`, SK: 'RUN' } }))).Item!;
    // The worker recorded the create, sent it, and died: the event exists, its identity item says only what was sent.
    const ref = `crash-${randomUUID()}`;
    const fields = { title: 'Second', start_date: '2033-02-10 10:00:00', end_date: '2033-02-10 11:00:00', timezone: 'UTC', all_day: false, status: 'publish' };
    const sent = await fetch(`${target.server.url}/events?translation_language=en`, { method: 'POST', body: JSON.stringify(fields),
      headers: { authorization: target.editor, 'content-type': 'application/json' } });
    expect(sent.status).toBe(201);
    const made = (await sent.json()) as { id: number };
    // The once-item the send's transaction put with the event (no HTTP request can ask for one: lib/store/create-once.ts).
    await db.send(new PutCommand({ TableName: TABLE, Item: { PK: `ONCE#${ref}`, SK: 'ONCE', id: made.id, expires: Math.floor(Date.now() / 1000) + 3600 } }));
    await db.send(new PutCommand({ TableName: TABLE, Item: { PK: `IMPORT#${id}`, SK: `K#${theirs.key}`, key: theirs.key, w: 1, hash: theirs.hash,
      startUtc: theirs.startUtc, endUtc: theirs.endUtc, rn: Number(run.n) + 1, act: 'c', pend: { ref, z: gzipSync(JSON.stringify(fields)) } } }));

    const again = await rerun(target, id);
    expect(again.last_run).toMatchObject({ state: 'done', total: 2, created: 1, unchanged: 1, failed: 0 });
    const seconds = (await eventsIn(target, '2033-02-01', '2033-02-28')).filter((e) => e.title === 'Second');
    expect(seconds.map((e) => e.id)).toEqual([made.id]);
  }, SLOW);
});

describe('the lease (lib/store/imports.ts, on DynamoDB Local)', () => {
  test('of twenty workers taking one run at once exactly one gets it; a lapsed lease is taken over; the loser cannot save', async () => {
    const saved = { ...process.env };
    const table = `imports-lease-${randomUUID().slice(0, 8)}`;
    const [{ resetConfig }, { setClient }, { ensureTable }, store] = await Promise.all([import('../../lib/config.js'),
      import('../../lib/store/client.js'), import('../../lib/local/dynamodb-local.js'), import('../../lib/store/imports.js')]);
    const raw = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    try {
      Object.assign(process.env, { CALENDAR_TABLE_NAME: table, AWS_ENDPOINT_URL_DYNAMODB: endpoint, AWS_REGION: 'local', AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local' });
      resetConfig();
      setClient(null);
      await ensureTable(raw, table);
      await db.send(new PutCommand({ TableName: table, Item: store.newRun(7, Date.now()) }));
      const now = Date.now();
      const tokens = Array.from({ length: 20 }, () => randomUUID());
      // Leases of 3 s: longer than the steps below take on a busy machine, short enough to wait for one to lapse.
      const taken = await Promise.all(tokens.map((t) => store.takeLease(7, t, now, 3000)));
      const winners = tokens.filter((_, i) => taken[i] !== null);
      expect(winners).toHaveLength(1);
      const counts = { processed: 1, total: 2, created: 1, updated: 0, unchanged: 0, removed: 0, failed: 0 };
      const savedAt = Date.now();
      expect(await store.saveProgress(7, winners[0]!, savedAt, 3000, counts, [])).toBe(true);
      const loser = tokens.find((t) => t !== winners[0])!;
      expect(await store.saveProgress(7, loser, Date.now(), 3000, counts, [])).toBe(false);
      // Held: nobody takes it. Lapsed (its worker died): the next one does, and the first can no longer save or finish.
      expect(await store.takeLease(7, loser, Date.now(), 3000)).toBeNull();
      await new Promise((r) => setTimeout(r, Math.max(0, savedAt + 3100 - Date.now())));
      const takenOver = await store.takeLease(7, loser, Date.now(), 60_000);
      expect(takenOver).toMatchObject({ state: 'running', processed: 1, lease: loser });
      expect(await store.saveProgress(7, winners[0]!, Date.now(), 3000, counts, [])).toBe(false);
      expect(await store.finishRun(7, winners[0]!, { state: 'done', finishedUtc: '2033-01-01 00:00:00', counts, errors: [], message: '' })).toBe(false);
      expect(await store.finishRun(7, loser, { state: 'done', finishedUtc: '2033-01-01 00:00:00', counts, errors: [], message: '' })).toBe(true);
      // Finished: nothing to take until a run is queued; a second queue while one is queued is refused.
      expect(await store.takeLease(7, randomUUID(), Date.now(), 3000)).toBeNull();
      await store.queueRun(7, Date.now());
      await expect(store.queueRun(7, Date.now())).rejects.toBeInstanceOf(store.RunBusy);
    } finally {
      const { restoreAndDropTable } = await import('../support/own-table.js');
      await restoreAndDropTable(raw, table, saved);
    }
  });
});

/** The tests' own fetcher for the reader: global fetch, to the loopback source only. */
const loopbackFetch: SourceFetcher = async (url, init) => {
  if (new URL(url).hostname !== '127.0.0.1') throw new Error(`the tests fetch loopback addresses only, not ${url}`);
  const res = await fetch(url, { headers: init.headers, redirect: 'manual' });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type') ?? '', url };
};
