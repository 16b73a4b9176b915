/**
 * Regenerating recurring series (contract §13) while others read, after a request died half-way, and as the horizon moves:
 *
 * - readers never see a series half regenerated: lists read while a series title change rewrites 200 occurrences show
 *   all old titles or all new ones, with the exact total, on every page;
 * - a regeneration whose request died (its series record changed, its registry entry past its deadline) is finished by
 *   the horizon job, which the local server runs at start;
 * - an open rule is written up to CALENDAR_RECURRENCE_HORIZON_DAYS, and a server with a longer horizon extends it.
 *
 * The last two start servers of their own over one table, with a short horizon, and write to the table directly to
 * stand for the request that died.
 */
import { createWriteStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../lib/local/dynamodb-local.js';
import { signLocalToken } from '../../lib/local/token-sign.js';
import { api, tokenFor } from '../support/api.js';
import { startLocalApi, stopLocalApi } from '../support/global-setup.js';
import { send, type Answer } from '../support/own-server.js';
import { uniqueWord, type Json } from './helpers/list.js';

describe('readers during a regeneration', () => {
  test('every list read while 200 occurrences are rewritten shows all old or all new titles, and the exact total', async () => {
    const token = await tokenFor('editor', 'contract-regeneration-editor');
    const [before, after] = [`Before ${uniqueWord()}`, `After ${uniqueWord()}`];
    const created = await api('/events', { method: 'POST', token, body: { title: before, status: 'publish', start_date: '2027-02-01 07:00:00',
      end_date: '2027-02-01 08:00:00', timezone: 'Europe/Berlin', recurrence: ['RRULE:FREQ=DAILY;COUNT=200'] } });
    expect(created.status).toBe(201);
    const id = created.json.id as number;
    let done = false;
    const seen: { title: string; total: number; startedBeforeEnd: boolean }[] = [];
    const reader = async (page: number) => {
      while (!done) {
        const res = await api(`/events/${id}/occurrences`, { query: { start_date: '2027-01-01', per_page: 50, page } });
        expect(res.status).toBe(200);
        const titles = new Set(res.json.events.map((e: Json) => e.title));
        expect(titles.size).toBe(1); // never a page of both
        seen.push({ title: [...titles][0] as string, total: res.json.total, startedBeforeEnd: !done });
      }
    };
    const readers = [1, 2, 3, 4].map(reader);
    const changed = await api(`/events/${id}`, { method: 'POST', token, body: { title: after } });
    done = true;
    await Promise.all(readers);
    expect(changed.status).toBe(200);
    expect(seen.every((s) => s.total === 200)).toBe(true);
    expect(seen.filter((s) => s.startedBeforeEnd).length).toBeGreaterThan(0);
    expect(new Set(seen.map((s) => s.title))).toEqual(new Set(seen.some((s) => s.title === before) ? [before, after] : [after]));
    const last = await api(`/events/${id}/occurrences`, { query: { start_date: '2027-01-01', per_page: 50, page: 4 } });
    expect(last.json.events.map((e: Json) => e.title)).toEqual(Array(50).fill(after));
  });
});

describe('the horizon job', () => {
  const SECRET = 'recurrence-horizon-secret-0123456789abcdef';
  const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT!;
  const table = `horizon-${randomUUID().slice(0, 8)}`;
  const raw = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const doc = DynamoDBDocumentClient.from(raw);
  const root = fileURLToPath(new URL('../..', import.meta.url));
  let child: ChildProcess | null = null;
  let base: string;
  let editor: string;

  async function start(horizonDays: number): Promise<void> {
    if (child) await stopLocalApi(child);
    const started = await startLocalApi(root, {
      PORT: '0', HOST: '127.0.0.1', CALENDAR_DATA_DIR: ':memory:', DYNAMODB_ENDPOINT: endpoint, CALENDAR_TABLE_NAME: table,
      CALENDAR_JWT_SECRET: SECRET, CALENDAR_JWT_ISSUER: '', CALENDAR_TIMEZONE: 'UTC', CALENDAR_SITE_URL: '',
      CALENDAR_RECURRENCE_HORIZON_DAYS: String(horizonDays),
    }, createWriteStream(join(tmpdir(), `recurrence-horizon-${process.pid}.log`), { flags: 'a' }));
    child = started.child;
    base = started.url;
  }

  beforeAll(async () => {
    await ensureTable(raw, table);
    editor = `Bearer ${await signLocalToken({ secret: SECRET, role: 'editor', sub: 'horizon-editor' })}`;
    await start(30);
  }, 90_000);
  afterAll(async () => {
    if (child) await stopLocalApi(child);
    await raw.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
    raw.destroy();
  });

  const call = (method: string, path: string, body?: unknown): Promise<Answer> => send(`${base}${path}`, { method, authorization: editor, body });
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const occurrences = async (id: number): Promise<Json[]> => {
    const out: Json[] = [];
    for (let page = 1; ; page++) {
      const res = await call('GET', `/events/${id}/occurrences?per_page=50&page=${page}`);
      expect(res.status).toBe(200);
      out.push(...(res.json as Json).events);
      if (!(res.json as Json).next_rest_url) return out;
    }
  };
  /** Polls until `check` holds (the job runs after the server starts listening), for at most 30 s. */
  async function eventually(check: () => Promise<boolean>): Promise<void> {
    const until = Date.now() + 30_000;
    while (!(await check())) {
      if (Date.now() > until) throw new Error('the horizon job did not do its work within 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  test('an open rule is written up to the horizon; a longer horizon extends it; a dead regeneration is finished', async () => {
    const open = await call('POST', '/events', { title: 'Open daily', status: 'publish', start_date: `${tomorrow} 09:00:00`,
      end_date: `${tomorrow} 10:00:00`, recurrence: ['RRULE:FREQ=DAILY'] });
    expect(open.status).toBe(201);
    const openId = (open.json as Json).id as number;
    const first = await occurrences(openId);
    expect(first.length).toBeGreaterThanOrEqual(29);
    expect(first.length).toBeLessThanOrEqual(31);

    const other = await call('POST', '/events', { title: 'Old name', status: 'publish', start_date: `${tomorrow} 12:00:00`,
      end_date: `${tomorrow} 13:00:00`, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
    const otherId = (other.json as Json).id as number;
    // A series write whose request died after its record's transaction: new title, its hold left in the registry.
    const record = (await doc.send(new GetCommand({ TableName: table, Key: { PK: `POST#${otherId}`, SK: 'POST' } }))).Item!;
    await doc.send(new UpdateCommand({ TableName: table, Key: { PK: `POST#${otherId}`, SK: 'POST' },
      UpdateExpression: 'SET tr.en.title = :t, v = :v, busy = :b', ExpressionAttributeValues: { ':t': 'New name', ':v': record.v + 1, ':b': 'dead' } }));
    await doc.send(new UpdateCommand({ TableName: table, Key: { PK: 'SERIES', SK: 'BUSY' }, UpdateExpression: 'SET #s = :v',
      ExpressionAttributeNames: { '#s': `s${otherId}` }, ExpressionAttributeValues: { ':v': `dead ${Date.now() - 1000}` } }));
    // Lists do not wait for a request that is gone.
    expect((await occurrences(otherId)).map((o) => o.title)).toEqual(['Old name', 'Old name', 'Old name']);

    await start(60);
    await eventually(async () => (await occurrences(openId)).length >= 59);
    expect((await occurrences(openId)).length).toBeLessThanOrEqual(61);
    await eventually(async () => (await occurrences(otherId)).every((o) => o.title === 'New name'));
    const registry = (await doc.send(new GetCommand({ TableName: table, Key: { PK: 'SERIES', SK: 'BUSY' } }))).Item ?? {};
    expect(Object.keys(registry).filter((k) => k.startsWith('s'))).toEqual([]);
    const series = (await doc.send(new GetCommand({ TableName: table, Key: { PK: `POST#${otherId}`, SK: 'POST' } }))).Item!;
    expect(series.busy).toBeUndefined();
  }, 120_000);
});
