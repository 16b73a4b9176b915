/**
 * Languages (CONTRACT.md §8, §5 "Translatable text is returned in the request's language"; issue 4), for each
 * of the five record kinds: records created in en, given de text by updates under the /de prefix and with
 * translation_language=de (different fields each way), then read back in en, de and pt-pt (fallback to en) in
 * every form: single GET, list item, embedded in an event (single and list), json_ld; and the write responses.
 *
 * One event links one venue, one organizer, one category and one tag, so every embedded form is reachable.
 * Lists are narrowed language-independently: events by their own day, venues/organizers by `event`, terms by
 * `include`.
 */
import type { ApiResponse } from '../support/api.js';
import {
  editor, embeddedIn, eventDates, expectedFields, FIELDS, inList, KIND_NAMES, listQuery, must, NAME_FIELD, pick, plain, read,
  READS, recordPath, textsOf, word, write, type Access, type Json, type KindName, type Lang, type Texts,
} from './helpers/languages.js';

type Linked = Exclude<KindName, 'events'>;
const LINKED: Linked[] = ['venues', 'organizers', 'categories', 'tags'];

const w = word('lrec');
const en: Record<KindName, Json> = Object.fromEntries(KIND_NAMES.map((k) => [k, textsOf(k, w, 'English')])) as Record<KindName, Json>;
const de: Record<KindName, Json> = Object.fromEntries(KIND_NAMES.map((k) => [k, textsOf(k, w, 'Deutsch')])) as Record<KindName, Json>;
const texts = (kind: KindName): Texts => ({ first: 'en', by: { en: en[kind], de: de[kind] } });

const ids = {} as Record<KindName, number>;
let day: string;
const created = {} as Record<KindName, ApiResponse>;
/** The two de writes of each kind: [first (one field), second (the others)]. */
const deWrites = {} as Record<KindName, [ApiResponse, ApiResponse]>;

/**
 * The de writes of each kind: which fields go under the /de prefix and which with translation_language=de (in the
 * query, a JSON body or a form body), with which method.
 */
const DE_PLAN: Record<KindName, [{ fields: string[]; how: Json }, { fields: string[]; how: Json }]> = {
  events: [
    { fields: ['title'], how: { method: 'PATCH', prefix: 'de' } },
    { fields: ['description', 'excerpt'], how: { method: 'POST', param: 'de', paramIn: 'query' } },
  ],
  venues: [
    { fields: ['venue'], how: { method: 'PUT', prefix: 'de' } },
    { fields: ['description'], how: { method: 'PATCH', param: 'de', paramIn: 'body' } },
  ],
  organizers: [
    { fields: ['organizer'], how: { method: 'POST', param: 'de', paramIn: 'body', form: true } },
    { fields: ['description'], how: { method: 'PATCH', prefix: 'de' } },
  ],
  categories: [
    { fields: ['name'], how: { method: 'PATCH', prefix: 'de' } },
    { fields: ['description'], how: { method: 'POST', param: 'de', paramIn: 'body' } },
  ],
  tags: [
    { fields: ['name'], how: { method: 'PATCH', param: 'de', paramIn: 'query' } },
    { fields: ['description'], how: { method: 'PUT', prefix: 'de' } },
  ],
};

const only = (o: Json, keys: string[]): Json => Object.fromEntries(keys.map((k) => [k, o[k]]));

beforeAll(async () => {
  const token = await editor();
  // Linked records first, in en (no prefix, no parameter).
  created.venues = await write('/venues', { ...en.venues, city: 'Porto' }, { token });
  created.organizers = await write('/organizers', { ...en.organizers, email: `${w}@example.org` }, { token });
  created.categories = await write('/categories', en.categories, { token });
  created.tags = await write('/tags', en.tags, { token });
  for (const k of LINKED) ids[k] = must(created[k], 201, `POST /${k}`).id;
  const dates = eventDates();
  day = dates.day;
  created.events = await write('/events', {
    ...en.events, start_date: dates.start_date, end_date: dates.end_date,
    venue: ids.venues, organizer: [ids.organizers], categories: [ids.categories], tags: [ids.tags],
  }, { token });
  ids.events = must(created.events, 201, 'POST /events').id;

  for (const kind of KIND_NAMES) {
    const [a, b] = DE_PLAN[kind];
    const first = await write(recordPath(kind, ids[kind]), only(de[kind], a.fields), { ...a.how, token });
    must(first, 200, `first de write of ${kind}`);
    const second = await write(recordPath(kind, ids[kind]), only(de[kind], b.fields), { ...b.how, token });
    must(second, 200, `second de write of ${kind}`);
    deWrites[kind] = [first, second];
  }
});

/** Memoised GETs: several tests look at the same response. */
const cache = new Map<string, Promise<ApiResponse>>();
function get(path: string, access: Access, query: Json = {}): Promise<ApiResponse> {
  const key = JSON.stringify([path, access.prefix, access.param, query]);
  if (!cache.has(key)) cache.set(key, read(path, access, query));
  return cache.get(key)!;
}

function expectOk(res: ApiResponse, lang: Lang): void {
  expect({ status: res.status, contentLanguage: res.headers.get('content-language') })
    .toEqual({ status: 200, contentLanguage: lang });
}

describe.each(KIND_NAMES)('%s: writes', (kind) => {
  it('the en create answers in en (fields as sent, Content-Language en)', () => {
    const res = created[kind];
    expect(res.status).toBe(201);
    expect(res.headers.get('content-language')).toBe('en');
    expect(pick(res.json, FIELDS[kind])).toEqual(en[kind]);
  });

  it('the first de write answers in de: the field written in de, the others still falling back to en', () => {
    const [res] = deWrites[kind];
    expect(res.headers.get('content-language')).toBe('de');
    const written = DE_PLAN[kind][0].fields;
    expect(pick(res.json, FIELDS[kind])).toEqual(
      Object.fromEntries(FIELDS[kind].map((f) => [f, written.includes(f) ? de[kind][f] : en[kind][f]])),
    );
  });

  it('the second de write answers in de with every field in de', () => {
    const [, res] = deWrites[kind];
    expect(res.headers.get('content-language')).toBe('de');
    expect(pick(res.json, FIELDS[kind])).toEqual(de[kind]);
  });

  it('the de writes left every en field as it was created (read in en and pt-pt)', async () => {
    for (const access of [{ label: 'en' }, { label: 'pt-pt', param: 'pt-pt' as Lang }]) {
      const res = await read(recordPath(kind, ids[kind]), access);
      expect(res.status).toBe(200);
      expect([access.label, pick(res.json, FIELDS[kind])]).toEqual([access.label, pick(created[kind].json, FIELDS[kind])]);
    }
  });
});

describe.each(KIND_NAMES)('%s: reads in every language', (kind) => {
  it.each(READS)('single GET, $label', async (access) => {
    const res = await get(recordPath(kind, ids[kind]), access);
    expectOk(res, access.lang);
    expect(pick(res.json, FIELDS[kind])).toEqual(expectedFields(texts(kind), access.lang, FIELDS[kind]));
  });

  it.each(READS)('list item, $label', async (access) => {
    const res = await get(`/${kind}`, access, listQuery(kind, ids[kind], ids.events, day));
    expectOk(res, access.lang);
    expect(pick(inList(res, kind, ids[kind]), FIELDS[kind])).toEqual(expectedFields(texts(kind), access.lang, FIELDS[kind]));
  });
});

describe.each(LINKED)('%s: embedded in an event, in every language', (kind) => {
  it.each(READS)('in GET /events/{id}, $label', async (access) => {
    const res = await get(recordPath('events', ids.events), access);
    expectOk(res, access.lang);
    const embedded = embeddedIn(res.json, kind, ids[kind]);
    expect(embedded).toBeDefined();
    expect(pick(embedded, FIELDS[kind])).toEqual(expectedFields(texts(kind), access.lang, FIELDS[kind]));
  });

  it.each(READS)('in a GET /events list item, $label', async (access) => {
    const res = await get('/events', access, listQuery('events', ids.events, ids.events, day));
    expectOk(res, access.lang);
    const embedded = embeddedIn(inList(res, 'events', ids.events), kind, ids[kind]);
    expect(embedded).toBeDefined();
    expect(pick(embedded, FIELDS[kind])).toEqual(expectedFields(texts(kind), access.lang, FIELDS[kind]));
  });
});

describe('json_ld in the request language', () => {
  const nameOf = (kind: KindName, lang: Lang) => expectedFields(texts(kind), lang, [NAME_FIELD[kind]])[NAME_FIELD[kind]];
  const textOf = (kind: KindName, lang: Lang, field: string) => expectedFields(texts(kind), lang, [field])[field];

  it.each(READS)('event: name, description (from the excerpt) and inLanguage, $label', async (access) => {
    const res = await get(recordPath('events', ids.events), access);
    expectOk(res, access.lang);
    expect(only(res.json.json_ld ?? {}, ['name', 'description', 'inLanguage'])).toEqual({
      name: nameOf('events', access.lang), description: plain(textOf('events', access.lang, 'excerpt')), inLanguage: access.lang,
    });
  });

  it.each(READS)('event: its location (venue) and organizer, $label', async (access) => {
    const res = await get(recordPath('events', ids.events), access);
    const ld = res.json.json_ld ?? {};
    expect(only(ld.location ?? {}, ['name', 'description', 'inLanguage'])).toEqual({
      name: nameOf('venues', access.lang), description: plain(textOf('venues', access.lang, 'description')), inLanguage: access.lang,
    });
    const organizer = Array.isArray(ld.organizer) ? ld.organizer[0] : ld.organizer;
    expect(only(organizer ?? {}, ['name', 'description', 'inLanguage'])).toEqual({
      name: nameOf('organizers', access.lang), description: plain(textOf('organizers', access.lang, 'description')),
      inLanguage: access.lang,
    });
  });

  it.each(READS)('embedded venue and organizer of a single event carry json_ld in the language, $label', async (access) => {
    const res = await get(recordPath('events', ids.events), access);
    for (const kind of ['venues', 'organizers'] as const) {
      const ld = embeddedIn(res.json, kind, ids[kind])?.json_ld ?? {};
      expect([kind, ld.name, ld.inLanguage]).toEqual([kind, nameOf(kind, access.lang), access.lang]);
    }
  });

  it.each(READS)('venue and organizer single GETs: name, description and inLanguage, $label', async (access) => {
    for (const kind of ['venues', 'organizers'] as const) {
      const res = await get(recordPath(kind, ids[kind]), access);
      expectOk(res, access.lang);
      expect([kind, only(res.json.json_ld ?? {}, ['name', 'description', 'inLanguage'])]).toEqual([kind, {
        name: nameOf(kind, access.lang), description: plain(textOf(kind, access.lang, 'description')), inLanguage: access.lang,
      }]);
    }
  });
});

describe('by-slug reads follow the language too (slugs are shared)', () => {
  it.each(READS)('events, venues and organizers by slug, $label', async (access) => {
    for (const kind of ['events', 'venues', 'organizers'] as const) {
      const slug = created[kind].json.slug as string;
      const res = await get(`/${kind}/by-slug/${slug}`, access);
      expectOk(res, access.lang);
      expect([kind, res.json.id, res.json.slug, pick(res.json, FIELDS[kind])])
        .toEqual([kind, ids[kind], slug, expectedFields(texts(kind), access.lang, FIELDS[kind])]);
    }
  });
});

describe('shared fields', () => {
  it('slugs are the same in every language and the de writes did not change them', async () => {
    for (const kind of KIND_NAMES) {
      const slugs = await Promise.all(READS.map(async (access) => (await get(recordPath(kind, ids[kind]), access)).json.slug));
      expect([kind, [...new Set(slugs)]]).toEqual([kind, [created[kind].json.slug]]);
    }
  });
});
