/**
 * Contract tests of the single-record routes that venues and organizers share, run for both kinds:
 * create (and de-duplication), read by id and slug, partial updates, trash / 410 / force / restore, ETag and
 * If-Match, roles and visibility, password blanking, languages.
 * CONTRACT.md §2–§8 and reference §4.2–4.3, §9.2, §10.2–10.3, §10.5, §11.
 */
import { api, apiUrl, serverOrigin, tokenFor, type ApiResponse, etagVersion } from '../support/api.js';
import { expectError, expectInvalid, expectStatus, freshToken, uid } from './helpers/events.js';

type Kind = 'venue' | 'organizer';
const PLURAL = { venue: 'venues', organizer: 'organizers' } as const;
const MISSING = 987654321;

let editor: string;
beforeAll(async () => {
  editor = await tokenFor('editor');
});

describe.each(['venue', 'organizer'] as const)('%s', (kind: Kind) => {
  const plural = PLURAL[kind];
  const path = (id: number | string) => `/${plural}/${id}`;
  const slugPath = (slug: string) => `/${plural}/by-slug/${slug}`;
  const uniqueName = (label = 'Place') => `${label} ${kind} ${uid()}`;
  /** The token to send: the editor's by default, none for `null` (anonymous). */
  const as = (token: string | null | undefined): string | undefined => (token === null ? undefined : token ?? editor);
  const create = (body: Record<string, unknown>, token?: string | null) =>
    api(`/${plural}`, { method: 'POST', token: as(token), body });
  /** Creates a record and returns its JSON; fails unless 201. */
  const make = async (extra: Record<string, unknown> = {}, token: string = editor): Promise<any> => {
    const res = await create({ [kind]: uniqueName(), ...extra }, token);
    if (res.status !== 201) throw new Error(`creating a fixture ${kind} failed: ${res.status} ${res.text}`);
    return res.json;
  };
  const read = (id: number, token?: string, query?: Record<string, string>) => api(path(id), { token, query });
  const patch = (id: number, body: Record<string, unknown>, token?: string | null, headers?: Record<string, string>) =>
    api(path(id), { method: 'PATCH', token: as(token), body, headers });
  const remove = (id: number, token?: string | null, query?: Record<string, string | boolean>, headers?: Record<string, string>) =>
    api(path(id), { method: 'DELETE', token: as(token), query, headers });
  const notFound = `rest-${kind}-not-found`;

  describe('create', () => {
    it('answers 201 with Location, ETag and the record; author is an integer; no json_ld', async () => {
      const name = uniqueName('Created');
      const res = await create({ [kind]: name });
      expectStatus(res, 201);
      const rec = res.json;
      expect(res.headers.get('location')).toBe(`${apiUrl()}${path(rec.id)}`);
      expect(etagVersion(res)).toBe('1');
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Number.isInteger(rec.id)).toBe(true);
      expect(Number.isInteger(rec.author)).toBe(true);
      expect(rec.status).toBe('publish');
      expect(rec[kind]).toBe(name);
      expect(rec.slug).toBe(name.toLowerCase().replace(/ /g, '-'));
      expect(rec.url).toBe(`${serverOrigin()}/${kind}/${rec.slug}/`);
      const host = new URL(apiUrl()).host;
      expect(rec.global_id).toBe(`${host}?id=${rec.id}`);
      expect(rec.global_id_lineage).toEqual([rec.global_id]);
      expect(rec).not.toHaveProperty('json_ld');
      expect(rec).not.toHaveProperty('password');
      expect(rec).not.toHaveProperty('image');
    });

    it('trims the name, sanitises description and excerpt HTML, and accepts form bodies', async () => {
      const name = uniqueName('Trimmed');
      const res = await create({
        [kind]: `  ${name}  `, description: '<p onclick="x()">Hi <script>alert(1)</script><a href="javascript:alert(1)">l</a></p>',
        excerpt: '<em>short</em>',
      });
      expectStatus(res, 201);
      expect(res.json[kind]).toBe(name);
      expect(res.json.description).not.toMatch(/script|onclick|javascript/);
      expect(res.json.description).toContain('Hi');
      expect(res.json.excerpt).toBe('<em>short</em>');
      const form = await api(`/${plural}`, { method: 'POST', token: editor, form: { [kind]: uniqueName('Form'), phone: '+33 1 23' } });
      expectStatus(form, 201);
      expect(form.json.phone).toBe('+33 1 23');
    });

    it('requires the name: 400 rest_missing_callback_param before authorisation, even anonymously', async () => {
      for (const token of [editor, null]) {
        const res = await create({ description: 'no name' }, token);
        expectError(res, 400, 'rest_missing_callback_param');
        expect(res.json.data.params).toEqual([kind]);
      }
    });

    it('rejects invalid values with 400 rest_invalid_param naming each parameter', async () => {
      expectInvalid(await create({ [kind]: '' }), kind);
      expectInvalid(await create({ [kind]: '   ' }), kind);
      expectInvalid(await create({ [kind]: 'x'.repeat(1001) }), kind);
      expectInvalid(await create({ [kind]: uniqueName(), description: 'x'.repeat(100_001) }), 'description');
      expectInvalid(await create({ [kind]: uniqueName(), website: 'not a url' }), 'website');
      expectInvalid(await create({ [kind]: uniqueName(), website: 'ftp://example.org/' }), 'website');
      expectInvalid(await create({ [kind]: uniqueName(), status: 'bogus' }), 'status');
      expectInvalid(await create({ [kind]: uniqueName(), author: MISSING }), 'author');
      expectInvalid(await create({ [kind]: uniqueName(), author: 'me' }), 'author');
      expectInvalid(await create({ [kind]: uniqueName(), date: 'not a date at all' }), 'date');
      expectInvalid(await create({ [kind]: uniqueName(), date_utc: '2025-13-45' }), 'date_utc');
      expectInvalid(await create({ [kind]: uniqueName(), phone: 'x'.repeat(2001) }), 'phone');
      const image = await create({ [kind]: uniqueName(), image: 55 });
      expectInvalid(image, 'image');
      expect(image.json.data.params.image).toMatch(/URL/);
      expectInvalid(await create({ [kind]: uniqueName(), image: 'relative/pic.jpg' }), 'image');
      expectInvalid(await create({ [kind]: 123, website: 'x', status: 'x' }), 'website', 'status');
      expectInvalid(await api(`/${plural}`, { method: 'POST', token: editor, body: { [kind]: uniqueName() },
        query: { translation_language: 'fr' } }), 'translation_language');
      // validation before authorisation
      expectInvalid(await create({ [kind]: uniqueName(), website: 'nope' }, null), 'website');
    });

    it('anonymous → 401, subscriber → 403 rest_forbidden; nothing is stored', async () => {
      const name = uniqueName('Refused');
      expectError(await create({ [kind]: name }, null), 401, 'rest_forbidden');
      expectError(await create({ [kind]: name }, await freshToken('subscriber')), 403, 'rest_forbidden');
      const slug = name.toLowerCase().replace(/ /g, '-');
      expectError(await api(slugPath(slug), { token: editor }), 404, notFound);
    });

    it('status trash is refused on create', async () => {
      expectInvalid(await create({ [kind]: uniqueName(), status: 'trash' }), 'status');
    });

    it('stores date (site time, UTC here) and date_utc; newest-first order follows them', async () => {
      const a = await make({ date: '2021-03-04 05:06:07' });
      expect([a.date, a.date_utc]).toEqual(['2021-03-04 05:06:07', '2021-03-04 05:06:07']);
      const b = await make({ date_utc: '2020-01-02T03:04:05Z' });
      expect(b.date_utc).toBe('2020-01-02 03:04:05');
      const c = await make({ date: 1700000000 });
      expect(c.date_utc).toBe('2023-11-14 22:13:20');
    });

    it('gives a second record of the same name (another description) the slug -2', async () => {
      const name = uniqueName('Twin');
      const a = await make({ [kind]: name, description: 'first' });
      const b = await make({ [kind]: name, description: 'second' });
      expect(b.id).not.toBe(a.id);
      expect(b.slug).toBe(`${a.slug}-2`);
    });
  });

  describe('de-duplication (reference §10.2–10.3)', () => {
    it('same name, case-insensitive, no description sent → 201 with the existing id; the sent fields are written', async () => {
      const name = uniqueName('Dup');
      const a = await make({ [kind]: name, description: 'Kept', phone: '111' });
      const res = await create({ [kind]: name.toUpperCase(), phone: '222' });
      expectStatus(res, 201);
      expect(res.json.id).toBe(a.id);
      expect(res.headers.get('location')).toBe(`${apiUrl()}${path(a.id)}`);
      expect(res.json.phone).toBe('222');
      expect(res.json.description).toBe('Kept');
      expect(res.json.slug).toBe(a.slug);
      const now = (await read(a.id)).json;
      expect([now.phone, now.description]).toEqual(['222', 'Kept']);
    });

    it('with a description: matches only the same description (case-insensitive)', async () => {
      const name = uniqueName('DupDesc');
      const a = await make({ [kind]: name, description: 'The Big Room' });
      const same = await create({ [kind]: name, description: 'the big room' });
      expectStatus(same, 201);
      expect(same.json.id).toBe(a.id);
      const other = await create({ [kind]: name, description: 'Another room' });
      expectStatus(other, 201);
      expect(other.json.id).not.toBe(a.id);
    });

    it('never matches a trashed record, nor the other kind', async () => {
      const name = uniqueName('DupTrash');
      const a = await make({ [kind]: name });
      expectStatus(await remove(a.id), 200);
      const res = await create({ [kind]: name });
      expectStatus(res, 201);
      expect(res.json.id).not.toBe(a.id);
      expect(res.json.slug).toBe(a.slug); // the trashed record released its slug
      const otherKind: Kind = kind === 'venue' ? 'organizer' : 'venue';
      const cross = await api(`/${PLURAL[otherKind]}`, { method: 'POST', token: editor, body: { [otherKind]: name } });
      expectStatus(cross, 201);
      expect(cross.json.id).not.toBe(res.json.id);
    });

    it('matches a renamed record under its new name only', async () => {
      const a = await make();
      const renamed = uniqueName('Renamed');
      expectStatus(await patch(a.id, { [kind]: renamed }), 200);
      expect((await create({ [kind]: renamed })).json.id).toBe(a.id);
      expect((await create({ [kind]: a[kind] })).json.id).not.toBe(a.id);
    });

    it("does not reveal or reuse someone else's draft; reuses without changing a record the caller may not edit", async () => {
      const name = uniqueName('DupRoles');
      const draft = await make({ [kind]: name, status: 'draft', phone: '1' });
      const contributor = await freshToken('contributor');
      const mine = await create({ [kind]: name, phone: '2' }, contributor);
      expectStatus(mine, 201);
      expect(mine.json.id).not.toBe(draft.id);
      expect((await read(draft.id, editor)).json.phone).toBe('1');

      const published = await make({ [kind]: uniqueName('DupPub'), phone: '1' });
      const author = await freshToken('author');
      const reuse = await create({ [kind]: published[kind], phone: '9' }, author);
      expectStatus(reuse, 201);
      expect(reuse.json.id).toBe(published.id);
      expect(reuse.json.phone).toBe('1');
      expect((await read(published.id)).json.phone).toBe('1');
    });
  });

  describe('read', () => {
    it('by id and by slug: 200 with json_ld and an ETag; same record as the create response', async () => {
      const rec = await make({ description: '<p>About</p>' });
      for (const res of [await read(rec.id), await api(slugPath(rec.slug))]) {
        expectStatus(res, 200);
        expect(etagVersion(res)).toBe('1');
        const { json_ld: ld, ...rest } = res.json;
        expect(rest).toEqual(Object.fromEntries(Object.entries(rec).filter(([k]) => k !== 'json_ld')));
        expect(ld).toMatchObject({ '@context': 'http://schema.org', '@type': kind === 'venue' ? 'Place' : 'Organization',
          name: rec[kind], url: rec.url, inLanguage: 'en', description: 'About' });
      }
    });

    it('a missing id or slug is 404 rest-%s-not-found; an id of another kind too; non-digit ids 404 rest_no_route', async () => {
      expectError(await read(MISSING), 404, notFound);
      expectError(await read(0), 404, notFound);
      expectError(await api(slugPath(`missing-${uid()}`)), 404, notFound);
      const otherKind: Kind = kind === 'venue' ? 'organizer' : 'venue';
      const other = await api(`/${PLURAL[otherKind]}`, { method: 'POST', token: editor, body: { [otherKind]: uniqueName() } });
      expectError(await read(other.json.id), 404, notFound);
      expectError(await api(slugPath(other.json.slug)), 404, notFound);
      expectError(await api(`/${plural}/abc`), 404, 'rest_no_route');
      expectError(await api(`/${plural}/1/extra`), 404, 'rest_no_route');
    });

    it('validates password and context', async () => {
      const rec = await make();
      expectInvalid(await read(rec.id, undefined, { password: '' }), 'password');
      expectInvalid(await read(rec.id, undefined, { context: 'embed' }), 'context');
    });
  });

  describe('visibility (reference §9.2, §11.2)', () => {
    it('a draft: 403 %s-not-accessible for anonymous, subscribers and other contributors; readable by its author and editors', async () => {
      const contributor = await freshToken('contributor');
      const draft = await make({ status: 'draft' }, contributor);
      expect(draft.status).toBe('draft');
      const code = `${kind}-not-accessible`;
      expectError(await read(draft.id), 403, code);
      expectError(await api(slugPath(draft.slug)), 403, code);
      expectError(await read(draft.id, await freshToken('subscriber')), 403, code);
      expectError(await read(draft.id, await freshToken('contributor')), 403, code);
      expectError(await read(draft.id, await freshToken('author')), 403, code);
      expectStatus(await read(draft.id, contributor), 200);
      expectStatus(await read(draft.id, editor), 200);
    });

    it('private and pending records follow the same rule', async () => {
      for (const status of ['private', 'pending', 'future']) {
        const rec = await make({ status });
        expect(rec.status).toBe(status);
        expectError(await read(rec.id), 403, `${kind}-not-accessible`);
        expectStatus(await read(rec.id, editor), 200);
      }
    });

    it('a trashed record: 403 for anonymous callers, readable (status trash) by editors, by id and trashed slug', async () => {
      const rec = await make();
      expectStatus(await remove(rec.id), 200);
      expectError(await read(rec.id), 403, `${kind}-not-accessible`);
      const asEditor = await read(rec.id, editor);
      expectStatus(asEditor, 200);
      expect(asEditor.json.status).toBe('trash');
      expectStatus(await api(slugPath(`${rec.slug}__trashed`), { token: editor }), 200);
      expectError(await api(slugPath(rec.slug), { token: editor }), 404, notFound);
    });
  });

  describe('update (partial, contract §7)', () => {
    it('POST, PUT and PATCH change only the fields sent; ETag and modified move on', async () => {
      const rec = await make({ description: 'Desc', phone: '100', website: 'https://example.org/a', status: 'draft',
        image: 'https://cdn.example.org/p/logo.png', excerpt: 'Ex' });
      let version = 1;
      for (const method of ['POST', 'PUT', 'PATCH']) {
        const phone = `${method}-${uid()}`;
        const res = await api(path(rec.id), { method, token: editor, body: { phone } });
        expectStatus(res, 200);
        version++;
        expect(etagVersion(res)).toBe(String(version));
        expect(res.json).toMatchObject({ phone, description: 'Desc', website: 'https://example.org/a', status: 'draft', excerpt: 'Ex',
          image: { url: 'https://cdn.example.org/p/logo.png', id: 0, extension: 'png' }, [kind]: rec[kind], slug: rec.slug });
        expect(res.json.date).toBe(rec.date);
      }
      const now = (await read(rec.id, editor)).json;
      expect(now.modified_utc >= rec.modified_utc).toBe(true);
    });

    it('clears with "": website, image, phone, description; the name cannot be emptied', async () => {
      const rec = await make({ description: 'D', phone: '1', website: 'https://example.org/', image: 'https://x.example/i.jpg' });
      const res = await patch(rec.id, { description: '', phone: '', website: '', image: '' });
      expectStatus(res, 200);
      for (const k of ['description', 'phone', 'website', 'image']) expect(res.json).not.toHaveProperty(k);
      expectInvalid(await patch(rec.id, { [kind]: '' }), kind);
    });

    it('renaming keeps the slug (slugs are made once, from the first name)', async () => {
      const rec = await make();
      const res = await patch(rec.id, { [kind]: uniqueName('New name') });
      expectStatus(res, 200);
      expect(res.json.slug).toBe(rec.slug);
    });

    it('by slug works like by id', async () => {
      const rec = await make();
      const res = await api(slugPath(rec.slug), { method: 'PUT', token: editor, body: { phone: '42' } });
      expectStatus(res, 200);
      expect(res.json).toMatchObject({ id: rec.id, phone: '42' });
    });

    it('missing record: anonymous 401, subscriber 403, contributor/author/editor 404 — by id and by slug', async () => {
      const subscriber = await freshToken('subscriber');
      for (const [p, method] of [[path(MISSING), 'PATCH'], [path(MISSING), 'DELETE'], [slugPath(`missing-${uid()}`), 'PUT'],
        [slugPath(`missing-${uid()}`), 'DELETE']] as const) {
        const body = method === 'DELETE' ? undefined : { phone: '1' };
        expectError(await api(p, { method, body }), 401, 'rest_forbidden');
        expectError(await api(p, { method, body, token: subscriber }), 403, 'rest_forbidden');
        for (const role of ['contributor', 'author', 'editor'] as const) {
          expectError(await api(p, { method, body, token: await freshToken(role) }), 404, notFound);
        }
      }
    });

    it('validates before authorising and before looking the record up', async () => {
      expectInvalid(await api(path(MISSING), { method: 'PATCH', body: { website: 'nope' } }), 'website');
      expectInvalid(await api(path(MISSING), { method: 'PATCH', token: editor, body: { show_map: 'maybe', status: 'x' } }),
        ...(kind === 'venue' ? ['show_map', 'status'] : ['status']));
    });

    it('If-Match: a stale ETag → 412 rest_precondition_failed and nothing changes; the current one or * passes', async () => {
      const rec = await make({ phone: 'before' });
      const first = await patch(rec.id, { phone: 'one' }, editor, { 'If-Match': '"1-any-representation"' });
      expectStatus(first, 200);
      const stale = await patch(rec.id, { phone: 'two' }, editor, { 'If-Match': '"1-any-representation"' });
      expectError(stale, 412, 'rest_precondition_failed');
      expect((await read(rec.id)).json.phone).toBe('one');
      expectStatus(await patch(rec.id, { phone: 'three' }, editor, { 'If-Match': first.headers.get('etag')! }), 200);
      expectStatus(await patch(rec.id, { phone: 'four' }, editor, { 'If-Match': '*' }), 200);
      expectError(await remove(rec.id, editor, undefined, { 'If-Match': `"${rec.id}-1"` }), 412, 'rest_precondition_failed');
      expect((await read(rec.id)).json.status).toBe('publish');
    });

    it('concurrent partial updates of different fields both survive', async () => {
      const rec = await make();
      const results = await Promise.all([patch(rec.id, { phone: 'p1' }), patch(rec.id, { website: 'https://w.example/' }),
        patch(rec.id, { excerpt: 'e1' })]);
      for (const r of results) expectStatus(r, 200);
      expect((await read(rec.id)).json).toMatchObject({ phone: 'p1', website: 'https://w.example/', excerpt: 'e1' });
    });
  });

  describe('roles (contract §4, reference §11.1)', () => {
    it('contributors: create lands as draft, or pending when publish/future is asked', async () => {
      const contributor = await freshToken('contributor');
      for (const [asked, landed] of [[undefined, 'draft'], ['publish', 'pending'], ['future', 'pending'], ['draft', 'draft'], ['pending', 'pending']]) {
        const res = await create({ [kind]: uniqueName(), ...(asked ? { status: asked } : {}) }, contributor);
        expectStatus(res, 201);
        expect(res.json.status).toBe(landed);
      }
    });

    it('contributors edit and delete their own unpublished records only', async () => {
      const contributor = await freshToken('contributor');
      const own = await make({}, contributor);
      expectStatus(await patch(own.id, { phone: '1' }, contributor), 200);
      const asked = await patch(own.id, { status: 'publish' }, contributor);
      expect(asked.json.status).toBe('pending');
      expectStatus(await patch(own.id, { status: 'publish' }), 200); // an editor publishes it
      expectError(await patch(own.id, { phone: '2' }, contributor), 403, 'rest_forbidden');
      expectError(await remove(own.id, contributor), 403, 'rest_forbidden');
      const others = await make({ status: 'draft' });
      expectError(await patch(others.id, { phone: '3' }, contributor), 403, 'rest_forbidden');
      expectError(await api(slugPath(others.slug), { method: 'PATCH', token: contributor, body: { phone: '3' } }), 403, 'rest_forbidden');
      expectError(await api(slugPath(others.slug), { method: 'DELETE', token: contributor }), 403, 'rest_forbidden');
      const draft = await make({}, contributor);
      const gone = await remove(draft.id, contributor);
      expectStatus(gone, 200);
      expect(gone.json.status).toBe('trash');
    });

    it("authors publish and edit their own records, not other people's", async () => {
      const author = await freshToken('author');
      const own = await make({}, author);
      expect(own.status).toBe('publish');
      expectStatus(await patch(own.id, { phone: '1' }, author), 200);
      const others = await make();
      expectError(await patch(others.id, { phone: '2' }, author), 403, 'rest_forbidden');
      expectError(await remove(others.id, author), 403, 'rest_forbidden');
      expectError(await api(slugPath(others.slug), { method: 'POST', token: author, body: { phone: '2' } }), 403, 'rest_forbidden');
      expectStatus(await remove(own.id, author), 200);
    });

    it("editors edit and delete anyone's records", async () => {
      const author = await freshToken('author');
      const rec = await make({}, author);
      expectStatus(await patch(rec.id, { phone: 'by editor' }), 200);
      expectStatus(await remove(rec.id), 200);
    });

    it('only editors may set author to someone else (403 otherwise); it must be a known user (400)', async () => {
      const author = await freshToken('author');
      const own = await make({}, author);
      const otherAuthor = (await make({}, await freshToken('author'))).author;
      expectError(await create({ [kind]: uniqueName(), author: otherAuthor }, author), 403, 'rest_forbidden');
      expectError(await patch(own.id, { author: otherAuthor }, author), 403, 'rest_forbidden');
      expectStatus(await patch(own.id, { author: own.author }, author), 200); // themselves: allowed
      const reassigned = await patch(own.id, { author: otherAuthor });
      expectStatus(reassigned, 200);
      expect(reassigned.json.author).toBe(otherAuthor);
      expectError(await patch(own.id, { phone: 'x' }, author), 403, 'rest_forbidden');
      expectInvalid(await patch(own.id, { author: MISSING }), 'author');
      const byEditor = await create({ [kind]: uniqueName(), author: otherAuthor });
      expect(byEditor.json.author).toBe(otherAuthor);
    });
  });

  describe('delete (reference §10.5, contract §7)', () => {
    it('moves to the trash: 200 + the record with status trash and a __trashed slug; again → 410 %s-is-in-trash', async () => {
      const rec = await make();
      const res = await remove(rec.id);
      expectStatus(res, 200);
      expect(res.json).toMatchObject({ id: rec.id, status: 'trash', slug: `${rec.slug}__trashed`, [kind]: rec[kind] });
      expect(etagVersion(res)).toBe('2');
      expectError(await remove(rec.id), 410, `${kind}-is-in-trash`);
      expectError(await api(slugPath(`${rec.slug}__trashed`), { method: 'DELETE', token: editor }), 410, `${kind}-is-in-trash`);
    });

    it('an update that sets another status restores it with its slug', async () => {
      const rec = await make({ status: 'draft' });
      expectStatus(await remove(rec.id), 200);
      const still = await patch(rec.id, { phone: 'in the trash' });
      expectStatus(still, 200);
      expect(still.json.status).toBe('trash');
      const back = await patch(rec.id, { status: 'publish' });
      expectStatus(back, 200);
      expect(back.json).toMatchObject({ status: 'publish', slug: rec.slug, phone: 'in the trash' });
      expectStatus(await api(slugPath(rec.slug)), 200);
      // and it is a de-duplication candidate again
      expect((await create({ [kind]: rec[kind] })).json.id).toBe(rec.id);
    });

    it('restoring onto a slug taken meanwhile gets -2', async () => {
      const rec = await make();
      expectStatus(await remove(rec.id), 200);
      const taker = await make({ [kind]: rec[kind] });
      expect(taker.slug).toBe(rec.slug);
      const back = await patch(rec.id, { status: 'publish' });
      expect(back.json.slug).toBe(`${rec.slug}-2`);
    });

    it('an update to status trash trashes like DELETE', async () => {
      const rec = await make();
      const res = await patch(rec.id, { status: 'trash' });
      expectStatus(res, 200);
      expect(res.json).toMatchObject({ status: 'trash', slug: `${rec.slug}__trashed` });
      expectError(await remove(rec.id), 410, `${kind}-is-in-trash`);
    });

    it('force=true: editors delete permanently (200 + the record as it was), then 404; others 403', async () => {
      const author = await freshToken('author');
      const own = await make({}, author);
      expectError(await remove(own.id, author, { force: 'true' }), 403, 'rest_forbidden');
      expectError(await remove(MISSING, author, { force: 'true' }), 403, 'rest_forbidden');
      expectError(await remove(own.id, null, { force: 'true' }), 401, 'rest_forbidden');
      expectStatus(await read(own.id), 200);
      const res = await remove(own.id, editor, { force: 'true' });
      expectStatus(res, 200);
      expect(res.json).toMatchObject({ id: own.id, status: 'publish', [kind]: own[kind] });
      expectError(await read(own.id, editor), 404, notFound);
      expectError(await api(slugPath(own.slug), { token: editor }), 404, notFound);
      expectError(await remove(own.id, editor, { force: 'true' }), 404, notFound);
      // the slug and the name are free again
      const again = await make({ [kind]: own[kind] });
      expect(again.slug).toBe(own.slug);
      expectInvalid(await remove(again.id, editor, { force: 'maybe' }), 'force');
    });

    it('force deletes a trashed record too', async () => {
      const rec = await make();
      expectStatus(await remove(rec.id), 200);
      const res = await remove(rec.id, editor, { force: true });
      expectStatus(res, 200);
      expect(res.json.status).toBe('trash');
      expectError(await read(rec.id, editor), 404, notFound);
    });
  });

  describe('password protection (reference §11.3)', () => {
    const secret = 's3cret pass';
    const fields = kind === 'venue'
      ? { address: '1 Main St', city: 'Springfield', country: 'US', state: 'IL', zip: '62701', phone: '555', website: 'https://v.example/',
        description: '<p>Hidden</p>', excerpt: 'Ex', image: 'https://cdn.example/v.jpg' }
      : { phone: '555', email: 'who@example.org', website: 'https://o.example/', description: '<p>Hidden</p>', excerpt: 'Ex',
        image: 'https://cdn.example/o.jpg' };

    it('is returned with blanked fields (the name stays a string) unless the password or context=edit with edit rights', async () => {
      const rec = await make({ ...fields, password: secret });
      expect(rec).not.toHaveProperty('password');
      expect(rec.description).toBe('<p>Hidden</p>'); // the writer sees everything
      const blanked = (res: ApiResponse) => {
        expectStatus(res, 200);
        expect(res.json[kind]).toBe(rec[kind]);
        for (const k of Object.keys(fields).filter((f) => f !== 'state')) expect([k, res.json[k]]).toEqual([k, k === 'image' ? false : '']);
        if (kind === 'venue') {
          expect(res.json.show_map).toBeNull();
          expect(res.json.show_map_link).toBeNull();
          expect(res.json.stateprovince).toBe('');
          expect(res.json.state).toBe('IL'); // not in the origin's list
        }
        expect(res.json.json_ld).toEqual({ '@context': 'http://schema.org', '@type': kind === 'venue' ? 'Place' : 'Organization',
          name: rec[kind], inLanguage: 'en', url: rec.url });
      };
      blanked(await read(rec.id));
      blanked(await read(rec.id, undefined, { password: 'wrong' }));
      blanked(await read(rec.id, editor)); // editors too, without context=edit
      blanked(await read(rec.id, undefined, { context: 'edit' }));
      blanked(await read(rec.id, await freshToken('author'), { context: 'edit' })); // cannot edit it
      for (const res of [await read(rec.id, undefined, { password: secret }), await read(rec.id, editor, { context: 'edit' })]) {
        expectStatus(res, 200);
        expect(res.json.description).toBe('<p>Hidden</p>');
        expect(res.json.phone).toBe('555');
      }
    });

    it('keeps the key order of the unprotected record', async () => {
      const rec = await make({ ...fields, password: secret });
      const open = await read(rec.id, undefined, { password: secret });
      const closed = await read(rec.id);
      expect(Object.keys(closed.json)).toEqual(Object.keys(open.json));
    });

    it('password "" removes the protection; a partial update keeps it', async () => {
      const rec = await make({ ...fields, password: secret });
      expectStatus(await patch(rec.id, { phone: '777' }), 200);
      expect((await read(rec.id)).json.phone).toBe('');
      expectStatus(await patch(rec.id, { password: '' }), 200);
      expect((await read(rec.id)).json.phone).toBe('777');
    });
  });

  describe('languages (contract §8)', () => {
    it('a write in a language changes that language only; reads fall back to the first language', async () => {
      const name = uniqueName('English');
      const rec = await make({ [kind]: name, description: 'English text', excerpt: 'English excerpt' });
      const de = await api(path(rec.id), { method: 'PATCH', token: editor, body: { [kind]: `${name} DE`, description: 'Deutscher Text' },
        query: { translation_language: 'de' } });
      expectStatus(de, 200);
      expect(de.headers.get('content-language')).toBe('de');
      expect(de.json).toMatchObject({ [kind]: `${name} DE`, description: 'Deutscher Text', excerpt: 'English excerpt' });

      const en = await read(rec.id);
      expect(en.headers.get('content-language')).toBe('en');
      expect(en.json).toMatchObject({ [kind]: name, description: 'English text' });
      const viaPrefix = await api(`${serverOrigin()}/de${new URL(apiUrl()).pathname}${path(rec.id)}`);
      expectStatus(viaPrefix, 200);
      expect(viaPrefix.headers.get('content-language')).toBe('de');
      expect(viaPrefix.json).toMatchObject({ [kind]: `${name} DE`, description: 'Deutscher Text', excerpt: 'English excerpt' });
      expect(viaPrefix.json.json_ld).toMatchObject({ name: `${name} DE`, inLanguage: 'de' });
      const pt = await read(rec.id, undefined, { translation_language: 'pt-pt' });
      expect(pt.json).toMatchObject({ [kind]: name, description: 'English text' });
      expect(pt.json.slug).toBe(rec.slug);
    });

    it('a record first written in German falls back to German', async () => {
      const name = uniqueName('Nur Deutsch');
      const res = await api(`/${plural}`, { method: 'POST', token: editor, body: { [kind]: name }, query: { translation_language: 'de' } });
      expectStatus(res, 201);
      expect((await read(res.json.id)).json[kind]).toBe(name);
    });

    it('de-duplicates on the name of any language', async () => {
      const name = uniqueName('Polyglot');
      const rec = await make({ [kind]: name });
      await api(path(rec.id), { method: 'PATCH', token: editor, body: { [kind]: `${name} Haus` }, query: { translation_language: 'de' } });
      expect((await create({ [kind]: `${name} Haus` })).json.id).toBe(rec.id);
      expect((await create({ [kind]: name })).json.id).toBe(rec.id);
    });
  });
});
