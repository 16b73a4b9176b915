/**
 * `search` per language (CONTRACT.md §8: "search matches the text as it is shown in the request's language
 * (fallback included)"; issue 4), for events, venues, organizers, categories and tags.
 *
 * Per kind, two records:
 *  - `both`: created in en, then given de text for every translatable field. A word of the de text is found in
 *    de only; a word of the en text in en and pt-pt (which falls back to en), never in de.
 *  - `deFirst`: created in de (name and description), then given an en name only. The de name is found in de and
 *    pt-pt (fallback to the first language, de) but not in en (en has its own name); the de description is found
 *    in every language, en included, because en shows it by fallback.
 * Terms search their name (and slug, which is language-independent and so given words of its own here).
 */
import {
  eventDates, KIND_NAMES, LIST_KEY, must, NAME_FIELD, read, READS, recordPath, word, write, type Access, type Json,
  type KindName, type Lang,
} from './helpers/languages.js';

interface Probe {
  word: string;
  /** The record the word belongs to and the languages in which it must be found. */
  record: 'both' | 'deFirst';
  foundIn: Lang[];
}

const html = (s: string): string => `<p>${s}</p>`;

describe.each(KIND_NAMES)('%s: search per language', (kind) => {
  const isTerm = kind === 'categories' || kind === 'tags';
  const name = NAME_FIELD[kind];
  const W = {
    enName: word('sen'), deName: word('sde'), enDesc: word('sed'), deDesc: word('sdd'), enExc: word('sex'), deExc: word('sdx'),
    firstName: word('sfn'), firstDesc: word('sfd'), laterEn: word('sle'),
  };
  const ids = {} as Record<'both' | 'deFirst', number>;
  let day: string | undefined;

  const probes: Probe[] = [
    { word: W.enName, record: 'both', foundIn: ['en', 'pt-pt'] },
    { word: W.deName, record: 'both', foundIn: ['de'] },
    { word: W.firstName, record: 'deFirst', foundIn: ['de', 'pt-pt'] },
    { word: W.laterEn, record: 'deFirst', foundIn: ['en'] },
    ...(isTerm ? [] : [
      { word: W.enDesc, record: 'both', foundIn: ['en', 'pt-pt'] },
      { word: W.deDesc, record: 'both', foundIn: ['de'] },
      { word: W.firstDesc, record: 'deFirst', foundIn: ['en', 'de', 'pt-pt'] },
    ] as Probe[]),
    ...(kind === 'events' ? [
      { word: W.enExc, record: 'both', foundIn: ['en', 'pt-pt'] },
      { word: W.deExc, record: 'both', foundIn: ['de'] },
    ] as Probe[] : []),
  ];

  beforeAll(async () => {
    const dates = kind === 'events' ? eventDates() : undefined;
    day = dates?.day;
    const extra = (slugWord: string): Json => ({
      ...(dates ? { start_date: dates.start_date, end_date: dates.end_date } : {}),
      ...(isTerm ? { slug: `lang-search-${slugWord}` } : {}),
    });
    const enText: Json = { [name]: `Alpha ${W.enName}`, description: html(`Beta ${W.enDesc}`) };
    const deText: Json = { [name]: `Gamma ${W.deName}`, description: html(`Delta ${W.deDesc}`) };
    if (kind === 'events') {
      enText.excerpt = html(`Epsilon ${W.enExc}`);
      deText.excerpt = html(`Zeta ${W.deExc}`);
    }
    ids.both = must(await write(`/${kind}`, { ...enText, ...extra(word('slg')) }), 201, `POST /${kind} (en)`).id;
    must(await write(recordPath(kind, ids.both), deText, { method: 'PATCH', prefix: 'de' }), 200, 'de write');

    ids.deFirst = must(await write(`/${kind}`, {
      [name]: `Eta ${W.firstName}`, description: html(`Theta ${W.firstDesc}`), ...extra(word('slg')),
    }, { param: 'de', paramIn: 'body' }), 201, `POST /${kind} (de)`).id;
    must(await write(recordPath(kind, ids.deFirst), { [name]: `Iota ${W.laterEn}` }, { method: 'PATCH' }), 200, 'en write');
  });

  const search = (access: Access, q: string) => read(`/${kind}`, access, {
    search: q, per_page: 50,
    ...(kind === 'events' ? { start_date: day, end_date: day } : {}),
    ...(isTerm ? { hide_empty: false } : {}),
  });

  it.each(READS)('each word is found exactly in the languages that show it, $label', async (access) => {
    const got: Json[] = [];
    const want: Json[] = [];
    for (const probe of probes) {
      const res = await search(access, probe.word);
      const found = res.status === 200 ? ((res.json[LIST_KEY[kind]] as Json[]) ?? []).map((r) => r.id) : [`HTTP ${res.status}`];
      got.push({ word: probe.word, lang: res.headers.get('content-language'), found });
      want.push({ word: probe.word, lang: access.lang, found: probe.foundIn.includes(access.lang) ? [ids[probe.record]] : [] });
    }
    expect(got).toEqual(want);
  });

  it.each(READS)('a record found by search is shown in the request language, $label', async (access) => {
    const res = await search(access, W.firstName);
    if (access.lang === 'en') {
      expect(res.json[LIST_KEY[kind]]).toEqual([]);
      return;
    }
    const [rec] = res.json[LIST_KEY[kind]] as Json[];
    expect([rec?.id, rec?.[name], rec?.description]).toEqual([ids.deFirst, `Eta ${W.firstName}`, html(`Theta ${W.firstDesc}`)]);
    // The en name of the same record is what en shows: searching it in en finds the record with that name.
    const enRes = await search({ label: 'en', lang: 'en' }, W.laterEn);
    expect(((enRes.json[LIST_KEY[kind]] as Json[]) ?? []).map((r) => [r.id, r[name], r.description]))
      .toEqual([[ids.deFirst, `Iota ${W.laterEn}`, html(`Theta ${W.firstDesc}`)]]);
  });
});

describe('term_exists with languages (contract §7: same name under the same parent)', () => {
  it('a term may carry the same name in two languages; another term with that name at that level, in any language, is term_exists', async () => {
    const w = word('ltex');
    const res = await write('/categories', { name: `Same ${w}` }, { prefix: 'de' });
    expect(res.status).toBe(201);
    const upd = await write(`/categories/${res.json.id}`, { name: `Same ${w}` }, { method: 'PATCH', param: 'en' });
    expect(upd.status).toBe(200);
    const dup = await write('/categories', { name: `Same ${w}` }, { param: 'pt-pt' });
    expect([dup.status, dup.json?.code, dup.json?.data?.term_id]).toEqual([400, 'term_exists', res.json.id]);
  });
});

describe('term lists ordered by name follow the request language', () => {
  it.each(['categories', 'tags'] as KindName[])('%s: orderby=name sorts by the name shown in the language (fallback included)', async (kind) => {
    const w = word('lord');
    // a: en "A…", de "Z…"; b: en "B…", no de (falls back to en "B…"); c: created in de "M…", no en.
    const a = must(await write(`/${kind}`, { name: `Aa ${w}`, slug: `lo-a-${w}` }), 201, 'a').id;
    must(await write(`/${kind}/${a}`, { name: `Zz ${w}` }, { method: 'PATCH', prefix: 'de' }), 200, 'a de');
    const b = must(await write(`/${kind}`, { name: `Bb ${w}`, slug: `lo-b-${w}` }), 201, 'b').id;
    const c = must(await write(`/${kind}`, { name: `Mm ${w}`, slug: `lo-c-${w}` }, { prefix: 'de' }), 201, 'c').id;
    const order = async (access: Access) => {
      const res = await read(`/${kind}`, access, { search: w, hide_empty: false, orderby: 'name', order: 'asc' });
      return ((res.json[LIST_KEY[kind]] as Json[]) ?? []).map((t) => t.name);
    };
    expect(await order({ label: 'en', lang: 'en' })).toEqual([`Aa ${w}`, `Bb ${w}`, `Mm ${w}`]);
    expect(await order({ label: 'de', lang: 'de', prefix: 'de' })).toEqual([`Bb ${w}`, `Mm ${w}`, `Zz ${w}`]);
    expect(await order({ label: 'pt-pt', lang: 'pt-pt', param: 'pt-pt' })).toEqual([`Aa ${w}`, `Bb ${w}`, `Mm ${w}`]);
    expect([a, b, c].every((id) => typeof id === 'number')).toBe(true);
  });
});
