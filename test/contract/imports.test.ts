/**
 * The /imports resource (contract §20) over HTTP on the suite's server, which does not set CALENDAR_IMPORT_ALLOW_PRIVATE:
 * routes, roles, shapes, 202 with Location, 404s and 400s, Idempotency-Key, the password never shown, and refused
 * addresses — a source whose host is this machine fails its run with "address not allowed" before any request reaches it.
 * Sources here never leave the machine: files, or loopback addresses that are refused.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { api, tokenFor } from '../support/api.js';
import { expectError, expectInvalid, uid } from './helpers/events.js';

/** A host that resolves to this machine: the suite's server refuses it before connecting (no request ever leaves). */
const HERE = 'http://localhost:9';
const FILE = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//imports//EN\r\nEND:VCALENDAR\r\n';
const fileSource = { type: 'ics', content: FILE };

let editor: string;
let author: string;

beforeAll(async () => {
  editor = await tokenFor('editor', `imports-editor-${uid()}`);
  author = await tokenFor('author', `imports-author-${uid()}`);
});

const create = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  api('/imports', { token: editor, body: { name: `File ${uid()}`, source: fileSource, ...body }, headers });

/** Polls an import until its last run has finished. */
async function finished(id: number, ms = 20_000): Promise<any> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    const res = await api(`/imports/${id}`, { token: editor });
    if (['done', 'failed'].includes(res.json.last_run?.state)) return res.json;
  }
  throw new Error(`import ${id} did not finish within ${ms} ms`);
}

describe('routes and roles', () => {
  test('only editors see and change imports: anonymous 401, everyone else 403, before the import is looked at', async () => {
    const created = await create({});
    for (const [method, path] of [['GET', '/imports'], ['POST', '/imports'], ['GET', `/imports/${created.json.id}`], ['PATCH', `/imports/${created.json.id}`],
      ['DELETE', `/imports/${created.json.id}`], ['POST', `/imports/${created.json.id}/run`], ['GET', '/imports/999999']] as const) {
      const body = method === 'POST' || method === 'PATCH' ? { name: 'x', source: fileSource } : undefined;
      expectError(await api(path, { method, body }), 401, 'rest_forbidden');
      for (const role of ['subscriber', 'contributor', 'author'] as const) {
        expectError(await api(path, { method, body, token: await tokenFor(role, `imports-${role}`) }), 403, 'rest_forbidden');
      }
    }
    // Administrators are editors (contract §4).
    expect((await api('/imports', { token: await tokenFor('administrator', `imports-admin-${uid()}`) })).status).toBe(200);
  });

  test('the routes answer under every base and prefix; other methods 405 with Allow; ids are digits', async () => {
    const created = await create({});
    const id = created.json.id;
    const origin = new URL(created.json.rest_url).origin;
    for (const root of ['/calendar/events/v1', '/de/calendar/events/v1', '/wp-json/tribe/events/v1']) {
      const res = await api(`${origin}${root}/imports/${id}`, { token: editor });
      expect([root, res.status, res.json.id]).toEqual([root, 200, id]);
      expect(res.json.rest_url).toBe(`${origin}${root}/imports/${id}`);
    }
    const put = await api(`/imports/${id}/run`, { method: 'PUT', token: editor });
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'POST, OPTIONS']);
    expectError(await api('/imports/abc', { token: editor }), 404, 'rest_no_route');
    expectError(await api('/imports/999999999', { token: editor }), 404, 'rest-import-not-found');
    for (const method of ['PATCH', 'DELETE'] as const) {
      expectError(await api('/imports/999999999', { method, token: editor, body: method === 'PATCH' ? { name: 'x' } : undefined }), 404,
        'rest-import-not-found');
    }
    expectError(await api('/imports/999999999/run', { method: 'POST', token: editor }), 404, 'rest-import-not-found');
  });

  test('the namespace index lists the routes with their arguments', async () => {
    const index = (await api('')).json;
    expect(Object.keys(index.routes)).toEqual(expect.arrayContaining(['/calendar/events/v1/imports', '/calendar/events/v1/imports/(?P<id>\\d+)',
      '/calendar/events/v1/imports/(?P<id>\\d+)/run']));
    const post = index.routes['/calendar/events/v1/imports'].endpoints.find((e: any) => e.methods.includes('POST'));
    expect(Object.keys(post.args)).toEqual(expect.arrayContaining(['name', 'source', 'schedule', 'status', 'categories', 'tags', 'authority',
      'start_date', 'end_date', 'language']));
  });
});

describe('shapes', () => {
  test('POST → 202 with the import, its first run queued, and Location; GET shows the same; fields in order', async () => {
    const res = await create({ name: 'My calendar', status: 'Draft', categories: ['Imported', 12], tags: 'a,b', authority: 'PRESERVE',
      start_date: '2031-01-01', end_date: '2031-12-31', language: 'de' });
    expect(res.status).toBe(202);
    const id = res.json.id;
    expect(res.headers.get('location')).toBe(`${new URL(res.json.rest_url).origin}/calendar/events/v1/imports/${id}`);
    expect(res.headers.get('etag')).toMatch(/^"\d+-[\w-]+"$/);
    expect(Object.keys(res.json)).toEqual(['id', 'name', 'source', 'schedule', 'authority', 'status', 'categories', 'tags', 'start_date', 'end_date',
      'created_utc', 'next_run_utc', 'last_run', 'rest_url']);
    expect(res.json).toMatchObject({ name: 'My calendar', source: { type: 'ics', content_length: FILE.length }, schedule: 'once',
      authority: 'preserve', status: 'draft', categories: ['Imported', 12], tags: ['a', 'b'], start_date: '2031-01-01 00:00:00',
      end_date: '2031-12-31 23:59:59', next_run_utc: null });
    expect(res.json.source.content).toBeUndefined();
    expect(res.json.created_utc).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(res.json.last_run).toEqual({ state: 'queued', started_utc: null, finished_utc: null, processed: 0, total: 0, created: 0, updated: 0,
      unchanged: 0, removed: 0, failed: 0, errors: [], message: '' });
    const read = await api(`/imports/${id}`, { token: editor });
    expect(read.status).toBe(200);
    expect({ ...read.json, last_run: undefined }).toEqual({ ...res.json, last_run: undefined });
    expect(read.headers.get('cache-control')).toBe('private, no-store');
  });

  test('defaults: once, overwrite, status null, the default window, language en; a missing name or source is 400', async () => {
    const res = await create({});
    expect(res.json).toMatchObject({ schedule: 'once', authority: 'overwrite', status: null, categories: [], tags: [], start_date: '', end_date: '' });
    const missing = await api('/imports', { token: editor, body: {} });
    expectError(missing, 400, 'rest_missing_callback_param');
    expect(missing.json.data.params).toEqual(['name', 'source']);
  });

  test('scheduled imports show when their next run is due', async () => {
    const before = Date.now();
    for (const [schedule, hours] of [['hourly', 1], ['daily', 24], ['weekly', 168]] as const) {
      const res = await api('/imports', { token: editor, body: { name: schedule, source: { type: 'ics', url: `${HERE}/feed.ics` },
        schedule } });
      expect([schedule, res.status]).toEqual([schedule, 202]);
      const due = Date.parse(`${res.json.next_run_utc.replace(' ', 'T')}Z`);
      expect(due).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + hours * 3_600_000);
      expect(due).toBeLessThanOrEqual(Date.now() + hours * 3_600_000);
      expect((await api(`/imports/${res.json.id}`, { method: 'DELETE', token: editor })).status).toBe(200);
    }
  });

  test('the list: paged, key imports, totals and links', async () => {
    await Promise.all([create({}), create({}), create({})]);
    const all = await api('/imports', { token: editor, query: { per_page: 50 } });
    expect(all.status).toBe(200);
    expect(Object.keys(all.json)).toEqual(['imports', 'rest_url', 'total', 'total_pages']);
    expect(all.json.total).toBe(all.json.imports.length);
    expect(all.json.imports.map((i: any) => i.id)).toEqual([...all.json.imports.map((i: any) => i.id)].sort((a: number, b: number) => a - b));
    const first = await api('/imports', { token: editor, query: { per_page: 2 } });
    expect([first.json.imports.length, first.headers.get('x-tec-total'), first.headers.get('x-tec-totalpages')])
      .toEqual([2, String(all.json.total), String(Math.ceil(all.json.total / 2))]);
    expect(first.json.next_rest_url).toMatch(/imports\?per_page=2&page=2$/);
    expectError(await api('/imports', { token: editor, query: { page: 1000 } }), 404, 'rest-import-archive-page-not-found');
  });
});

describe('validation', () => {
  test('a source is ics with url or content, or tec with the origin\'s API root; a file is imported once', async () => {
    const bad: [unknown, RegExp][] = [
      [{ type: 'rss', url: 'https://example.org/feed' }, /ics, tec/],
      [{ type: 'ics' }, /either url or content/],
      [{ type: 'ics', url: 'https://example.org/a.ics', content: FILE }, /either url or content/],
      [{ type: 'ics', url: 'ftp://example.org/a.ics' }, /http/],
      [{ type: 'tec', url: 'https://example.org/' }, /wp-json\/tribe\/events\/v1/],
      [{ type: 'tec', url: 'https://user:pw@example.org/wp-json/tribe/events/v1' }, /credentials/],
      [{ type: 'tec', url: 'https://example.org/wp-json/tribe/events/v1', password: 'abcd' }, /username/],
      ['https://example.org/a.ics', /object/],
    ];
    for (const [source, reason] of bad) {
      const res = await api('/imports', { token: editor, body: { name: 'x', source } });
      expectInvalid(res, 'source');
      expect([source, res.json.data.params.source]).toEqual([source, expect.stringMatching(reason)]);
    }
    expectInvalid(await create({ schedule: 'daily' }), 'schedule');
    expectInvalid(await create({ schedule: 'monthly' }), 'schedule');
    expectInvalid(await create({ authority: 'mine' }), 'authority');
    expectInvalid(await create({ status: 'trash' }), 'status');
    expectInvalid(await create({ language: 'fr' }), 'language');
    expectInvalid(await create({ start_date: 'not a date at all' }), 'start_date');
    expectInvalid(await create({ start_date: '2031-02-01', end_date: '2031-01-01' }), 'end_date');
  });

  test('a literal private or loopback address is refused at once (400): the stack never imports from them', async () => {
    for (const url of ['http://127.0.0.1:8080/a.ics', 'http://[::1]/a.ics', 'http://10.1.2.3/a.ics', 'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:127.0.0.1]/a.ics']) {
      const res = await api('/imports', { token: editor, body: { name: 'x', source: { type: 'ics', url } } });
      expectInvalid(res, 'source');
      expect(res.json.data.params.source).toMatch(/address not allowed/);
    }
  });

  test('PATCH changes only what it sends; the source\'s type stays; a file stays once', async () => {
    const id = (await create({ name: 'Before', categories: ['One'] })).json.id;
    const res = await api(`/imports/${id}`, { method: 'PATCH', token: editor, body: { name: 'After' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: 'After', categories: ['One'], source: { type: 'ics' } });
    const viaPut = await api(`/imports/${id}`, { method: 'PUT', token: editor, body: { authority: 'retain' } });
    expect([viaPut.status, viaPut.json.authority, viaPut.json.name]).toEqual([200, 'retain', 'After']);
    const type = await api(`/imports/${id}`, { method: 'PATCH', token: editor, body: { source: { type: 'tec', url: 'https://example.org/wp-json/tribe/events/v1' } } });
    expectInvalid(type, 'source');
    expect(type.json.data.params.source).toMatch(/type stays ics/);
    expectInvalid(await api(`/imports/${id}`, { method: 'PATCH', token: editor, body: { schedule: 'weekly' } }), 'schedule');
    const toUrl = await api(`/imports/${id}`, { method: 'POST', token: editor, body: { source: { type: 'ics', url: `${HERE}/b.ics` }, schedule: 'weekly' } });
    expect([toUrl.status, toUrl.json.source, toUrl.json.schedule]).toEqual([200, { type: 'ics', url: `${HERE}/b.ics` }, 'weekly']);
    expect(toUrl.json.next_run_utc).toMatch(/^\d{4}-/);
    const cleared = await api(`/imports/${id}`, { method: 'PATCH', token: editor, body: { schedule: 'once', start_date: '2031-01-01', status: 'draft' } });
    expect([cleared.json.next_run_utc, cleared.json.start_date, cleared.json.status]).toEqual([null, '2031-01-01 00:00:00', 'draft']);
    const defaults = await api(`/imports/${id}`, { method: 'PATCH', token: editor, body: { start_date: '', status: '' } });
    expect([defaults.json.start_date, defaults.json.status]).toEqual(['', null]);
  });
});

describe('tec credentials', () => {
  test('the password is kept but never shown; the username is; "" removes them', async () => {
    const password = 'abcd EFGH ijkl MNOP qrst UVWX';
    const url = `${HERE}/wp-json/tribe/events/v1`;
    const res = await api('/imports', { token: editor, body: { name: 'Origin', source: { type: 'tec', url, username: 'importer', password } } });
    expect(res.status).toBe(202);
    expect(res.json.source).toEqual({ type: 'tec', url, username: 'importer' });
    const id = res.json.id;
    for (const answer of [res, await api(`/imports/${id}`, { token: editor }), await api('/imports', { token: editor, query: { per_page: 50 } })]) {
      expect(answer.text).not.toMatch(/abcd|EFGH|qrst/);
    }
    // A PATCH without a password keeps the one kept.
    const renamed = await api(`/imports/${id}`, { method: 'PATCH', token: editor, body: { source: { type: 'tec', url } } });
    expect(renamed.json.source.username).toBe('importer');
    // Another site never gets this one's password.
    const moved = await api(`/imports/${id}`, { method: 'PATCH', token: editor, body: { source: { type: 'tec', url: 'http://localhost:10/wp-json/tribe/events/v1' } } });
    expect(moved.json.source).toEqual({ type: 'tec', url: 'http://localhost:10/wp-json/tribe/events/v1' });
    await api(`/imports/${id}`, { method: 'PATCH', token: editor, body: { source: { type: 'tec', url, username: 'importer', password } } });
    const cleared = await api(`/imports/${id}`, { method: 'PATCH', token: editor, body: { source: { type: 'tec', url, username: '' } } });
    expect(cleared.json.source).toEqual({ type: 'tec', url });
    expect((await api(`/imports/${id}`, { method: 'DELETE', token: editor })).status).toBe(200);
  });
});

describe('delete', () => {
  test('DELETE → 200 with the import as it was, then 404; ?delete_events=true → 202', async () => {
    const a = (await create({})).json;
    const gone = await api(`/imports/${a.id}`, { method: 'DELETE', token: editor });
    expect([gone.status, gone.json.id, gone.json.name]).toEqual([200, a.id, a.name]);
    expectError(await api(`/imports/${a.id}`, { token: editor }), 404, 'rest-import-not-found');
    expectError(await api(`/imports/${a.id}`, { method: 'DELETE', token: editor }), 404, 'rest-import-not-found');
    const list = await api('/imports', { token: editor, query: { per_page: 50 } });
    expect(list.json.imports.map((i: any) => i.id)).not.toContain(a.id);
    const b = (await create({})).json;
    const queued = await api(`/imports/${b.id}`, { method: 'DELETE', token: editor, query: { delete_events: 'true' } });
    expect([queued.status, queued.json.id]).toEqual([202, b.id]);
    expectError(await api(`/imports/${b.id}/run`, { method: 'POST', token: editor }), 404, 'rest-import-not-found');
  });
});

describe('Idempotency-Key (contract §17)', () => {
  test('a repeated create replays the first answer and creates one import; another body with the key is 422', async () => {
    const key = `imports-${uid()}`;
    const body = { name: `Keyed ${uid()}`, source: fileSource };
    const first = await api('/imports', { token: editor, body, headers: { 'Idempotency-Key': key } });
    const again = await api('/imports', { token: editor, body, headers: { 'Idempotency-Key': key } });
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([202, 202, 'true']);
    expect([again.json.id, again.headers.get('location')]).toEqual([first.json.id, first.headers.get('location')]);
    const list = await api('/imports', { token: editor, query: { per_page: 50 } });
    expect(list.json.imports.filter((i: any) => i.name === body.name)).toHaveLength(1);
    expectError(await api('/imports', { token: editor, body: { ...body, name: 'Other' }, headers: { 'Idempotency-Key': key } }), 422,
      'rest_idempotency_key_reused');
    // Keys belong to their user: an author's key is never an editor's.
    expectError(await api('/imports', { token: author, body, headers: { 'Idempotency-Key': key } }), 403, 'rest_forbidden');
  });
});

describe('fetching', () => {
  let server: Server;
  let requests = 0;
  let port = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      res.end(FILE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test('a host that resolves to this machine fails the run with "address not allowed", and no request reaches it', async () => {
    for (const source of [{ type: 'ics', url: `http://localhost:${port}/calendar.ics` },
      { type: 'tec', url: `http://localhost:${port}/wp-json/tribe/events/v1` }]) {
      const res = await api('/imports', { token: editor, body: { name: 'Local', source } });
      expect(res.status).toBe(202);
      const done = await finished(res.json.id);
      expect([source.type, done.last_run.state, done.last_run.message]).toEqual([source.type, 'failed', 'address not allowed']);
      expect(done.last_run.finished_utc).toMatch(/^\d{4}-/);
    }
    expect(requests).toBe(0);
  });

  test('a loopback address written any way (dotted, decimal, hex, octal, short, IPv6, IPv4-mapped) is refused at once, and no request reaches it', async () => {
    const six = createServer((_req, res) => {
      requests++;
      res.end(FILE);
    });
    await new Promise<void>((resolve) => six.listen(port, '::1', resolve));
    try {
      const hosts = ['127.0.0.1', '2130706433', '0x7f000001', '0177.0.0.1', '127.1', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]'];
      for (const host of hosts) {
        const res = await api('/imports', { token: editor, body: { name: 'Local', source: { type: 'ics', url: `http://${host}:${port}/calendar.ics` } } });
        expectInvalid(res, 'source');
        expect([host, res.json.data.params.source]).toEqual([host, 'url: address not allowed']);
      }
    } finally {
      await new Promise((resolve) => six.close(resolve));
    }
    expect(requests).toBe(0);
  });
});
