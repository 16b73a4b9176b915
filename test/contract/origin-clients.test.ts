/**
 * Clients of the origin, unchanged (contract §12): every route under the origin's base `/wp-json/tribe/events/v1`
 * (language prefixes too), WordPress application passwords over HTTP Basic on every route, the failed-attempt
 * limit, and a real published client of the origin's API (the Gatsby source plugin) getting every record back.
 *
 * Runs its own server on a table of its own: the plugin must see exactly this file's records, and the failed-attempt
 * limit counts per client address, which every test of the suite shares.
 */
import { request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { signLocalToken, type TokenRole } from '../../lib/local/token-sign.js';
import { send, startOwnServer, type Answer, type OwnServer } from '../support/own-server.js';

const SECRET = 'origin-clients-secret-0123456789abcdef';
let server: OwnServer;
let origin: string;

beforeAll(async () => {
  server = await startOwnServer('origin-clients', { secret: SECRET });
  origin = server.origin;
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

const OURS = '/calendar/events/v1';
const THEIRS = '/wp-json/tribe/events/v1';

const call = (path: string, init: { method?: string; auth?: string; body?: unknown } = {}): Promise<Answer> =>
  send(`${origin}${path}`, { method: init.method, authorization: init.auth, body: init.body });

const bearer = async (role: TokenRole, sub: string, extra: Record<string, unknown> = {}): Promise<string> =>
  `Bearer ${await signLocalToken({ secret: SECRET, role, sub, claims: extra })}`;
const basic = (username: string, password: string): string => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

function expectStatus(res: Answer, status: number): void {
  expect({ status: res.status, body: res.text.slice(0, 500) }).toEqual({ status, body: res.text.slice(0, 500) });
}

let n = 0;
const unique = (what: string): string => `${what}-${Date.now().toString(36)}-${n++}`;

async function newPassword(token: string, name = 'client', appId?: string): Promise<Answer> {
  return call(`${OURS}/application-passwords`, { method: 'POST', auth: token, body: { name, ...(appId ? { app_id: appId } : {}) } });
}

describe('the origin\'s base (contract §12)', () => {
  it('answers every route kind under /wp-json/tribe/events/v1, with and without a language prefix', async () => {
    const editor = await bearer('editor', unique('editor'));
    const ev = await call(`${THEIRS}/events`, { method: 'POST', auth: editor, body: { title: unique('Alias'), start_date: '2031-05-05 10:00',
      end_date: '2031-05-05 11:00', venue: { venue: unique('Hall') }, organizer: [{ organizer: unique('Org') }], categories: [unique('cat')],
      tags: [unique('tag')] } });
    expectStatus(ev, 201);
    expect(ev.headers.get('location')).toBe(`${origin}${THEIRS}/events/${ev.json.id}`);
    expect(ev.json.rest_url).toBe(`${origin}${THEIRS}/events/${ev.json.id}`);
    for (const prefix of ['', '/en', '/de', '/pt-pt', '/DE']) {
      for (const path of ['/events', `/events/${ev.json.id}`, `/events/by-slug/${ev.json.slug}`, '/venues', `/venues/${ev.json.venue.id}`,
        '/organizers', `/organizers/${ev.json.organizer[0].id}`, '/categories', `/categories/${ev.json.categories[0].id}`, '/tags',
        `/tags/${ev.json.tags[0].id}`, '/doc', '']) {
        const res = await call(`${prefix}${THEIRS}${path}`, { auth: editor });
        expect([`${prefix}${THEIRS}${path}`, res.status]).toEqual([`${prefix}${THEIRS}${path}`, 200]);
      }
    }
    const list = await call(`/de${THEIRS}/events?start_date=2031-05-01&end_date=2031-05-31&per_page=1`);
    expect(list.json.rest_url.startsWith(`${origin}/de${THEIRS}/events/`)).toBe(true);
    expect(list.json.events[0].rest_url).toBe(`${origin}/de${THEIRS}/events/${ev.json.id}`);
    const index = await call(`${THEIRS}`);
    expect(index.json.namespace).toBe('tribe/events/v1');
    expect(Object.keys(index.json.routes)).toContain('/tribe/events/v1/events/(?P<id>\\d+)');
    expect(index.json.routes['/tribe/events/v1/events']._links.self[0].href).toBe(`${origin}${THEIRS}/events`);
    expect((await call(OURS)).json.namespace).toBe('calendar/events/v1');
    const doc = await call(`${THEIRS}/doc`);
    expect(doc.json.servers[0].url).toBe(`${origin}${THEIRS}`);
  });

  it('is 404 for other bases and 405 for other methods, as ours is', async () => {
    expect((await call('/wp-json/tribe/events/v2/events')).status).toBe(404);
    expect((await call('/fr/wp-json/tribe/events/v1/events')).status).toBe(404);
    const res = await call(`${THEIRS}/events/12`, { method: 'PROPFIND' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST, PUT, PATCH, DELETE, OPTIONS');
  });
});

describe('application passwords (contract §12)', () => {
  it('create shows the password once; list shows them newest first without secrets; delete revokes', async () => {
    const user = unique('ann');
    const token = await bearer('author', user);
    const appId = '7c4f5d36-9a61-4b7c-9d7e-2f0c8a2b1e55';
    const first = await newPassword(token, 'first', appId);
    expectStatus(first, 201);
    expect(Object.keys(first.json)).toEqual(['uuid', 'app_id', 'name', 'created', 'last_used', 'password', 'username']);
    expect(first.json).toMatchObject({ app_id: appId, name: 'first', last_used: null, username: user });
    expect(first.json.password).toMatch(/^[A-Za-z0-9]{4}( [A-Za-z0-9]{4}){5}$/);
    expect(first.json.created).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(first.headers.get('location')).toBe(`${origin}${OURS}/application-passwords/${first.json.uuid}`);
    const second = await newPassword(token, 'second');
    expect(second.json.app_id).toBe('');
    const list = await call(`${OURS}/application-passwords`, { auth: token });
    expectStatus(list, 200);
    expect(list.json.map((p: any) => p.name)).toEqual(['second', 'first']);
    expect(list.text).not.toContain(first.json.password.replace(/ /g, '').slice(0, 8));
    expect(Object.keys(list.json[0])).toEqual(['uuid', 'app_id', 'name', 'created', 'last_used', 'username']);

    const other = await bearer('editor', unique('eve'));
    const theirs = await call(`${OURS}/application-passwords/${first.json.uuid}`, { method: 'DELETE', auth: other });
    expect([theirs.status, theirs.json.code]).toEqual([404, 'rest-application-password-not-found']);
    const gone = await call(`${OURS}/application-passwords/${first.json.uuid}`, { method: 'DELETE', auth: token });
    expectStatus(gone, 200);
    expect(gone.json).toEqual({ deleted: true, previous: expect.objectContaining({ uuid: first.json.uuid, name: 'first' }) });
    expect((await call(`${OURS}/application-passwords/${first.json.uuid}`, { method: 'DELETE', auth: token })).status).toBe(404);
    expect((await call(`${OURS}/application-passwords/not-a-uuid`, { method: 'DELETE', auth: token })).status).toBe(404);
  });

  it('needs a signed-in caller (401 with a Bearer challenge); subscribers may have passwords too', async () => {
    const anonymous = await call(`${OURS}/application-passwords`, { method: 'POST', body: { name: 'x' } });
    expect([anonymous.status, anonymous.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="calendar"']);
    expectStatus(await newPassword(await bearer('subscriber', unique('sub'))), 201);
    const missing = await call(`${OURS}/application-passwords`, { method: 'POST', auth: await bearer('author', unique('a')), body: {} });
    expect([missing.status, missing.json.code]).toEqual([400, 'rest_missing_callback_param']);
  });

  it('takes the username from cognito:username, then username, then email, then sub', async () => {
    expect((await newPassword(await bearer('author', 's1', { 'cognito:username': 'cog', username: 'u', email: 'e@x.org' }))).json.username).toBe('cog');
    expect((await newPassword(await bearer('author', 's2', { username: 'plain', email: 'e@x.org' }))).json.username).toBe('plain');
    expect((await newPassword(await bearer('author', 's3', { email: 'mail@example.org' }))).json.username).toBe('mail@example.org');
  });

  it('allows at most 50 per user', async () => {
    const token = await bearer('author', unique('many'));
    for (let i = 0; i < 50; i++) expectStatus(await newPassword(token, `p${i}`), 201);
    const over = await newPassword(token, 'p50');
    expect(over.status).toBe(400);
  });
});

describe('HTTP Basic with an application password (contract §4, §12)', () => {
  it('authenticates GETs and writes on every route, as the user and role the password was made with', async () => {
    const user = unique('writer');
    const made = await newPassword(await bearer('author', user, { 'cognito:username': user }));
    const auth = basic(user, made.json.password);
    const ev = await call(`${THEIRS}/events`, { method: 'POST', auth, body: { title: unique('By basic'), status: 'draft',
      start_date: '2032-01-02 10:00', end_date: '2032-01-02 11:00' } });
    expectStatus(ev, 201);
    const author = ev.json.author;
    expectStatus(await call(`${THEIRS}/events/${ev.json.id}`, { auth }), 200); // a draft: only its author reads it
    expect((await call(`${THEIRS}/events/${ev.json.id}`)).status).toBe(403);
    expectStatus(await call(`${OURS}/events/${ev.json.id}`, { method: 'PATCH', auth, body: { excerpt: 'edited' } }), 200);
    // Spaces as shown, and the scheme in any case, work too.
    expectStatus(await call(`${OURS}/events/${ev.json.id}`, { auth: `bAsIc ${Buffer.from(`${user}:${made.json.password}`).toString('base64')}` }), 200);
    expectStatus(await call(`${OURS}/events/${ev.json.id}`, { auth: basic(user, made.json.password.replace(/ /g, '')) }), 200);
    // The role is the one the token had: an author may not manage tags (editors only).
    const tag = await call(`${THEIRS}/tags`, { method: 'POST', auth, body: { name: unique('tag') } });
    expect([tag.status, tag.json.code]).toEqual([403, 'rest_forbidden']);
    // And it is the same user as the token's: the author of the record it made.
    const viaToken = await call(`${OURS}/events/${ev.json.id}`, { auth: await bearer('author', user, { 'cognito:username': user }) });
    expect(viaToken.json.author).toBe(author);
    expectStatus(await call(`${OURS}/application-passwords`, { auth }), 200);
    for (const path of ['', '/doc', '/venues', '/organizers', '/categories', '/tags']) {
      expect([path, (await call(`${THEIRS}${path}`, { auth })).status]).toEqual([path, 200]);
    }
  });

  it('records last_used (at most once a minute)', async () => {
    const user = unique('used');
    const token = await bearer('author', user);
    const made = await newPassword(token);
    expect((await call(`${OURS}/application-passwords`, { auth: token })).json[0].last_used).toBeNull();
    expectStatus(await call(`${THEIRS}/events`, { auth: basic(user, made.json.password) }), 200);
    const used = (await call(`${OURS}/application-passwords`, { auth: token })).json[0].last_used;
    expect(used).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it('a wrong, malformed or revoked credential is 401 rest_invalid_token with a Bearer challenge only', async () => {
    const user = unique('revoked');
    const token = await bearer('author', user);
    const made = await newPassword(token);
    const auth = basic(user, made.json.password);
    expectStatus(await call(`${THEIRS}/events`, { auth }), 200);
    for (const wrong of [basic(user, 'A'.repeat(24)), basic(unique('nobody'), made.json.password), 'Basic !!!', 'Basic', `Basic ${Buffer.from('nocolon').toString('base64')}`]) {
      const res = await call(`${THEIRS}/events`, { auth: wrong });
      expect([wrong, res.status, res.json?.code, res.headers.get('www-authenticate')])
        .toEqual([wrong, 401, 'rest_invalid_token', 'Bearer error="invalid_token"']);
    }
    expectStatus(await call(`${OURS}/application-passwords/${made.json.uuid}`, { method: 'DELETE', auth: token }), 200);
    // Revoked: refused at once on the local server (in AWS within the five minutes a warm function may remember it).
    const after = await call(`${THEIRS}/events`, { auth });
    expect([after.status, after.json.code]).toEqual([401, 'rest_invalid_token']);
  });
});

describe('an unchanged client of the origin: gatsby-source-tribe-events (contract §12)', () => {
  it('gets every event, venue, organizer, category and tag back through its sourceNodes, with an application password', async () => {
    const user = `gatsby@example.org`;
    const editorToken = await bearer('editor', unique('gatsby-editor'), { email: user });
    const made = await newPassword(editorToken, 'gatsby');
    // In the plugin's window (it sends only per_page, so the default one: yesterday to two years ahead).
    const day = (i: number) => new Date(Date.now() + (30 + i) * 86_400_000).toISOString().slice(0, 10);
    const ids = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const ev = await call(`${OURS}/events`, { method: 'POST', auth: editorToken, body: { title: `Gatsby ${i}`,
        start_date: `${day(i)} 19:00`, end_date: `${day(i)} 21:00`, venue: { venue: `Gatsby hall ${i % 3}` },
        organizer: [{ organizer: `Gatsby org ${i % 2}` }], categories: [`Gatsby cat ${i % 4}`], tags: [`gatsby-${i % 5}`] } });
      expectStatus(ev, 201);
      ids.add(ev.json.id);
    }
    // A draft is visible to editors only: the plugin sends the credentials in its URL, on every GET.
    const draft = await call(`${OURS}/events`, { method: 'POST', auth: basic(user, made.json.password), body: { title: 'Gatsby draft',
      status: 'draft', start_date: `${day(20)} 19:00`, end_date: `${day(20)} 21:00` } });
    expectStatus(draft, 201);

    const require = createRequire(import.meta.url);
    const plugin = require('gatsby-source-tribe-events') as { sourceNodes: (api: unknown, options: unknown) => Promise<void> };
    const nodes: any[] = [];
    const api = {
      actions: { createNode: (node: any) => nodes.push(node) },
      createNodeId: (s: string) => `node-${s}`,
      createContentDigest: (o: unknown) => String(JSON.stringify(o).length),
    };
    const baseUrl = `http://${encodeURIComponent(user)}:${encodeURIComponent(made.json.password)}@${new URL(origin).host}`;
    await plugin.sourceNodes(api, { baseUrl, maxEvents: 50 });
    const events = nodes.filter((n) => n.internal.type === 'TribeEvents');
    // The plugin's default window starts yesterday: every event of this file is in it, the draft included.
    expect(new Set(events.map((e) => e.rest_url.split('/').pop()).map(Number))).toEqual(new Set([...ids, draft.json.id]));
    expect(events[0].rest_url.startsWith(`${origin}${THEIRS}/events/`)).toBe(true);
    // Every venue, organizer, category and tag the API lists for these credentials, each once.
    const auth = basic(user, made.json.password);
    for (const [type, path, key] of [['TribeVenues', 'venues', 'venues'], ['TribeOrganizers', 'organizers', 'organizers'],
      ['TribeCategories', 'categories', 'categories'], ['TribeTags', 'tags', 'tags']] as const) {
      const listed = (await call(`${THEIRS}/${path}?per_page=50`, { auth })).json[key].map((r: any) => r.id).sort();
      expect([type, nodes.filter((n) => n.internal.type === type).map((n) => Number(n.id.split('-').pop())).sort()]).toEqual([type, listed]);
      expect(listed.length).toBeGreaterThan(0);
    }
  });
});

describe('failed Basic attempts (contract §12)', () => {
  /** A GET from a given loopback address (the server counts failures per client address). */
  function from(address: string, path: string, auth: string): Promise<{ status: number; code?: string; retryAfter: string | null }> {
    return new Promise((resolve, reject) => {
      const url = new URL(`${origin}${path}`);
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, localAddress: address, headers: { authorization: auth } },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, code: JSON.parse(text).code, retryAfter: res.headers['retry-after'] as string ?? null }));
        });
      req.on('error', reject);
      req.end();
    });
  }

  const atTopOfMinute = async () => {
    const ms = Date.now() % 60_000;
    if (ms > 40_000) await new Promise((r) => setTimeout(r, 60_000 - ms + 50));
  };

  it('more than 10 failures in a minute for one username → 429 with Retry-After, from any address, even with the right password', async () => {
    await atTopOfMinute();
    const user = unique('target');
    const made = await newPassword(await bearer('author', user));
    for (let i = 1; i <= 10; i++) expect((await from(`127.0.1.${i}`, `${THEIRS}/events`, basic(user, 'W'.repeat(24)))).status).toBe(401);
    const limited = await from('127.0.1.20', `${THEIRS}/events`, basic(user, made.json.password));
    expect([limited.status, limited.code]).toEqual([429, 'rest_too_many_attempts']);
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    expect(Number(limited.retryAfter)).toBeLessThanOrEqual(60);
  });

  it('more than 10 failures in a minute from one address → 429 for any username from it; other addresses are unaffected', async () => {
    await atTopOfMinute();
    const user = unique('bystander');
    const made = await newPassword(await bearer('author', user));
    for (let i = 0; i < 10; i++) {
      expect((await from('127.0.2.1', `${THEIRS}/events`, basic(unique('guess'), 'W'.repeat(24)))).status).toBe(401);
    }
    expect((await from('127.0.2.1', `${THEIRS}/events`, basic(user, made.json.password))).status).toBe(429);
    expect((await from('127.0.2.2', `${THEIRS}/events`, basic(user, made.json.password))).status).toBe(200);
  });
});
