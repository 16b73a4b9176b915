/**
 * Conditional reads and caching (contract §15): a strong ETag on every successful GET, 304 for If-None-Match with a
 * current tag or `*` (GET and HEAD only), a tag that changes with the body, and Cache-Control/Vary by caller.
 */
import { ROUTES } from '../../lib/routes/all.js';
import { api, tokenFor, type ApiOptions } from '../support/api.js';
import { startOwnServer, type OwnServer } from '../support/own-server.js';
import { uid } from './helpers/events.js';

let editor: string;
const ids: Record<string, number | string> = {};
/**
 * A server of this file's own (on the suite's DynamoDB Local, with the suite's token secret): a list's body, and so its
 * tag, must not change between two reads because another test file wrote meanwhile.
 */
let quiet: OwnServer;
const call = (path: string, options?: ApiOptions) => api(`${quiet.url}${path}`, options);

beforeAll(async () => {
  quiet = await startOwnServer('calendar-conditional', { secret: process.env.CALENDAR_TEST_JWT_SECRET! });
  editor = await tokenFor('editor');
  const word = uid();
  const made = async (path: string, body: Record<string, unknown>) => {
    const res = await call(path, { method: 'POST', token: editor, body });
    if (res.status !== 201) throw new Error(`creating ${path} failed: ${res.status} ${res.text}`);
    return res.json;
  };
  const venue = await made('/venues', { venue: `Hall ${word}` });
  const organizer = await made('/organizers', { organizer: `Org ${word}` });
  const category = await made('/categories', { name: `Cat ${word}` });
  const tag = await made('/tags', { name: `Tag ${word}` });
  const event = await made('/events', { title: `Cond ${word}`, start_date: '2031-03-01 10:00', end_date: '2031-03-01 11:00',
    venue: venue.id, organizer: [organizer.id], categories: [category.id], tags: [tag.id] });
  const series = await made('/events', { title: `Series ${word}`, start_date: '2031-04-01 10:00', end_date: '2031-04-01 11:00',
    recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
  const ticket = await made('/tickets', { post_id: event.id, title: `Places ${word}`, capacity: 20 });
  const attendee = await made('/attendees', { ticket_id: ticket.id, name: 'Ada', email: `ada-${word}@example.com` });
  Object.assign(ids, { ticket: ticket.id, attendee: attendee.id, attendeeToken: attendee.token });
  // An import (contract §20), once its first run is over (a running one's answer changes with its counts).
  const imported = await call('/imports', { method: 'POST', token: editor, body: { name: `Import ${word}`, source: { type: 'ics',
    content: 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nEND:VCALENDAR\r\n' } } });
  if (imported.status !== 202) throw new Error(`creating an import failed: ${imported.status} ${imported.text}`);
  for (let i = 0; i < 100 && !['done', 'failed'].includes((await call(`/imports/${imported.json.id}`, { token: editor })).json.last_run.state); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  ids.import = imported.json.id;
  Object.assign(ids, { venue: venue.id, venueSlug: venue.slug, organizer: organizer.id, organizerSlug: organizer.slug,
    category: category.id, categorySlug: category.slug, tag: tag.id, tagSlug: tag.slug, event: event.id, eventSlug: event.slug,
    series: series.id, word });
});

/** Every GET route of the interface (lib/routes), with its path filled in from the records made above. */
const reads = (): [string, string, boolean][] => ROUTES.flatMap((route) => route.operations
  .filter((op) => op.method === 'GET')
  .map((op): [string, string, boolean] => {
    const segment = route.path.split('/')[1]!;
    const kind = segment === 'tickets' || segment === 'attendees' ? segment.replace(/s$/, '')
      : route.group === 'events' ? 'event' : route.group.replace(/ies$/, 'y').replace(/s$/, '');
    const path = route.path
      .replace('{id}', String(route.path.includes('occurrences') ? ids.series : ids[kind]))
      .replace('{slug}', String(ids[`${kind}Slug`]));
    const query = route.path === '/events' ? `?search=${ids.word}&start_date=2031-01-01`
      : route.path === '/attendees' ? `?event=${ids.event}`
        : route.path === '/attendees/{id}' ? `?token=${ids.attendeeToken}` : '';
    return [`${op.method} ${route.path}`, `${path}${query}`, op.capability !== 'public'];
  }));

afterAll(() => quiet?.stop());

describe('ETag and If-None-Match (contract §15)', () => {
  it('every kind of GET carries a strong ETag; If-None-Match with it (or *) answers 304 with no body and the same tag', async () => {
    const all = reads();
    expect(all.length).toBeGreaterThanOrEqual(20);
    for (const [name, path, auth] of all) {
      const token = auth ? editor : undefined;
      expect(path).not.toMatch(/[{}]|undefined/);
      const first = await call(path, { token });
      expect([name, first.status]).toEqual([name, 200]);
      const tag = first.headers.get('etag');
      expect([name, tag]).toEqual([name, expect.stringMatching(/^"[A-Za-z0-9_-]+(-[A-Za-z0-9_-]+)?"$/)]);
      const again = await call(path, { token });
      expect([name, again.headers.get('etag')]).toEqual([name, tag]);
      for (const header of [tag!, `W/${tag}`, `"nope", ${tag}`, '*']) {
        const cached = await call(path, { token, headers: { 'if-none-match': header } });
        expect([name, header, cached.status, cached.text, cached.headers.get('etag')]).toEqual([name, header, 304, '', tag]);
        expect(cached.headers.get('content-type')).toBeNull();
      }
      const head = await call(path, { token, method: 'HEAD', headers: { 'if-none-match': tag! } });
      expect([name, head.status]).toEqual([name, 304]);
      const stale = await call(path, { token, headers: { 'if-none-match': '"stale"' } });
      expect([name, stale.status, stale.text]).toEqual([name, 200, first.text]);
    }
  });

  it('a single record\'s tag is "<version>-<hash>" and changes when the record does; lists change with their body', async () => {
    const path = `/venues/${ids.venue}`;
    const before = await call(path);
    const list = await call('/venues', { query: { search: `Hall ${ids.word}` } });
    expect(before.headers.get('etag')).toMatch(/^"\d+-[A-Za-z0-9_-]+"$/);
    const patched = await call(path, { method: 'PATCH', token: editor, body: { city: `Town ${ids.word}` } });
    expect(patched.status).toBe(200);
    const after = await call(path, { headers: { 'if-none-match': before.headers.get('etag')! } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')!.split('-')[0]).toBe(patched.headers.get('etag')!.split('-')[0]);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    const listAfter = await call('/venues', { query: { search: `Hall ${ids.word}` }, headers: { 'if-none-match': list.headers.get('etag')! } });
    expect(listAfter.status).toBe(200);
    expect(listAfter.headers.get('etag')).not.toBe(list.headers.get('etag'));
    // Another language is another body, so another tag; its version part is the same.
    const german = await call(`/venues/${ids.venue}`, { query: { translation_language: 'de' } });
    expect(german.headers.get('etag')!.split('-')[0]).toBe(after.headers.get('etag')!.split('-')[0]);
  });

  it('If-None-Match applies to reads only: a create with it is made, errors carry no tag', async () => {
    const created = await call('/tags', { method: 'POST', token: editor, body: { name: `Tag ${uid()}` }, headers: { 'if-none-match': '*' } });
    expect(created.status).toBe(201);
    const missing = await call('/events/987654321', { headers: { 'if-none-match': '*' } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('etag')).toBeNull();
  });
});

describe('Cache-Control and Vary (contract §15)', () => {
  it('anonymous reads are public for CALENDAR_CACHE_SECONDS (default 0); reads with credentials and writes are private, no-store',
    async () => {
      for (const path of ['/', `/events/${ids.event}`, '/categories']) {
        const anonymous = await call(path);
        expect([path, anonymous.headers.get('cache-control'), anonymous.headers.get('vary')])
          .toEqual([path, 'public, max-age=0', 'Authorization, Accept-Encoding']);
        const signedIn = await call(path, { token: editor });
        expect([path, signedIn.headers.get('cache-control'), signedIn.headers.get('vary')])
          .toEqual([path, 'private, no-store', 'Authorization, Accept-Encoding']);
      }
      const write = await call(`/tags/${ids.tag}`, { method: 'PATCH', token: editor, body: { description: 'x' } });
      expect(write.status).toBe(200);
      expect(write.headers.get('cache-control')).toBe('private, no-store');
      const refused = await call('/tags', { method: 'POST', body: { name: 'x' } });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('cache-control')).toBe('private, no-store');
    });

  describe('with CALENDAR_CACHE_SECONDS=300', () => {
    let server: OwnServer;
    beforeAll(async () => {
      server = await startOwnServer('calendar-cache', { secret: 'cache-secret-0123456789abcdef0123456789', env: { CALENDAR_CACHE_SECONDS: '300' } });
    });
    afterAll(() => server?.stop());

    it('anonymous reads may be kept 300 s; a read with credentials still may not', async () => {
      const anonymous = await fetch(`${server.url}/events`);
      expect(anonymous.status).toBe(200);
      expect(anonymous.headers.get('cache-control')).toBe('public, max-age=300');
      const notModified = await fetch(`${server.url}/events`, { headers: { 'if-none-match': anonymous.headers.get('etag')! } });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.get('cache-control')).toBe('public, max-age=300');
      const signedIn = await fetch(`${server.url}/events`, { headers: { authorization: 'Bearer not-a-token' } });
      expect(signedIn.status).toBe(401);
      expect(signedIn.headers.get('cache-control')).toBe('private, no-store');
    });
  });
});
