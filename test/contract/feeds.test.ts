/**
 * iCalendar feeds over HTTP (contract §14): GET /events.ics and GET /events/{id}.ics. Every feed is read by two parsers
 * (ical.js, node-ical) and checked octet by octet (CRLF, 75-octet folding between UTF-8 characters); the events a feed
 * holds — every VEVENT expanded with ical.js, RRULE, EXDATE and RECURRENCE-ID overrides applied — are the occurrences
 * the JSON list with the same parameters shows, for anonymous callers and editors, with a category, a date window, a
 * search. Events of this file carry a category of its own; series start in 2027 (within the horizon).
 */
import { request } from 'node:http';
import ICAL from 'ical.js';
import nodeIcal from 'node-ical';
import { api, apiUrl, meterOf, tokenFor, type ApiResponse } from '../support/api.js';
import { addDays, DayAllocator, editor, expectInvalidParam, uniqueWord, ymd, type Json } from './helpers/list.js';

const CAT = uniqueWord('feedcat');
const WORD = uniqueWord('feedword');
/** Long titles of many-byte characters: folding must fall between characters. */
const LONG = `${'Ünïcödé, 日本語のイベント; 😀 '.repeat(12)}end`;

let token: string;
const ids: Record<string, number> = {};
let occ: Json[] = [];
let allDayOcc: Json[] = [];

async function create(fields: Json, auth?: string): Promise<Json> {
  const res = await api('/events', { method: 'POST', token: auth ?? token, body: { status: 'publish', categories: [CAT], ...fields } });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.json;
}

async function update(id: number, fields: Json, prefix = ''): Promise<Json> {
  const url = prefix ? `${apiUrl().replace('/calendar/events/v1', `/${prefix}/calendar/events/v1`)}/events/${id}` : `/events/${id}`;
  const res = await api(url, { method: 'POST', token, body: fields });
  if (res.status !== 200) throw new Error(`update ${id}: ${res.status} ${res.text}`);
  return res.json;
}

async function occurrencesOf(id: number): Promise<Json[]> {
  const res = await api(`/events/${id}/occurrences`, { token, query: { start_date: '2027-01-01', per_page: 50 } });
  expect(res.status).toBe(200);
  return res.json.events;
}

/** A feed's answer as bytes and text; fails unless it is 200 text/calendar. */
async function feed(path: string, query: Json = {}, auth?: string): Promise<{ text: string; bytes: Buffer; res: Response }> {
  const url = new URL(/^https?:/.test(path) ? path : `${apiUrl()}${path}`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  const res = await fetch(url, { headers: auth ? { authorization: `Bearer ${auth}` } : {} });
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`GET ${url} → ${res.status} ${bytes.toString('utf8')}`);
  expect(res.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
  return { text: bytes.toString('utf8'), bytes, res };
}

/** Every page of a JSON list. */
async function listAll(query: Json, auth?: string): Promise<Json[]> {
  const out: Json[] = [];
  let res: ApiResponse = await api('/events', { query: { ...query, per_page: 50 }, token: auth });
  for (;;) {
    expect(res.status).toBe(200);
    out.push(...res.json.events);
    if (!res.json.next_rest_url) return out;
    res = await api(res.json.next_rest_url, { token: auth });
  }
}

// ------------------------------------------------------------------------------------------------ reading a feed

/** RFC 5545 §3.1 on the bytes: CRLF after every line, at most 75 octets, folds between UTF-8 characters. */
function expectWellFormed(bytes: Buffer): void {
  expect(bytes.subarray(-2).toString('latin1')).toBe('\r\n');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x0a && bytes[i] !== 0x0d) continue;
    expect([i, bytes[i], bytes[i + 1]]).toEqual([i, 0x0d, 0x0a]); // no bare CR or LF
    const line = bytes.subarray(start, i);
    expect([line.toString('utf8'), line.length <= 75]).toEqual([line.toString('utf8'), true]);
    expect(() => decoder.decode(line)).not.toThrow(); // a fold inside a character would leave half of it on each side
    start = i + 2;
    i += 1;
  }
  expect(start).toBe(bytes.length);
}

/** The calendar as both parsers read it (each throws on what it cannot parse). */
function parse(text: string): { cal: ICAL.Component; node: Record<string, any> } {
  const cal = new ICAL.Component(ICAL.parse(text));
  for (const tz of cal.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(tz);
  const node = nodeIcal.sync.parseICS(text) as Record<string, any>;
  expect(Object.values(node).some((c) => c.type === 'VEVENT')).toBe(true);
  return { cal, node };
}

const unfolded = (text: string): string[] => text.replace(/\r\n[ \t]/g, '').split('\r\n').filter(Boolean);

/** The VEVENT blocks of a feed as unfolded lines. */
function vevents(text: string): string[][] {
  const out: string[][] = [];
  let current: string[] | null = null;
  for (const line of unfolded(text)) {
    if (line === 'BEGIN:VEVENT') current = [];
    else if (line === 'END:VEVENT') {
      out.push(current!);
      current = null;
    } else current?.push(line);
  }
  return out;
}

const prop = (block: string[], name: string): string | undefined =>
  block.find((l) => l.startsWith(`${name}:`) || l.startsWith(`${name};`))?.replace(/^[^:]*:/, '');
const byUid = (text: string, id: number): string[][] => vevents(text).filter((b) => prop(b, 'UID') === `event-${id}@calendar`);
const master = (text: string, id: number): string[] => byUid(text, id).find((b) => !prop(b, 'RECURRENCE-ID'))!;

interface Instance { key: string; title: string }

/**
 * Every event a calendar holds between `from` and `to` (days, inclusive, in UTC like the site): each VEVENT expanded by
 * ical.js with its overrides related, as a calendar application shows it. Timed instances are keyed by their UTC start,
 * all-day ones by their date.
 */
function instances(cal: ICAL.Component, from: string, to: string): Instance[] {
  const all = cal.getAllSubcomponents('vevent');
  const lo = Date.parse(`${from}T00:00:00Z`);
  const hi = Date.parse(`${to}T23:59:59Z`);
  const out: Instance[] = [];
  const add = (start: ICAL.Time, end: ICAL.Time, title: string) => {
    if (start.isDate) {
      const last = end.clone();
      last.adjust(-1, 0, 0, 0);
      if (start.toString() >= from && last.toString() <= to) out.push({ key: `D ${start.toString()}`, title });
    } else if (start.toJSDate().getTime() >= lo && end.toJSDate().getTime() <= hi) {
      out.push({ key: `T ${start.toJSDate().toISOString().slice(0, 19).replace('T', ' ')}`, title });
    }
  };
  for (const component of all.filter((v) => !v.hasProperty('recurrence-id'))) {
    const event = new ICAL.Event(component);
    for (const other of all) if (other.hasProperty('recurrence-id') && other.getFirstPropertyValue('uid') === event.uid) event.relateException(other);
    if (!event.isRecurring()) {
      add(event.startDate, event.endDate, event.summary);
      continue;
    }
    const it = event.iterator();
    // (an override may move an occurrence into the window from up to a month after it)
    for (let next = it.next(); next && next.toJSDate().getTime() <= hi + 31 * 86_400_000; next = it.next()) {
      const d = event.getOccurrenceDetails(next);
      add(d.startDate, d.endDate, d.item.summary);
    }
  }
  return out.sort((a, b) => (a.key + a.title < b.key + b.title ? -1 : 1));
}

/** The occurrences a JSON list shows, keyed as `instances` keys them. */
const listed = (events: Json[]): Instance[] => events
  .map((e) => ({ key: e.all_day ? `D ${e.start_date.slice(0, 10)}` : `T ${e.utc_start_date}`, title: e.title as string }))
  .sort((a, b) => (a.key + a.title < b.key + b.title ? -1 : 1));

/** The feed with these parameters holds what the list with them shows (decoded titles: ical.js unescapes SUMMARY). */
async function expectFeedIsList(query: Json, from: string, to: string, auth?: string): Promise<string> {
  const { text, bytes } = await feed('/events.ics', query, auth);
  expectWellFormed(bytes);
  const { cal } = parse(text);
  const json = await listAll(query, auth);
  expect(json.length).toBeGreaterThan(0);
  expect(instances(cal, from, to)).toEqual(listed(json));
  return text;
}

// ------------------------------------------------------------------------------------------------ the calendar

beforeAll(async () => {
  token = await editor();
  const series = await create({ title: 'Weekly feed series', description: `<p>Series <b>${WORD}</b> text</p>`,
    start_date: '2027-03-02 18:00:00', end_date: '2027-03-02 19:30:00', timezone: 'Europe/Berlin',
    recurrence: ['RRULE:FREQ=WEEKLY;COUNT=8'],
    venue: { venue: `Hall ${CAT}`, address: 'Main St 1', city: 'Berlin', country: 'Germany' },
    organizer: [{ organizer: `Nobody ${CAT}` }, { organizer: `Org, Inc ${CAT}`, email: 'org@example.org' }] });
  ids.series = series.id;
  occ = await occurrencesOf(series.id);
  expect(occ.map((o) => o.start_date.slice(0, 10))).toEqual(['2027-03-02', '2027-03-09', '2027-03-16', '2027-03-23', '2027-03-30',
    '2027-04-06', '2027-04-13', '2027-04-20']);
  await update(occ[2]!.id, { title: 'Weekly feed series, edited' });
  await update(occ[3]!.id, { start_date: '2027-03-23 20:00:00', end_date: '2027-03-23 21:00:00' });
  expect((await api(`/events/${occ[4]!.id}`, { method: 'DELETE', token })).status).toBe(200);
  await update(occ[5]!.id, { categories: [] });
  await update(occ[6]!.id, { status: 'draft' });

  const allDay = await create({ title: 'All-day feed series', start_date: '2027-05-03', end_date: '2027-05-03', all_day: true,
    timezone: 'America/New_York', recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] });
  ids.allDay = allDay.id;
  allDayOcc = await occurrencesOf(allDay.id);
  await update(allDayOcc[1]!.id, { title: 'All-day feed series, second day' });

  ids.timed = (await create({ title: `New York ${WORD}`, start_date: '2027-03-10 09:00:00', end_date: '2027-03-10 10:00:00',
    timezone: 'America/New_York' })).id;
  ids.twoDays = (await create({ title: 'Two whole days', start_date: '2027-03-12', end_date: '2027-03-13', all_day: true })).id;
  ids.draft = (await create({ title: 'Draft in the feed', status: 'draft', start_date: '2027-03-11 12:00:00', end_date: '2027-03-11 13:00:00' })).id;
  ids.locked = (await create({ title: 'Locked feed event', password: 'sesame', description: '<p>Secret text</p>',
    start_date: '2027-03-15 12:00:00', end_date: '2027-03-15 13:00:00', venue: { venue: `Secret hall ${CAT}` },
    organizer: [{ organizer: `Secret org ${CAT}`, email: 'secret@example.org' }] })).id;
  ids.long = (await create({ title: LONG, description: LONG, start_date: '2027-03-18 12:00:00', end_date: '2027-03-18 13:00:00',
    timezone: 'Asia/Tokyo' })).id;
  ids.german = (await create({ title: 'English title', description: '<p>English text</p>', start_date: '2027-03-19 12:00:00',
    end_date: '2027-03-19 13:00:00' })).id;
  await update(ids.german, { title: 'Deutscher Titel', description: '<p>Deutscher Text</p>' }, 'de');
}, 120_000);

const CATEGORY = { categories: CAT, start_date: '2027-03-01', end_date: '2027-05-31' };

describe('GET /events.ics', () => {
  test('text/calendar, CRLF lines of at most 75 octets folded between UTF-8 characters, read by ical.js and node-ical', async () => {
    const { text, bytes, res } = await feed('/events.ics', CATEGORY);
    expect(res.headers.get('content-language')).toBe('en');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expectWellFormed(bytes);
    const { cal, node } = parse(text);
    // The long title survives folding and escaping, in both parsers.
    const long = cal.getAllSubcomponents('vevent').find((v) => v.getFirstPropertyValue('uid') === `event-${ids.long}@calendar`)!;
    expect(long.getFirstPropertyValue('summary')).toBe(LONG);
    expect(long.getFirstPropertyValue('description')).toBe(LONG);
    expect(node[`event-${ids.long}@calendar`].summary).toBe(LONG);
    expect(unfolded(text).filter((l) => l.startsWith('SUMMARY:')).length).toBeGreaterThan(5);
    expect(text.split('\r\n').some((l) => l.startsWith(' '))).toBe(true);
  });

  test('the calendar\'s properties: VERSION, PRODID, METHOD:PUBLISH, X-WR-CALNAME, REFRESH-INTERVAL', async () => {
    const lines = unfolded((await feed('/events.ics', CATEGORY)).text);
    expect(lines[0]).toBe('BEGIN:VCALENDAR');
    expect(lines.at(-1)).toBe('END:VCALENDAR');
    expect(lines).toEqual(expect.arrayContaining(['VERSION:2.0', 'METHOD:PUBLISH', 'X-WR-CALNAME:Events', 'REFRESH-INTERVAL;VALUE=DURATION:PT1H']));
    expect(lines.some((l) => /^PRODID:\S/.test(l))).toBe(true);
  });

  test('one VTIMEZONE per zone used, and a TZID only of those', async () => {
    const { text } = await feed('/events.ics', CATEGORY);
    const used = new Set([...unfolded(text).join('\n').matchAll(/;TZID=([^;:]+)/g)].map((m) => m[1]));
    const zones = unfolded(text).filter((l) => l.startsWith('TZID:')).map((l) => l.slice(5));
    expect(new Set(zones).size).toBe(zones.length);
    expect(new Set(zones)).toEqual(used);
    expect(used).toEqual(new Set(['Europe/Berlin', 'America/New_York', 'Asia/Tokyo']));
  });

  test('a category\'s feed holds the occurrences its JSON list shows, anonymously and for an editor', async () => {
    await expectFeedIsList(CATEGORY, '2027-03-01', '2027-05-31');
    await expectFeedIsList(CATEGORY, '2027-03-01', '2027-05-31', token);
  });

  test('in a narrower date window too: the series keeps its rule, the window is the reader\'s', async () => {
    await expectFeedIsList({ ...CATEGORY, start_date: '2027-03-14', end_date: '2027-03-31' }, '2027-03-14', '2027-03-31');
  });

  test('with a search: the occurrences whose text holds the word', async () => {
    const text = await expectFeedIsList({ search: WORD, start_date: '2027-03-01', end_date: '2027-05-31' }, '2027-03-01', '2027-05-31');
    expect(vevents(text).map((b) => prop(b, 'UID'))).toEqual(expect.arrayContaining([`event-${ids.series}@calendar`,
      `event-${ids.timed}@calendar`]));
    expect(byUid(text, ids.allDay)).toEqual([]);
  });

  test('with a date window alone', async () => {
    const a = new DayAllocator(2040, 2090).block(3);
    const b = addDays(a, 1);
    await create({ title: `Window one ${WORD}`, start_date: `${a} 10:00:00`, end_date: `${a} 11:00:00` });
    await create({ title: `Window two ${WORD}`, start_date: `${b} 23:00:00`, end_date: `${b} 23:30:00`, timezone: 'Europe/Berlin' });
    await expectFeedIsList({ start_date: a, end_date: b }, a, b);
  });

  test('a series is one VEVENT with RRULE, EXDATEs in its zone for what the list hides, and overrides with RECURRENCE-ID', async () => {
    const text = (await feed('/events.ics', CATEGORY)).text;
    const blocks = byUid(text, ids.series);
    const main = master(text, ids.series);
    expect(prop(main, 'RRULE')).toBe('FREQ=WEEKLY;COUNT=8');
    expect(main).toContain('DTSTART;TZID=Europe/Berlin:20270302T180000');
    // trashed (30 March), outside the category (6 April), a draft (13 April, hidden from anonymous readers)
    expect(main).toContain('EXDATE;TZID=Europe/Berlin:20270330T180000,20270406T180000,20270413T180000');
    const overrides = blocks.filter((b) => prop(b, 'RECURRENCE-ID'));
    expect(overrides.map((b) => b.find((l) => l.startsWith('RECURRENCE-ID')))).toEqual([
      'RECURRENCE-ID;TZID=Europe/Berlin:20270316T180000', 'RECURRENCE-ID;TZID=Europe/Berlin:20270323T180000']);
    expect(prop(overrides[0]!, 'SUMMARY')).toBe('Weekly feed series\\, edited');
    expect(overrides[1]).toContain('DTSTART;TZID=Europe/Berlin:20270323T200000');
    expect(prop(main, 'LOCATION')).toBe(`Hall ${CAT}\\nMain St 1\\, Berlin\\, Germany`);
    expect(main.find((l) => l.startsWith('ORGANIZER'))).toBe(`ORGANIZER;CN="Org, Inc ${CAT}":mailto:org@example.org`);
    expect(prop(main, 'CATEGORIES')).toBe(CAT);
    expect(prop(main, 'DESCRIPTION')).toBe(`Series ${WORD} text`);
    expect(prop(main, 'STATUS')).toBe('CONFIRMED');
    expect(prop(main, 'URL')).toMatch(/\/event\/weekly-feed-series\/$/);
    expect(prop(overrides[0]!, 'URL')).toMatch(/\/event\/weekly-feed-series\/2027-03-16\/$/);
    // The editor sees the draft occurrence: an override, TENTATIVE.
    const editors = (await feed('/events.ics', CATEGORY, token)).text;
    expect(master(editors, ids.series)).toContain('EXDATE;TZID=Europe/Berlin:20270330T180000,20270406T180000');
    const draft = byUid(editors, ids.series).find((b) => prop(b, 'RECURRENCE-ID') === '20270413T180000')!;
    expect(prop(draft, 'STATUS')).toBe('TENTATIVE');
  });

  test('node-ical reads the series with its EXDATEs and overrides', async () => {
    const { node } = parse((await feed('/events.ics', CATEGORY)).text);
    const series = node[`event-${ids.series}@calendar`];
    expect(series.rrule).toBeDefined();
    expect(Object.keys(series.exdate ?? {})).toEqual(expect.arrayContaining(['2027-03-30', '2027-04-06', '2027-04-13']));
    expect(Object.keys(series.recurrences ?? {})).toEqual(expect.arrayContaining(['2027-03-16', '2027-03-23']));
  });

  test('a weekly 18:00 Europe/Berlin series keeps its local time across the change to summer time', async () => {
    const { cal } = parse((await feed('/events.ics', CATEGORY)).text);
    const event = new ICAL.Event(cal.getAllSubcomponents('vevent').find((v) =>
      v.getFirstPropertyValue('uid') === `event-${ids.series}@calendar` && !v.hasProperty('recurrence-id'))!);
    const it = event.iterator();
    const starts: string[] = [];
    for (let next = it.next(); next; next = it.next()) {
      expect(next.toString().slice(11)).toBe('18:00:00');
      starts.push(next.toJSDate().toISOString());
    }
    // EXDATEs left out; 28 March 2027 moves Berlin to UTC+2
    expect(starts).toEqual(['2027-03-02T17:00:00.000Z', '2027-03-09T17:00:00.000Z', '2027-03-16T17:00:00.000Z',
      '2027-03-23T17:00:00.000Z', '2027-04-20T16:00:00.000Z']);
    const json = occ.filter((o) => ['2027-03-02', '2027-04-20'].includes(o.start_date.slice(0, 10))).map((o) => o.utc_start_date);
    expect(json).toEqual(['2027-03-02 17:00:00', '2027-04-20 16:00:00']);
  });

  test('all-day events are dates with an exclusive end; an all-day series\' override has a DATE RECURRENCE-ID', async () => {
    const text = (await feed('/events.ics', CATEGORY)).text;
    const two = master(text, ids.twoDays);
    expect(two).toEqual(expect.arrayContaining(['DTSTART;VALUE=DATE:20270312', 'DTEND;VALUE=DATE:20270314']));
    const series = byUid(text, ids.allDay);
    expect(series.find((b) => !prop(b, 'RECURRENCE-ID'))).toEqual(expect.arrayContaining(['DTSTART;VALUE=DATE:20270503',
      'DTEND;VALUE=DATE:20270504', 'RRULE:FREQ=DAILY;COUNT=3']));
    const override = series.find((b) => prop(b, 'RECURRENCE-ID'))!;
    expect(override).toEqual(expect.arrayContaining(['RECURRENCE-ID;VALUE=DATE:20270504', 'DTSTART;VALUE=DATE:20270504',
      'DTEND;VALUE=DATE:20270505']));
    expect(unfolded(text).join('\n')).not.toMatch(/TZID=America\/New_York:2027050/);
  });

  test('a password-protected event shows only its summary, dates, URL and status without its password', async () => {
    const closed = master((await feed('/events.ics', CATEGORY)).text, ids.locked);
    expect(prop(closed, 'SUMMARY')).toBe('Locked feed event');
    expect(closed).toContain('DTSTART:20270315T120000Z');
    expect(prop(closed, 'URL')).toMatch(/\/event\/locked-feed-event\/$/);
    expect(prop(closed, 'STATUS')).toBe('CONFIRMED');
    for (const name of ['DESCRIPTION', 'LOCATION', 'ORGANIZER', 'CATEGORIES', 'GEO']) expect([name, prop(closed, name)]).toEqual([name, undefined]);
    const open = master((await feed('/events.ics', { ...CATEGORY, password: 'sesame' })).text, ids.locked);
    expect(prop(open, 'DESCRIPTION')).toBe('Secret text');
    expect(prop(open, 'LOCATION')).toBe(`Secret hall ${CAT}`);
    expect(open.find((l) => l.startsWith('ORGANIZER'))).toBe(`ORGANIZER;CN="Secret org ${CAT}":mailto:secret@example.org`);
  });

  test('callers who may edit a password-protected event read it whole (the edit view), in both feeds; others do not', async () => {
    const author = await tokenFor('author', 'contract-feeds-locked-author');
    const other = await tokenFor('author', 'contract-feeds-locked-other');
    const own = (await create({ title: 'Locked by its author', password: 'sesame', description: '<p>Author text</p>',
      start_date: '2027-03-16 12:00:00', end_date: '2027-03-16 13:00:00' }, author)).id;
    const whole = [[token, ids.locked!, 'Secret text'], [author, own, 'Author text']] as const;
    for (const [auth, id, text] of whole) {
      expect(prop(master((await feed('/events.ics', CATEGORY, auth)).text, id), 'DESCRIPTION')).toBe(text);
      expect(prop(master((await feed(`/events/${id}.ics`, {}, auth)).text, id), 'DESCRIPTION')).toBe(text);
    }
    const editorsView = master((await feed(`/events/${ids.locked}.ics`, {}, token)).text, ids.locked!);
    expect(prop(editorsView, 'LOCATION')).toBe(`Secret hall ${CAT}`);
    for (const auth of [undefined, other]) {
      expect(prop(master((await feed('/events.ics', CATEGORY, auth)).text, own), 'DESCRIPTION')).toBeUndefined();
      expect(prop(master((await feed(`/events/${own}.ics`, {}, auth)).text, own), 'DESCRIPTION')).toBeUndefined();
    }
  });

  test('drafts are in an editor\'s feed (TENTATIVE), not in an anonymous one', async () => {
    expect(byUid((await feed('/events.ics', CATEGORY)).text, ids.draft)).toEqual([]);
    const draft = master((await feed('/events.ics', CATEGORY, token)).text, ids.draft);
    expect(prop(draft, 'STATUS')).toBe('TENTATIVE');
    const other = await tokenFor('contributor', 'contract-feeds-contributor');
    expect(byUid((await feed('/events.ics', CATEGORY, other)).text, ids.draft)).toEqual([]);
  });

  test('every VEVENT: UID, DTSTAMP = LAST-MODIFIED, SEQUENCE, CREATED; two identical requests give the same bytes', async () => {
    const first = await feed('/events.ics', CATEGORY);
    const second = await feed('/events.ics', CATEGORY);
    expect(second.bytes.equals(first.bytes)).toBe(true);
    for (const block of vevents(first.text)) {
      expect(prop(block, 'UID')).toMatch(/^event-\d+@calendar$/);
      expect(prop(block, 'DTSTAMP')).toMatch(/^\d{8}T\d{6}Z$/);
      expect(prop(block, 'DTSTAMP')).toBe(prop(block, 'LAST-MODIFIED'));
      expect(prop(block, 'SEQUENCE')).toMatch(/^\d+$/);
      expect(prop(block, 'CREATED')).toMatch(/^\d{8}T\d{6}Z$/);
    }
  });

  test('SEQUENCE grows when an event\'s dates change', async () => {
    const e = await create({ title: 'Sequence feed event', start_date: '2027-05-20 10:00:00', end_date: '2027-05-20 11:00:00' });
    const seq = async () => Number(prop(master((await feed(`/events/${e.id}.ics`)).text, e.id), 'SEQUENCE'));
    const before = await seq();
    await update(e.id, { start_date: '2027-05-21 10:00:00', end_date: '2027-05-21 11:00:00' });
    expect(await seq()).toBeGreaterThan(before);
  });

  test('UIDs do not depend on the request\'s host', async () => {
    const url = new URL(`${apiUrl()}/events/${ids.series}.ics`);
    const text = await new Promise<string>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, headers: { host: 'other.example:8443' } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve(body));
      });
      req.on('error', reject).end();
    });
    expect(prop(master(text, ids.series), 'UID')).toBe(`event-${ids.series}@calendar`);
    expect(prop(master(text, ids.series), 'URL')).toContain('other.example:8443'); // the page URL is the request's origin
  });

  test('limit counts list entries, earliest first; 0 and non-numbers are 400, more than 2,000 is clamped', async () => {
    const two = await feed('/events.ics', { ...CATEGORY, limit: 3 });
    // The first three entries: the series' occurrences of 2 and 9 March, the New York event (10 March).
    expect(vevents(two.text).filter((b) => !prop(b, 'RECURRENCE-ID')).map((b) => prop(b, 'UID')))
      .toEqual([`event-${ids.series}@calendar`, `event-${ids.timed}@calendar`]);
    expectInvalidParam(await api('/events.ics', { query: { limit: 0 } }), 'limit');
    expectInvalidParam(await api('/events.ics', { query: { limit: 'many' } }), 'limit');
    expectInvalidParam(await api('/events.ics', { query: { limit: '99999999999999999999' } }), 'limit');
    const clamped = await feed('/events.ics', { ...CATEGORY, limit: 2001 });
    expect(clamped.text).toBe((await feed('/events.ics', CATEGORY)).text);
  });

  test('a feed reads what its list reads, and per series it shows one Query and the edited occurrences the list did not read', async () => {
    const meter = (res: { headers: Headers }) => meterOf(res).requests!;
    const json = await api('/events', { query: { ...CATEGORY, per_page: 50 } });
    const ics = (await feed('/events.ics', CATEGORY)).res;
    // Two series here: their partitions (2 Queries), their records (1 BatchGetItem), the weekly series' edited occurrences
    // that the list leaves out (1 BatchGetItem: the one without the category, the draft).
    expect(meter(ics)).toBeGreaterThan(0);
    expect(meter(ics)).toBeLessThanOrEqual(meter(json) + 4);
  });

  test('paging parameters are not the feed\'s; other invalid parameters are 400 in the JSON error shape', async () => {
    expect((await feed('/events.ics', { ...CATEGORY, page: 99, per_page: 1 })).text).toBe((await feed('/events.ics', CATEGORY)).text);
    const bad = await api('/events.ics', { query: { start_date: 'not a date at all' } });
    expectInvalidParam(bad, 'start_date');
    expect(bad.headers.get('content-type')).toMatch(/^application\/json/);
    expectInvalidParam(await api('/events.ics', { query: { categories: Array.from({ length: 101 }, (_, i) => `c${i}`).join(',') } }), 'categories');
    expectInvalidParam(await api('/events.ics', { query: { status: 'draft' } }), 'status');
    const refused = await api('/events.ics', { token: 'not-a-token' });
    expect([refused.status, refused.json.code]).toEqual([401, 'rest_invalid_token']);
  });

  test('without date parameters a feed starts 30 days ago', async () => {
    const daysAgo = (n: number) => ymd(new Date(Date.now() - n * 86_400_000));
    const recent = await create({ title: `Recent ${WORD}`, start_date: `${daysAgo(20)} 12:00:00`, end_date: `${daysAgo(20)} 13:00:00` });
    const old = await create({ title: `Old ${WORD}`, start_date: `${daysAgo(40)} 12:00:00`, end_date: `${daysAgo(40)} 13:00:00` });
    const text = (await feed('/events.ics', { search: WORD })).text;
    expect(byUid(text, recent.id).length).toBe(1);
    expect(byUid(text, old.id)).toEqual([]);
    const list = await api('/events', { query: { search: WORD } });
    expect(list.json.events.map((e: Json) => e.id)).not.toContain(recent.id); // a list starts today
  });

  test('text in the request\'s language: /de gives the German title and the German calendar name', async () => {
    const de = apiUrl().replace('/calendar/events/v1', '/de/calendar/events/v1');
    const german = await feed(`${de}/events.ics`, CATEGORY);
    expect(german.res.headers.get('content-language')).toBe('de');
    expect(prop(master(german.text, ids.german), 'SUMMARY')).toBe('Deutscher Titel');
    expect(prop(master(german.text, ids.german), 'DESCRIPTION')).toBe('Deutscher Text');
    expect(unfolded(german.text)).toContain('X-WR-CALNAME:Veranstaltungen');
    expect(prop(master((await feed('/events.ics', CATEGORY)).text, ids.german), 'SUMMARY')).toBe('English title');
    expect(prop(master((await feed('/events.ics', { ...CATEGORY, translation_language: 'de' })).text, ids.german), 'SUMMARY'))
      .toBe('Deutscher Titel');
  });
});

describe('GET /events/{id}.ics', () => {
  test('a single event: one VEVENT', async () => {
    const { text, bytes } = await feed(`/events/${ids.timed}.ics`);
    expectWellFormed(bytes);
    parse(text);
    expect(vevents(text).length).toBe(1);
    expect(master(text, ids.timed)).toEqual(expect.arrayContaining(['DTSTART;TZID=America/New_York:20270310T090000',
      'DTEND;TZID=America/New_York:20270310T100000']));
    expect(unfolded(text)).toContain(`X-WR-CALNAME:New York ${WORD}`);
  });

  test('a series: its VEVENT with every occurrence the caller cannot see excluded, and its edited occurrences', async () => {
    const { text } = await feed(`/events/${ids.series}.ics`);
    parse(text);
    // Without filters only the trashed and the draft occurrence are hidden from an anonymous reader.
    expect(master(text, ids.series)).toContain('EXDATE;TZID=Europe/Berlin:20270330T180000,20270413T180000');
    const overrides = byUid(text, ids.series).filter((b) => prop(b, 'RECURRENCE-ID')).map((b) => prop(b, 'RECURRENCE-ID'));
    expect(overrides).toEqual(['20270316T180000', '20270323T180000', '20270406T180000']);
    expect(byUid((await feed(`/events/${ids.series}.ics`, {}, token)).text, ids.series).filter((b) => prop(b, 'RECURRENCE-ID')).length)
      .toBe(4);
  });

  test('an occurrence: one VEVENT with its series\' UID and a RECURRENCE-ID; .ics in any letter case', async () => {
    const { text } = await feed(`/events/${occ[2]!.id}.ICS`);
    parse(text);
    const blocks = vevents(text);
    expect(blocks.length).toBe(1);
    expect(prop(blocks[0]!, 'UID')).toBe(`event-${ids.series}@calendar`);
    expect(blocks[0]).toContain('RECURRENCE-ID;TZID=Europe/Berlin:20270316T180000');
    const plain = vevents((await feed(`/events/${occ[1]!.id}.ics`)).text);
    expect(plain[0]).toContain('RECURRENCE-ID;TZID=Europe/Berlin:20270309T180000');
  });

  test('404 for an unknown id, 403 for a draft or a trashed event, 404 rest_no_route by slug, 405 for writes', async () => {
    const missing = await api('/events/99999999.ics');
    expect([missing.status, missing.json.code]).toEqual([404, 'rest-event-not-found']);
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
    const draft = await api(`/events/${ids.draft}.ics`);
    expect([draft.status, draft.json.code]).toEqual([403, 'event-not-accessible']);
    expect((await api(`/events/${ids.draft}.ics`, { token })).status).toBe(200);
    const trashed = await api(`/events/${occ[4]!.id}.ics`, { token });
    expect([trashed.status, trashed.json.code]).toEqual([403, 'event-no-longer-available']);
    const bySlug = await api('/events/by-slug/weekly-feed-series.ics');
    expect([bySlug.status, bySlug.json.code]).toEqual([404, 'rest_no_route']);
    expect((await api('/events/by-slug/weekly-feed-series.ics', { method: 'DELETE', token })).status).toBe(404);
    const post = await api('/events.ics', { method: 'POST', token, body: {} });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, OPTIONS']);
    expect((await api('/events/abc.ics')).json.code).toBe('rest_no_route');
  });
});

describe('lists advertise their feed', () => {
  test('GET /events: Link rel="alternate" type="text/calendar" to /events.ics with the list\'s parameters, without paging', async () => {
    const res = await api('/events', { query: { ...CATEGORY, per_page: 2, page: 2 } });
    const link = res.headers.get('link') ?? '';
    const alternate = /<([^>]+)>; rel="alternate"; type="text\/calendar"/.exec(link)?.[1];
    expect(alternate).toBeDefined();
    const url = new URL(alternate!);
    expect(url.pathname).toBe(new URL(`${apiUrl()}/events.ics`).pathname);
    expect(Object.fromEntries(url.searchParams)).toEqual(CATEGORY);
    expect((await feed(alternate!)).text).toBe((await feed('/events.ics', CATEGORY)).text);
    expect(link).toMatch(/rel="next"/);
  });

  test('an occurrences list links the feed of its series', async () => {
    const res = await api(`/events/${occ[0]!.id}/occurrences`, { query: { start_date: '2027-01-01' } });
    const alternate = /<([^>]+)>; rel="alternate"/.exec(res.headers.get('link') ?? '')?.[1];
    expect(new URL(alternate!).searchParams.get('post_parent')).toBe(String(occ[0]!.id));
    expect(master((await feed(alternate!)).text, ids.series)).toBeDefined();
  });
});
