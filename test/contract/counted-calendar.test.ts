/**
 * Plain lists answered from count items, on a calendar of their own: a second local API on a fresh table of
 * the test DynamoDB, with events seeded by the benchmark's seeder (through the store's own create items, so
 * the count and span items are the product's). Every answer is compared with the generated data itself, so
 * the default list — which no shared-table test can pin down — is checked exactly: totals, order, deep pages.
 * Venues and organizers created through this API check the per-kind status counts the same way.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../lib/local/dynamodb-local.js';
import type { EventItem } from '../../lib/events/item.js';
import { defaultWindow } from '../bench/baseline.js';
import { EventGenerator, seedEvents, type LinkPools } from '../bench/seed.js';
import { api, meterOf, tokenFor, type FormValue } from '../support/api.js';
import { startLocalApi, stopLocalApi } from '../support/global-setup.js';

const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT!;
const table = `calendar-counted-${randomUUID().slice(0, 8)}`;
const raw = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const doc = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const range = (n: number, from: number) => Array.from({ length: n }, (_, i) => from + i);
const N = 600;
const FIRST_ID = 10_000_000;
const NOW = new Date();

let server: ChildProcess;
let base: string;
let events: EventItem[];
let editor: string;
/** The venue, organizer and terms the seeded events link to, created through the API. */
let pools: LinkPools;

beforeAll(async () => {
  await ensureTable(raw, table);
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const started = await startLocalApi(root, {
    PORT: '0', HOST: '127.0.0.1', CALENDAR_DATA_DIR: ':memory:', CALENDAR_TIMEZONE: 'UTC',
    CALENDAR_JWT_SECRET: process.env.CALENDAR_TEST_JWT_SECRET!, CALENDAR_JWT_ISSUER: '', CALENDAR_SITE_URL: '',
    DYNAMODB_ENDPOINT: endpoint, CALENDAR_TABLE_NAME: table, CALENDAR_METER: '1',
  }, createWriteStream(join(tmpdir(), `calendar-counted-${process.pid}.log`)));
  server = started.child;
  base = started.url;
  editor = await tokenFor('editor', 'counted-calendar-editor');
  const make = async (path: string, body: Record<string, FormValue>) => {
    const res = await api(`${base}${path}`, { method: 'POST', token: editor, body });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
    return res.json.id as number;
  };
  pools = {
    venues: [await make('/venues', { venue: 'Pool venue 1' }), await make('/venues', { venue: 'Pool venue 2' })],
    organizers: [await make('/organizers', { organizer: 'Pool organizer' })],
    categories: [await make('/categories', { name: 'Pool category 1' }), await make('/categories', { name: 'Pool category 2' })],
    tags: [await make('/tags', { name: 'Pool tag' })],
    authors: [1, 2],
  };
  await seedEvents({ client: doc, table, n: N, firstId: FIRST_ID, seed: 5, now: NOW, pools, concurrency: 4 });
  const gen = new EventGenerator(pools, 5, NOW);
  events = range(N, FIRST_ID).map((id) => gen.event(id).item);
}, 120_000);

afterAll(async () => {
  if (server) await stopLocalApi(server);
  await raw.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
  raw.destroy();
});

const get = (path: string, query: Record<string, FormValue> = {}, token?: string) => api(`${base}${path}`, { query, token });

const byStart = (a: EventItem, b: EventItem) => (a.startUtc === b.startUtc ? a.id - b.id : a.startUtc < b.startUtc ? -1 : 1);

/** The events a list of [from, to] (inclusive UTC start/end bounds) holds for these statuses, in list order. */
const expected = (from: string, to: string, statuses: string[]) => events
  .filter((e) => statuses.includes(e.status) && !e.hidden && e.startUtc >= from && e.endUtc <= to)
  .sort(byStart).map((e) => e.id);

async function expectList(query: Record<string, FormValue>, want: number[], pages: number[], token?: string): Promise<void> {
  for (const page of pages) {
    const res = await get('/events', { ...query, page }, token);
    expect(res.status).toBe(200);
    expect(res.json.total).toBe(want.length);
    expect(res.headers.get('x-tec-total')).toBe(String(want.length));
    expect(res.json.events.map((e: { id: number }) => e.id)).toEqual(want.slice((page - 1) * 10, page * 10));
  }
}

describe('GET /events from counts on a seeded calendar', () => {
  it('the default list (no parameters): exact total and the right events on the first, a middle and the last page', async () => {
    const w = defaultWindow(NOW);
    const want = expected(w.startFrom, w.endTo, ['publish']);
    expect(want.length).toBeGreaterThan(150); // the calendar really fills the window
    const last = Math.ceil(want.length / 10);
    await expectList({}, want, [1, 2, 7, last]);
    expect((await get('/events', { page: last + 1 })).status).toBe(404);
  });

  it('reads a small part of the window: count items, not every event in it; deeper pages read further', async () => {
    const itemsRead = async (query: Record<string, FormValue>) =>
      meterOf(await get('/events', query)).items!;
    const w = defaultWindow(NOW);
    const inWindow = events.filter((e) => !e.hidden && e.startUtc >= w.startFrom && e.startUtc <= w.endTo).length;
    const first = await itemsRead({});
    expect(first).toBeLessThan(inWindow / 2);
    const deep = await itemsRead({ page: 10 });
    expect(deep).toBeGreaterThan(first);
    expect(deep - first).toBeLessThanOrEqual(2 * 9 * 10); // at most two index items per position skipped
  });

  it('an editor\'s default list holds every status but trash; a status filter narrows it', async () => {
    const w = defaultWindow(NOW);
    await expectList({}, expected(w.startFrom, w.endTo, ['publish', 'future', 'draft', 'pending', 'private']), [1, 3], editor);
    await expectList({ status: 'draft,private' }, expected(w.startFrom, w.endTo, ['draft', 'private']), [1], editor);
  });

  it('windows of one month, several months and strict hours inside days', async () => {
    const month = new Date(Date.UTC(NOW.getUTCFullYear(), NOW.getUTCMonth() + 3, 1)).toISOString().slice(0, 7);
    const lastDay = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);
    await expectList({ start_date: `${month}-01`, end_date: lastDay }, expected(`${month}-01 00:00:00`, `${lastDay} 23:59:59`, ['publish']), [1]);
    const from = new Date(NOW.getTime() - 400 * 86_400_000).toISOString().slice(0, 10);
    const to = new Date(NOW.getTime() + 200 * 86_400_000).toISOString().slice(0, 10);
    await expectList({ start_date: from, end_date: to }, expected(`${from} 00:00:00`, `${to} 23:59:59`, ['publish']), [1, 5]);
    await expectList({ start_date: `${from}T13:30:00Z`, end_date: `${to}T06:15:00Z`, strict_dates: 'true' },
      expected(`${from} 13:30:00`, `${to} 06:15:00`, ['publish']), [1]);
  });
});

describe('GET /venues and /organizers from the kind\'s status counts', () => {
  it('count what each caller sees, in the list\'s order, through creates, status changes, trash and deletes', async () => {
    const author = await tokenFor('author', 'counted-calendar-author');
    const made: { id: number; status: string }[] = pools.organizers.map((id) => ({ id, status: 'publish' }));
    for (const [i, status] of ['publish', 'draft', 'publish', 'private', 'publish', 'pending', 'publish', 'publish'].entries()) {
      const res = await api(`${base}/organizers`, { method: 'POST', token: i % 2 ? author : editor, body: { organizer: `Counted organizer ${i}`, status } });
      expect(res.status).toBe(201);
      made.push({ id: res.json.id, status: res.json.status });
    }
    const check = async () => {
      const newestFirst = [...made].reverse();
      const anon = newestFirst.filter((o) => o.status === 'publish').map((o) => o.id);
      const all = newestFirst.filter((o) => o.status !== 'trash').map((o) => o.id);
      for (const [token, want, query] of [[undefined, anon, {}], [editor, all, {}], [editor, newestFirst.filter((o) => o.status === 'trash').map((o) => o.id), { status: 'trash' }]] as const) {
        for (const page of [1, 2]) {
          const res = await get('/organizers', { ...query, per_page: 3, page }, token);
          if (want.length <= (page - 1) * 3 && page > 1) {
            expect(res.status).toBe(404);
            continue;
          }
          expect(res.status).toBe(200);
          expect(res.json.total).toBe(want.length);
          expect(res.json.organizers.map((o: { id: number }) => o.id)).toEqual(want.slice((page - 1) * 3, page * 3));
        }
      }
    };
    await check();
    const change = async (i: number, status: string) => {
      const o = made[i + pools.organizers.length]!;
      const res = await api(`${base}/organizers/${o.id}`, { method: 'POST', token: editor, body: { status } });
      expect(res.status).toBe(200);
      o.status = status;
    };
    await change(1, 'publish');
    await change(2, 'draft');
    const [trashed, deleted] = [made[4 + pools.organizers.length]!, made[6 + pools.organizers.length]!];
    expect((await api(`${base}/organizers/${trashed.id}`, { method: 'DELETE', token: editor })).status).toBe(200);
    trashed.status = 'trash';
    expect((await api(`${base}/organizers/${deleted.id}`, { method: 'DELETE', token: editor, query: { force: 'true' } })).status).toBe(200);
    made.splice(6 + pools.organizers.length, 1);
    await check();
    await change(4, 'publish'); // restored
    await check();
  });

  it('an event creating a venue inline counts it', async () => {
    const before = (await get('/venues')).json.total as number;
    const res = await api(`${base}/events`, { method: 'POST', token: editor,
      body: { title: 'Counted inline', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00', venue: { venue: 'Counted inline venue' } } });
    expect(res.status).toBe(201);
    const after = await get('/venues');
    expect(after.json.total).toBe(before + 1);
    expect(after.json.venues[0].id).toBe(res.json.venue.id);
  });
});
