/**
 * Hostile and careless input, over HTTP against the real handlers and DynamoDB Local: every request of this file
 * was once answered with a 5xx, answered late, or answered with something its caller may not see. Each test names
 * the contract rule it guards. After each group the service must still answer a plain list (health check).
 */
import { networkInterfaces } from 'node:os';
import { Socket } from 'node:net';
import { SignJWT } from 'jose';
import { api, meterOf, tokenFor, type ApiResponse } from '../support/api.js';
import { createEvent, eventBody, expectError, expectInvalid, expectStatus, freshToken, uid } from './helpers/events.js';

let editor: string;
let author: string;
beforeAll(async () => {
  editor = await tokenFor('editor');
  author = await freshToken('author');
});

/** The number of DynamoDB requests the call made (the test server runs with CALENDAR_METER=1). */
function dynamoRequests(res: ApiResponse): number {
  return meterOf(res).requests!;
}

async function expectHealthy(): Promise<void> {
  expectStatus(await api('/events'), 200);
}

afterEach(expectHealthy);

describe('text is cut at code points, never inside a character (contract §2)', () => {
  it('a title of "a" and 200 × U+1D538 makes a valid slug; the event and every list stay readable', async () => {
    const title = `a${'𝔸'.repeat(200)}`;
    const res = await api('/events', { method: 'POST', token: editor, body: eventBody({ title }) });
    expectStatus(res, 201);
    expect(res.json.slug.isWellFormed()).toBe(true);
    expect([...res.json.slug].length).toBeLessThanOrEqual(200);
    expectStatus(await api(`/events/by-slug/${encodeURIComponent(res.json.slug)}`), 200);
    expectStatus(await api('/events', { query: { search: 'a' } }), 200);
  });

  it('a lone surrogate in JSON text is stored as U+FFFD, not as broken UTF-8', async () => {
    const res = await api('/events', { method: 'POST', token: editor, headers: { 'content-type': 'application/json' },
      body: JSON.stringify(eventBody({ title: 'x' })).replace('"title":"x"', '"title":"bad \\ud835 text"') });
    expectStatus(res, 201);
    expect(res.json.title).toBe('bad \ufffd text');
  });
});

describe('list parameters cannot make the service allocate or loop (contract §2)', () => {
  it('an array index above 99 is a 400, answered at once', async () => {
    expectInvalid(await api('/events?categories[4294967294]=1'), 'categories');
    expectInvalid(await api('/events?venue[100]=1'), 'venue');
    expectInvalid(await api('/events?tags[99]=x&tags[100]=y'), 'tags');
  });

  it('more than 100 entries in a list is a 400 (repeated keys, commas, JSON arrays, form bodies)', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => i + 1);
    expectInvalid(await api(`/events?${ids.map((i) => `include[]=${i}`).join('&')}`), 'include');
    expectInvalid(await api('/events', { query: { include: ids.join(',') } }), 'include');
    expectInvalid(await api('/events', { method: 'POST', token: editor, body: eventBody({ categories: ids }) }), 'categories');
    const form = new URLSearchParams(eventBody() as Record<string, string>).toString();
    expectInvalid(await api('/events', { method: 'POST', token: editor, headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `${form}&tags[150]=x` }), 'tags');
  });

  it('keys naming object internals are ignored, and nothing reaches a prototype', async () => {
    for (const query of ['a[length]=4294967296', 'a[push]=x', 'x[toString][name]=1', 'x[map][length]=1', 'x[hasOwnProperty][y]=1',
      '__proto__[polluted]=1', 'constructor[prototype][polluted]=1', 'categories[length]=4294967296', 'include[push]=1']) {
      const res = await api(`/events?${query}`);
      expect([query, res.status]).toEqual([query, res.status === 400 ? 400 : 200]);
    }
    // A parameter named like an internal does not poison later requests of the same process.
    expectStatus(await api('/events?search=hasOwnProperty'), 200);
    const made = await api('/events', { method: 'POST', token: editor, headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `title=Proto ${uid()}&start_date=2077-01-02 10:00&end_date=2077-01-02 11:00&constructor[prototype][x]=1&venue[venue]=Hall ${uid()}&venue[__proto__][city]=X&venue[constructor][x]=1` });
    expectStatus(made, 201);
  });

  it('a JSON body nested a thousand levels deep is a 400, not a stack overflow', async () => {
    const deep = `{"title":${'['.repeat(1000)}${']'.repeat(1000)}}`;
    expectError(await api('/events', { method: 'POST', token: editor, headers: { 'content-type': 'application/json' }, body: deep }),
      400, 'rest_invalid_json');
  });
});

describe('a request\'s DynamoDB work is bounded by its page and window (contract §2, §9)', () => {
  it('a window of 0001-01-01 to 9999-12-31 reads the years that have events, not ten thousand', async () => {
    const res = await api('/events', { query: { start_date: '0001-01-01', end_date: '9999-12-31', featured: 1 } });
    expectStatus(res, 200);
    expect(dynamoRequests(res)).toBeLessThan(200);
  });

  it('100 category slugs are resolved in one or two requests; 2,000 are refused before any', async () => {
    const slugs = Array.from({ length: 100 }, () => `nope-${uid()}`);
    const few = await api('/events', { query: { categories: slugs.join(',') } });
    expectInvalid(few, 'categories');
    expect(dynamoRequests(few)).toBeLessThanOrEqual(3);
    const many = await api('/events', { query: { categories: Array.from({ length: 2000 }, (_, i) => `s${i}`).join(',') } });
    expectInvalid(many, 'categories');
    expect(dynamoRequests(many)).toBe(0);
  });
});

describe('input that once answered 500 (contract §2, §6)', () => {
  it('slugs and term names of 200 four-byte characters fit; longer ones are refused or name nothing', async () => {
    const slug = '𝔸'.repeat(200);
    const ev = await api('/events', { method: 'POST', token: editor, body: eventBody({ slug }) });
    expectStatus(ev, 201);
    expectStatus(await api(`/events/by-slug/${encodeURIComponent(ev.json.slug)}`), 200);
    expectError(await api(`/events/by-slug/${encodeURIComponent('𝔸'.repeat(1000))}`), 404, 'rest-event-not-found');
    expectError(await api(`/venues/by-slug/${encodeURIComponent('𝔸'.repeat(1000))}`, { method: 'PATCH', token: editor, body: { city: 'x' } }),
      404, 'rest-venue-not-found');
    const name = `${uid()}${'𝔸'.repeat(190)}`;
    expectStatus(await api('/categories', { method: 'POST', token: editor, body: { name } }), 201);
    expectInvalid(await api('/categories', { method: 'POST', token: editor, body: { name: `${name}${'𝔸'.repeat(20)}` } }), 'name');
    expectInvalid(await api('/events', { method: 'POST', token: editor, body: eventBody({ tags: [`${uid()}${'𝔸'.repeat(200)}`] }) }), 'tags');
    expectInvalid(await api('/events', { query: { categories: '𝔸'.repeat(1000) } }), 'categories');
  });

  it('a record whose stored text would pass 350 KB is 413 rest_payload_too_large, and nothing is stored', async () => {
    const big = 'é'.repeat(60_000); // 120 KB per language: two fit in 350 KB, three do not
    const ev = await createEvent({ description: big });
    expectStatus(await api(`/events/${ev.id}`, { method: 'PATCH', token: editor, body: { description: big, translation_language: 'de' } }), 200);
    expectError(await api(`/events/${ev.id}`, { method: 'PATCH', token: editor, body: { description: big, translation_language: 'pt-pt' } }),
      413, 'rest_payload_too_large');
    // Nothing of the refused write was stored: pt-pt still falls back to the first language's text.
    expect((await api(`/events/${ev.id}`, { query: { translation_language: 'pt-pt' } })).json.description).toBe(big);
    // 100,000 "<" sanitise to "&lt;", four times as long; an author's cost of 300 long strings.
    expectError(await api('/events', { method: 'POST', token: editor, body: eventBody({ description: '<'.repeat(100_000) }) }),
      413, 'rest_payload_too_large');
    expectError(await api('/events', { method: 'POST', token: author, body: eventBody({ cost: Array.from({ length: 300 }, () => 'x'.repeat(1990)) }) }),
      413, 'rest_payload_too_large');
    const term = await api('/categories', { method: 'POST', token: editor, body: { name: `Huge ${uid()}`, description: 'ü'.repeat(100_000) } });
    expectStatus(term, 201);
    expectError(await api(`/categories/${term.json.id}`, { method: 'PATCH', token: editor,
      body: { description: 'ü'.repeat(100_000), translation_language: 'de' } }), 413, 'rest_payload_too_large');
  });

  it('a date in year 10000 in UTC, or 0000 in the zone, is a 400 naming it (contract §6)', async () => {
    expectInvalid(await api('/events', { method: 'POST', token: editor,
      body: eventBody({ start_date: '9999-12-31 23:00', end_date: '9999-12-31 23:30', timezone: 'UTC-12' }) }), 'start_date', 'end_date');
    expectInvalid(await api('/events', { method: 'POST', token: editor,
      body: eventBody({ start_date: '0001-01-01 00:30', end_date: '0001-01-01 01:00', timezone: 'UTC+14' }) }), 'start_date', 'end_date');
    // All-day snapping to 23:59:59 at UTC-12 on 9999-12-31 passes into year 10000 in UTC.
    expectInvalid(await api('/events', { method: 'POST', token: editor,
      body: eventBody({ start_date: '9999-12-31 10:00', end_date: '9999-12-31 11:00', timezone: 'UTC-12', all_day: true }) }), 'end_date');
    expectInvalid(await api('/events', { query: { start_date: '0000-01-01' } }), 'start_date');
    expectInvalid(await api('/events', { query: { end_date: '10000-01-01' } }), 'end_date');
    expectStatus(await api('/events', { query: { start_date: '0001-01-01', end_date: '9999-12-31' } }), 200);
    expectStatus(await api('/events', { query: { ends_after: '9999-12-31', strict_dates: 1 } }), 200);
  });

  it('next friday 8pm is read as PHP reads it: the first Friday after today', async () => {
    const expected = () => {
      const now = new Date();
      const ahead = ((5 - now.getUTCDay() + 7) % 7) || 7;
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + ahead, 20)).toISOString().slice(0, 16).replace('T', ' ');
    };
    const before = expected();
    const res = await api('/events', { method: 'POST', token: editor,
      body: eventBody({ start_date: 'next friday 8pm', end_date: 'next friday 10pm', timezone: 'UTC' }) });
    expectStatus(res, 201);
    expect([before, expected()]).toContain(res.json.start_date.slice(0, 16));
  });

  it('a token whose subject is 6 KB long reads and writes like any other', async () => {
    const token = await tokenFor('editor', `long-${'s'.repeat(6000)}`);
    expectStatus(await api('/events', { token }), 200);
    const ev = await api('/events', { method: 'POST', token, body: eventBody() });
    expectStatus(ev, 201);
    expectStatus(await api(`/events/by-slug/${ev.json.slug}`, { method: 'PATCH', token, body: { excerpt: 'mine' } }), 200);
  });
});

describe('nothing answers about a record its caller may not read (contract §4, §7)', () => {
  it('an event write cannot link a draft, private or trashed venue or organizer it may not read', async () => {
    const otherAuthor = await freshToken('author');
    const draftVenue = await api('/venues', { method: 'POST', token: otherAuthor, body: { venue: `Secret hall ${uid()}`, city: 'Hidden', status: 'draft' } });
    const privateOrganizer = await api('/organizers', { method: 'POST', token: editor,
      body: { organizer: `Private org ${uid()}`, email: 'private@example.org', status: 'private' } });
    const trashed = await api('/venues', { method: 'POST', token: editor, body: { venue: `Trashed hall ${uid()}` } });
    expectStatus(await api(`/venues/${trashed.json.id}`, { method: 'DELETE', token: editor }), 200);
    expectInvalid(await api('/events', { method: 'POST', token: author, body: eventBody({ venue: draftVenue.json.id }) }), 'venue');
    expectInvalid(await api('/events', { method: 'POST', token: author, body: eventBody({ organizer: [privateOrganizer.json.id] }) }), 'organizer');
    expectInvalid(await api('/events', { method: 'POST', token: editor, body: eventBody({ venue: trashed.json.id }) }), 'venue');
    // Re-sending a link the event already has is never an error, even when the venue is now unreadable.
    const mine = await api('/venues', { method: 'POST', token: author, body: { venue: `Own hall ${uid()}` } });
    const ev = await api('/events', { method: 'POST', token: author, body: eventBody({ venue: mine.json.id }) });
    expectStatus(ev, 201);
    expectStatus(await api(`/venues/${mine.json.id}`, { method: 'PATCH', token: editor, body: { status: 'draft', author: 1 } }), 200);
    expectStatus(await api(`/events/${ev.json.id}`, { method: 'PATCH', token: author, body: { venue: mine.json.id, excerpt: 'again' } }), 200);
  });

  it('filters by a record the caller may not read are refused like a missing one (no existence oracle)', async () => {
    const draftEvent = await createEvent({ status: 'draft' });
    const draftVenue = await api('/venues', { method: 'POST', token: editor, body: { venue: `Draft hall ${uid()}`, status: 'draft' } });
    expectInvalid(await api('/venues', { query: { event: draftEvent.id } }), 'event');
    expectInvalid(await api('/organizers', { query: { event: draftEvent.id } }), 'event');
    expectInvalid(await api('/categories', { query: { post: draftEvent.id } }), 'post');
    expectInvalid(await api('/events', { query: { venue: draftVenue.json.id } }), 'venue');
    expectInvalid(await api('/events', { query: { venue: 987_654_321 } }), 'venue');
    expectStatus(await api('/events', { query: { venue: draftVenue.json.id }, token: editor }), 200);
  });

  it('search never matches the hidden text of a password-protected event without its password', async () => {
    const word = `zq${uid()}`;
    const ev = await createEvent({ title: `Locked ${uid()}`, description: `secret ${word}`, password: 'open sesame' });
    const day = ev.start_date.slice(0, 10);
    const query = { search: word, start_date: day, end_date: day };
    expect((await api('/events', { query })).json.total).toBe(0);
    expect((await api('/events', { query, token: await freshToken('subscriber') })).json.total).toBe(0);
    expect((await api('/events', { query: { ...query, password: 'open sesame' } })).json.total).toBe(1);
    expect((await api('/events', { query: { ...query, search: ev.title.split(' ')[1] } })).json.total).toBe(1); // the title is public
  });
});

describe('responses (contract §3)', () => {
  it('escape < and > in JSON strings, so stored text cannot close a <script> element', async () => {
    const title = `</script><script>alert(${uid()})</script>`;
    const res = await api('/events', { method: 'POST', token: editor, body: eventBody({ title }) });
    expectStatus(res, 201);
    const read = await api(`/events/${res.json.id}`);
    expect(read.text).not.toMatch(/[<>]/);
    expect(read.text).toContain('\\u003c/script\\u003e');
    expect(read.json.title).toBe(title);
    expect(read.json.json_ld.name).toBe(title);
  });

  it('put plain text in json_ld, with entities decoded exactly once (contract §5)', async () => {
    const ev = await createEvent({ description: '<p>&amp;lt;b&amp;gt; It&#8217;s <b>bold</b></p>' });
    const read = await api(`/events/${ev.id}`);
    expect(read.json.json_ld.description).toBe('&lt;b&gt; It’s bold');
    expect(read.json.description).toBe('<p>&amp;lt;b&amp;gt; It&#8217;s <b>bold</b></p>');
  });

  it('carry X-Content-Type-Options: nosniff, errors and preflights included', async () => {
    for (const res of [await api('/events'), await api('/nope'), await api('/events', { method: 'POST' }),
      await api('/events', { method: 'OPTIONS' })]) {
      expect([res.status, res.headers.get('x-content-type-options')]).toEqual([res.status, 'nosniff']);
    }
  });

  it('decide the route and the method before the body: 404 for an unknown path, 405 with Allow for any method', async () => {
    expectError(await api('/nowhere', { method: 'POST', body: '{not json', headers: { 'content-type': 'application/json' } }), 404, 'rest_no_route');
    const propfind = await api('/events', { method: 'PROPFIND', body: '<?xml version="1.0"?><propfind/>', headers: { 'content-type': 'text/xml' } });
    expectError(propfind, 405, 'rest_no_route');
    expect(propfind.headers.get('allow')).toBe('GET, POST, OPTIONS');
    // Credentials come next, then the body: an invalid token beats a malformed body.
    expectError(await api('/events', { method: 'POST', token: 'nope', body: '{', headers: { 'content-type': 'application/json' } }),
      401, 'rest_invalid_token');
    expectError(await api('/events', { method: 'POST', token: editor, body: '<a/>', headers: { 'content-type': 'application/xml' } }),
      415, 'rest_unsupported_media_type');
  });

  it('name the id as sent in a 404, also beyond any integer', async () => {
    const res = await api('/events/99999999999999999999');
    expectError(res, 404, 'rest-event-not-found');
    expect(res.json.message).toContain('99999999999999999999');
  });
});

describe('authentication (contract §4)', () => {
  const secret = () => process.env.CALENDAR_TEST_JWT_SECRET!;

  it('an anonymous write is 401 with a Bearer challenge', async () => {
    const res = await api('/events', { method: 'POST', body: eventBody() });
    expectError(res, 401, 'rest_forbidden');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="calendar"');
  });

  it('a token without exp is refused on every route, GETs included', async () => {
    const token = await new SignJWT({ 'cognito:groups': ['editor'] }).setProtectedHeader({ alg: 'HS256' }).setSubject('no-exp')
      .sign(new TextEncoder().encode(secret()));
    for (const res of [await api('/events', { token }), await api('/events', { method: 'POST', token, body: eventBody() })]) {
      expectError(res, 401, 'rest_invalid_token');
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    }
  });
});

describe('wire details (contract §7, §9)', () => {
  it('a website is stored and returned exactly as sent', async () => {
    const ev = await createEvent({ website: 'http://tri.be' });
    expect(ev.website).toBe('http://tri.be');
    expect((await api(`/events/${ev.id}`)).json.website).toBe('http://tri.be');
  });

  it('rest_url echoes values as the client sent them', async () => {
    const res = await api('/events', { query: { featured: 1, status: 'publish', strict_dates: 'yes' } });
    expectStatus(res, 200);
    const url = new URL(res.json.rest_url);
    expect(url.searchParams.get('featured')).toBe('1');
    expect(url.searchParams.get('strict_dates')).toBe('yes');
  });

  it('venue: [id] links the venue, as the origin accepts', async () => {
    const venue = await api('/venues', { method: 'POST', token: editor, body: { venue: `List hall ${uid()}` } });
    const ev = await api('/events', { method: 'POST', token: editor, body: eventBody({ venue: [venue.json.id] }) });
    expectStatus(ev, 201);
    expect(ev.json.venue.id).toBe(venue.json.id);
    expectInvalid(await api('/events', { method: 'POST', token: editor, body: eventBody({ venue: [venue.json.id, venue.json.id] }) }), 'venue');
  });
});

describe('concurrent partial updates end as if applied one after another (contract §7)', () => {
  it('ten parallel PATCHes of different fields of one event all answer 200 and all survive', async () => {
    const ev = await createEvent();
    const changes: Record<string, unknown>[] = [
      { excerpt: 'one' }, { website: 'https://example.org/two' }, { cost: '3€' }, { featured: true }, { sticky: true },
      { show_map: true }, { show_map_link: true }, { title: `Ten ${uid()}` }, { description: 'nine' }, { hide_from_listings: true },
    ];
    const results = await Promise.all(changes.map((body) => api(`/events/${ev.id}`, { method: 'PATCH', token: editor, body })));
    for (const res of results) expectStatus(res, 200);
    for (const res of results) expect(res.headers.get('etag')).toMatch(/^"\d+-/);
    const now = (await api(`/events/${ev.id}`)).json;
    for (const change of changes) {
      const [key, value] = Object.entries(change)[0]!;
      if (key === 'description' || key === 'excerpt') expect(now[key]).toBe(value);
      else if (key === 'cost') expect(now.cost).toBe('3€');
      else expect([key, now[key]]).toEqual([key, value]);
    }
    expect(Number(/^"(\d+)-/.exec(results.map((r) => r.headers.get('etag')!).sort().at(-1)!)![1])).toBeGreaterThan(1);
  });
});

describe('the local runtime (contract §11)', () => {
  it('DynamoDB Local listens on the loopback interface only', async () => {
    const endpoint = new URL(process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT!);
    const outside = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal);
    if (!outside) throw new Error('this machine has no non-loopback IPv4 address to check from');
    const reachable = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => resolve(false));
      socket.connect(Number(endpoint.port), outside.address);
    });
    expect(reachable).toBe(false);
  });
});
