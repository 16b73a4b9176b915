/**
 * Contract tests for /categories and /categories/{id}: CONTRACT.md §2–§4, §7–§9 and reference §4.4(b), §5.2, §8,
 * §9.3, §10.4, §10.5, §11.1, §12. The database is shared by every test file: names carry a unique word, and
 * list assertions are scoped with `search` or `include`.
 */
import { api, apiUrl, serverOrigin, tokenFor, type ApiResponse, etagVersion } from '../support/api.js';
import { createEvent, expectError, expectInvalid, expectStatus } from './helpers/events.js';
import { uniqueWord } from './helpers/list.js';

const TERM_KEYS = ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'parent', 'meta', 'url', 'urls'];
const ENVELOPE_KEYS = ['rest_url', 'total', 'total_pages', 'categories'];

let editor: string;
let author: string;
let contributor: string;
let subscriber: string;
beforeAll(async () => {
  [editor, author, contributor, subscriber] = await Promise.all([
    tokenFor('editor', 'terms-cat-editor'), tokenFor('author', 'terms-cat-author'),
    tokenFor('contributor', 'terms-cat-contributor'), tokenFor('subscriber', 'terms-cat-subscriber'),
  ]);
});

const path = (id: number | string): string => `/categories/${id}`;
const url = (id: number): string => `${apiUrl()}/categories/${id}`;
/** `token`: null = anonymous. */
const create = (body: unknown, token: string | null = editor, headers?: Record<string, string>): Promise<ApiResponse> =>
  api('/categories', { method: 'POST', token: token ?? undefined, body, headers });
const update = (id: number, body: unknown, opts: { method?: string; token?: string; headers?: Record<string, string>; query?: Record<string, string> } = {}) =>
  api(path(id), { method: opts.method ?? 'POST', token: opts.token ?? editor, body, headers: opts.headers, query: opts.query });
const remove = (id: number, token: string | null = editor, headers?: Record<string, string>) =>
  api(path(id), { method: 'DELETE', token: token ?? undefined, headers });
const list = (query: Record<string, any> = {}, token?: string) => api('/categories', { query, token });

/** Creates a category (editor) and returns its JSON; fails unless 201. */
async function category(fields: Record<string, unknown>): Promise<any> {
  const res = await create(fields);
  if (res.status !== 201) throw new Error(`POST /categories ${JSON.stringify(fields)} → ${res.status} ${res.text}`);
  return res.json;
}

/** Ids of a list page, expecting 200. */
async function listIds(query: Record<string, any>, token?: string): Promise<number[]> {
  const res = await list(query, token);
  expectStatus(res, 200);
  return res.json.categories.map((c: any) => c.id);
}

describe('POST /categories', () => {
  it('creates: 201, Location, ETag and the term shape of reference §4.4(b) in key order', async () => {
    const name = `Concerts ${uniqueWord()}`;
    const res = await create({ name, description: '<p>Live <b>music</b></p>' });
    expectStatus(res, 201);
    const t = res.json;
    expect(Object.keys(t)).toEqual(TERM_KEYS);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('location')).toBe(url(t.id));
    expect(etagVersion(res)).toBe('1');
    expect(Number.isInteger(t.id)).toBe(true);
    expect(t).toEqual({
      id: t.id, count: 0, description: '<p>Live <b>music</b></p>', name, slug: name.toLowerCase().replace(' ', '-'),
      taxonomy: 'tribe_events_cat', parent: 0, meta: [], url: `${serverOrigin()}/events/category/${t.slug}/`,
      urls: { self: url(t.id), collection: `${apiUrl()}/categories` },
    });
    expect(t).not.toHaveProperty('_links');
    const got = await api(path(t.id));
    expectStatus(got, 200);
    expect(got.json).toEqual(t);
    expect(got.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('accepts form-encoded bodies', async () => {
    const name = `Form ${uniqueWord()}`;
    const res = await api('/categories', { method: 'POST', token: editor, form: { name, description: 'plain' } });
    expectStatus(res, 201);
    expect(res.json.name).toBe(name);
    expect(res.json.description).toBe('plain');
  });

  it('sanitises the description (no script, no event handlers, no javascript: URLs)', async () => {
    const t = await category({
      name: `Sanitised ${uniqueWord()}`,
      description: '<p onclick="x()">Hi<script>alert(1)</script> <a href="javascript:alert(1)">l</a></p>',
    });
    expect(t.description).not.toMatch(/script|onclick|javascript:/);
    expect(t.description).toContain('Hi');
  });

  it('trims the name', async () => {
    const w = uniqueWord();
    const t = await category({ name: `  Padded ${w}  ` });
    expect(t.name).toBe(`Padded ${w}`);
  });

  it('requires name: 400 rest_missing_callback_param (before authorisation)', async () => {
    for (const token of [editor, null]) {
      const res = await create({ description: 'no name' }, token);
      expectError(res, 400, 'rest_missing_callback_param');
      expect(res.json.data.params).toEqual(['name']);
    }
  });

  it('rejects empty and over-long values: 400 rest_invalid_param', async () => {
    expectInvalid(await create({ name: '' }), 'name');
    expectInvalid(await create({ name: '   ' }), 'name');
    expectInvalid(await create({ name: 'x'.repeat(1001) }), 'name');
    expectInvalid(await create({ name: `Desc ${uniqueWord()}`, description: '' }), 'description');
    expectInvalid(await create({ name: `Slug ${uniqueWord()}`, slug: '' }), 'slug');
    expectInvalid(await create({ name: `Parent ${uniqueWord()}`, parent: 'abc' }), 'parent');
    expectInvalid(await create({ name: `Parent ${uniqueWord()}`, parent: 999_999_999 }), 'parent');
    expectInvalid(await create({ name: `Lang ${uniqueWord()}`, translation_language: 'fr' }), 'translation_language');
  });

  it('accepts parent 0 or null as "top level" (the origin rejects 0; we let a category move back to the top)', async () => {
    for (const parent of [0, null]) {
      const res = await create({ name: `Top ${uniqueWord()}`, parent });
      expect(res.status).toBe(201);
      expect(res.json.parent).toBe(0);
    }
    const top = await create({ name: `Top ${uniqueWord()}` });
    const child = await create({ name: `Child ${uniqueWord()}`, parent: top.json.id });
    expect(child.json.parent).toBe(top.json.id);
    const moved = await api(`/categories/${child.json.id}`, { method: 'PATCH', token: editor, body: { parent: 0 } });
    expect(moved.status).toBe(200);
    expect(moved.json.parent).toBe(0);
  });

  it('accepts a name of exactly 200 characters (contract §2: term names ≤ 200), counted in code points', async () => {
    const name = `${uniqueWord()} ${'𝔸'.repeat(200)}`;
    const fit = [...name].slice(0, 200).join('');
    const res = await create({ name: fit });
    expectStatus(res, 201);
    expect(res.json.name).toBe(fit);
    expectInvalid(await create({ name: `${fit}x` }), 'name');
  });

  it('malformed JSON → 400 rest_invalid_json', async () => {
    const res = await api('/categories', { method: 'POST', token: editor, body: '{"name":', headers: { 'content-type': 'application/json' } });
    expectError(res, 400, 'rest_invalid_json');
  });

  it('same name at the same level → 400 term_exists with data.term_id (case-insensitive)', async () => {
    const name = `Duplicate ${uniqueWord()}`;
    const first = await category({ name });
    for (const again of [name, name.toUpperCase(), name.toLowerCase()]) {
      const res = await create({ name: again });
      expectError(res, 400, 'term_exists');
      expect(res.json.data).toEqual({ status: 400, term_id: first.id });
    }
    // An explicit different slug does not make the same name acceptable.
    const withSlug = await create({ name, slug: `other-${uniqueWord()}` });
    expectError(withSlug, 400, 'term_exists');
  });

  it('the same name under another parent is fine (slug gets a suffix)', async () => {
    const name = `Shared ${uniqueWord()}`;
    const top = await category({ name });
    const parent = await category({ name: `Holder ${uniqueWord()}` });
    const child = await create({ name, parent: parent.id });
    expectStatus(child, 201);
    expect(child.json.parent).toBe(parent.id);
    expect(child.json.slug).toBe(`${top.slug}-2`);
    // …but not twice under that parent.
    const again = await create({ name, parent: parent.id });
    expectError(again, 400, 'term_exists');
    expect(again.json.data.term_id).toBe(child.json.id);
  });

  it('slug collisions get -2, -3…, for derived and explicit slugs alike', async () => {
    const w = uniqueWord();
    const a = await category({ name: `Jazz Night ${w}` });
    const b = await category({ name: `Jazz-Night ${w}` });
    const c = await category({ name: `Jazz, night ${w}!` });
    expect(a.slug).toBe(`jazz-night-${w}`);
    expect(b.slug).toBe(`jazz-night-${w}-2`);
    expect(c.slug).toBe(`jazz-night-${w}-3`);
    const d = await category({ name: `Other ${w}`, slug: `jazz-night-${w}` });
    expect(d.slug).toBe(`jazz-night-${w}-4`);
  });

  it('an explicit slug is normalised like a title', async () => {
    const w = uniqueWord();
    const t = await category({ name: `Named ${w}`, slug: `My Fancy Ünïcode Slug ${w}` });
    expect(t.slug).toBe(`my-fancy-unicode-slug-${w}`);
  });

  it('a parent: `parent` and `urls.up`, and a slug, of its own', async () => {
    const parent = await category({ name: `Parent ${uniqueWord()}` });
    const child = await category({ name: `Child ${uniqueWord()}`, parent: parent.id });
    expect(child.parent).toBe(parent.id);
    expect(child.urls).toEqual({ self: url(child.id), collection: `${apiUrl()}/categories`, up: url(parent.id) });
    expect(Object.keys(child.urls)).toEqual(['self', 'collection', 'up']);
  });

  it('a parent is an id (the route declares an integer): a slug → 400', async () => {
    const parent = await category({ name: `Sluggy ${uniqueWord()}` });
    expectInvalid(await create({ name: `Kid ${uniqueWord()}`, parent: parent.slug }), 'parent');
  });

  it('a tag id is not a category parent → 400', async () => {
    const tag = await api('/tags', { method: 'POST', token: editor, body: { name: `Tag ${uniqueWord()}` } });
    expectStatus(tag, 201);
    expectInvalid(await create({ name: `Kid ${uniqueWord()}`, parent: tag.json.id }), 'parent');
  });

  it('ignores read-only fields sent on input', async () => {
    const w = uniqueWord();
    const t = await category({ name: `Readonly ${w}`, id: 123456789, count: 99, taxonomy: 'post_tag', url: 'http://x/' });
    expect(t.id).not.toBe(123456789);
    expect(t.count).toBe(0);
    expect(t.taxonomy).toBe('tribe_events_cat');
  });
});

describe('capabilities (reference §11.1, contract §4)', () => {
  it('create: anonymous 401, subscriber/contributor 403, author and editor 201', async () => {
    expectError(await create({ name: `Anon ${uniqueWord()}` }, null), 401, 'rest_forbidden');
    expectError(await create({ name: `Sub ${uniqueWord()}` }, subscriber), 403, 'rest_forbidden');
    expectError(await create({ name: `Con ${uniqueWord()}` }, contributor), 403, 'rest_forbidden');
    expectStatus(await create({ name: `Auth ${uniqueWord()}` }, author), 201);
    expectStatus(await create({ name: `Ed ${uniqueWord()}` }, editor), 201);
    expectStatus(await create({ name: `Admin ${uniqueWord()}` }, await tokenFor('administrator', 'terms-cat-admin')), 201);
  });

  it('update: anonymous 401, subscriber/contributor 403, author and editor 200 (also on others\' terms)', async () => {
    const t = await category({ name: `Upd ${uniqueWord()}` });
    expectError(await api(path(t.id), { method: 'POST', body: { description: 'x' } }), 401, 'rest_forbidden');
    expectError(await update(t.id, { description: 'x' }, { token: subscriber }), 403, 'rest_forbidden');
    expectError(await update(t.id, { description: 'x' }, { token: contributor }), 403, 'rest_forbidden');
    expectStatus(await update(t.id, { description: 'by author' }, { token: author }), 200);
    expectStatus(await update(t.id, { description: 'by editor' }, { token: editor }), 200);
    expect((await api(path(t.id))).json.description).toBe('by editor');
  });

  it('delete: anonymous 401, subscriber/contributor 403, author 200', async () => {
    const t = await category({ name: `Del ${uniqueWord()}` });
    expectError(await remove(t.id, null), 401, 'rest_forbidden');
    expectError(await remove(t.id, subscriber), 403, 'rest_forbidden');
    expectError(await remove(t.id, contributor), 403, 'rest_forbidden');
    expectStatus(await api(path(t.id)), 200);
    expectStatus(await remove(t.id, author), 200);
    expectError(await api(path(t.id)), 404, 'rest-category-not-found');
  });

  it('authorisation before existence: a missing id is 401 / 403 / 404 by caller', async () => {
    const missing = 987_654_321;
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const body = method === 'DELETE' ? undefined : { description: 'x' };
      expectError(await api(path(missing), { method, body }), 401, 'rest_forbidden');
      expectError(await api(path(missing), { method, body, token: contributor }), 403, 'rest_forbidden');
      expectError(await api(path(missing), { method, body, token: author }), 404, 'rest-category-not-found');
      expectError(await api(path(missing), { method, body, token: editor }), 404, 'rest-category-not-found');
    }
  });

  it('a bad token is 401 rest_invalid_token even on GET', async () => {
    const res = await api('/categories', { token: 'not-a-jwt' });
    expectError(res, 401, 'rest_invalid_token');
    expect(res.headers.get('www-authenticate')).toContain('invalid_token');
  });

  it('reads are public', async () => {
    const t = await category({ name: `Public ${uniqueWord()}` });
    for (const token of [undefined, subscriber, contributor]) expectStatus(await api(path(t.id), { token }), 200);
  });
});

describe('GET /categories/{id}', () => {
  it('404 rest-category-not-found for a missing id, and for a tag id', async () => {
    const missing = await api(path(987_654_322));
    expectError(missing, 404, 'rest-category-not-found');
    expect(missing.json.message).toContain('987654322');
    const tag = await api('/tags', { method: 'POST', token: editor, body: { name: `Tag ${uniqueWord()}` } });
    expectError(await api(path(tag.json.id)), 404, 'rest-category-not-found');
    expectError(await api(path(0)), 404, 'rest-category-not-found');
  });

  it('a non-digit id is 404 rest_no_route; an unsupported method on the collection is 405', async () => {
    expectError(await api('/categories/abc'), 404, 'rest_no_route');
    const res = await api('/categories', { method: 'DELETE', token: editor });
    expectError(res, 405, 'rest_no_route');
    expect(res.headers.get('allow')).toContain('GET');
  });

  it('a trailing slash is ignored', async () => {
    const t = await category({ name: `Slash ${uniqueWord()}` });
    expectStatus(await api(`${path(t.id)}/`), 200);
  });
});

describe('updates', () => {
  it('POST, PUT and PATCH are partial: unsent fields stay', async () => {
    const w = uniqueWord();
    const t = await category({ name: `Partial ${w}`, description: 'keep me' });
    let res = await update(t.id, { name: `Partial renamed ${w}` }, { method: 'PUT' });
    expectStatus(res, 200);
    expect(res.json).toEqual({ ...t, name: `Partial renamed ${w}` }); // slug stays
    res = await update(t.id, { description: 'changed' }, { method: 'PATCH' });
    expect(res.json).toEqual({ ...t, name: `Partial renamed ${w}`, description: 'changed' });
    res = await update(t.id, {}, { method: 'POST' });
    expectStatus(res, 200);
    expect(res.json.description).toBe('changed');
  });

  it('ETag changes with every change; a no-op update keeps it; If-Match works (412 when stale)', async () => {
    const created = await create({ name: `Etag ${uniqueWord()}` });
    const t = created.json;
    const etag0 = created.headers.get('etag')!;
    const noop = await update(t.id, {});
    expect(noop.headers.get('etag')).toBe(etag0);
    const changed = await update(t.id, { description: 'v2' }, { headers: { 'If-Match': etag0 } });
    expectStatus(changed, 200);
    const etag1 = changed.headers.get('etag')!;
    expect(etag1).not.toBe(etag0);
    expect((await api(path(t.id))).headers.get('etag')).toBe(etag1);
    expectError(await update(t.id, { description: 'v3' }, { headers: { 'If-Match': etag0 } }), 412, 'rest_precondition_failed');
    expect((await api(path(t.id))).json.description).toBe('v2');
    expectStatus(await update(t.id, { description: 'v3' }, { headers: { 'If-Match': `W/${etag1}` } }), 200);
    expectStatus(await update(t.id, { description: 'v4' }, { headers: { 'If-Match': '*' } }), 200);
    expectError(await remove(t.id, editor, { 'If-Match': etag1 }), 412, 'rest_precondition_failed');
    expectStatus(await api(path(t.id)), 200);
  });

  it('renaming onto a sibling name → term_exists; a change of case is fine', async () => {
    const w = uniqueWord();
    const a = await category({ name: `Alpha ${w}` });
    const b = await category({ name: `Beta ${w}` });
    const res = await update(b.id, { name: `ALPHA ${w}` });
    expectError(res, 400, 'term_exists');
    expect(res.json.data.term_id).toBe(a.id);
    expectStatus(await update(a.id, { name: `ALPHA ${w}` }), 200);
    // The old name is released on rename.
    expectStatus(await update(a.id, { name: `Gamma ${w}` }), 200);
    expectStatus(await create({ name: `Alpha ${w}` }), 201);
  });

  it('slug updates: normalised, the old slug is released, a taken slug → 400 rest_invalid_param', async () => {
    const w = uniqueWord();
    const a = await category({ name: `First ${w}` });
    const b = await category({ name: `Second ${w}` });
    let res = await update(a.id, { slug: `Brand New ${w}` });
    expectStatus(res, 200);
    expect(res.json.slug).toBe(`brand-new-${w}`);
    expect(res.json.url).toBe(`${serverOrigin()}/events/category/brand-new-${w}/`);
    res = await update(b.id, { slug: `brand-new-${w}` });
    expectInvalid(res, 'slug');
    expect((await api(path(b.id))).json.slug).toBe(b.slug);
    // a's old slug is free again
    const c = await category({ name: `Other ${w}`, slug: a.slug });
    expect(c.slug).toBe(a.slug);
    // setting its own slug again is fine
    expectStatus(await update(b.id, { slug: b.slug }), 200);
  });

  it('parent: set, move, and the errors (self, descendant, unknown, tag id)', async () => {
    const w = uniqueWord();
    const root = await category({ name: `Root ${w}` });
    const mid = await category({ name: `Mid ${w}` });
    const leaf = await category({ name: `Leaf ${w}`, parent: mid.id });
    let res = await update(mid.id, { parent: root.id });
    expectStatus(res, 200);
    expect(res.json.parent).toBe(root.id);
    expect(res.json.urls.up).toBe(url(root.id));
    expectInvalid(await update(root.id, { parent: root.id }), 'parent');
    expectInvalid(await update(root.id, { parent: mid.id }), 'parent');
    expectInvalid(await update(root.id, { parent: leaf.id }), 'parent');
    expectInvalid(await update(root.id, { parent: 999_999_999 }), 'parent');
    expect((await api(path(root.id))).json.parent).toBe(0);
    // Move the leaf directly under the root.
    res = await update(leaf.id, { parent: root.id });
    expect(res.json.parent).toBe(root.id);
    expect((await listIds({ parent: root.id, hide_empty: false })).sort()).toEqual([mid.id, leaf.id].sort());
  });

  it('moving under a parent that has a child of the same name → term_exists', async () => {
    const w = uniqueWord();
    const p = await category({ name: `Home ${w}` });
    const inside = await category({ name: `Same ${w}`, parent: p.id });
    const outside = await category({ name: `Same ${w}` });
    const res = await update(outside.id, { parent: p.id });
    expectError(res, 400, 'term_exists');
    expect(res.json.data.term_id).toBe(inside.id);
  });

  it('validates like create: empty name/slug/description and over-long name → 400', async () => {
    const t = await category({ name: `Valid ${uniqueWord()}` });
    expectInvalid(await update(t.id, { name: '' }), 'name');
    expectInvalid(await update(t.id, { slug: '' }), 'slug');
    expectInvalid(await update(t.id, { description: '' }), 'description');
    expectInvalid(await update(t.id, { name: 'y'.repeat(1001) }), 'name');
  });
});

describe('DELETE /categories/{id}', () => {
  it('deletes permanently: 200 + the term as it was (shape 4.4(b)), then 404 everywhere', async () => {
    const w = uniqueWord();
    const t = await category({ name: `Gone ${w}`, description: 'bye' });
    const res = await remove(t.id);
    expectStatus(res, 200);
    expect(Object.keys(res.json)).toEqual(TERM_KEYS);
    expect(res.json).toEqual(t);
    expectError(await api(path(t.id)), 404, 'rest-category-not-found');
    expectError(await remove(t.id), 404, 'rest-category-not-found');
    expectError(await update(t.id, { name: 'x' }), 404, 'rest-category-not-found');
    expect(await listIds({ search: w, hide_empty: false })).toEqual([]);
    // Name and slug are free again.
    const again = await category({ name: `Gone ${w}` });
    expect(again.slug).toBe(t.slug);
    expect(again.id).not.toBe(t.id);
  });

  it('children move up to the deleted category\'s parent', async () => {
    const w = uniqueWord();
    const top = await category({ name: `Top ${w}` });
    const mid = await category({ name: `Middle ${w}`, parent: top.id });
    const a = await category({ name: `A ${w}`, parent: mid.id });
    const b = await category({ name: `B ${w}`, parent: mid.id });
    expectStatus(await remove(mid.id), 200);
    for (const c of [a, b]) {
      const got = await api(path(c.id));
      expect(got.json.parent).toBe(top.id);
      expect(got.json.urls.up).toBe(url(top.id));
    }
    expectStatus(await remove(top.id), 200);
    expect((await api(path(a.id))).json.parent).toBe(0);
    expect((await api(path(a.id))).json.urls).not.toHaveProperty('up');
  });

  it('unlinks the category from its events', async () => {
    const t = await category({ name: `Linked ${uniqueWord()}` });
    const keep = await category({ name: `Kept ${uniqueWord()}` });
    const ev = await createEvent({ categories: [t.id, keep.id] });
    expect(ev.categories.map((c: any) => c.id).sort()).toEqual([t.id, keep.id].sort());
    const res = await remove(t.id);
    expectStatus(res, 200);
    expect(res.json.count).toBe(1); // as it was
    const after = await api(`/events/${ev.id}`);
    expect(after.json.categories.map((c: any) => c.id)).toEqual([keep.id]);
    expect((await api(path(keep.id))).json.count).toBe(1);
  });
});

describe('languages (contract §8)', () => {
  it('a write in a language changes that language only; reads fall back to the first language', async () => {
    const w = uniqueWord();
    const t = await category({ name: `Concerts ${w}`, description: 'English text' });
    const de = await update(t.id, { name: `Konzerte ${w}` }, { query: { translation_language: 'de' } });
    expectStatus(de, 200);
    expect(de.headers.get('content-language')).toBe('de');
    expect(de.json.name).toBe(`Konzerte ${w}`);
    expect(de.json.description).toBe('English text'); // fallback
    expect((await api(path(t.id))).json.name).toBe(`Concerts ${w}`);
    const viaPrefix = await api(`${serverOrigin()}/de/calendar/events/v1/categories/${t.id}`);
    expect(viaPrefix.json.name).toBe(`Konzerte ${w}`);
    expect(viaPrefix.headers.get('content-language')).toBe('de');
    expect(viaPrefix.json.urls.self).toBe(`${serverOrigin()}/de/calendar/events/v1/categories/${t.id}`);
    const pt = await api(path(t.id), { query: { translation_language: 'pt-pt' } });
    expect(pt.json.name).toBe(`Concerts ${w}`);
    expect(pt.headers.get('content-language')).toBe('pt-pt');
    // the slug is shared by all languages
    expect(viaPrefix.json.slug).toBe(t.slug);
  });

  it('lists search and sort by the name shown in the request language', async () => {
    const w = uniqueWord();
    const t = await category({ name: `Apple ${w}` });
    expectStatus(await update(t.id, { name: `Zebra ${w}` }, { query: { translation_language: 'de' } }), 200);
    const other = await category({ name: `Mango ${w}` });
    expect(await listIds({ search: w, hide_empty: false })).toEqual([t.id, other.id]);
    expect(await listIds({ search: w, hide_empty: false, translation_language: 'de' })).toEqual([other.id, t.id]);
    expect(await listIds({ search: `zebra ${w}`, hide_empty: false, translation_language: 'de' })).toEqual([t.id]);
    expect(await listIds({ search: `zebra ${w}`, hide_empty: false })).toEqual([]);
    const de = await api(`${serverOrigin()}/de/calendar/events/v1/categories`, { query: { search: w, hide_empty: false } });
    expect(de.json.rest_url).toBe(`${serverOrigin()}/de/calendar/events/v1/categories/`);
  });

  it('the name guard covers every language: another term cannot take a translated name', async () => {
    const w = uniqueWord();
    const t = await category({ name: `Music ${w}` });
    await update(t.id, { name: `Musik ${w}` }, { query: { translation_language: 'de' } });
    const res = await create({ name: `Musik ${w}` });
    expectError(res, 400, 'term_exists');
    expect(res.json.data.term_id).toBe(t.id);
  });
});

describe('GET /categories', () => {
  it('envelope of reference §5.2: key order, bare rest_url, totals, headers', async () => {
    const w = uniqueWord();
    const made = [await category({ name: `A ${w}` }), await category({ name: `B ${w}` }), await category({ name: `C ${w}` })];
    const res = await list({ search: w, hide_empty: false, per_page: 2 });
    expectStatus(res, 200);
    expect(Object.keys(res.json)).toEqual([...ENVELOPE_KEYS, 'next_rest_url']);
    expect(res.json.rest_url).toBe(`${apiUrl()}/categories/`);
    expect(res.json.total).toBe(3);
    expect(res.json.total_pages).toBe(2);
    expect(res.json.categories.map((c: any) => c.id)).toEqual([made[0].id, made[1].id]);
    for (const c of res.json.categories) expect(Object.keys(c)).toEqual(TERM_KEYS);
    expect(res.json.next_rest_url).toBe(`${apiUrl()}/categories/?page=2`);
    expect(res.headers.get('x-tec-total')).toBe('3');
    expect(res.headers.get('x-tec-totalpages')).toBe('2');
    expect(res.headers.get('link')).toBe(`<${apiUrl()}/categories/?page=2>; rel="next"`);
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/); // a list's tag is its body's hash (contract §15)

    const p2 = await list({ search: w, hide_empty: false, per_page: 2, page: 2 });
    expect(Object.keys(p2.json)).toEqual([...ENVELOPE_KEYS, 'previous_rest_url']);
    expect(p2.json.categories.map((c: any) => c.id)).toEqual([made[2].id]);
    expect(p2.json.previous_rest_url).toBe(`${apiUrl()}/categories/`);
    expect(p2.headers.get('link')).toBe(`<${apiUrl()}/categories/>; rel="prev"`);
  });

  it('a page past the end is 200 with an empty list (and a previous_rest_url)', async () => {
    const w = uniqueWord();
    await category({ name: `Only ${w}` });
    const res = await list({ search: w, hide_empty: false, page: 5 });
    expectStatus(res, 200);
    expect(res.json.categories).toEqual([]);
    expect(res.json.total).toBe(1);
    expect(res.json.total_pages).toBe(1);
    expect(res.json.previous_rest_url).toBe(`${apiUrl()}/categories/?page=4`);
    expect(res.json).not.toHaveProperty('next_rest_url');
  });

  it('no matches: totals 0, no next/previous, headers 0/0', async () => {
    const res = await list({ search: uniqueWord(), hide_empty: false });
    expectStatus(res, 200);
    expect(res.json).toEqual({ rest_url: `${apiUrl()}/categories/`, total: 0, total_pages: 0, categories: [] });
    expect(res.headers.get('x-tec-total')).toBe('0');
    expect(res.headers.get('x-tec-totalpages')).toBe('0');
    expect(res.headers.get('link')).toBeNull();
  });

  it('per_page is clamped to 50; page/per_page must be positive integers', async () => {
    const w = uniqueWord();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await category({ name: `Clamp ${i} ${w}` })).id);
    const res = await list({ search: w, hide_empty: false, per_page: 500 });
    expectStatus(res, 200);
    expect(res.json.total_pages).toBe(1);
    expect(res.json.categories).toHaveLength(3);
    for (const bad of [0, -1, 'x', '']) {
      expectInvalid(await list({ per_page: bad }), 'per_page');
      expectInvalid(await list({ page: bad }), 'page');
    }
  });

  it('hide_empty defaults to true: terms without published events are left out', async () => {
    const w = uniqueWord();
    const used = await category({ name: `Used ${w}` });
    const unused = await category({ name: `Unused ${w}` });
    await createEvent({ categories: [used.id] });
    expect(await listIds({ search: w })).toEqual([used.id]);
    expect(await listIds({ search: w, hide_empty: true })).toEqual([used.id]);
    expect(await listIds({ search: w, hide_empty: false })).toEqual([unused.id, used.id]);
    expect(await listIds({ search: w, hide_empty: '0' })).toEqual([unused.id, used.id]);
    expectInvalid(await list({ hide_empty: 'maybe' }), 'hide_empty');
  });

  it('hide_empty keeps an empty category whose descendant has events', async () => {
    const w = uniqueWord();
    const parent = await category({ name: `Parent ${w}` });
    const child = await category({ name: `Child ${w}`, parent: parent.id });
    await category({ name: `Empty ${w}` });
    await createEvent({ categories: [child.id] });
    expect(await listIds({ search: w })).toEqual([child.id, parent.id]);
  });

  it('search looks in the name and the slug, case-insensitively', async () => {
    const w = uniqueWord();
    const byName = await category({ name: `Salsa ${w} Night` });
    const bySlug = await category({ name: `Tango ${uniqueWord()}`, slug: `tango-${w}` });
    await category({ name: `Rumba ${uniqueWord()}` });
    expect(await listIds({ search: w.toUpperCase(), hide_empty: false })).toEqual([byName.id, bySlug.id]);
    expect(await listIds({ search: `salsa ${w}`, hide_empty: false })).toEqual([byName.id]);
    expect(await listIds({ search: `tango-${w}`, hide_empty: false })).toEqual([bySlug.id]);
    expectInvalid(await list({ search: '' }), 'search');
  });

  it('include and exclude (ids or slugs; unknown → 400)', async () => {
    const w = uniqueWord();
    const a = await category({ name: `Inc A ${w}` });
    const b = await category({ name: `Inc B ${w}` });
    const c = await category({ name: `Inc C ${w}` });
    expect(await listIds({ include: [c.id, a.id], hide_empty: false })).toEqual([a.id, c.id]);
    expect(await listIds({ include: `${c.id},${a.id}`, hide_empty: false })).toEqual([a.id, c.id]);
    expect(await listIds({ include: [b.slug], hide_empty: false })).toEqual([b.id]);
    expect(await listIds({ search: w, exclude: [b.id], hide_empty: false })).toEqual([a.id, c.id]);
    expect(await listIds({ search: w, exclude: [a.slug, c.id], hide_empty: false })).toEqual([b.id]);
    expect(await listIds({ include: [a.id, b.id], exclude: [a.id], hide_empty: false })).toEqual([b.id]);
    expect(await listIds({ include: [a.id, b.id] })).toEqual([]); // hide_empty still applies
    expectInvalid(await list({ include: [999_999_999] }), 'include');
    expectInvalid(await list({ exclude: [`no-such-${w}`] }), 'exclude');
    const tag = await api('/tags', { method: 'POST', token: editor, body: { name: `T ${w}` } });
    expectInvalid(await list({ include: [tag.json.id] }), 'include');
  });

  it('orderby id, name, slug, count, include, description, with order asc/desc', async () => {
    const w = uniqueWord();
    const b = await category({ name: `bravo ${w}`, slug: `zz-${w}`, description: 'Charlie' });
    const a = await category({ name: `Alpha ${w}`, slug: `yy-${w}`, description: 'bravo' });
    const c = await category({ name: `Charlie ${w}`, slug: `xx-${w}`, description: 'alpha' });
    await createEvent({ categories: [c.id, a.id] });
    await createEvent({ categories: [c.id] });
    const q = { search: w, hide_empty: false };
    expect(await listIds(q)).toEqual([a.id, b.id, c.id]); // name asc (case-insensitive) by default
    expect(await listIds({ ...q, orderby: 'name', order: 'desc' })).toEqual([c.id, b.id, a.id]);
    expect(await listIds({ ...q, orderby: 'id' })).toEqual([b.id, a.id, c.id]);
    expect(await listIds({ ...q, orderby: 'id', order: 'desc' })).toEqual([c.id, a.id, b.id]);
    expect(await listIds({ ...q, orderby: 'slug' })).toEqual([c.id, a.id, b.id]);
    expect(await listIds({ ...q, orderby: 'count' })).toEqual([b.id, a.id, c.id]);
    expect(await listIds({ ...q, orderby: 'count', order: 'DESC' })).toEqual([c.id, a.id, b.id]);
    expect(await listIds({ ...q, orderby: 'description' })).toEqual([c.id, a.id, b.id]);
    expect(await listIds({ include: [c.id, a.id, b.id], orderby: 'include', hide_empty: false })).toEqual([c.id, a.id, b.id]);
    expect(await listIds({ include: [c.id, a.id, b.id], orderby: 'include', order: 'desc', hide_empty: false }))
      .toEqual([b.id, a.id, c.id]);
    expect(await listIds({ ...q, orderby: 'include' })).toEqual([a.id, b.id, c.id]); // without include: by name
    expect(await listIds({ ...q, orderby: 'term_group' })).toEqual([b.id, a.id, c.id]);
    expectInvalid(await list({ orderby: 'bogus' }), 'orderby');
    expectInvalid(await list({ orderby: '' }), 'orderby');
    expectInvalid(await list({ order: 'sideways' }), 'order');
    expectInvalid(await list({ order: '' }), 'order');
  });

  it('parent: direct children only; unknown parent → 400', async () => {
    const w = uniqueWord();
    const p = await category({ name: `P ${w}` });
    const c1 = await category({ name: `C1 ${w}`, parent: p.id });
    const c2 = await category({ name: `C2 ${w}`, parent: p.id });
    await category({ name: `G ${w}`, parent: c1.id });
    expect(await listIds({ parent: p.id, hide_empty: false })).toEqual([c1.id, c2.id]);
    expectInvalid(await list({ parent: 999_999_999 }), 'parent');
    expectInvalid(await list({ parent: 0 }), 'parent');
  });

  it('post / event: the terms of an event (event wins); unknown or non-event id → 400', async () => {
    const w = uniqueWord();
    const a = await category({ name: `EvA ${w}` });
    const b = await category({ name: `EvB ${w}` });
    const c = await category({ name: `EvC ${w}` });
    const e1 = await createEvent({ categories: [a.id, b.id] });
    const e2 = await createEvent({ categories: [c.id] });
    expect(await listIds({ event: e1.id })).toEqual([a.id, b.id]);
    expect(await listIds({ post: e1.id })).toEqual([a.id, b.id]);
    expect(await listIds({ post: e1.id, event: e2.id })).toEqual([c.id]);
    expect(await listIds({ event: e1.id, exclude: [a.id] })).toEqual([b.id]);
    expectInvalid(await list({ event: 999_999_999 }), 'event');
    expectInvalid(await list({ post: 999_999_999 }), 'post');
    expectInvalid(await list({ event: 'abc' }), 'event');
  });

  it('post / event: an event the caller cannot read is refused like a missing one (contract §4: no existence oracle)', async () => {
    const w = uniqueWord();
    const a = await category({ name: `Hidden ${w}` });
    const draft = await createEvent({ categories: [a.id], status: 'draft' });
    expectInvalid(await list({ event: draft.id, hide_empty: false }), 'event');
    expectInvalid(await list({ post: draft.id, hide_empty: false }, subscriber), 'post');
    expect(await listIds({ event: draft.id, hide_empty: false }, editor)).toEqual([a.id]);
  });

  it('slug: the term with exactly that slug', async () => {
    const w = uniqueWord();
    const a = await category({ name: `Exact ${w}` });
    await category({ name: `Exact ${w} longer` });
    expect(await listIds({ slug: a.slug, hide_empty: false })).toEqual([a.id]);
    expect(await listIds({ slug: `no-such-${w}`, hide_empty: false })).toEqual([]);
    expectInvalid(await list({ slug: '' }), 'slug');
  });

  it('unknown parameters are ignored', async () => {
    expectStatus(await list({ flavour: 'vanilla', search: uniqueWord() }), 200);
  });
});

describe('concurrency', () => {
  it('parallel creates of one name: exactly one 201, the others term_exists naming the winner', async () => {
    const name = `Race ${uniqueWord()}`;
    const results = await Promise.all(Array.from({ length: 6 }, () => create({ name })));
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expectError(r, 400, 'term_exists');
      expect(r.json.data.term_id).toBe(created[0]!.json.id);
    }
  });

  it('parallel creates with one slug base get distinct slugs', async () => {
    const w = uniqueWord();
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => create({ name: `Same slug ${w} ${'!'.repeat(i + 1)}` })));
    for (const r of results) expectStatus(r, 201);
    const slugs = results.map((r) => r.json.slug).sort();
    expect(new Set(slugs).size).toBe(5);
    for (const s of slugs) expect(s).toMatch(new RegExp(`^same-slug-${w}(-[2-9])?$`));
  });

  it('two opposite moves in parallel never make a cycle', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await category({ name: `Cyc A ${uniqueWord()}` });
      const b = await category({ name: `Cyc B ${uniqueWord()}` });
      const [ra, rb] = await Promise.all([update(a.id, { parent: b.id }), update(b.id, { parent: a.id })]);
      expect([ra.status, rb.status].filter((s) => s === 200).length).toBeLessThanOrEqual(1);
      const [ga, gb] = [(await api(path(a.id))).json, (await api(path(b.id))).json];
      expect(ga.parent === b.id && gb.parent === a.id).toBe(false);
      for (const r of [ra, rb]) if (r.status !== 200) expect([400, 409]).toContain(r.status);
    }
  });

  it('parallel partial updates of different fields are all kept', async () => {
    const t = await category({ name: `Merge ${uniqueWord()}` });
    const w = uniqueWord();
    const results = await Promise.all([
      update(t.id, { description: `desc ${w}` }),
      update(t.id, { slug: `merged-${w}` }),
      update(t.id, { name: `Merged ${w}` }, { query: { translation_language: 'de' } }),
    ]);
    for (const r of results) expectStatus(r, 200);
    const en = (await api(path(t.id))).json;
    expect(en).toMatchObject({ description: `desc ${w}`, slug: `merged-${w}`, name: t.name });
    expect((await api(path(t.id), { query: { translation_language: 'de' } })).json.name).toBe(`Merged ${w}`);
  });

  it('a child created while its parent is deleted is never orphaned', async () => {
    const parent = await category({ name: `Doomed parent ${uniqueWord()}` });
    const [child, del] = await Promise.all([create({ name: `Late child ${uniqueWord()}`, parent: parent.id }), remove(parent.id)]);
    expectStatus(del, 200);
    if (child.status === 201) expect((await api(path(child.json.id))).json.parent).toBe(0);
    else expectInvalid(child, 'parent');
  });
});
