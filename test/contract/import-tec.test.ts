/**
 * The reader of tec import sources (contract §20, lib/imports/tec.ts), against a second local instance of this service
 * — which speaks the origin's API under /wp-json/tribe/events/v1 — read anonymously and with an application password
 * (§12), and against a loopback server of crafted answers for what no well-behaved source sends (other pages'
 * origins, loops, malformed records, HTML). Every request goes to a loopback address.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readTecSource, type SourceFetcher, type TecReadOptions } from '../../lib/imports/tec.js';
import type { SourceEvent, SourceRead } from '../../lib/imports/source.js';
import { signLocalToken } from '../../lib/local/token-sign.js';
import { send, startOwnServer, type OwnServer } from '../support/own-server.js';

const SECRET = 'import-tec-secret-0123456789abcdef0123';
const THEIRS = '/wp-json/tribe/events/v1';
const MARCH = { startUtc: '2031-03-01 00:00:00', endUtc: '2031-04-30 23:59:59' };
const JUNE = { startUtc: '2033-06-01 00:00:00', endUtc: '2033-06-30 23:59:59' };
const BULK = 105;

let source: OwnServer;
let root: string;
let editor: string;
let crafted: Server;
let craftedOrigin: string;

/** Every URL the reader fetched, in order. */
let fetched: string[] = [];

/** The tests' stand-in for lib/imports/fetch.ts: global fetch, to loopback addresses only, credentials as HTTP Basic. */
const loopbackFetch: SourceFetcher = async (url, init) => {
  const { hostname } = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(hostname)) throw new Error(`the tests fetch loopback addresses only, not ${url}`);
  fetched.push(url);
  const headers = { ...init.headers };
  if (init.credentials) {
    headers.authorization = `Basic ${Buffer.from(`${init.credentials.username}:${init.credentials.password}`).toString('base64')}`;
  }
  const res = await fetch(url, { headers, redirect: 'manual' });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type') ?? '', url };
};

const read = (url: string, window = MARCH, more: { username?: string; password?: string; limit?: number } = {}): Promise<SourceRead> => {
  fetched = [];
  const options: TecReadOptions = { window, limit: more.limit ?? 10_000, fetch: loopbackFetch };
  return readTecSource({ url, username: more.username, password: more.password }, options);
};

async function call(method: string, path: string, body?: unknown): Promise<any> {
  const res = await send(`${source.origin}${THEIRS}${path}`, { method, authorization: editor, body });
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.json;
}

const create = (body: Record<string, unknown>): Promise<any> => call('POST', '/events', { status: 'publish', timezone: 'UTC', ...body });

/** What the test seeds, by name. */
const seeded: Record<string, any> = {};
let occurrences: any[] = [];

async function seed(): Promise<void> {
  seeded.concert = await create({
    title: 'Rock & Roll Night', description: '<p>Loud <b>music</b> &amp; more</p><script>alert(1)</script>', excerpt: '<p>Short</p>',
    timezone: 'Europe/Berlin', start_date: '2031-03-10 19:00:00', end_date: '2031-03-10 21:30:00', slug: 'rock-night',
    website: 'https://example.org/night?a=1&b=2', cost: '15€', featured: true, categories: ['Music', 'Rock & Roll'], tags: ['live'],
    venue: { venue: 'Hall & Co', address: 'Main St 1', city: 'Berlin', country: 'Germany', province: 'Brandenburg', state: 'BE',
      zip: '10115', phone: '+49 30 1234', website: 'https://hall.example.org/', geo_lat: 52.52, geo_lng: 13.405 },
    organizer: [{ organizer: 'Acme Events', email: 'team@acme.example.org', phone: '+49 30 5678', website: 'https://acme.example.org/' },
      { organizer: 'Solo Organiser' }],
  });
  seeded.draft = await create({ title: 'Draft Meeting', status: 'draft', timezone: 'America/New_York', start_date: '2031-03-11 10:00:00',
    end_date: '2031-03-11 11:00:00' });
  seeded.private = await create({ title: 'Private Dinner', status: 'private', start_date: '2031-03-12 20:00:00', end_date: '2031-03-12 23:00:00' });
  seeded.locked = await create({ title: 'Members Only', password: 'letmein', description: '<p>Secret agenda</p>', cost: '5',
    start_date: '2031-03-13 18:00:00', end_date: '2031-03-13 19:00:00', categories: ['Music'], venue: { venue: 'Back Room' } });
  seeded.allDay = await create({ title: 'Market Day', all_day: true, timezone: 'Europe/Berlin', start_date: '2031-03-14', end_date: '2031-03-14',
    venue: { venue: 'Market Square', city: 'Berlin' } });
  seeded.multiDay = await create({ title: 'Festival', timezone: 'Asia/Kolkata', start_date: '2031-03-15 18:00:00', end_date: '2031-03-17 12:00:00' });
  seeded.edge = await create({ title: 'First Thing', start_date: '2031-03-01 00:00:00', end_date: '2031-03-01 01:00:00' });
  seeded.early = await create({ title: 'Too Early', start_date: '2031-02-28 23:00:00', end_date: '2031-03-01 10:00:00' });
  seeded.late = await create({ title: 'Too Late', start_date: '2031-04-30 22:00:00', end_date: '2031-05-01 02:00:00' });
  // A weekly class across the end of daylight-saving time's absence (Berlin moves to summer time on 30 March 2031),
  // its second occurrence edited and its fourth deleted at the source.
  seeded.series = await create({ title: 'Weekly Class', timezone: 'Europe/Berlin', start_date: '2031-03-20 09:00:00',
    end_date: '2031-03-20 10:00:00', slug: 'weekly-class', categories: ['Courses'], recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
  const all = (await call('GET', `/events/${seeded.series.id}/occurrences?start_date=2031-01-01&end_date=2031-12-31&per_page=50`)).events;
  if (all.length !== 4) throw new Error(`the series has ${all.length} occurrences, not 4`);
  await call('POST', `/events/${all[1].id}`, { title: 'Weekly Class (room 2)' });
  await call('DELETE', `/events/${all[3].id}`);
  occurrences = all.slice(0, 3);
  for (let i = 0; i < BULK; i += 5) {
    await Promise.all([0, 1, 2, 3, 4].filter((j) => i + j < BULK).map((j) => {
      const n = i + j;
      const at = `2033-06-${String(1 + Math.floor(n / 5)).padStart(2, '0')} ${String(8 + (n % 5)).padStart(2, '0')}:00:00`;
      return create({ title: `Bulk ${n}`, start_date: at, end_date: at.replace(':00:00', ':30:00') });
    }));
  }
}

beforeAll(async () => {
  // The series lies beyond the default horizon of materialised occurrences (730 days).
  source = await startOwnServer('import-tec', { secret: SECRET, env: { CALENDAR_RECURRENCE_HORIZON_DAYS: '3660' } });
  root = `${source.origin}${THEIRS}`;
  editor = `Bearer ${await signLocalToken({ secret: SECRET, role: 'editor', sub: 'import-tec-editor' })}`;
  crafted = createServer((req, res) => answerCrafted(req.url ?? '/', res));
  await new Promise<void>((resolve) => crafted.listen(0, '127.0.0.1', resolve));
  craftedOrigin = `http://127.0.0.1:${(crafted.address() as AddressInfo).port}`;
  await seed();
}, 180_000);

afterAll(async () => {
  await new Promise((resolve) => crafted?.close(resolve));
  await source?.stop();
});

const byKey = (r: SourceRead): Map<string, SourceEvent> => new Map(r.events.map((e) => [e.key, e]));
const key = (record: { id: number }): string => `tec:${record.id}`;

describe('a source that runs the origin\'s API', () => {
  test('anonymously: the published events of the window, in start order, each mapped field by field', async () => {
    const result = await read(`${root}/`);
    expect(result.errors).toEqual([]);
    expect(result.truncated).toBeUndefined();
    expect(result.events.map((e) => e.key)).toEqual([seeded.edge, seeded.concert, seeded.locked, seeded.allDay, seeded.multiDay, ...occurrences]
      .map(key));
    const events = byKey(result);

    const concert = events.get(key(seeded.concert))!;
    expect(concert.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(concert).toEqual({
      key: key(seeded.concert), hash: concert.hash, overrides: [], startUtc: '2031-03-10 18:00:00', endUtc: '2031-03-10 20:30:00',
      fields: {
        title: 'Rock & Roll Night', description: '<p>Loud <b>music</b> &amp; more</p>', excerpt: '<p>Short</p>',
        start_date: '2031-03-10 19:00:00', end_date: '2031-03-10 21:30:00', all_day: false, timezone: 'Europe/Berlin',
        website: 'https://example.org/night?a=1&b=2', cost: '15€', featured: true, status: 'publish', slug: 'rock-night',
        venue: { venue: 'Hall & Co', address: 'Main St 1', city: 'Berlin', country: 'Germany', province: 'Brandenburg', state: 'BE',
          zip: '10115', phone: '+49 30 1234', website: 'https://hall.example.org/', geo_lat: 52.52, geo_lng: 13.405 },
        organizer: [{ organizer: 'Acme Events', email: 'team@acme.example.org', phone: '+49 30 5678', website: 'https://acme.example.org/' },
          { organizer: 'Solo Organiser' }],
        categories: ['Music', 'Rock & Roll'], tags: ['live'],
      },
    });

    // Locked by its password: skipped (removed), with what the source still shows of it.
    const locked = events.get(key(seeded.locked))!;
    expect(locked).toEqual({ key: key(seeded.locked), removed: 'protected', hash: locked.hash, overrides: [], startUtc: '2031-03-13 18:00:00',
      endUtc: '2031-03-13 19:00:00', fields: { title: 'Members Only', description: '', start_date: '2031-03-13 18:00:00',
        end_date: '2031-03-13 19:00:00', all_day: false, timezone: 'UTC', status: 'publish', slug: seeded.locked.slug } });

    expect(events.get(key(seeded.allDay))).toEqual({ key: key(seeded.allDay), hash: expect.any(String), overrides: [],
      startUtc: '2031-03-13 23:00:00', endUtc: '2031-03-14 22:59:59', fields: { title: 'Market Day', description: '',
        start_date: '2031-03-14 00:00:00', end_date: '2031-03-14 23:59:59', all_day: true, timezone: 'Europe/Berlin', featured: false,
        status: 'publish', slug: seeded.allDay.slug, venue: { venue: 'Market Square', city: 'Berlin' } } }); // no coordinates: this service shows 0
    expect(events.get(key(seeded.multiDay))).toMatchObject({ startUtc: '2031-03-15 12:30:00', endUtc: '2031-03-17 06:30:00',
      fields: { start_date: '2031-03-15 18:00:00', end_date: '2031-03-17 12:00:00', all_day: false, timezone: 'Asia/Kolkata' } });
    expect(events.get(key(seeded.edge))!.fields).not.toHaveProperty('website'); // the source shows its own page: not a website
  });

  test('a series: each listed occurrence is a single event keyed by its own id, with its own dates and edits, no slug', async () => {
    const events = byKey(await read(root));
    const imported = occurrences.map((o) => events.get(key(o))!);
    expect(imported.map((e) => [e.fields.title, e.fields.start_date, e.startUtc, e.endUtc])).toEqual([
      ['Weekly Class', '2031-03-20 09:00:00', '2031-03-20 08:00:00', '2031-03-20 09:00:00'],
      ['Weekly Class (room 2)', '2031-03-27 09:00:00', '2031-03-27 08:00:00', '2031-03-27 09:00:00'],
      ['Weekly Class', '2031-04-03 09:00:00', '2031-04-03 07:00:00', '2031-04-03 08:00:00'],
    ]);
    for (const e of imported) {
      expect(e.fields).not.toHaveProperty('slug');
      expect(e.fields).not.toHaveProperty('recurrence');
      expect(e.fields).toMatchObject({ timezone: 'Europe/Berlin', categories: ['Courses'], status: 'publish' });
      expect(e.overrides).toEqual([]);
    }
    expect(events.has(key(seeded.series))).toBe(false);
  });

  test('with an application password: drafts and private events too, asked for by status; a wrong password is refused', async () => {
    const made = await call('POST', '/application-passwords', { name: 'import' });
    const withPassword = await read(root, MARCH, { username: made.username, password: made.password });
    expect(withPassword.errors).toEqual([]);
    expect(withPassword.events.map((e) => e.key)).toEqual([seeded.edge, seeded.concert, seeded.draft, seeded.private, seeded.locked,
      seeded.allDay, seeded.multiDay, ...occurrences].map(key));
    expect(new URL(fetched[0]!).searchParams.get('status')).toBe('publish,future,draft,pending,private');
    const events = byKey(withPassword);
    expect(events.get(key(seeded.draft))).toMatchObject({ startUtc: '2031-03-11 14:00:00', fields: { title: 'Draft Meeting', status: 'draft',
      timezone: 'America/New_York', start_date: '2031-03-11 10:00:00' } });
    expect(events.get(key(seeded.private))!.fields.status).toBe('private');
    expect(events.get(key(seeded.locked))!.removed).toBe('protected'); // the list never unlocks it
    // What both reads see maps the same.
    const anonymous = byKey(await read(root));
    expect(new URL(fetched[0]!).searchParams.has('status')).toBe(false);
    for (const [k, e] of anonymous) expect(events.get(k)).toEqual(e);

    await expect(read(root, MARCH, { username: made.username, password: 'abcd efgh ijkl mnop qrst uvwx' })).rejects
      .toThrow(/refused to list its events \(HTTP 401.*check the username and application password/);
    await expect(read(root, MARCH, { username: made.username })).rejects.toThrow(/both username and password/);
  });

  test('the window: start_date and end_date as exact UTC instants; events starting before it or ending after it are not read', async () => {
    await read(root);
    const query = new URL(fetched[0]!).searchParams;
    expect(Object.fromEntries(query)).toEqual({ start_date: '2031-03-01T00:00:00Z', end_date: '2031-04-30T23:59:59Z', strict_dates: 'true',
      per_page: '50' });
    const narrow = await read(root, { startUtc: '2031-03-10 18:00:00', endUtc: '2031-03-14 22:59:58' });
    expect(narrow.events.map((e) => e.key)).toEqual([key(seeded.concert), key(seeded.locked)]);
    expect((await read(root, { startUtc: '2031-02-01 00:00:00', endUtc: '2031-02-28 23:59:59' })).events).toEqual([]);
  });

  test('pages: next_rest_url followed on the source, 50 events a page, every event once and in start order', async () => {
    const result = await read(root, JUNE);
    expect(result.errors).toEqual([]);
    expect(result.events.map((e) => e.fields.title)).toEqual(Array.from({ length: BULK }, (_, n) => `Bulk ${n}`));
    expect(fetched).toHaveLength(3);
    expect(fetched.map((url) => new URL(url).searchParams.get('page'))).toEqual([null, '2', '3']);
    for (const url of fetched) {
      expect(url.startsWith(`${root}/events`)).toBe(true);
      expect(new URL(url).searchParams.get('per_page')).toBe('50');
    }
  });

  test('the run\'s limit: the first events in start order, an error naming the limit; a source with exactly as many is whole', async () => {
    const cut = await read(root, JUNE, { limit: 100 });
    expect(cut.events.map((e) => e.fields.title)).toEqual(Array.from({ length: 100 }, (_, n) => `Bulk ${n}`));
    expect(cut.truncated).toBe(true);
    expect(cut.errors).toEqual([{ uid: '', message: 'the source lists more than 100 events in the window (the limit of a run): the first 100 '
      + 'in start order are imported' }]);
    const whole = await read(root, JUNE, { limit: BULK });
    expect(whole.events).toHaveLength(BULK);
    expect(whole.errors).toEqual([]);
    expect(whole.truncated).toBeUndefined();
  });

  test('the hash: the same for the same source event, another when the source changes it', async () => {
    const probe = await create({ title: 'Hash Probe', start_date: '2032-01-05 10:00:00', end_date: '2032-01-05 11:00:00', cost: '10' });
    const other = await create({ title: 'Hash Bystander', start_date: '2032-01-06 10:00:00', end_date: '2032-01-06 11:00:00' });
    const window = { startUtc: '2032-01-01 00:00:00', endUtc: '2032-01-31 23:59:59' };
    const before = byKey(await read(root, window));
    expect(byKey(await read(root, window))).toEqual(before);
    await call('POST', `/events/${probe.id}`, { cost: '12' });
    const after = byKey(await read(root, window));
    expect(after.get(key(probe))!.fields.cost).toBe('12');
    expect(after.get(key(probe))!.hash).not.toBe(before.get(key(probe))!.hash);
    expect(after.get(key(other))!.hash).toBe(before.get(key(other))!.hash);
  });

  test('the url must be the source\'s API root', async () => {
    for (const url of [`${source.origin}/calendar/events/v1`, `${root}/events`, `ftp://127.0.0.1${THEIRS}`, `${root}?x=1`, 'not a url',
      `http://user:pw@127.0.0.1${THEIRS}`]) {
      await expect(read(url)).rejects.toThrow(/source url/);
    }
    expect(fetched).toEqual([]);
  });
});

// ---- Crafted answers: a loopback server, one behaviour per path prefix (/<case>/wp-json/tribe/events/v1/events) ----

/** An event as the origin itself shows one (reference §4.1): entity-escaped text, its own page as website, "" zone. */
function originEvent(id: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, status: 'publish', url: `https://site.example/event/e-${id}/`, title: `Event ${id}`, description: '', excerpt: '', slug: `e-${id}`,
    all_day: false, start_date: `2031-03-${10 + id} 12:00:00`, end_date: `2031-03-${10 + id} 13:00:00`,
    utc_start_date: `2031-03-${10 + id} 11:00:00`, utc_end_date: `2031-03-${10 + id} 12:00:00`, timezone: 'Europe/Paris', cost: '',
    website: `https://site.example/event/e-${id}/`, featured: false, categories: [], tags: [], venue: [], organizer: [], ...extra };
}

function answerCrafted(path: string, res: import('node:http').ServerResponse): void {
  const url = new URL(path, craftedOrigin);
  const [, which] = url.pathname.split('/');
  const page = Number(url.searchParams.get('page') ?? 1);
  const api = `${craftedOrigin}/${which}${THEIRS}/events`;
  const json = (status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));
  };
  const list = (events: unknown[], next?: string): void => json(200, { events, ...(next ? { next_rest_url: next } : {}) });
  switch (which) {
    case 'html': res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Blog</title><p>Hello'); return;
    case 'json': json(200, { posts: [] }); return;
    case 'elsewhere': list([originEvent(1)], `http://localhost:${new URL(craftedOrigin).port}/${which}${THEIRS}/events?page=2`); return;
    case 'same-page': list([originEvent(1)], url.href); return;
    case 'repeats': list([originEvent(1), originEvent(2)], `${api}?page=${page + 1}`); return;
    case 'gone': if (page === 1) list([originEvent(1)], `${api}?page=2`);
    else json(404, { code: 'event-archive-page-not-found', message: 'The requested event archive page does not exist' }); return;
    case 'mixed': list([
      originEvent(1, { title: 'Jazz &#038; Blues', description: '<p onclick="x()">Hi <script>alert(1)</script><a href="javascript:x">a</a></p>',
        excerpt: '<p>An excerpt</p>', website: 'https://band.example/?a=1&amp;b=2', cost: '$20', featured: true,
        categories: [{ name: 'Jazz &amp; Blues', slug: 'jazz' }], tags: [{ name: 'Joe&#8217;s', slug: 'joes' }],
        venue: { id: 9, venue: 'Caf&eacute; Central', city: 'Paris', website: 'not a url', show_map: true },
        organizer: [{ id: 4, organizer: 'Org One', email: 'one@example.org' }, { id: 5 }] }),
      { id: 2, title: 'Broken', start_date: 'soon' },
      'not an event',
      originEvent(3, { timezone: '', start_date: '2031-03-13 17:30:00', utc_start_date: '2031-03-13 12:00:00', end_date: '2031-03-13 18:30:00',
        utc_end_date: '2031-03-13 13:00:00' }),
      originEvent(4, { all_day: null, featured: null, description: '', categories: [] }),
    ]); return;
    default: json(404, { code: 'rest_no_route', message: 'No route was found matching the URL and request method.' });
  }
}

const craftedRoot = (which: string): string => `${craftedOrigin}/${which}${THEIRS}`;

describe('sources that misbehave', () => {
  test('not the origin\'s API: HTML, JSON without events, no such route', async () => {
    await expect(read(craftedRoot('html'))).rejects.toThrow("the source is not the origin's API (The Events Calendar REST API v1): its answer "
      + 'is not JSON (text/html)');
    await expect(read(craftedRoot('json'))).rejects.toThrow(/not the origin's API .*no events list/);
    await expect(read(craftedRoot('nothing'))).rejects.toThrow(/answered HTTP 404 .*No route was found/);
  });

  test('a next page on another origin is refused before it is fetched', async () => {
    await expect(read(craftedRoot('elsewhere'))).rejects.toThrow(`the source's next page is not on its origin ${craftedOrigin}: refused `
      + `http://localhost:`);
    expect(fetched).toHaveLength(1);
  });

  test('pages that loop fail the read: a page read twice, or pages bringing nothing new', async () => {
    await expect(read(craftedRoot('same-page'))).rejects.toThrow(/the source's pages loop: .* was already read/);
    expect(fetched).toHaveLength(1);
    await expect(read(craftedRoot('repeats'))).rejects.toThrow("the source's pages loop: page 2 lists no event not listed before");
    expect(fetched).toHaveLength(2);
  });

  test('the 404 past the last page (events deleted while paging) ends the read', async () => {
    const result = await read(craftedRoot('gone'));
    expect(result.events.map((e) => e.key)).toEqual(['tec:1']);
  });

  test('the origin\'s own escaping and a malformed record: entities decoded, HTML sanitised, the record\'s error, the rest read', async () => {
    const result = await read(craftedRoot('mixed'));
    expect(result.errors).toEqual([{ uid: '2', message: 'start_date is not a date YYYY-MM-DD HH:MM:SS' },
      { uid: '', message: 'a listed event without a positive integer id' }]);
    expect(result.events.map((e) => e.key)).toEqual(['tec:1', 'tec:3', 'tec:4']);
    const [first, offset, locked] = result.events;
    expect(first!.fields).toEqual({ title: 'Jazz & Blues', description: '<p>Hi <a>a</a></p>', excerpt: '<p>An excerpt</p>',
      start_date: '2031-03-11 12:00:00', end_date: '2031-03-11 13:00:00', all_day: false, timezone: 'Europe/Paris',
      website: 'https://band.example/?a=1&b=2', cost: '$20', featured: true, status: 'publish', slug: 'e-1',
      venue: { venue: 'Café Central', city: 'Paris' }, organizer: [{ organizer: 'Org One', email: 'one@example.org' }],
      categories: ['Jazz & Blues'], tags: ['Joe’s'] });
    // No zone given (the origin's "" for the site's): the offset its wall clock and UTC dates show.
    expect(offset!.fields).toMatchObject({ timezone: 'UTC+5:30', start_date: '2031-03-13 17:30:00' });
    expect(offset!.fields).not.toHaveProperty('website');
    expect(locked!.removed).toBe('protected');
  });
});
