/**
 * Contract tests for authentication, roles and visibility on the event routes.
 * CONTRACT.md §3 (processing order, 401/403/404), §4 (tokens, roles) and reference §9.1, §10.1 (status scaling), §11.
 */
import { generateKeyPair, SignJWT } from 'jose';
import { api, tokenFor } from '../support/api.js';
import { createEvent, eventBody, eventPath, expectError, expectInvalid, expectStatus, freshToken, uid, userIdOf } from './helpers/events.js';

const MISSING = 987654321;

let editor: string;
beforeAll(async () => {
  editor = await tokenFor('editor');
});

const create = (token: string | undefined, extra: Record<string, unknown> = {}) =>
  api('/events', { method: 'POST', token, body: eventBody(extra) });
const patch = (id: number, token: string | undefined, body: Record<string, unknown> = { excerpt: `edit ${uid()}` }) =>
  api(eventPath(id), { method: 'PATCH', token, body });
const remove = (id: number, token: string | undefined, query?: Record<string, string | boolean>) =>
  api(eventPath(id), { method: 'DELETE', token, query });
const read = (id: number, token?: string) => api(eventPath(id), { token });

/** The record as an editor sees it (to check that a refused write changed nothing). */
const current = async (id: number) => (await read(id, editor)).json;

describe('writes by anonymous callers and subscribers', () => {
  it('anonymous create → 401 rest_forbidden; subscriber create → 403 rest_forbidden; nothing is stored', async () => {
    const title = `Refused ${uid()}`;
    expectError(await create(undefined, { title }), 401, 'rest_forbidden');
    expectError(await create(await freshToken('subscriber'), { title }), 403, 'rest_forbidden');
    expectError(await api(`/events/by-slug/${title.toLowerCase().replace(/ /g, '-')}`, { token: editor }), 404, 'rest-event-not-found');
  });

  it('anonymous update/delete → 401, subscriber → 403, on every write method; the record is unchanged', async () => {
    const ev = await createEvent();
    const subscriber = await freshToken('subscriber');
    for (const method of ['POST', 'PUT', 'PATCH']) {
      expectError(await api(eventPath(ev.id), { method, body: { title: 'hijacked' } }), 401, 'rest_forbidden');
      expectError(await api(eventPath(ev.id), { method, token: subscriber, body: { title: 'hijacked' } }), 403, 'rest_forbidden');
      expectError(await api(`/events/by-slug/${ev.slug}`, { method, body: { title: 'hijacked' } }), 401, 'rest_forbidden');
      expectError(await api(`/events/by-slug/${ev.slug}`, { method, token: subscriber, body: { title: 'hijacked' } }), 403,
        'rest_forbidden');
    }
    expectError(await remove(ev.id, undefined), 401, 'rest_forbidden');
    expectError(await remove(ev.id, subscriber), 403, 'rest_forbidden');
    expectError(await api(`/events/by-slug/${ev.slug}`, { method: 'DELETE' }), 401, 'rest_forbidden');
    const now = await current(ev.id);
    expect([now.title, now.status]).toEqual([ev.title, 'publish']);
  });

  it('a write to a missing record: anonymous 401, subscriber 403, contributor/author/editor 404', async () => {
    const subscriber = await freshToken('subscriber');
    const slugPath = `/events/by-slug/missing-${uid()}`;
    for (const [path, method] of [[eventPath(MISSING), 'PATCH'], [eventPath(MISSING), 'DELETE'], [slugPath, 'PUT'], [slugPath, 'DELETE']]) {
      const body = method === 'DELETE' ? undefined : { title: 'x' };
      expectError(await api(path!, { method, body }), 401, 'rest_forbidden');
      expectError(await api(path!, { method, body, token: subscriber }), 403, 'rest_forbidden');
      for (const role of ['contributor', 'author', 'editor'] as const) {
        expectError(await api(path!, { method, body, token: await freshToken(role) }), 404, 'rest-event-not-found');
      }
    }
  });
});

describe('contributors', () => {
  it.each([
    ['publish', 'pending'], ['future', 'pending'], [undefined, 'draft'], ['draft', 'draft'], ['pending', 'pending'],
  ])('create with status %s lands as %s', async (asked, landed) => {
    const res = await create(await freshToken('contributor'), asked ? { status: asked } : {});
    expectStatus(res, 201);
    expect(res.json.status).toBe(landed);
  });

  it('may edit and delete their own draft; asking to publish it makes it pending', async () => {
    const contributor = await freshToken('contributor');
    const ev = await createEvent({}, contributor);
    expect(ev.status).toBe('draft');
    const upd = await patch(ev.id, contributor, { title: `Mine ${uid()}` });
    expectStatus(upd, 200);
    expect(upd.json.status).toBe('draft');
    const pub = await patch(ev.id, contributor, { status: 'publish' });
    expectStatus(pub, 200);
    expect(pub.json.status).toBe('pending');
    // Pending is still unpublished: still editable by its contributor.
    expectStatus(await api(eventPath(ev.id), { method: 'PUT', token: contributor, body: { excerpt: 'pending edit' } }), 200);
    const del = await remove(ev.id, contributor);
    expectStatus(del, 200);
    expect(del.json.status).toBe('trash');
  });

  it('their own trashed draft: a second delete → 410, and they may restore it (WordPress checks the pre-trash status)', async () => {
    const contributor = await freshToken('contributor');
    const ev = await createEvent({}, contributor);
    expectStatus(await remove(ev.id, contributor), 200);
    expectError(await remove(ev.id, contributor), 410, 'event-is-in-trash');
    const restored = await patch(ev.id, contributor, { status: 'draft' });
    expectStatus(restored, 200);
    expect(restored.json.status).toBe('draft');
  });

  it('may not edit or delete their own published event (403)', async () => {
    const contributor = await freshToken('contributor');
    const ev = await createEvent({}, contributor);
    expectStatus(await patch(ev.id, editor, { status: 'publish' }), 200);
    expectError(await patch(ev.id, contributor, { title: 'changed' }), 403, 'rest_forbidden');
    expectError(await remove(ev.id, contributor), 403, 'rest_forbidden');
    expectError(await api(`/events/by-slug/${ev.slug}`, { method: 'POST', token: contributor, body: { title: 'x' } }), 403,
      'rest_forbidden');
    const now = await current(ev.id);
    expect([now.title, now.status]).toEqual([ev.title, 'publish']);
  });

  it("may not edit or delete other people's events (403)", async () => {
    const owner = await freshToken('contributor');
    const other = await freshToken('contributor');
    const draft = await createEvent({}, owner);
    const published = await createEvent();
    for (const ev of [draft, published]) {
      expectError(await patch(ev.id, other), 403, 'rest_forbidden');
      expectError(await remove(ev.id, other), 403, 'rest_forbidden');
    }
    expect((await current(draft.id)).excerpt).toBe(draft.excerpt);
    expect((await current(draft.id)).status).toBe('draft');
  });
});

describe('authors', () => {
  it('may publish, and edit and delete their own published events', async () => {
    const author = await freshToken('author');
    const res = await create(author);
    expectStatus(res, 201);
    expect(res.json.status).toBe('publish');
    const upd = await patch(res.json.id, author, { title: `Own ${uid()}` });
    expectStatus(upd, 200);
    expect(upd.json.status).toBe('publish');
    const priv = await patch(res.json.id, author, { status: 'private' });
    expect(priv.json.status).toBe('private');
    expectStatus(await read(res.json.id, author), 200);
    const del = await remove(res.json.id, author);
    expectStatus(del, 200);
    expect(del.json.status).toBe('trash');
  });

  it("may not edit or delete other people's events, published or not (403)", async () => {
    const author = await freshToken('author');
    const otherAuthor = await freshToken('author');
    const theirs = await createEvent({}, otherAuthor);
    const contributorsDraft = await createEvent({}, await freshToken('contributor'));
    const editors = await createEvent();
    for (const ev of [theirs, contributorsDraft, editors]) {
      expectError(await patch(ev.id, author), 403, 'rest_forbidden');
      expectError(await remove(ev.id, author), 403, 'rest_forbidden');
      expect((await current(ev.id)).excerpt).toBe(ev.excerpt);
    }
  });
});

describe('editors', () => {
  it("edit and delete anyone's events, whatever their status", async () => {
    const byContributor = await createEvent({}, await freshToken('contributor'));
    const byAuthor = await createEvent({}, await freshToken('author'));
    const privateOne = await createEvent({ status: 'private' }, await freshToken('author'));
    for (const ev of [byContributor, byAuthor, privateOne]) {
      const upd = await patch(ev.id, editor, { excerpt: 'edited by the editor' });
      expectStatus(upd, 200);
      expect(upd.json.excerpt).toBe('edited by the editor');
      expect(upd.json.author).toBe(ev.author); // editing does not take the record over
      expect(upd.json.status).toBe(ev.status);
    }
    const other = await freshToken('editor');
    for (const ev of [byContributor, byAuthor, privateOne]) {
      const del = await remove(ev.id, other);
      expectStatus(del, 200);
      expect(del.json.status).toBe('trash');
    }
  });

  it('administrators are editors', async () => {
    const admin = await tokenFor('administrator', `admin-${uid()}`);
    const ev = await createEvent({}, await freshToken('author'));
    expectStatus(await patch(ev.id, admin), 200);
    expectStatus(await remove(ev.id, admin, { force: true }), 200);
  });
});

describe('by-slug writes check the resolved record', () => {
  it("contributors and authors cannot change other people's events through their slug", async () => {
    const draft = await createEvent({}, await freshToken('contributor'));
    const published = await createEvent({}, await freshToken('author'));
    for (const role of ['contributor', 'author'] as const) {
      const token = await freshToken(role);
      for (const ev of [draft, published]) {
        for (const method of ['POST', 'PUT', 'PATCH']) {
          expectError(await api(`/events/by-slug/${ev.slug}`, { method, token, body: { excerpt: 'via slug' } }), 403, 'rest_forbidden');
        }
        expectError(await api(`/events/by-slug/${ev.slug}`, { method: 'DELETE', token }), 403, 'rest_forbidden');
      }
    }
    expect((await current(draft.id)).status).toBe('draft');
    expect((await current(published.id)).status).toBe('publish');
    expect((await current(published.id)).excerpt).toBe(published.excerpt);
  });

  it('the owner may write through the slug', async () => {
    const author = await freshToken('author');
    const ev = await createEvent({}, author);
    const res = await api(`/events/by-slug/${ev.slug}`, { method: 'PATCH', token: author, body: { excerpt: 'own slug' } });
    expectStatus(res, 200);
    expect(res.json.excerpt).toBe('own slug');
    expectStatus(await api(`/events/by-slug/${ev.slug}`, { method: 'DELETE', token: author }), 200);
  });
});

describe('editor-only powers', () => {
  it('?force=true from a non-editor → 403 rest_forbidden, and nothing is deleted', async () => {
    const author = await freshToken('author');
    const own = await createEvent({}, author);
    expectError(await remove(own.id, author, { force: true }), 403, 'rest_forbidden');
    expectError(await api(`/events/by-slug/${own.slug}`, { method: 'DELETE', token: author, query: { force: 'true' } }), 403,
      'rest_forbidden');
    expect((await current(own.id)).status).toBe('publish');

    const contributor = await freshToken('contributor');
    const draft = await createEvent({}, contributor);
    expectError(await remove(draft.id, contributor, { force: '1' }), 403, 'rest_forbidden');
    expect((await current(draft.id)).status).toBe('draft');

    // force=false is an ordinary trash.
    const del = await remove(own.id, author, { force: false });
    expectStatus(del, 200);
    expect(del.json.status).toBe('trash');
  });

  it('a non-editor setting author to another user → 403; to themselves → allowed', async () => {
    const editorId = await userIdOf(editor);
    const author = await freshToken('author');
    const authorId = await userIdOf(author);
    expect(authorId).not.toBe(editorId);

    expectError(await create(author, { author: editorId }), 403, 'rest_forbidden');
    const own = await create(author, { author: authorId });
    expectStatus(own, 201);
    expect(own.json.author).toBe(authorId);
    expectError(await patch(own.json.id, author, { author: editorId }), 403, 'rest_forbidden');
    expect((await current(own.json.id)).author).toBe(authorId);

    const contributor = await freshToken('contributor');
    const draft = await createEvent({}, contributor);
    expectError(await patch(draft.id, contributor, { author: editorId }), 403, 'rest_forbidden');
    expectError(await create(contributor, { author: editorId }), 403, 'rest_forbidden');
  });

  it('an editor may give an event to another known user, who then owns it; an unknown id → 400', async () => {
    const author = await freshToken('author');
    const authorId = await userIdOf(author);
    const res = await create(editor, { author: authorId });
    expectStatus(res, 201);
    expect(res.json.author).toBe(authorId);
    expectStatus(await patch(res.json.id, author, { excerpt: 'now mine' }), 200);

    const mine = await createEvent();
    const moved = await patch(mine.id, editor, { author: authorId });
    expect(moved.json.author).toBe(authorId);
    expectStatus(await patch(mine.id, author), 200);

    expectInvalid(await create(editor, { author: MISSING }), 'author');
    expectInvalid(await patch(mine.id, editor, { author: MISSING }), 'author');
    expect((await current(mine.id)).author).toBe(authorId);
  });
});

describe('single GET visibility (reference §11.2)', () => {
  it('a draft: anonymous/subscriber/other contributor/author 403 event-not-accessible; its author and editors 200', async () => {
    const owner = await freshToken('contributor');
    const ev = await createEvent({}, owner);
    expect(ev.status).toBe('draft');
    expectError(await read(ev.id), 403, 'event-not-accessible');
    expectError(await api(`/events/by-slug/${ev.slug}`), 403, 'event-not-accessible');
    for (const role of ['subscriber', 'contributor', 'author'] as const) {
      expectError(await read(ev.id, await freshToken(role)), 403, 'event-not-accessible');
    }
    const own = await read(ev.id, owner);
    expectStatus(own, 200);
    expect(own.json.status).toBe('draft');
    expectStatus(await api(`/events/by-slug/${ev.slug}`, { token: owner }), 200);
    expectStatus(await read(ev.id, editor), 200);
    expectStatus(await read(ev.id, await freshToken('editor')), 200);
  });

  it('pending, future and private events are not public either', async () => {
    const pending = (await create(await freshToken('contributor'), { status: 'publish' })).json;
    expect(pending.status).toBe('pending');
    const future = await createEvent({ status: 'future', date: '2040-01-01 00:00:00' });
    const priv = await createEvent({ status: 'private' });
    for (const ev of [pending, future, priv]) {
      expectError(await read(ev.id), 403, 'event-not-accessible');
      expectError(await read(ev.id, await freshToken('author')), 403, 'event-not-accessible');
      expectStatus(await read(ev.id, editor), 200);
    }
  });

  it('published events are readable by everyone', async () => {
    const ev = await createEvent({}, await freshToken('author'));
    expectStatus(await read(ev.id), 200);
    expectStatus(await read(ev.id, await freshToken('subscriber')), 200);
    expectStatus(await read(ev.id, await freshToken('contributor')), 200);
  });
});

describe('invalid tokens (contract §4)', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const secret = () => new TextEncoder().encode(process.env.CALENDAR_TEST_JWT_SECRET!);
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const claims = { 'cognito:groups': ['editor'] };

  const badHeaders: [string, () => Promise<string>][] = [
    ['garbage', async () => 'Bearer not-a-jwt-at-all'],
    ['three garbage parts', async () => 'Bearer aaa.bbb.ccc'],
    ['expired', async () => `Bearer ${await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject('expired-user')
      .setIssuedAt(now() - 7200).setExpirationTime(now() - 3600).sign(secret())}`],
    ['wrong secret', async () => `Bearer ${await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject('x')
      .setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode('definitely-not-the-server-secret-0123456789'))}`],
    ['alg none', async () => `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, sub: 'none-user', exp: now() + 3600 })}.`],
    ['HS512 with the right secret', async () => `Bearer ${await new SignJWT(claims).setProtectedHeader({ alg: 'HS512' })
      .setSubject('x').setExpirationTime('1h').sign(secret())}`],
    ['RS256 token', async () => {
      const { privateKey } = await generateKeyPair('RS256');
      return `Bearer ${await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).setSubject('x').setExpirationTime('1h')
        .sign(privateKey)}`;
    }],
    ['tampered payload', async () => {
      const good = await tokenFor('subscriber', `tamper-${uid()}`);
      const [h, , s] = good.split('.');
      return `Bearer ${h}.${b64({ ...claims, sub: 'tamper', exp: now() + 3600 })}.${s}`;
    }],
    ['empty Bearer', async () => 'Bearer '],
    ['Bearer with two tokens', async () => `Bearer ${await tokenFor('editor')} ${await tokenFor('editor')}`],
    ['Basic scheme', async () => 'Basic xyz'],
    ['Basic credentials', async () => `Basic ${Buffer.from('admin:admin').toString('base64')}`],
    ['bare token without a scheme', async () => tokenFor('editor')],
  ];

  let published: any;
  beforeAll(async () => {
    published = await createEvent();
  });

  it.each(badHeaders)('%s → 401 rest_invalid_token with WWW-Authenticate on reads and writes', async (_, make) => {
    const authorization = await make();
    const requests: [string, string, unknown][] = [
      ['GET', eventPath(published.id), undefined],
      ['GET', `/events/by-slug/${published.slug}`, undefined],
      ['GET', '/events', undefined],
      ['GET', '', undefined],
      ['POST', '/events', eventBody()],
      ['PATCH', eventPath(published.id), { title: 'hijack' }],
      ['PUT', eventPath(MISSING), { title: 'hijack' }],
      ['DELETE', eventPath(published.id), undefined],
    ];
    for (const [method, path, body] of requests) {
      const res = await api(path, { method, body, headers: { authorization } });
      expectError(res, 401, 'rest_invalid_token');
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    }
    expect((await current(published.id)).status).toBe('publish');
    expect((await current(published.id)).title).toBe(published.title);
  });

  it('a correctly signed token without a subject → 401', async () => {
    const token = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(secret());
    const res = await api(eventPath(published.id), { token });
    expectError(res, 401, 'rest_invalid_token');
  });

  it('a valid token is accepted with any case of the scheme', async () => {
    const res = await api(eventPath(published.id), { headers: { authorization: `bearer ${await tokenFor('subscriber')}` } });
    expectStatus(res, 200);
  });
});

describe('processing order (contract §3: route → token → required → validation → authorisation → handler)', () => {
  it('anonymous: missing required parameters → 400, not 401; invalid ones → 400', async () => {
    const res = await api('/events', { method: 'POST', body: {} });
    expectError(res, 400, 'rest_missing_callback_param');
    expect([...res.json.data.params].sort()).toEqual(['end_date', 'start_date', 'title']);
    expectInvalid(await api('/events', { method: 'POST', body: eventBody({ title: '' }) }), 'title');
    expectInvalid(await api(eventPath(MISSING), { method: 'PATCH', body: { website: 'nope' } }), 'website');
    expectError(await api('/events', { method: 'POST', token: await freshToken('subscriber'), body: {} }), 400,
      'rest_missing_callback_param');
  });

  it('an invalid token with missing or invalid parameters → 401', async () => {
    const headers = { authorization: 'Bearer nonsense' };
    expectError(await api('/events', { method: 'POST', body: {}, headers }), 401, 'rest_invalid_token');
    expectError(await api(eventPath(MISSING), { method: 'PATCH', body: { website: 'nope' }, headers }), 401, 'rest_invalid_token');
    expectError(await api('/events', { query: { per_page: 'lots' }, headers }), 401, 'rest_invalid_token');
  });

  it('an unknown route → 404 rest_no_route even with an invalid token', async () => {
    const headers = { authorization: 'Bearer nonsense' };
    expectError(await api('/events/not-a-number', { headers }), 404, 'rest_no_route');
    expectError(await api(`/no-such-route-${uid()}`, { method: 'POST', headers, body: {} }), 404, 'rest_no_route');
  });

  it('authorisation before existence: subscriber gets 403 (not 404) for a missing record, editors 404', async () => {
    const subscriber = await freshToken('subscriber');
    expectError(await api(eventPath(MISSING), { method: 'DELETE', token: subscriber }), 403, 'rest_forbidden');
    expectError(await api(eventPath(MISSING), { method: 'DELETE', token: editor }), 404, 'rest-event-not-found');
  });
});
