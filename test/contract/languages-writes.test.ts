/**
 * Languages and writes (CONTRACT.md §8, §2; issue 4): a write in language L stores the translatable fields for L
 * only — tested field by field, both ways (de after en, en after de) and for the third language; the first
 * language a record was written in is its fallback; where a write takes its language from (body over query over
 * prefix); the other fields are shared; write and delete responses are in the request's language.
 */
import { api } from '../support/api.js';
import {
  createRecord, editor, embeddedIn, rootFor, eventDates, expectedFields, FIELDS, inList, KIND_NAMES, listQuery, must, pick, plain, read,
  recordPath, summary, textsOf, word, write, type Json, type KindName, type Lang, type Texts,
} from './helpers/languages.js';

type Linked = Exclude<KindName, 'events'>;

/** Reads a record in each language and returns its translatable fields per language. */
async function allLanguages(kind: KindName, id: number): Promise<Record<Lang, Json>> {
  const out = {} as Record<Lang, Json>;
  for (const lang of ['en', 'de', 'pt-pt'] as Lang[]) {
    const res = await read(recordPath(kind, id), { param: lang });
    if (res.status !== 200) throw new Error(`GET ${recordPath(kind, id)} in ${lang}: ${res.status} ${res.text}`);
    out[lang] = pick(res.json, FIELDS[kind]);
  }
  return out;
}
const allExpected = (texts: Texts, kind: KindName): Record<Lang, Json> => ({
  en: expectedFields(texts, 'en', FIELDS[kind]),
  de: expectedFields(texts, 'de', FIELDS[kind]),
  'pt-pt': expectedFields(texts, 'pt-pt', FIELDS[kind]),
});

describe.each(KIND_NAMES)('%s: a write in one language never changes another language\'s text', (kind) => {
  const w = word('lwr');
  const texts: Texts = { first: 'en', by: { en: textsOf(kind, w, 'English'), de: textsOf(kind, w, 'Deutsch') } };
  let id: number;

  beforeAll(async () => {
    id = must(await createRecord(kind, texts.by.en!), 201, `POST /${kind}`).id;
    must(await write(recordPath(kind, id), texts.by.de!, { method: 'PATCH', prefix: 'de' }), 200, `de write of ${kind}`);
  });

  it('after the en create and a full de write: en as created, de as written, pt-pt falls back to en', async () => {
    expect(await allLanguages(kind, id)).toEqual(allExpected(texts, kind));
  });

  it.each(FIELDS[kind])('a de write of %s changes de %s only', async (field) => {
    const value = field === 'description' || field === 'excerpt' ? `<p>Deutsch neu ${w} ${field}</p>` : `Deutsch neu ${w} ${field}`;
    const res = await write(recordPath(kind, id), { [field]: value }, { method: 'PATCH', param: 'de' });
    expect(summary(res)).toMatchObject({ status: 200, contentLanguage: 'de' });
    texts.by.de = { ...texts.by.de, [field]: value };
    expect(pick(res.json, FIELDS[kind])).toEqual(expectedFields(texts, 'de', FIELDS[kind]));
    expect(await allLanguages(kind, id)).toEqual(allExpected(texts, kind));
  });

  it.each(FIELDS[kind])('an en write of %s (de text exists) changes en %s only; de stays, pt-pt follows en', async (field) => {
    const value = field === 'description' || field === 'excerpt' ? `<p>English new ${w} ${field}</p>` : `English new ${w} ${field}`;
    const res = await write(recordPath(kind, id), { [field]: value }, { method: 'POST' });
    expect(summary(res)).toMatchObject({ status: 200, contentLanguage: 'en' });
    texts.by.en = { ...texts.by.en, [field]: value };
    expect(pick(res.json, FIELDS[kind])).toEqual(expectedFields(texts, 'en', FIELDS[kind]));
    expect(await allLanguages(kind, id)).toEqual(allExpected(texts, kind));
  });

  it.each(FIELDS[kind])('a pt-pt write of %s changes pt-pt %s only (en and de stay)', async (field) => {
    const value = field === 'description' || field === 'excerpt' ? `<p>Português ${w} ${field}</p>` : `Português ${w} ${field}`;
    const res = await write(recordPath(kind, id), { [field]: value }, { method: 'PUT', prefix: 'pt-pt' });
    expect(summary(res)).toMatchObject({ status: 200, contentLanguage: 'pt-pt' });
    texts.by['pt-pt'] = { ...texts.by['pt-pt'], [field]: value };
    expect(pick(res.json, FIELDS[kind])).toEqual(expectedFields(texts, 'pt-pt', FIELDS[kind]));
    expect(await allLanguages(kind, id)).toEqual(allExpected(texts, kind));
  });

  it('a full en rewrite of every field leaves every de and pt-pt field as it was', async () => {
    const next = textsOf(kind, w, 'English again');
    const res = await write(recordPath(kind, id), next, { method: 'PATCH', prefix: 'en' });
    expect(summary(res)).toMatchObject({ status: 200, contentLanguage: 'en' });
    texts.by.en = next;
    expect(await allLanguages(kind, id)).toEqual(allExpected(texts, kind));
  });
});

/**
 * How each kind is first created in de (path prefix, parameter in the body, the query or a form body), so that
 * every way of naming the language on a create is used.
 */
const CREATE_IN_DE: Record<KindName, Json> = {
  events: { prefix: 'de' },
  venues: { param: 'de', paramIn: 'body' },
  organizers: { param: 'de', paramIn: 'query' },
  categories: { prefix: 'de' },
  tags: { param: 'de', paramIn: 'body', form: true },
};

describe('the first language a record is written in is its fallback', () => {
  const w = word('lfirst');
  const texts = {} as Record<KindName, Texts>;
  const ids = {} as Record<KindName, number>;
  const creates = {} as Record<KindName, Json>;
  let eventId: number;
  let day: string;

  beforeAll(async () => {
    for (const kind of ['venues', 'organizers', 'categories', 'tags', 'events'] as KindName[]) {
      texts[kind] = { first: 'de', by: { de: textsOf(kind, w, 'Erstens') } };
      const res = await createRecord(kind, texts[kind].by.de!, CREATE_IN_DE[kind]);
      creates[kind] = summary(res);
      ids[kind] = must(res, 201, `POST /${kind} in de`).id;
      creates[kind].fields = pick(res.json, FIELDS[kind]);
    }
    // An en event that links the de-first records, for the embedded forms.
    const dates = eventDates();
    day = dates.day;
    eventId = must(await write('/events', {
      title: `Event ${w}`, start_date: dates.start_date, end_date: dates.end_date,
      venue: ids.venues, organizer: [ids.organizers], categories: [ids.categories], tags: [ids.tags],
    }), 201, 'POST /events linking the de-first records').id;
  });

  it.each(KIND_NAMES)('%s: the create in de answers in de', (kind) => {
    expect(creates[kind]).toMatchObject({ status: 201, contentLanguage: 'de', fields: texts[kind].by.de });
  });

  it.each(KIND_NAMES)('%s: en and pt-pt reads fall back to the de text (single and list)', async (kind) => {
    for (const lang of ['en', 'pt-pt'] as Lang[]) {
      const single = await read(recordPath(kind, ids[kind]), { param: lang });
      expect([lang, summary(single).contentLanguage, pick(single.json, FIELDS[kind])]).toEqual([lang, lang, texts[kind].by.de]);
      const list = await read(`/${kind}`, { param: lang }, listQuery(kind, ids[kind], eventId, undefined));
      expect([lang, pick(inList(list, kind, ids[kind]), FIELDS[kind])]).toEqual([lang, texts[kind].by.de]);
    }
  });

  it.each(['venues', 'organizers', 'categories', 'tags'] as Linked[])('%s: embedded in an en event, in en, falls back to de', async (kind) => {
    const single = await read(recordPath('events', eventId), {});
    expect(pick(embeddedIn(single.json, kind, ids[kind]), FIELDS[kind])).toEqual(texts[kind].by.de);
    const list = await read('/events', {}, { start_date: day, end_date: day, per_page: 50 });
    expect(pick(embeddedIn(inList(list, 'events', eventId), kind, ids[kind]), FIELDS[kind])).toEqual(texts[kind].by.de);
  });

  it.each(KIND_NAMES)('%s: after an en write of the name, en shows it with the rest from de; pt-pt still falls back to de',
    async (kind) => {
      const name = FIELDS[kind][0]!;
      const value = `Second ${w} ${kind} english name`;
      const res = await write(recordPath(kind, ids[kind]), { [name]: value }, { method: 'PATCH' });
      expect(summary(res)).toMatchObject({ status: 200, contentLanguage: 'en' });
      texts[kind].by.en = { [name]: value };
      expect(pick(res.json, FIELDS[kind])).toEqual(expectedFields(texts[kind], 'en', FIELDS[kind]));
      // pt-pt falls back to the FIRST language (de), not to en.
      expect(await allLanguages(kind, ids[kind])).toEqual(allExpected(texts[kind], kind));
    });

  it('json_ld of de-first records read in pt-pt: text from de, inLanguage pt-pt', async () => {
    for (const kind of ['events', 'venues', 'organizers'] as const) {
      const res = await read(recordPath(kind, ids[kind]), { prefix: 'pt-pt' });
      // Events describe themselves by their excerpt, venues and organizers (no excerpt here) by their description.
      const source = kind === 'events' ? texts[kind].by.de!.excerpt : texts[kind].by.de!.description;
      expect([kind, res.json.json_ld?.inLanguage, res.json.json_ld?.name, res.json.json_ld?.description])
        .toEqual([kind, 'pt-pt', texts[kind].by.de![FIELDS[kind][0]!], plain(source)]);
    }
  });
});

describe('where a write takes its language from', () => {
  const w = word('lwhere');

  it('translation_language in the body wins over the query (contract §2), for events and terms', async () => {
    const ev = must(await createRecord('events', { title: `Query ${w} en` }), 201, 'POST /events');
    const res = await api(`/events/${ev.id}`, {
      method: 'PATCH', token: await editor(), query: { translation_language: 'pt-pt' }, body: { title: `Body ${w} de`, translation_language: 'de' },
    });
    expect(summary(res)).toMatchObject({ status: 200, contentLanguage: 'de' });
    expect(res.json.title).toBe(`Body ${w} de`);
    expect((await allLanguages('events', ev.id))).toEqual({
      en: pick({ ...ev, title: `Query ${w} en` }, FIELDS.events),
      de: pick({ ...ev, title: `Body ${w} de` }, FIELDS.events),
      'pt-pt': pick({ ...ev, title: `Query ${w} en` }, FIELDS.events),
    });

    const tag = must(await createRecord('tags', { name: `Tag ${w} en` }), 201, 'POST /tags');
    const t = await api(`/tags/${tag.id}`, {
      method: 'POST', token: await editor(), query: { translation_language: 'de' }, form: { name: `Tag ${w} pt`, translation_language: 'pt-pt' },
    });
    expect(summary(t)).toMatchObject({ status: 200, contentLanguage: 'pt-pt' });
    expect((await allLanguages('tags', tag.id))).toEqual({
      en: { name: `Tag ${w} en`, description: '' }, de: { name: `Tag ${w} en`, description: '' },
      'pt-pt': { name: `Tag ${w} pt`, description: '' },
    });
  });

  it('translation_language wins over the path prefix on writes (venues, categories)', async () => {
    const venue = must(await createRecord('venues', { venue: `Venue ${w} en` }), 201, 'POST /venues');
    const v = await write(`/venues/${venue.id}`, { venue: `Venue ${w} pt` }, { method: 'PATCH', prefix: 'de', param: 'pt-pt' });
    expect(summary(v)).toMatchObject({ status: 200, contentLanguage: 'pt-pt' });
    const venueTexts = await allLanguages('venues', venue.id);
    expect([venueTexts.en.venue, venueTexts.de.venue, venueTexts['pt-pt'].venue]).toEqual([`Venue ${w} en`, `Venue ${w} en`, `Venue ${w} pt`]);

    // Created under /pt-pt with translation_language=de: the first language is de, not pt-pt.
    const cat = await createRecord('categories', { name: `Kategorie ${w}` }, { prefix: 'pt-pt', param: 'de' });
    expect(summary(cat)).toMatchObject({ status: 201, contentLanguage: 'de' });
    must(await write(`/categories/${cat.json.id}`, { name: `Categoria ${w}` }, { method: 'PATCH', prefix: 'pt-pt' }), 200, 'pt-pt write');
    const catTexts = await allLanguages('categories', cat.json.id);
    expect([catTexts.en.name, catTexts.de.name, catTexts['pt-pt'].name]).toEqual([`Kategorie ${w}`, `Kategorie ${w}`, `Categoria ${w}`]);
  });

  it('inline venues and organizers created by an event write under /de are written in de (their first language)', async () => {
    const { start_date, end_date } = eventDates();
    const res = await write('/events', {
      title: `Veranstaltung ${w}`, start_date, end_date,
      venue: { venue: `Halle ${w}`, description: `<p>Halle ${w} Beschreibung</p>` },
      organizer: [{ organizer: `Veranstalter ${w}`, description: `<p>Veranstalter ${w} Beschreibung</p>` }],
    }, { prefix: 'de' });
    expect(summary(res)).toMatchObject({ status: 201, contentLanguage: 'de' });
    expect(res.json.venue.venue).toBe(`Halle ${w}`);
    expect(res.json.organizer[0].organizer).toBe(`Veranstalter ${w}`);
    must(await write(`/venues/${res.json.venue.id}`, { venue: `Hall ${w}` }, { method: 'PATCH' }), 200, 'en venue write');
    const venue = await allLanguages('venues', res.json.venue.id);
    expect(venue).toEqual({
      en: { venue: `Hall ${w}`, description: `<p>Halle ${w} Beschreibung</p>` },
      de: { venue: `Halle ${w}`, description: `<p>Halle ${w} Beschreibung</p>` },
      'pt-pt': { venue: `Halle ${w}`, description: `<p>Halle ${w} Beschreibung</p>` },
    });
    const organizer = await allLanguages('organizers', res.json.organizer[0].id);
    expect(organizer.en).toEqual({ organizer: `Veranstalter ${w}`, description: `<p>Veranstalter ${w} Beschreibung</p>` });
  });
});

describe('fields that are not translatable are shared by all languages (contract §8)', () => {
  const w = word('lshared');

  it('event dates, cost and slug written under /de show in en; a de title does not change the slug', async () => {
    const ev = must(await createRecord('events', { title: `Shared ${w}` }), 201, 'POST /events');
    const { start_date, end_date } = eventDates();
    const res = await write(`/events/${ev.id}`, { title: `Geteilt ${w}`, start_date, end_date, cost: '12' }, { method: 'PATCH', prefix: 'de' });
    must(res, 200, 'de event write');
    const enRead = (await read(`/events/${ev.id}`, {})).json;
    expect([enRead.title, enRead.slug, enRead.start_date, enRead.end_date, enRead.cost_details.values])
      .toEqual([`Shared ${w}`, ev.slug, start_date, end_date, ['12']]);
  });

  it('venue address fields and organizer contact fields written in de show in en', async () => {
    const venue = must(await createRecord('venues', { venue: `Place ${w}` }), 201, 'POST /venues');
    must(await write(`/venues/${venue.id}`, { city: 'München', phone: '+49 89 0', address: 'Marienplatz 1' }, { method: 'PATCH', param: 'de' }),
      200, 'de venue write');
    const v = (await read(`/venues/${venue.id}`, { param: 'en' })).json;
    expect([v.venue, v.city, v.phone, v.address]).toEqual([`Place ${w}`, 'München', '+49 89 0', 'Marienplatz 1']);

    const org = must(await createRecord('organizers', { organizer: `Host ${w}` }), 201, 'POST /organizers');
    must(await write(`/organizers/${org.id}`, { email: `${w}@example.de`, website: 'https://example.de/' }, { method: 'PATCH', prefix: 'de' }),
      200, 'de organizer write');
    const o = (await read(`/organizers/${org.id}`, { prefix: 'pt-pt' })).json;
    expect([o.organizer, o.email, o.website]).toEqual([`Host ${w}`, `${w}@example.de`, 'https://example.de/']);
  });

  it('a category parent and a tag slug written in de show in en', async () => {
    const parent = must(await createRecord('categories', { name: `Parent ${w}` }), 201, 'POST /categories');
    const child = must(await createRecord('categories', { name: `Child ${w}` }), 201, 'POST /categories');
    must(await write(`/categories/${child.id}`, { parent: parent.id }, { method: 'PATCH', prefix: 'de' }), 200, 'de category write');
    expect((await read(`/categories/${child.id}`, {})).json.parent).toBe(parent.id);
    const tag = must(await createRecord('tags', { name: `Label ${w}` }), 201, 'POST /tags');
    must(await write(`/tags/${tag.id}`, { slug: `etikett-${w}` }, { method: 'PATCH', param: 'de' }), 200, 'de tag write');
    expect((await read(`/tags/${tag.id}`, {})).json.slug).toBe(`etikett-${w}`);
  });

  it.each(['venues', 'organizers'] as const)('%s: the excerpt is not translatable (§8 lists name and description only), so it is shared',
    async (kind) => {
      const rec = must(await createRecord(kind, { [kind === 'venues' ? 'venue' : 'organizer']: `Excerpt ${w} ${kind}`, excerpt: '<p>English excerpt</p>' }),
        201, `POST /${kind}`);
      must(await write(`/${kind}/${rec.id}`, { excerpt: '<p>Deutscher Auszug</p>' }, { method: 'PATCH', prefix: 'de' }), 200, 'de write');
      const excerpts = await Promise.all((['en', 'de', 'pt-pt'] as Lang[]).map(async (lang) => (await read(`/${kind}/${rec.id}`, { param: lang })).json.excerpt));
      expect(excerpts).toEqual(['<p>Deutscher Auszug</p>', '<p>Deutscher Auszug</p>', '<p>Deutscher Auszug</p>']);
    });
});

describe('write and delete responses are in the request language', () => {
  const w = word('lresp');

  it('an event update under /de embeds its venue, organizer and terms in de', async () => {
    const venue = must(await createRecord('venues', { venue: `Venue ${w}` }), 201, 'venue');
    must(await write(`/venues/${venue.id}`, { venue: `Ort ${w}` }, { method: 'PATCH', prefix: 'de' }), 200, 'de venue');
    const org = must(await createRecord('organizers', { organizer: `Org ${w}` }), 201, 'organizer');
    must(await write(`/organizers/${org.id}`, { organizer: `Veranstalter ${w}` }, { method: 'PATCH', prefix: 'de' }), 200, 'de organizer');
    const cat = must(await createRecord('categories', { name: `Cat ${w}` }), 201, 'category');
    must(await write(`/categories/${cat.id}`, { name: `Kat ${w}` }, { method: 'PATCH', prefix: 'de' }), 200, 'de category');
    const tag = must(await createRecord('tags', { name: `Tag ${w}` }), 201, 'tag');
    must(await write(`/tags/${tag.id}`, { name: `Schlagwort ${w}` }, { method: 'PATCH', prefix: 'de' }), 200, 'de tag');
    const ev = must(await createRecord('events', { title: `Event ${w}` }), 201, 'event');
    const res = await write(`/events/${ev.id}`, { venue: venue.id, organizer: [org.id], categories: [cat.id], tags: [tag.id] },
      { method: 'PATCH', prefix: 'de' });
    expect(summary(res)).toMatchObject({ status: 200, contentLanguage: 'de' });
    expect([res.json.title, res.json.venue.venue, res.json.organizer[0].organizer, res.json.categories[0].name, res.json.tags[0].name])
      .toEqual([`Event ${w}`, `Ort ${w}`, `Veranstalter ${w}`, `Kat ${w}`, `Schlagwort ${w}`]);
    // The same write in en answers in en.
    const enRes = await write(`/events/${ev.id}`, { cost: '5' }, { method: 'PATCH' });
    expect([enRes.headers.get('content-language'), enRes.json.venue.venue, enRes.json.categories[0].name]).toEqual(['en', `Venue ${w}`, `Cat ${w}`]);
  });

  it.each(KIND_NAMES)('%s: DELETE answers with the record in the request language (under /de; then pt-pt by parameter)', async (kind) => {
    const enText = textsOf(kind, w, 'English');
    const deText = textsOf(kind, w, 'Deutsch');
    const token = await editor();
    const rec = must(await createRecord(kind, enText), 201, `POST /${kind}`);
    must(await write(recordPath(kind, rec.id), deText, { method: 'PATCH', param: 'de' }), 200, 'de write');
    const del = (access: { prefix?: Lang; param?: Lang }, force = false) => api(`${rootFor(access.prefix)}${recordPath(kind, rec.id)}`, {
      method: 'DELETE', token, query: { ...(access.param ? { translation_language: access.param } : {}), ...(force ? { force: true } : {}) },
    });
    const first = await del({ prefix: 'de' });
    expect(summary(first)).toMatchObject({ status: 200, contentLanguage: 'de' });
    expect(pick(first.json, FIELDS[kind])).toEqual(deText);
    const again = await del({ prefix: 'de' });
    if (kind === 'categories' || kind === 'tags') {
      // Terms are deleted permanently by the first DELETE: the second one is a 404, in de.
      expect(summary(again)).toMatchObject({ status: 404, contentLanguage: 'de' });
    } else {
      // Trashed: the second DELETE is a 410, in de; a forced delete with translation_language=pt-pt answers in pt-pt.
      expect(summary(again)).toMatchObject({ status: 410, contentLanguage: 'de' });
      const forced = await del({ prefix: 'de', param: 'pt-pt' }, true);
      expect(summary(forced)).toMatchObject({ status: 200, contentLanguage: 'pt-pt' });
      expect(pick(forced.json, FIELDS[kind])).toEqual(enText);
    }
  });
});
