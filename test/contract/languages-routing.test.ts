/**
 * Language routing and the request language (CONTRACT.md §1, §3, §8, §10; issue 4): the /{lang}/ prefixes (others
 * 404), `translation_language` validation on reads and writes (and that a rejected write stores nothing),
 * `Content-Language` on success and error responses, URLs emitted under the prefix (rest_url, next/previous,
 * event rest_url, term urls, Location), and the namespace index and /doc under a prefix.
 */
import { api, apiUrl, serverOrigin, tokenFor, type ApiResponse } from '../support/api.js';
import { expectInvalid } from './helpers/events.js';
import {
  createRecord, editor, eventDates, KIND_NAMES, LANGS, LIST_KEY, must, NAME_FIELD, read, recordPath, rootFor, summary, word, write,
  type Json, type KindName, type Lang,
} from './helpers/languages.js';

const INVALID = ['fr', 'DE ', '', 'en-US'];

describe('language prefixes (contract §1)', () => {
  it.each(['en', 'de', 'pt-pt'])('/%s/calendar/events/v1/... serves every route group', async (lang) => {
    for (const path of ['', '/doc', '/events', '/venues', '/organizers', '/categories', '/tags']) {
      const res = await api(`${rootFor(lang)}${path}`);
      expect([path, res.status, res.headers.get('content-language')]).toEqual([path, 200, lang]);
    }
  });

  it.each(['fr', 'EN-us', 'pt', 'de-de', 'pt_pt', 'xx'])('/%s/calendar/events/v1/events is 404 rest_no_route', async (prefix) => {
    for (const path of ['', '/events', '/venues/1', '/categories']) {
      const res = await api(`${rootFor(prefix)}${path}`);
      expect([path, res.status, res.json?.code]).toEqual([path, 404, 'rest_no_route']);
    }
  });

  it('a write under an unknown prefix is 404 and creates nothing', async () => {
    const w = word('lpfx');
    const res = await api(`${rootFor('fr')}/venues`, { method: 'POST', token: await editor(), body: { venue: `Lieu ${w}` } });
    expect([res.status, res.json?.code]).toEqual([404, 'rest_no_route']);
    const found = await api('/venues', { query: { search: w } });
    expect(found.json.venues).toEqual([]);
  });

  it('under a prefix, a trailing slash is ignored and OPTIONS answers the CORS preflight; not under an unknown prefix', async () => {
    const slash = await api(`${rootFor('pt-pt')}/events/`);
    expect([slash.status, slash.headers.get('content-language')]).toEqual([200, 'pt-pt']);
    const preflight = await api(`${rootFor('de')}/events`, { method: 'OPTIONS', headers: { origin: 'https://example.org',
      'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('allow')).toContain('POST');
    const unknown = await api(`${rootFor('fr')}/events`, { method: 'OPTIONS', headers: { origin: 'https://example.org',
      'access-control-request-method': 'POST' } });
    expect(unknown.status).toBe(404);
  });

  it('a doubled or misplaced prefix is 404', async () => {
    const origin = serverOrigin();
    for (const url of [`${origin}/de/de/calendar/events/v1/events`, `${origin}/calendar/events/v1/de/events`,
      `${origin}/de/calendar/events/v1/de/events`]) {
      const res = await api(url);
      expect([url, res.status, res.json?.code]).toEqual([url, 404, 'rest_no_route']);
    }
  });
});

describe('invalid translation_language → 400 rest_invalid_param naming it (contract §8)', () => {
  let ids: Record<KindName, number>;
  beforeAll(async () => {
    ids = {} as Record<KindName, number>;
    for (const kind of KIND_NAMES) {
      ids[kind] = must(await createRecord(kind, { [NAME_FIELD[kind]]: `Valid ${word('linv')} ${kind}` }), 201, `POST /${kind}`).id;
    }
  });

  const READ_PATHS = (): string[] => ['', '/doc', '/events', '/venues', '/organizers', '/categories', '/tags',
    ...KIND_NAMES.map((k) => recordPath(k, ids[k]))];

  it.each(INVALID)('reads: translation_language=%j', async (value) => {
    for (const path of READ_PATHS()) {
      const res = await api(path, { query: { translation_language: value } });
      expect([path, res.status, res.json?.code]).toEqual([path, 400, 'rest_invalid_param']);
      expectInvalid(res, 'translation_language');
    }
  });

  it.each(INVALID)('reads under a valid prefix: translation_language=%j is still invalid', async (value) => {
    const res = await api(`${rootFor('de')}/events/${ids.events}`, { query: { translation_language: value } });
    expectInvalid(res, 'translation_language');
    expect(['de', 'en']).toContain(res.headers.get('content-language'));
  });

  it('reads: a list value (translation_language[]=de) is invalid', async () => {
    const res = await api('/events', { query: { translation_language: ['de'] } });
    expectInvalid(res, 'translation_language');
  });

  it.each(INVALID)('updates (query, JSON body, form body) with translation_language=%j are refused and change nothing', async (value) => {
    const token = await editor();
    for (const kind of KIND_NAMES) {
      const path = recordPath(kind, ids[kind]);
      const field = NAME_FIELD[kind];
      const texts = async () => Promise.all(LANGS.map(async (lang) => {
        const json = (await read(path, { param: lang })).json;
        return [lang, json[field], json.description];
      }));
      const before = await texts();
      // One after another: never two writes to one record at a time.
      const attempts: [string, () => Promise<ApiResponse>][] = [
        ['query', () => api(path, { method: 'PATCH', token, query: { translation_language: value }, body: { [field]: 'Changed', description: 'x' } })],
        ['json', () => api(path, { method: 'POST', token, body: { [field]: 'Changed', description: 'x', translation_language: value } })],
        ['form', () => api(path, { method: 'PUT', token, form: { [field]: 'Changed', description: 'x', translation_language: value } })],
      ];
      for (const [how, send] of attempts) {
        const res = await send();
        expect([kind, how, res.status, res.json?.code]).toEqual([kind, how, 400, 'rest_invalid_param']);
        expectInvalid(res, 'translation_language');
      }
      expect([kind, await texts()]).toEqual([kind, before]);
    }
  });

  it.each(INVALID)('creates with translation_language=%j are refused and create nothing', async (value) => {
    const token = await editor();
    for (const kind of KIND_NAMES) {
      const w = word('lnone');
      const body: Json = { [NAME_FIELD[kind]]: `Refused ${w}`, translation_language: value, ...(kind === 'events' ? eventDates() : {}) };
      delete body.day;
      const res = await api(`/${kind}`, { method: 'POST', token, body });
      expect([kind, res.status]).toEqual([kind, 400]);
      expectInvalid(res, 'translation_language');
      const q: Json = { search: w, ...(kind === 'categories' || kind === 'tags' ? { hide_empty: false } : {}),
        ...(kind === 'events' ? { start_date: '2030-01-01', end_date: '2100-01-01', per_page: 50 } : {}) };
      const found = await api(`/${kind}`, { query: q, token });
      expect([kind, found.status, found.json?.[LIST_KEY[kind]]]).toEqual([kind, 200, []]);
    }
  });

  it('deletes with an invalid translation_language are refused before anything is deleted', async () => {
    const token = await editor();
    for (const kind of KIND_NAMES) {
      const res = await api(recordPath(kind, ids[kind]), { method: 'DELETE', token, query: { translation_language: 'fr' } });
      expectInvalid(res, 'translation_language');
      expect([kind, (await api(recordPath(kind, ids[kind]))).json.status ?? 'term'])
        .toEqual([kind, kind === 'categories' || kind === 'tags' ? 'term' : 'publish']);
    }
  });
});

describe('Content-Language (contract §8: the request\'s language, on every response)', () => {
  let eventId: number;
  beforeAll(async () => {
    eventId = must(await createRecord('events', { title: `Header ${word('lhdr')}` }), 201, 'POST /events').id;
  });

  const CASES: { label: string; prefix?: Lang; param?: Lang; lang: Lang }[] = [
    { label: 'no prefix', lang: 'en' },
    { label: '/de', prefix: 'de', lang: 'de' },
    { label: '/pt-pt', prefix: 'pt-pt', lang: 'pt-pt' },
    { label: 'translation_language=pt-pt', param: 'pt-pt', lang: 'pt-pt' },
    { label: '/de + translation_language=pt-pt', prefix: 'de', param: 'pt-pt', lang: 'pt-pt' },
    { label: '/pt-pt + translation_language=en', prefix: 'pt-pt', param: 'en', lang: 'en' },
  ];

  it.each(CASES)('successful reads of every route group: $label', async ({ prefix, param, lang }) => {
    for (const path of ['', '/doc', '/events', `/events/${eventId}`, '/venues', '/organizers', '/categories', '/tags']) {
      const res = await read(path, { prefix, param });
      expect([path, res.status, res.headers.get('content-language')]).toEqual([path, 200, lang]);
    }
  });

  it.each(CASES)('errors: 404 record, 404 route, 405, 401 bad token, 400 bad parameter, 404 past the last page: $label',
    async ({ prefix, param, lang }) => {
      const root = rootFor(prefix);
      const q = param ? { translation_language: param } : {};
      const cases: [string, Promise<ApiResponse>, number][] = [
        ['404 record', api(`${root}/events/999999999`, { query: q }), 404],
        ['404 venue', api(`${root}/venues/999999999`, { query: q }), 404],
        ['404 term', api(`${root}/tags/999999999`, { query: q }), 404],
        ['404 route', api(`${root}/nothing-here`, { query: q }), 404],
        ['405', api(`${root}/events`, { method: 'DELETE', query: q }), 405],
        ['401 token', api(`${root}/events`, { query: q, headers: { authorization: 'Bearer not-a-token' } }), 401],
        ['400 param', api(`${root}/events`, { query: { ...q, per_page: 'many' } }), 400],
        ['404 page', api(`${root}/venues`, { query: { ...q, search: word('lnop'), page: 3 } }), 404],
      ];
      for (const [label, pending, status] of cases) {
        const res = await pending;
        expect([label, res.status, res.headers.get('content-language')]).toEqual([label, status, lang]);
      }
    });

  it.each(CASES)('write errors: 401 anonymous, 403 subscriber, 400 invalid field, 404 missing record: $label', async ({ prefix, param, lang }) => {
    const root = rootFor(prefix);
    const q = param ? { translation_language: param } : {};
    const subscriber = await tokenFor('subscriber', 'languages-subscriber');
    const cases: [string, Promise<ApiResponse>, number][] = [
      ['401', api(`${root}/events`, { method: 'POST', query: q, body: { title: 'x', start_date: '2090-01-01 10:00:00', end_date: '2090-01-01 11:00:00' } }), 401],
      ['403', api(`${root}/tags`, { method: 'POST', query: q, token: subscriber, body: { name: 'x' } }), 403],
      ['400', api(`${root}/events/${eventId}`, { method: 'PATCH', query: q, token: await editor(), body: { start_date: 'not a date' } }), 400],
      ['404', api(`${root}/organizers/999999999`, { method: 'PATCH', query: q, token: await editor(), body: { phone: '1' } }), 404],
    ];
    for (const [label, pending, status] of cases) {
      const res = await pending;
      expect([label, res.status, res.headers.get('content-language')]).toEqual([label, status, lang]);
    }
  });

  it('errors of writes whose translation_language is in the body say that language', async () => {
    const token = await editor();
    const cases: [string, Promise<ApiResponse>, number][] = [
      ['404 JSON body', api('/venues/999999999', { method: 'PATCH', token, body: { city: 'x', translation_language: 'de' } }), 404],
      ['404 form body', api('/categories/999999999', { method: 'POST', token, form: { name: 'x', translation_language: 'pt-pt' } }), 404],
      ['400 JSON body', api(`/events/${eventId}`, { method: 'PATCH', token, body: { start_date: 'never', translation_language: 'de' } }), 400],
      ['403 JSON body', api('/tags', { method: 'POST', token: await tokenFor('author', 'languages-author'),
        body: { name: `x${word()}`, translation_language: 'pt-pt' } }), 403],
    ];
    const want = ['de', 'pt-pt', 'de', 'pt-pt'];
    const got: unknown[] = [];
    for (const [label, pending] of cases) {
      const res = await pending;
      got.push([label, res.status, res.headers.get('content-language')]);
    }
    expect(got).toEqual(cases.map(([label, , status], i) => [label, status, want[i]]));
  });

  it('successful writes say their language (prefix, query, JSON body, form body)', async () => {
    const token = await editor();
    const path = `/events/${eventId}`;
    // One after another: never two writes to one record at a time.
    const cases: [string, () => Promise<ApiResponse>, Lang][] = [
      ['none', () => api(path, { method: 'PATCH', token, body: { cost: '1' } }), 'en'],
      ['prefix', () => api(`${rootFor('de')}${path}`, { method: 'PATCH', token, body: { cost: '2' } }), 'de'],
      ['query', () => api(path, { method: 'PATCH', token, query: { translation_language: 'pt-pt' }, body: { cost: '3' } }), 'pt-pt'],
      ['json body', () => api(`${rootFor('pt-pt')}${path}`, { method: 'PATCH', token, body: { cost: '4', translation_language: 'de' } }), 'de'],
      ['form body', () => api(path, { method: 'POST', token, form: { cost: '5', translation_language: 'pt-pt' } }), 'pt-pt'],
    ];
    for (const [label, send, lang] of cases) {
      const res = await send();
      expect([label, res.status, res.headers.get('content-language')]).toEqual([label, 200, lang]);
    }
  });

  it('Content-Language is exposed to browsers (CORS)', async () => {
    const res = await api(`${rootFor('de')}/events`, { headers: { origin: 'https://example.org' } });
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    expect(exposed).toContain('content-language');
  });
});

describe('emitted URLs keep the language prefix (contract §1, §8)', () => {
  const w = word('lurl');
  const de = (): string => rootFor('de');
  const pt = (): string => rootFor('pt-pt');
  let day: string;
  const events: number[] = [];
  const venues: number[] = [];
  const organizers: number[] = [];
  const categories: number[] = [];
  const tags: number[] = [];

  beforeAll(async () => {
    const dates = eventDates();
    day = dates.day;
    // The parent's name and slug do not contain `w`, so that `search: w` finds the three children only.
    const other = word('lpar');
    const parent = must(await createRecord('categories', { name: `Parent ${other}`, slug: `parent-${other}` }), 201, 'parent category').id;
    for (let i = 0; i < 3; i++) {
      venues.push(must(await createRecord('venues', { venue: `Venue ${w} ${i}` }), 201, 'venue').id);
      organizers.push(must(await createRecord('organizers', { organizer: `Organizer ${w} ${i}` }), 201, 'organizer').id);
      categories.push(must(await createRecord('categories', { name: `Category ${w} ${i}`, parent }), 201, 'category').id);
      tags.push(must(await createRecord('tags', { name: `Tag ${w} ${i}` }), 201, 'tag').id);
    }
    for (let i = 0; i < 3; i++) {
      events.push(must(await write('/events', {
        title: `Event ${w} ${i}`, start_date: `${day} 1${i}:00:00`, end_date: `${day} 1${i}:30:00`,
        venue: venues[i], organizer: [organizers[i]], categories: [categories[i]], tags: [tags[i]],
      }), 201, 'event').id);
    }
    // de text everywhere, to see that following a URL keeps the language.
    for (const [kind, list] of [['events', events], ['venues', venues], ['organizers', organizers], ['categories', categories],
      ['tags', tags]] as [KindName, number[]][]) {
      for (const [i, id] of list.entries()) {
        must(await write(recordPath(kind, id), { [NAME_FIELD[kind]]: `Deutsch ${w} ${kind} ${i}` }, { method: 'PATCH', prefix: 'de' }), 200, 'de');
      }
    }
  });

  /** Page 2 of 3 of a kind's list, as narrowed for this test. */
  const page2 = (kind: KindName, access: { prefix?: Lang; param?: Lang }): Promise<ApiResponse> => read(`/${kind}`, access, {
    per_page: 1, page: 2,
    ...(kind === 'events' ? { start_date: day, end_date: day } : { search: w }),
    ...(kind === 'categories' || kind === 'tags' ? { hide_empty: false } : {}),
  });

  it.each(KIND_NAMES)('%s list under /de: rest_url, next_rest_url, previous_rest_url and Link are under /de', async (kind) => {
    const res = await page2(kind, { prefix: 'de' });
    expect(summary(res)).toMatchObject({ status: 200, contentLanguage: 'de' });
    expect(res.json.total).toBe(3);
    const base = `${de()}/${kind}/`;
    for (const key of ['rest_url', 'next_rest_url', 'previous_rest_url']) {
      expect([key, String(res.json[key]).startsWith(base)]).toEqual([key, true]);
    }
    const links = [...(res.headers.get('link') ?? '').matchAll(/<([^>]+)>; rel="(next|prev)"/g)].map((m) => m[1]!);
    expect(links.length).toBe(2);
    for (const link of links) expect([link, link.startsWith(base)]).toEqual([link, true]);
    // Event lists also link their feed (contract §14), under /de too.
    const feed = /<([^>]+)>; rel="alternate"; type="text\/calendar"/.exec(res.headers.get('link') ?? '')?.[1];
    if (kind === 'events') expect(feed?.startsWith(`${de()}/events.ics?`)).toBe(true);
    else expect(feed).toBeUndefined();
  });

  it.each(['events', 'venues', 'organizers'] as KindName[])('%s list under /de: following next_rest_url stays in de', async (kind) => {
    const res = await page2(kind, { prefix: 'de' });
    const next = await api(res.json.next_rest_url);
    expect(summary(next)).toMatchObject({ status: 200, contentLanguage: 'de' });
    const [rec] = next.json[LIST_KEY[kind]] as Json[];
    expect(String(rec?.[NAME_FIELD[kind]])).toMatch(/^Deutsch /);
  });

  it.each(KIND_NAMES)('%s list under /pt-pt: the URLs are under /pt-pt', async (kind) => {
    const res = await page2(kind, { prefix: 'pt-pt' });
    expect(res.status).toBe(200);
    for (const key of ['rest_url', 'next_rest_url', 'previous_rest_url']) {
      expect([key, String(res.json[key]).startsWith(`${pt()}/${kind}/`)]).toEqual([key, true]);
    }
  });

  it.each(KIND_NAMES)('%s list without a prefix: the URLs have none', async (kind) => {
    const res = await page2(kind, {});
    for (const key of ['rest_url', 'next_rest_url', 'previous_rest_url']) {
      expect([key, String(res.json[key]).startsWith(`${apiUrl()}/${kind}/`)]).toEqual([key, true]);
    }
  });

  it.each(['categories', 'tags'] as KindName[])('%s list under /de: next_rest_url (which carries only page, reference §5.2) answers in de',
    async (kind) => {
      const res = await page2(kind, { prefix: 'de' });
      const next = await api(res.json.next_rest_url);
      expect(next.headers.get('content-language')).toBe('de');
    });

  it.each(['events', 'venues', 'organizers'] as KindName[])('%s list with translation_language=de: next_rest_url keeps the language (the next page is in de)', async (kind) => {
    const res = await page2(kind, { param: 'de' });
    expect(summary(res)).toMatchObject({ status: 200, contentLanguage: 'de' });
    const next = await api(res.json.next_rest_url);
    const [rec] = (next.json?.[LIST_KEY[kind]] as Json[] | undefined) ?? [];
    expect({ next_rest_url: res.json.next_rest_url, status: next.status, contentLanguage: next.headers.get('content-language'),
      name: rec?.[NAME_FIELD[kind]] })
      .toEqual({ next_rest_url: expect.any(String), status: 200, contentLanguage: 'de', name: expect.stringMatching(/^Deutsch /) });
  });

  it.each(['categories', 'tags'] as KindName[])('%s list with translation_language=de: next_rest_url keeps the language', async (kind) => {
    const res = await page2(kind, { param: 'de' });
    expect(summary(res)).toMatchObject({ status: 200, contentLanguage: 'de' });
    const next = await api(res.json.next_rest_url);
    expect({ next_rest_url: res.json.next_rest_url, contentLanguage: next.headers.get('content-language') })
      .toEqual({ next_rest_url: expect.any(String), contentLanguage: 'de' });
  });

  it('events under /de: each event rest_url, and the embedded terms\' urls, are under /de (list and single)', async () => {
    const list = await read('/events', { prefix: 'de' }, { start_date: day, end_date: day });
    const single = await read(`/events/${events[0]}`, { prefix: 'de' });
    for (const ev of [...(list.json.events as Json[]), single.json]) {
      expect(ev.rest_url).toBe(`${de()}/events/${ev.id}`);
      const category = ev.categories[0];
      expect(category.urls).toEqual({
        self: `${de()}/categories/${category.id}`, collection: `${de()}/categories`, up: `${de()}/categories/${category.parent}`,
      });
      const tag = ev.tags[0];
      expect(tag.urls).toEqual({ self: `${de()}/tags/${tag.id}`, collection: `${de()}/tags` });
    }
  });

  it('terms under /pt-pt: urls.self, urls.collection and urls.up are under /pt-pt (single and list)', async () => {
    const single = await read(`/categories/${categories[0]}`, { prefix: 'pt-pt' });
    expect(single.json.urls.self).toBe(`${pt()}/categories/${categories[0]}`);
    expect(single.json.urls.collection).toBe(`${pt()}/categories`);
    expect(single.json.urls.up).toBe(`${pt()}/categories/${single.json.parent}`);
    const list = await read('/tags', { prefix: 'pt-pt' }, { include: tags, hide_empty: false });
    expect((list.json.tags as Json[]).map((t) => t.urls.self).sort()).toEqual(tags.map((id) => `${pt()}/tags/${id}`).sort());
  });

  it.each(KIND_NAMES)('%s: the Location of a create under /de is under /de (and the event rest_url too)', async (kind) => {
    const res = await createRecord(kind, { [NAME_FIELD[kind]]: `Located ${word('lloc')}` }, { prefix: 'de' });
    expect(summary(res)).toMatchObject({ status: 201, contentLanguage: 'de' });
    expect(res.headers.get('location')).toBe(`${de()}/${kind}/${res.json.id}`);
    if (kind === 'events') expect(res.json.rest_url).toBe(`${de()}/events/${res.json.id}`);
    if (kind === 'categories' || kind === 'tags') expect(res.json.urls.self).toBe(`${de()}/${kind}/${res.json.id}`);
  });

  it('an event update under /pt-pt answers with rest_url under /pt-pt', async () => {
    const res = await write(`/events/${events[1]}`, { cost: '3' }, { method: 'PATCH', prefix: 'pt-pt' });
    expect(res.json.rest_url).toBe(`${pt()}/events/${events[1]}`);
  });
});

describe('the namespace index and /doc under a prefix (contract §10, issue 4)', () => {
  it.each(['de', 'pt-pt', 'en'] as Lang[])('GET /%s/calendar/events/v1: links under the prefix; every endpoint documents translation_language',
    async (lang) => {
      const res = await api(rootFor(lang));
      expect(summary(res)).toMatchObject({ status: 200, contentLanguage: lang });
      expect(res.json.namespace).toBe('calendar/events/v1');
      const routes = res.json.routes as Record<string, Json>;
      expect(routes['/calendar/events/v1/events']?._links?.self?.[0]?.href).toBe(`${rootFor(lang)}/events`);
      const missing: string[] = [];
      for (const [key, route] of Object.entries(routes)) {
        for (const endpoint of route.endpoints as Json[]) {
          const arg = endpoint.args?.translation_language;
          if (!arg || JSON.stringify(arg.enum) !== JSON.stringify(LANGS) || arg.required !== false) {
            missing.push(`${endpoint.methods.join(',')} ${key}: ${JSON.stringify(arg)}`);
          }
        }
      }
      expect(missing).toEqual([]);
    });

  it.each(['de', 'pt-pt'] as Lang[])('GET /%s/calendar/events/v1/doc: servers list the request root first and every prefixed root', async (lang) => {
    const res = await api(`${rootFor(lang)}/doc`);
    expect(summary(res)).toMatchObject({ status: 200, contentLanguage: lang });
    const urls = (res.json.servers as Json[]).map((s) => s.url);
    expect(urls[0]).toBe(rootFor(lang));
    for (const root of [rootFor(null), rootFor('en'), rootFor('de'), rootFor('pt-pt')]) expect(urls).toContain(root);
  });

  it('GET /de/.../doc: every operation takes translation_language (query parameter or body property) with the three languages',
    async () => {
      const doc = (await api(`${rootFor('de')}/doc`)).json;
      const resolve = (schema: Json | undefined): Json | undefined => {
        if (!schema?.$ref) return schema;
        return doc.components.schemas[String(schema.$ref).replace('#/components/schemas/', '')];
      };
      const problems: string[] = [];
      let operations = 0;
      for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
        for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
          const op = item[method];
          if (!op) continue;
          operations++;
          const param = (op.parameters as Json[] | undefined)?.find((p) => p.name === 'translation_language');
          const bodies = Object.values((op.requestBody?.content ?? {}) as Record<string, Json>).map((c) => resolve(c.schema));
          const bodyProps = bodies.map((b) => b?.properties?.translation_language).filter(Boolean) as Json[];
          const schemas = [...(param ? [param.schema] : []), ...bodyProps];
          if (schemas.length === 0) problems.push(`${method.toUpperCase()} ${path}: no translation_language`);
          for (const s of schemas) {
            if (JSON.stringify(s.enum) !== JSON.stringify(LANGS)) problems.push(`${method.toUpperCase()} ${path}: enum ${JSON.stringify(s.enum)}`);
          }
          if (param && param.in !== 'query') problems.push(`${method.toUpperCase()} ${path}: in ${param.in}`);
        }
      }
      expect(problems).toEqual([]);
      // Every route of the interface (root, /doc, 5 kinds with their single and by-slug routes) is there.
      expect(operations).toBeGreaterThanOrEqual(40);
    });
});
