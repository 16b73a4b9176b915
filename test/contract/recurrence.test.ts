/**
 * Recurring events over HTTP (contract §13): series written as RFC 5545 lines or the add-on's object form, their
 * occurrences as records of their own with exact dates across daylight-saving changes, the three new fields, edits of
 * one occurrence and of the series, regeneration that keeps surviving ids, splits, trash/restore/force, and the
 * checks that refuse a write before anything is stored. Series here start in 2027 (within the horizon of 730 days).
 */
import { api, tokenFor } from '../support/api.js';
import { expectInvalidParam, uniqueWord, type Json } from './helpers/list.js';

let token: string;
beforeAll(async () => {
  token = await tokenFor('editor', 'contract-recurrence-editor');
});

async function create(body: Json): Promise<Json> {
  const res = await api('/events', { method: 'POST', token, body: { status: 'publish', ...body } });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.json;
}

/** Every occurrence of a series (all pages), in start order. */
async function occurrences(id: number, query: Json = {}, auth: string | undefined = token): Promise<Json[]> {
  const out: Json[] = [];
  for (let page = 1; ; page++) {
    const res = await api(`/events/${id}/occurrences`, { token: auth, query: { start_date: '2000-01-01', per_page: 50, page, ...query } });
    if (res.status === 404 && page > 1) return out;
    expect(res.status).toBe(200);
    out.push(...res.json.events);
    if (!res.json.next_rest_url) {
      expect(res.json.total).toBe(out.length);
      return out;
    }
  }
}

const get = async (id: number): Promise<Json> => (await api(`/events/${id}`, { token })).json;

describe('a weekly series at 18:00 Europe/Berlin', () => {
  let series: Json;
  let occ: Json[];
  beforeAll(async () => {
    series = await create({ title: `Weekly ${uniqueWord()}`, start_date: '2027-01-05 18:00:00', end_date: '2027-01-05 19:30:00',
      timezone: 'Europe/Berlin', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=52'] });
    occ = await occurrences(series.id);
  });

  test('the series answers with its lines and the three fields; it is not listed itself', () => {
    expect(series.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=52']);
    expect(series.series_id).toBe(0);
    expect(series.original_start_date).toBe('');
    expect(occ).toHaveLength(52);
    expect(occ.map((o) => o.id)).not.toContain(series.id);
  });

  test('every occurrence starts at 18:00 local: 17:00 UTC in winter, 16:00 UTC in summer, across both changes', () => {
    for (const o of occ) {
      expect(o.start_date.slice(11)).toBe('18:00:00');
      expect(o.end_date.slice(11)).toBe('19:30:00');
      expect(o.series_id).toBe(series.id);
      expect(o.recurrence).toEqual([]);
      expect(o.original_start_date).toBe(o.start_date);
      expect(o.slug).toBe(series.slug);
      expect(o.url).toMatch(new RegExp(`/event/${series.slug}/${o.start_date.slice(0, 10)}/$`));
    }
    const utc = (day: string) => occ.find((o) => o.start_date.startsWith(day))!.utc_start_date;
    expect(utc('2027-01-05')).toBe('2027-01-05 17:00:00');
    expect(utc('2027-03-23')).toBe('2027-03-23 17:00:00'); // before the change of 28 March
    expect(utc('2027-03-30')).toBe('2027-03-30 16:00:00');
    expect(utc('2027-07-06')).toBe('2027-07-06 16:00:00');
    expect(utc('2027-10-26')).toBe('2027-10-26 16:00:00'); // before the change of 31 October
    expect(utc('2027-11-02')).toBe('2027-11-02 17:00:00');
    expect(occ[0]!.start_date).toBe('2027-01-05 18:00:00');
  });

  test('an occurrence is a record of its own, reachable by id; by-slug reaches the series', async () => {
    const one = await get(occ[3]!.id);
    expect(one.id).toBe(occ[3]!.id);
    expect(one.series_id).toBe(series.id);
    const bySlug = await api(`/events/by-slug/${series.slug}`, { token });
    expect(bySlug.json.id).toBe(series.id);
  });

  test('post_parent lists the series too; of an occurrence, its series', async () => {
    const res = await api('/events', { token, query: { post_parent: series.id, start_date: '2000-01-01', per_page: 5 } });
    expect(res.json.total).toBe(52);
    const viaOcc = await api(`/events/${occ[5]!.id}/occurrences`, { token, query: { start_date: '2000-01-01', per_page: 5 } });
    expect(viaOcc.json.total).toBe(52);
    expect(viaOcc.json.rest_url).toContain(`/events/${occ[5]!.id}/occurrences`);
  });

  test('include with the series id lists its occurrences in start order, exact total; mixed with a single event, both', async () => {
    const all: Json[] = [];
    for (let page = 1; page <= 2; page++) {
      const res = await api('/events', { token, query: { include: series.id, per_page: 50, page } });
      expect([res.status, res.json.total, res.json.total_pages]).toEqual([200, 52, 2]);
      all.push(...res.json.events);
    }
    expect(all.map((e) => e.id)).toEqual(occ.map((o) => o.id));
    expect(all.map((e) => e.id)).not.toContain(series.id);
    const single = await create({ title: `Single ${uniqueWord()}`, start_date: '2027-01-12 09:00:00', end_date: '2027-01-12 10:00:00' });
    const mixed = await api('/events', { token, query: { include: [single.id, series.id, occ[0]!.id], per_page: 4 } });
    expect(mixed.json.total).toBe(53);
    expect(mixed.json.events.map((e: Json) => e.id)).toEqual([occ[0]!.id, single.id, occ[1]!.id, occ[2]!.id]);
  });

  test('the /events date parameters apply to occurrences', async () => {
    const res = await api(`/events/${series.id}/occurrences`, { token, query: { start_date: '2027-07-01', end_date: '2027-07-31' } });
    expect(res.json.total).toBe(4);
    expect(res.json.events.map((e: Json) => e.start_date.slice(0, 10))).toEqual(['2027-07-06', '2027-07-13', '2027-07-20', '2027-07-27']);
  });
});

describe('other rules', () => {
  test('an all-day daily series stays all-day', async () => {
    const s = await create({ title: `Allday ${uniqueWord()}`, start_date: '2027-02-01', end_date: '2027-02-01', all_day: true,
      timezone: 'America/New_York', recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] });
    const occ = await occurrences(s.id);
    expect(occ.map((o) => [o.all_day, o.start_date, o.end_date])).toEqual([
      [true, '2027-02-01 00:00:00', '2027-02-01 23:59:59'],
      [true, '2027-02-02 00:00:00', '2027-02-02 23:59:59'],
      [true, '2027-02-03 00:00:00', '2027-02-03 23:59:59'],
    ]);
  });

  test('the add-on\'s object form: every month on the first Monday until a date, shown as RFC 5545 lines', async () => {
    const s = await create({ title: `Monthly ${uniqueWord()}`, start_date: '2027-01-04 19:00:00', end_date: '2027-01-04 21:00:00',
      timezone: 'Europe/Berlin', recurrence: { rules: [{ type: 'every-month', on: 'first monday', end_type: 'On', end: '2027-06-30' }] } });
    expect(s.recurrence).toEqual(['RRULE:FREQ=MONTHLY;BYDAY=1MO;UNTIL=20270630T215959Z']);
    const occ = await occurrences(s.id);
    expect(occ.map((o) => o.start_date)).toEqual(['2027-01-04', '2027-02-01', '2027-03-01', '2027-04-05', '2027-05-03', '2027-06-07']
      .map((d) => `${d} 19:00:00`));
  });

  test('monthly BYDAY=1MO as a line', async () => {
    const s = await create({ title: `Firstmon ${uniqueWord()}`, start_date: '2027-01-04 10:00:00', end_date: '2027-01-04 11:00:00',
      recurrence: ['RRULE:FREQ=MONTHLY;BYDAY=1MO;COUNT=4'] });
    expect((await occurrences(s.id)).map((o) => o.start_date.slice(0, 10))).toEqual(['2027-01-04', '2027-02-01', '2027-03-01', '2027-04-05']);
  });

  test('EXDATE removes and RDATE adds occurrences, in their own zones', async () => {
    const s = await create({ title: `Exrd ${uniqueWord()}`, start_date: '2027-05-03 09:00:00', end_date: '2027-05-03 10:00:00',
      timezone: 'Europe/Lisbon', recurrence: ['RRULE:FREQ=DAILY;COUNT=5', 'EXDATE;TZID=Europe/Lisbon:20270504T090000',
        'EXDATE;VALUE=DATE:20270506', 'RDATE:20270520T120000Z'] });
    const occ = await occurrences(s.id);
    expect(occ.map((o) => o.start_date)).toEqual(['2027-05-03 09:00:00', '2027-05-05 09:00:00', '2027-05-07 09:00:00', '2027-05-20 13:00:00']);
  });

  test('two occurrences on one day: their pages name the time', async () => {
    const s = await create({ title: `Twice ${uniqueWord()}`, start_date: '2027-03-01 09:00:00', end_date: '2027-03-01 10:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=2', 'RDATE:20270301T150000'] });
    const occ = await occurrences(s.id);
    expect(occ.map((o) => o.url.split('/').slice(-2, -1)[0])).toEqual(['2027-03-01-0900', '2027-03-01-1500', '2027-03-02']);
  });

  test('single events carry the three fields empty', async () => {
    const e = await create({ title: `Single ${uniqueWord()}`, start_date: '2027-03-01 09:00:00', end_date: '2027-03-01 10:00:00' });
    expect([e.recurrence, e.series_id, e.original_start_date]).toEqual([[], 0, '']);
    const occ = await occurrences(e.id);
    expect(occ.map((o) => o.id)).toEqual([e.id]);
  });
});

describe('refused writes store nothing', () => {
  const cases: [string, unknown][] = [
    ['a line that does not parse', ['RRULE:FREQ=SOMETIMES']],
    ['an unknown part', ['RRULE:FREQ=DAILY;FOO=1']],
    ['two RRULEs', ['RRULE:FREQ=DAILY;COUNT=2', 'RRULE:FREQ=WEEKLY;COUNT=2']],
    ['EXRULE', ['EXRULE:FREQ=DAILY']],
    ['COUNT with UNTIL', ['RRULE:FREQ=DAILY;COUNT=2;UNTIL=20270101T000000Z']],
    ['a bad date', ['RDATE:20271345T000000']],
    ['over 1,000 occurrences within the horizon', ['RRULE:FREQ=HOURLY']],
    ['parts that never meet (the library would search until the year 9999)', ['RRULE:FREQ=HOURLY;INTERVAL=48;BYHOUR=1']],
    ['30 February every second', ['RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30']],
    ['an untranslatable object', { rules: [{ type: 'every-fortnight' }] }],
    ['an object with an unknown "on"', { rules: [{ type: 'every-month', on: 'the monday after easter' }] }],
    ['not lines', 42],
  ];
  test.each(cases)('%s → 400 naming recurrence, and no event', async (_name, recurrence) => {
    const word = uniqueWord();
    const res = await api('/events', { method: 'POST', token, body: { title: `Refused ${word}`, start_date: '2027-01-05 10:00:00',
      end_date: '2027-01-05 11:00:00', status: 'publish', recurrence } });
    expectInvalidParam(res, 'recurrence');
    const found = await api('/events', { token, query: { search: word, start_date: '2000-01-01' } });
    expect(found.json.total).toBe(0);
  });

  test('a rule over 1,000 occurrences says so', async () => {
    const res = await api('/events', { method: 'POST', token, body: { title: 'Too many', start_date: '2027-01-05 10:00:00',
      end_date: '2027-01-05 11:00:00', recurrence: ['RRULE:FREQ=HOURLY;COUNT=1001'] } });
    expectInvalidParam(res, 'recurrence');
    expect(res.json.message + JSON.stringify(res.json.data)).toMatch(/1,?000/);
  });
});

describe('edits', () => {
  test('an edited occurrence keeps its own title through a series title change; the rest follow the series', async () => {
    const s = await create({ title: 'Old title', description: 'Old text', start_date: '2027-04-06 18:00:00', end_date: '2027-04-06 19:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
    const occ = await occurrences(s.id);
    const edited = await api(`/events/${occ[1]!.id}`, { method: 'POST', token, body: { title: 'Own title' } });
    expect(edited.status).toBe(200);
    expect(edited.json.title).toBe('Own title');
    expect((await occurrences(s.id)).map((o) => o.title)).toEqual(['Old title', 'Own title', 'Old title', 'Old title']);
    const changed = await api(`/events/${s.id}`, { method: 'POST', token, body: { title: 'New title', description: 'New text' } });
    expect(changed.status).toBe(200);
    const after = await occurrences(s.id);
    expect(after.map((o) => o.title)).toEqual(['New title', 'Own title', 'New title', 'New title']);
    expect(after.map((o) => o.description)).toEqual(['New text', 'New text', 'New text', 'New text']);
    expect(after.map((o) => o.id)).toEqual(occ.map((o) => o.id));
  });

  test('an RRULE change keeps the ids of occurrences whose date survives, moved to the new time', async () => {
    const s = await create({ title: `Rechange ${uniqueWord()}`, start_date: '2027-04-06 18:00:00', end_date: '2027-04-06 19:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] });
    const before = await occurrences(s.id);
    const res = await api(`/events/${s.id}`, { method: 'POST', token, body: { recurrence: ['RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4'],
      start_date: '2027-04-06 20:00:00', end_date: '2027-04-06 21:00:00' } });
    expect(res.status).toBe(200);
    const after = await occurrences(s.id);
    expect(after.map((o) => o.start_date)).toEqual(['2027-04-06', '2027-04-20', '2027-05-04', '2027-05-18'].map((d) => `${d} 20:00:00`));
    const idOn = (list: Json[], day: string) => list.find((o) => o.start_date.startsWith(day))?.id;
    for (const day of ['2027-04-06', '2027-04-20', '2027-05-04']) expect(idOn(after, day)).toBe(idOn(before, day));
    const dropped = before.find((o) => o.start_date.startsWith('2027-04-13'))!;
    expect((await api(`/events/${dropped.id}`, { token })).status).toBe(404);
  });

  test('recurrence: [] makes the series a single event again, keeping its id', async () => {
    const s = await create({ title: `Unrecur ${uniqueWord()}`, start_date: '2027-04-06 18:00:00', end_date: '2027-04-06 19:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] });
    const occ = await occurrences(s.id);
    const res = await api(`/events/${s.id}`, { method: 'POST', token, body: { recurrence: [] } });
    expect(res.status).toBe(200);
    expect(res.json.recurrence).toEqual([]);
    expect((await occurrences(s.id)).map((o) => o.id)).toEqual([s.id]);
    for (const o of occ) expect((await api(`/events/${o.id}`, { token })).status).toBe(404);
  });

  test('scope and recurrence are refused where they do not apply', async () => {
    const s = await create({ title: `Scope ${uniqueWord()}`, start_date: '2027-04-06 18:00:00', end_date: '2027-04-06 19:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] });
    const occ = await occurrences(s.id);
    expectInvalidParam(await api(`/events/${s.id}`, { method: 'POST', token, query: { scope: 'following' }, body: { title: 'x' } }), 'scope');
    expectInvalidParam(await api(`/events/${occ[1]!.id}`, { method: 'POST', token, query: { scope: 'all' }, body: { title: 'x' } }), 'scope');
    expectInvalidParam(await api(`/events/${occ[1]!.id}`, { method: 'POST', token, body: { recurrence: ['RRULE:FREQ=DAILY;COUNT=2'] } }),
      'recurrence');
  });

  test('scope=following splits the series at that occurrence', async () => {
    const s = await create({ title: 'Split me', start_date: '2027-06-01 18:00:00', end_date: '2027-06-01 19:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'] });
    const occ = await occurrences(s.id);
    const res = await api(`/events/${occ[2]!.id}`, { method: 'POST', token, query: { scope: 'following' }, body: { title: 'Split later' } });
    expect(res.status).toBe(201);
    const created = res.json;
    expect(res.headers.get('location')).toMatch(new RegExp(`/events/${created.id}$`));
    expect(created.id).not.toBe(s.id);
    expect(created.title).toBe('Split later');
    expect(created.start_date).toBe('2027-06-15 18:00:00');
    expect(created.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=3']);
    const old = await get(s.id);
    expect(old.recurrence).toEqual(['RRULE:FREQ=WEEKLY;UNTIL=20270615T175959Z']);
    expect((await occurrences(s.id)).map((o) => [o.id, o.title])).toEqual([[occ[0]!.id, 'Split me'], [occ[1]!.id, 'Split me']]);
    const later = await occurrences(created.id);
    expect(later.map((o) => o.id)).toEqual(occ.slice(2).map((o) => o.id));
    expect(later.map((o) => o.title)).toEqual(['Split later', 'Split later', 'Split later']);
    expect(later.every((o) => o.series_id === created.id)).toBe(true);
  });
});

describe('trash, restore and force', () => {
  test('trashing the series trashes its occurrences; restoring brings back exactly those it trashed', async () => {
    const s = await create({ title: `Trash ${uniqueWord()}`, start_date: '2027-08-02 18:00:00', end_date: '2027-08-02 19:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=4'] });
    const occ = await occurrences(s.id);
    const own = await api(`/events/${occ[1]!.id}`, { method: 'DELETE', token });
    expect(own.status).toBe(200);
    expect(own.json.status).toBe('trash');
    expect((await occurrences(s.id)).map((o) => o.id)).toEqual([occ[0]!.id, occ[2]!.id, occ[3]!.id]);
    expect((await api(`/events/${s.id}`, { method: 'DELETE', token })).json.status).toBe('trash');
    expect(await occurrences(s.id)).toEqual([]);
    const trashed = await occurrences(s.id, { status: 'trash' });
    expect(trashed.map((o) => o.id)).toEqual(occ.map((o) => o.id));
    const restored = await api(`/events/${s.id}`, { method: 'POST', token, body: { status: 'publish' } });
    expect(restored.status).toBe(200);
    expect((await occurrences(s.id)).map((o) => o.id)).toEqual([occ[0]!.id, occ[2]!.id, occ[3]!.id]);
    expect((await occurrences(s.id, { status: 'trash' })).map((o) => o.id)).toEqual([occ[1]!.id]);
  });

  test('an occurrence deleted for good never comes back; force on the series deletes every occurrence', async () => {
    const s = await create({ title: `Force ${uniqueWord()}`, start_date: '2027-08-02 18:00:00', end_date: '2027-08-02 19:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=4'] });
    const occ = await occurrences(s.id);
    expect((await api(`/events/${occ[2]!.id}`, { method: 'DELETE', token, query: { force: true } })).status).toBe(200);
    await api(`/events/${s.id}`, { method: 'POST', token, body: { title: 'Regenerated' } });
    expect((await occurrences(s.id)).map((o) => o.start_date.slice(0, 10))).toEqual(['2027-08-02', '2027-08-03', '2027-08-05']);
    const forced = await api(`/events/${s.id}`, { method: 'DELETE', token, query: { force: true } });
    expect(forced.status).toBe(200);
    expect(forced.json.id).toBe(s.id);
    for (const id of [s.id, ...occ.map((o) => o.id)]) expect((await api(`/events/${id}`, { token })).status).toBe(404);
  });
});

describe('counts', () => {
  test('a category counts a series once; list totals count its occurrences', async () => {
    const cat = await api('/categories', { method: 'POST', token, body: { name: `Rc ${uniqueWord()}` } });
    const s = await create({ title: `Counted ${uniqueWord()}`, start_date: '2027-09-01 18:00:00', end_date: '2027-09-01 19:00:00',
      categories: [cat.json.id], recurrence: ['RRULE:FREQ=DAILY;COUNT=5'] });
    await create({ title: `Plain ${uniqueWord()}`, start_date: '2027-09-01 18:00:00', end_date: '2027-09-01 19:00:00', categories: [cat.json.id] });
    expect((await api(`/categories/${cat.json.id}`)).json.count).toBe(2);
    const listed = await api('/events', { query: { categories: cat.json.id, start_date: '2027-01-01' } });
    expect(listed.json.total).toBe(6);
    expect(listed.json.events.map((e: Json) => e.id)).not.toContain(s.id);
  });

  test('a series also counts, once, towards what only its occurrences link; a draft series through an occurrence published on its own', async () => {
    const word = uniqueWord();
    const term = async (kind: string) => (await api(`/${kind}`, { method: 'POST', token, body: { name: `Oc ${kind} ${uniqueWord()}` } })).json.id as number;
    const [a, b, tag] = [await term('categories'), await term('categories'), await term('tags')];
    const count = async (kind: string, id: number) => (await api(`/${kind}/${id}`, { token })).json.count as number;
    const counts = async () => [await count('categories', a), await count('categories', b), await count('tags', tag)];
    const venueListed = async () => (await api('/venues', { query: { has_events: true, search: word } })).json.total as number | undefined;
    const s = await create({ title: `Owned ${uniqueWord()}`, start_date: '2027-10-04 18:00:00', end_date: '2027-10-04 19:00:00',
      categories: [a], recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });
    const occ = await occurrences(s.id);
    const write = async (id: number, body: Json, method = 'POST') => {
      const res = await api(`/events/${id}`, { method, token, body });
      expect(res.status).toBe(200);
      return res.json;
    };
    expect(await counts()).toEqual([1, 0, 0]);
    await write(occ[0]!.id, { categories: [a, b] });
    await write(occ[1]!.id, { categories: [b], tags: [tag] });
    const withVenue = await write(occ[2]!.id, { venue: { venue: `Annex ${word}` } });
    expect(await counts()).toEqual([1, 1, 1]); // b through two occurrences: the series once
    expect(await venueListed()).toBe(1);
    await write(s.id, { title: `Owned again ${uniqueWord()}` }); // a regeneration keeps them
    expect(await counts()).toEqual([1, 1, 1]);
    await write(s.id, { status: 'draft' }); // occurrences without a status of their own follow it
    expect(await counts()).toEqual([0, 0, 0]);
    expect(await venueListed()).toBe(0);
    await write(occ[3]!.id, { status: 'publish' }); // published on its own, with the series' links
    expect(await counts()).toEqual([1, 0, 0]);
    await write(s.id, { status: 'publish' });
    expect(await counts()).toEqual([1, 1, 1]);
    expect((await api(`/events/${occ[1]!.id}`, { method: 'DELETE', token })).json.status).toBe('trash');
    expect(await counts()).toEqual([1, 1, 0]); // b still through the first occurrence
    await write(occ[0]!.id, { categories: [a] });
    expect(await counts()).toEqual([1, 0, 0]);
    await write(occ[1]!.id, { status: 'publish' }); // restored
    expect(await counts()).toEqual([1, 1, 1]);
    expect((await api(`/venues/${withVenue.venue.id}`, { token })).status).toBe(200);
    expect((await api(`/events/${s.id}`, { method: 'DELETE', token, query: { force: true } })).status).toBe(200);
    expect(await counts()).toEqual([0, 0, 0]);
    expect(await venueListed()).toBe(0);
  });

  test('occurrences written at once, and a split, keep the series counted once', async () => {
    const b = (await api('/categories', { method: 'POST', token, body: { name: `Oc split ${uniqueWord()}` } })).json.id as number;
    const count = async () => (await api(`/categories/${b}`, { token })).json.count as number;
    const s = await create({ title: `Split count ${uniqueWord()}`, start_date: '2027-10-05 18:00:00', end_date: '2027-10-05 19:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=6'] });
    const occ = await occurrences(s.id);
    const statuses = await Promise.all(occ.map((o) => api(`/events/${o.id}`, { method: 'POST', token, body: { categories: [b] } })));
    expect(statuses.map((r) => r.status)).toEqual(occ.map(() => 200));
    expect(await count()).toBe(1);
    // Split at the fourth: both series link b through their occurrences' own links.
    const split = await api(`/events/${occ[3]!.id}`, { method: 'POST', token, query: { scope: 'following' }, body: { title: `Later ${uniqueWord()}` } });
    expect(split.status).toBe(201);
    expect(await count()).toBe(2);
    const cleared = await Promise.all(occ.slice(0, 3).map((o) => api(`/events/${o.id}`, { method: 'POST', token, body: { categories: [] } })));
    expect(cleared.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await count()).toBe(1);
    expect((await api(`/events/${split.json.id}`, { method: 'DELETE', token, query: { force: true } })).status).toBe(200);
    expect(await count()).toBe(0);
  });
});

// A series is indexed occurrence by occurrence while occurrences × terms stay small, else through its own word entries
// (lib/events/series-words.ts): the same searches run against one of each.
describe.each([['indexed occurrence by occurrence', 6], ['found through the series', 300]])('search, %s', (_mode, n) => {
  const search = async (query: Json, auth?: string): Promise<Json> =>
    (await api('/events', { token: auth, query: { start_date: '2027-01-01', per_page: 50, ...query } })).json;

  test('a series\' words find its occurrences (title and description), counted exactly; an occurrence\'s own title is its own', async () => {
    const [a, b, c] = [uniqueWord('sa'), uniqueWord('sb'), uniqueWord('sc')];
    const s = await create({ title: `Yoga ${a}`, description: `<p>Bring a mat ${b}</p>`, start_date: '2027-10-04 08:00:00',
      end_date: '2027-10-04 09:00:00', recurrence: [`RRULE:FREQ=DAILY;COUNT=${n}`] });
    const occ = await occurrences(s.id);
    expect(occ).toHaveLength(n);
    expect((await search({ search: a })).total).toBe(n);
    expect((await search({ search: b })).total).toBe(n);
    expect((await search({ search: `${a} ${b}` })).total).toBe(n);
    expect((await search({ search: a.slice(0, 5) })).total).toBe(n); // a prefix
    expect((await search({ search: a, per_page: 4, page: 2 })).events.map((e: Json) => e.id)).toEqual(occ.slice(4, 8).map((o) => o.id));
    expect((await search({ search: a, start_date: occ[3]!.start_date.slice(0, 10), end_date: occ[4]!.start_date.slice(0, 10) }))
      .events.map((e: Json) => e.id)).toEqual([occ[3]!.id, occ[4]!.id]);
    await api(`/events/${occ[2]!.id}`, { method: 'POST', token, body: { title: `Pilates ${c}` } });
    expect((await search({ search: c })).events.map((e: Json) => e.id)).toEqual([occ[2]!.id]);
    expect((await search({ search: a })).total).toBe(n - 1);
    expect((await search({ search: b })).total).toBe(n); // its description is still the series'
    await api(`/events/${s.id}`, { method: 'POST', token, body: { title: `Stretching ${c}` } });
    expect((await search({ search: a })).total).toBe(0);
    expect((await search({ search: c })).total).toBe(n);
    await api(`/events/${s.id}`, { method: 'DELETE', token, query: { force: true } });
    expect((await search({ search: c })).total).toBe(0);
    expect((await search({ search: b })).total).toBe(0);
  }, 60_000);

  test('occurrences longer than a day that started before the window and still run are listed and counted', async () => {
    const a = uniqueWord('sl');
    const s = await create({ title: `Retreat ${a}`, description: '<p>Three days in the hills</p>', start_date: '2027-10-04 08:00:00',
      end_date: '2027-10-07 08:00:00', recurrence: [`RRULE:FREQ=DAILY;COUNT=${n}`] });
    const occ = await occurrences(s.id);
    const running = async () => (await api('/events', { query: { search: a, ends_after: '2027-10-06 00:00:00', per_page: 3 } })).json;
    const listed = await running();
    expect(listed.total).toBe(n); // the first two started before and end after
    expect(listed.events.map((e: Json) => e.id)).toEqual(occ.slice(0, 3).map((o) => o.id));
    await api(`/events/${occ[0]!.id}`, { method: 'POST', token, body: { end_date: '2027-10-05 20:00:00' } }); // now ends before
    expect((await running()).events.map((e: Json) => e.id)).toEqual(occ.slice(1, 4).map((o) => o.id));
    await api(`/events/${s.id}`, { method: 'DELETE', token, query: { force: true } });
    expect((await running()).total).toBe(0);
  }, 60_000);

  test('languages, passwords and other filters apply to occurrences found through their series', async () => {
    const [en, de, hidden] = [uniqueWord('le'), uniqueWord('ld'), uniqueWord('lh')];
    const cat = await api('/categories', { method: 'POST', token, body: { name: `Sc ${uniqueWord()}` } });
    const s = await create({ title: `Class ${en}`, description: `secret ${hidden}`, password: 'pw1', categories: [cat.json.id],
      start_date: '2027-10-11 08:00:00', end_date: '2027-10-11 09:00:00', recurrence: [`RRULE:FREQ=DAILY;COUNT=${n}`] });
    const deWrite = await api(`/events/${s.id}`, { method: 'POST', token, body: { title: `Kurs ${de}`, translation_language: 'de' } });
    expect(deWrite.status).toBe(200);
    expect((await search({ search: en })).total).toBe(n);
    expect((await search({ search: de })).total).toBe(0);
    expect((await search({ search: de, translation_language: 'de' })).total).toBe(n);
    expect((await search({ search: hidden })).total).toBe(0); // hidden text needs the password
    expect((await search({ search: hidden, password: 'pw1' })).total).toBe(n);
    expect((await search({ search: en, categories: cat.json.id })).total).toBe(n);
    expect((await search({ search: en, featured: true })).total).toBe(0);
  }, 60_000);
});

describe('documents', () => {
  test('the root index and the OpenAPI document describe the occurrences route, recurrence and scope', async () => {
    const root = (await api('/')).json;
    const route = Object.entries<Json>(root.routes).find(([path]) => path.includes('occurrences'));
    expect(route).toBeDefined();
    expect(route![1].methods).toEqual(['GET']);
    const write = root.routes['/calendar/events/v1/events'].endpoints.find((e: Json) => e.methods.includes('POST'));
    expect(write.args.recurrence).toBeDefined();
    const doc = (await api('/doc')).json;
    const path = Object.keys(doc.paths).find((p) => p.endsWith('/occurrences'))!;
    expect(doc.paths[path].get.responses['200']).toBeDefined();
    const update = doc.paths['/events/{id}'].post;
    expect(update.parameters.map((p: Json) => p.name)).toContain('scope');
    expect(update.responses['201'].description).toMatch(/scope=following/);
    expect(JSON.stringify(doc.components.schemas.Event.properties.recurrence)).toMatch(/RFC 5545/);
  });
});

describe('occurrences follow the rest of the contract', () => {
  test('status, password and hide_from_listings are the series\' unless an occurrence set its own', async () => {
    const word = uniqueWord('vis');
    const s = await create({ title: `Visible ${word}`, start_date: '2027-11-01 10:00:00', end_date: '2027-11-01 11:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] });
    const occ = await occurrences(s.id);
    const anonymous = async () => (await api('/events', { query: { search: word, start_date: '2027-01-01' } })).json.events.map((e: Json) => e.id);
    expect(await anonymous()).toEqual(occ.map((o) => o.id));
    await api(`/events/${occ[0]!.id}`, { method: 'POST', token, body: { status: 'draft' } });
    expect(await anonymous()).toEqual([occ[1]!.id, occ[2]!.id]);
    await api(`/events/${s.id}`, { method: 'POST', token, body: { password: 'sesame' } });
    expect((await api(`/events/${occ[1]!.id}`)).json.code).toBe('event-password-protected');
    expect((await api(`/events/${occ[1]!.id}`, { query: { password: 'sesame' } })).json.title).toBe(`Visible ${word}`);
    await api(`/events/${s.id}`, { method: 'POST', token, body: { hide_from_listings: true, password: '' } });
    expect(await anonymous()).toEqual([]);
    await api(`/events/${occ[2]!.id}`, { method: 'POST', token, body: { hide_from_listings: false } });
    expect(await anonymous()).toEqual([occ[2]!.id]);
    expect((await api(`/events/${occ[0]!.id}`)).status).toBe(403); // still its own draft
  });

  test('an occurrence\'s own text is kept per language; /venues?event= reads an occurrence\'s own links', async () => {
    const s = await create({ title: 'Lesson', start_date: '2027-11-08 10:00:00', end_date: '2027-11-08 11:00:00',
      venue: { venue: `Hall ${uniqueWord()}` }, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'] });
    const occ = await occurrences(s.id);
    await api(`/events/${occ[1]!.id}`, { method: 'POST', token, body: { title: 'Stunde (verlegt)', translation_language: 'de',
      venue: { venue: `Annex ${uniqueWord()}` } } });
    await api(`/events/${s.id}`, { method: 'POST', token, body: { title: 'Lektion', translation_language: 'de' } });
    await api(`/events/${s.id}`, { method: 'POST', token, body: { title: 'Class' } });
    const de = await occurrences(s.id, { translation_language: 'de' });
    expect(de.map((o) => o.title)).toEqual(['Lektion', 'Stunde (verlegt)']);
    expect((await occurrences(s.id)).map((o) => o.title)).toEqual(['Class', 'Class']);
    const venues = async (id: number) => (await api('/venues', { query: { event: id } })).json.venues.map((v: Json) => v.id);
    expect(await venues(occ[0]!.id)).toEqual([s.venue.id]);
    const own = await venues(occ[1]!.id);
    expect(own).toHaveLength(1);
    expect(own[0]).not.toBe(s.venue.id);
  });
});
