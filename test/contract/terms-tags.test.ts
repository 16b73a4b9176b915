/**
 * Contract tests for /tags and /tags/{id}: as categories, but not hierarchical (no `parent` key, `parent` on
 * input → 400 rest_taxonomy_not_hierarchical) and editor-only writes (authors manage categories, not tags).
 * CONTRACT.md §2–§4, §7–§9; reference §4.4(b), §5.2, §8, §9.3, §10.4, §10.5, §11.1, §12.
 */
import { api, apiUrl, serverOrigin, tokenFor, type ApiResponse, etagVersion } from '../support/api.js';
import { createEvent, expectError, expectInvalid, expectStatus } from './helpers/events.js';
import { uniqueWord } from './helpers/list.js';

const TAG_KEYS = ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'meta', 'url', 'urls'];

let editor: string;
let author: string;
let contributor: string;
let subscriber: string;
beforeAll(async () => {
  [editor, author, contributor, subscriber] = await Promise.all([
    tokenFor('editor', 'terms-tag-editor'), tokenFor('author', 'terms-tag-author'),
    tokenFor('contributor', 'terms-tag-contributor'), tokenFor('subscriber', 'terms-tag-subscriber'),
  ]);
});

const path = (id: number | string): string => `/tags/${id}`;
const url = (id: number): string => `${apiUrl()}/tags/${id}`;
/** `token`: null = anonymous. */
const create = (body: unknown, token: string | null = editor): Promise<ApiResponse> =>
  api('/tags', { method: 'POST', token: token ?? undefined, body });
const update = (id: number, body: unknown, opts: { method?: string; token?: string | null; headers?: Record<string, string> } = {}) =>
  api(path(id), { method: opts.method ?? 'POST', token: opts.token === null ? undefined : opts.token ?? editor, body, headers: opts.headers });
const remove = (id: number, token: string | null = editor, headers?: Record<string, string>) =>
  api(path(id), { method: 'DELETE', token: token ?? undefined, headers });
const list = (query: Record<string, any> = {}, token?: string) => api('/tags', { query, token });

async function tag(fields: Record<string, unknown>): Promise<any> {
  const res = await create(fields);
  if (res.status !== 201) throw new Error(`POST /tags ${JSON.stringify(fields)} → ${res.status} ${res.text}`);
  return res.json;
}

async function listIds(query: Record<string, any>): Promise<number[]> {
  const res = await list(query);
  expectStatus(res, 200);
  return res.json.tags.map((t: any) => t.id);
}

describe('POST /tags', () => {
  it('creates: 201, Location, ETag and the tag shape (no parent key, taxonomy post_tag, /tag/ url)', async () => {
    const name = `Outdoor ${uniqueWord()}`;
    const res = await create({ name, description: 'Fresh <em>air</em>' });
    expectStatus(res, 201);
    const t = res.json;
    expect(Object.keys(t)).toEqual(TAG_KEYS);
    expect(res.headers.get('location')).toBe(url(t.id));
    expect(etagVersion(res)).toBe('1');
    expect(t).toEqual({
      id: t.id, count: 0, description: 'Fresh <em>air</em>', name, slug: name.toLowerCase().replace(' ', '-'),
      taxonomy: 'post_tag', meta: [], url: `${serverOrigin()}/tag/${t.slug}/`,
      urls: { self: url(t.id), collection: `${apiUrl()}/tags` },
    });
    const got = await api(path(t.id));
    expect(got.json).toEqual(t);
    expect(got.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('parent on a tag → 400 rest_taxonomy_not_hierarchical (create and update); null counts as not sent', async () => {
    const other = await tag({ name: `Other ${uniqueWord()}` });
    for (const parent of [other.id, 0, 'abc']) {
      expectError(await create({ name: `Child ${uniqueWord()}`, parent }), 400, 'rest_taxonomy_not_hierarchical');
      expectError(await update(other.id, { parent }), 400, 'rest_taxonomy_not_hierarchical');
    }
    expectStatus(await create({ name: `Nullparent ${uniqueWord()}`, parent: null }), 201);
    // existence comes first on update
    expectError(await update(987_654_323, { parent: 1 }), 404, 'rest-tag-not-found');
  });

  it('requires a name; empty or over-long values → 400', async () => {
    const missing = await create({ description: 'x' });
    expectError(missing, 400, 'rest_missing_callback_param');
    expect(missing.json.data.params).toEqual(['name']);
    expectInvalid(await create({ name: '' }), 'name');
    expectInvalid(await create({ name: 'z'.repeat(1001) }), 'name');
    expectInvalid(await create({ name: `D ${uniqueWord()}`, description: '' }), 'description');
    expectInvalid(await create({ name: `S ${uniqueWord()}`, slug: '' }), 'slug');
  });

  it('same name (any case) → 400 term_exists with data.term_id', async () => {
    const name = `Dup ${uniqueWord()}`;
    const first = await tag({ name });
    const res = await create({ name: name.toUpperCase() });
    expectError(res, 400, 'term_exists');
    expect(res.json.data).toEqual({ status: 400, term_id: first.id });
  });

  it('slug collisions get -2, -3; tags and categories have separate slugs', async () => {
    const w = uniqueWord();
    const a = await tag({ name: `Rock ${w}` });
    const b = await tag({ name: `Rock! ${w}` });
    const c = await tag({ name: `Different ${w}`, slug: `rock-${w}` });
    expect([a.slug, b.slug, c.slug]).toEqual([`rock-${w}`, `rock-${w}-2`, `rock-${w}-3`]);
    const cat = await api('/categories', { method: 'POST', token: editor, body: { name: `Rock ${w}` } });
    expectStatus(cat, 201);
    expect(cat.json.slug).toBe(`rock-${w}`);
  });
});

describe('capabilities: tags are editor-only', () => {
  it('create: anonymous 401, subscriber/contributor/author 403, editor 201', async () => {
    expectError(await create({ name: `A ${uniqueWord()}` }, null), 401, 'rest_forbidden');
    for (const token of [subscriber, contributor, author]) {
      expectError(await create({ name: `X ${uniqueWord()}` }, token), 403, 'rest_forbidden');
    }
    expectStatus(await create({ name: `E ${uniqueWord()}` }, editor), 201);
  });

  it('update and delete: anonymous 401, subscriber/contributor/author 403, editor 200', async () => {
    const t = await tag({ name: `Cap ${uniqueWord()}` });
    for (const method of ['POST', 'PUT', 'PATCH']) {
      expectError(await update(t.id, { description: 'x' }, { method, token: null }), 401, 'rest_forbidden');
      for (const token of [subscriber, contributor, author]) {
        expectError(await update(t.id, { description: 'x' }, { method, token }), 403, 'rest_forbidden');
      }
      expectStatus(await update(t.id, { description: method }, { method }), 200);
    }
    expectError(await remove(t.id, null), 401, 'rest_forbidden');
    for (const token of [subscriber, contributor, author]) expectError(await remove(t.id, token), 403, 'rest_forbidden');
    expectStatus(await remove(t.id, editor), 200);
  });

  it('a missing id: 401 anonymous, 403 author, 404 editor', async () => {
    const missing = 987_654_324;
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const body = method === 'DELETE' ? undefined : { description: 'x' };
      expectError(await api(path(missing), { method, body }), 401, 'rest_forbidden');
      expectError(await api(path(missing), { method, body, token: author }), 403, 'rest_forbidden');
      expectError(await api(path(missing), { method, body, token: editor }), 404, 'rest-tag-not-found');
    }
  });
});

describe('GET /tags/{id}', () => {
  it('404 rest-tag-not-found for a missing id and for a category id; non-digit → rest_no_route', async () => {
    expectError(await api(path(987_654_325)), 404, 'rest-tag-not-found');
    const cat = await api('/categories', { method: 'POST', token: editor, body: { name: `C ${uniqueWord()}` } });
    expectError(await api(path(cat.json.id)), 404, 'rest-tag-not-found');
    expectError(await api('/tags/x1'), 404, 'rest_no_route');
  });
});

describe('updates', () => {
  it('partial updates, renames, slug changes and their errors', async () => {
    const w = uniqueWord();
    const a = await tag({ name: `Indie ${w}`, description: 'kept' });
    const b = await tag({ name: `Punk ${w}` });
    let res = await update(a.id, { name: `Indie Rock ${w}` }, { method: 'PATCH' });
    expect(res.json).toEqual({ ...a, name: `Indie Rock ${w}` });
    res = await update(b.id, { name: `indie rock ${w}` });
    expectError(res, 400, 'term_exists');
    expect(res.json.data.term_id).toBe(a.id);
    res = await update(a.id, { slug: `indie-rock-${w}` });
    expect(res.json.slug).toBe(`indie-rock-${w}`);
    expect(res.json.url).toBe(`${serverOrigin()}/tag/indie-rock-${w}/`);
    expectInvalid(await update(b.id, { slug: `indie-rock-${w}` }), 'slug');
  });

  it('If-Match: 412 when stale, 200 when current', async () => {
    const created = await create({ name: `Etag ${uniqueWord()}` });
    const etag = created.headers.get('etag')!;
    const ok = await update(created.json.id, { description: 'one' }, { headers: { 'If-Match': etag } });
    expectStatus(ok, 200);
    expect(etagVersion(ok)).toBe('2');
    expectError(await update(created.json.id, { description: 'two' }, { headers: { 'If-Match': etag } }), 412,
      'rest_precondition_failed');
    expectError(await remove(created.json.id, editor, { 'If-Match': etag }), 412, 'rest_precondition_failed');
    expectStatus(await remove(created.json.id, editor, { 'If-Match': ok.headers.get('etag')! }), 200);
  });
});

describe('DELETE /tags/{id}', () => {
  it('200 + the tag as it was, unlinked from its events; then 404', async () => {
    const w = uniqueWord();
    const t = await tag({ name: `Bye ${w}` });
    const other = await tag({ name: `Stay ${w}` });
    const ev = await createEvent({ tags: [t.id, other.id] });
    const res = await remove(t.id);
    expectStatus(res, 200);
    expect(Object.keys(res.json)).toEqual(TAG_KEYS);
    expect(res.json).toEqual({ ...t, count: 1 });
    expectError(await api(path(t.id)), 404, 'rest-tag-not-found');
    expectError(await remove(t.id), 404, 'rest-tag-not-found');
    const after = await api(`/events/${ev.id}`);
    expect(after.json.tags.map((x: any) => x.id)).toEqual([other.id]);
    expect(await listIds({ search: w, hide_empty: false })).toEqual([other.id]);
    expect((await tag({ name: `Bye ${w}` })).slug).toBe(t.slug);
  });
});

describe('GET /tags', () => {
  it('envelope with the tags key, paging by page only, Link header, 200 past the end', async () => {
    const w = uniqueWord();
    const made = [await tag({ name: `T1 ${w}` }), await tag({ name: `T2 ${w}` }), await tag({ name: `T3 ${w}` })];
    const res = await list({ search: w, hide_empty: false, per_page: 1, page: 2 });
    expectStatus(res, 200);
    expect(Object.keys(res.json)).toEqual(['rest_url', 'total', 'total_pages', 'tags', 'next_rest_url', 'previous_rest_url']);
    expect(res.json.rest_url).toBe(`${apiUrl()}/tags/`);
    expect(res.json.tags.map((t: any) => t.id)).toEqual([made[1].id]);
    expect(res.json.next_rest_url).toBe(`${apiUrl()}/tags/?page=3`);
    expect(res.json.previous_rest_url).toBe(`${apiUrl()}/tags/`);
    expect(res.headers.get('link')).toBe(`<${apiUrl()}/tags/?page=3>; rel="next", <${apiUrl()}/tags/>; rel="prev"`);
    expect(res.headers.get('x-tec-total')).toBe('3');
    expect(res.headers.get('x-tec-totalpages')).toBe('3');
    for (const t of res.json.tags) expect(Object.keys(t)).toEqual(TAG_KEYS);
    const past = await list({ search: w, hide_empty: false, per_page: 1, page: 9 });
    expectStatus(past, 200);
    expect(past.json.tags).toEqual([]);
    expect(past.json.total).toBe(3);
  });

  it('hide_empty (default true), search, include/exclude, slug, orderby/order', async () => {
    const w = uniqueWord();
    const b = await tag({ name: `beta ${w}` });
    const a = await tag({ name: `Alpha ${w}` });
    const c = await tag({ name: `Gamma ${w}`, slug: `zzz-${w}` });
    await createEvent({ tags: [a.id, c.id] });
    await createEvent({ tags: [c.id] });
    expect(await listIds({ search: w })).toEqual([a.id, c.id]);
    expect(await listIds({ search: w, hide_empty: false })).toEqual([a.id, b.id, c.id]);
    expect(await listIds({ search: `zzz-${w}`, hide_empty: false })).toEqual([c.id]);
    expect(await listIds({ include: [c.id, b.id], hide_empty: false })).toEqual([b.id, c.id]);
    expect(await listIds({ include: [c.id, b.id], orderby: 'include', hide_empty: false })).toEqual([c.id, b.id]);
    expect(await listIds({ search: w, exclude: [a.slug], hide_empty: false })).toEqual([b.id, c.id]);
    expect(await listIds({ slug: c.slug, hide_empty: false })).toEqual([c.id]);
    expect(await listIds({ search: w, orderby: 'count', order: 'desc', hide_empty: false })).toEqual([c.id, a.id, b.id]);
    expect(await listIds({ search: w, orderby: 'slug', hide_empty: false })).toEqual([a.id, b.id, c.id]);
    expect(await listIds({ search: w, orderby: 'id', order: 'desc', hide_empty: false })).toEqual([c.id, a.id, b.id]);
    expectInvalid(await list({ include: [999_999_999] }), 'include');
  });

  it('post / event: the tags of an event; event wins', async () => {
    const w = uniqueWord();
    const a = await tag({ name: `PA ${w}` });
    const b = await tag({ name: `PB ${w}` });
    const e1 = await createEvent({ tags: [a.id] });
    const e2 = await createEvent({ tags: [b.id] });
    expect(await listIds({ post: e1.id })).toEqual([a.id]);
    expect(await listIds({ post: e1.id, event: e2.id })).toEqual([b.id]);
    expectInvalid(await list({ event: 999_999_999 }), 'event');
  });

  it('`parent` is not a tag list parameter: ignored like any unknown parameter', async () => {
    const w = uniqueWord();
    const a = await tag({ name: `NP ${w}` });
    expect(await listIds({ search: w, parent: 999_999_999, hide_empty: false })).toEqual([a.id]);
  });

  it('languages: the name in the request language, with fallback', async () => {
    const w = uniqueWord();
    const t = await tag({ name: `Summer ${w}` });
    const de = await api(path(t.id), { method: 'POST', token: editor, body: { name: `Sommer ${w}`, description: 'de' },
      query: { translation_language: 'de' } });
    expectStatus(de, 200);
    expect((await api(path(t.id))).json).toEqual(expect.objectContaining({ name: `Summer ${w}`, description: '' }));
    const viaPrefix = await api(`${serverOrigin()}/de/calendar/events/v1/tags`, { query: { search: `sommer ${w}`, hide_empty: false } });
    expect(viaPrefix.json.tags.map((x: any) => x.name)).toEqual([`Sommer ${w}`]);
    expect(viaPrefix.json.rest_url).toBe(`${serverOrigin()}/de/calendar/events/v1/tags/`);
  });
});
