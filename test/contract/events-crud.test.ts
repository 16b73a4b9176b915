/**
 * Contract tests for the single-event routes: create, read (by id and slug), update, delete.
 * CONTRACT.md §2, §3, §5, §6, §7 and reference §4.1, §4.6, §4.7, §9.1, §10.1, §10.5, §11.3.
 */
import { api, apiUrl, serverOrigin, tokenFor, etagVersion } from '../support/api.js';
import {
  createEvent, eventBody, eventPath, eventUrl, expectError, expectInvalid, expectStatus, futureDay, uid,
} from './helpers/events.js';

const WALL = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** Reference §4.1, key for key and in order (json_ld only on single GETs, appended last). */
const EVENT_KEYS = [
  'id', 'global_id', 'global_id_lineage', 'author', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url',
  'rest_url', 'title', 'description', 'excerpt', 'slug', 'image', 'all_day', 'start_date', 'start_date_details',
  'end_date', 'end_date_details', 'utc_start_date', 'utc_start_date_details', 'utc_end_date', 'utc_end_date_details',
  'timezone', 'timezone_abbr', 'cost', 'cost_details', 'website', 'show_map', 'show_map_link', 'hide_from_listings',
  'sticky', 'featured', 'categories', 'tags', 'venue', 'organizer', 'custom_fields', 'recurrence', 'series_id', 'original_start_date',
  // Contract §19: after original_start_date.
  'ticketed',
];

const details = (wall: string) => {
  const [, year, month, day, hour, minutes, seconds] = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(wall)!;
  return { year, month, day, hour, minutes, seconds };
};

let editor: string;
beforeAll(async () => {
  editor = await tokenFor('editor');
});

const post = (body: unknown, token: string | undefined = editor) => api('/events', { method: 'POST', token, body });
const update = (id: number, body: unknown, method = 'POST', headers?: Record<string, string>) =>
  api(eventPath(id), { method, token: editor, body, headers });

describe('create', () => {
  it('answers 201 with a Location header and the full record of reference §4.1, in key order', async () => {
    const day = futureDay();
    const title = `Shape check ${uid()}`;
    const res = await post({ title, start_date: `${day} 20:00:00`, end_date: `${day} 23:30:00` });
    expectStatus(res, 201);
    const ev = res.json;
    expect(res.headers.get('location')).toBe(eventUrl(ev.id));
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Object.keys(ev)).toEqual(EVENT_KEYS);

    const host = new URL(apiUrl()).host;
    expect(Number.isInteger(ev.id)).toBe(true);
    expect(ev.id).toBeGreaterThan(0);
    expect(ev.global_id).toBe(`${host}?id=${ev.id}`);
    expect(ev.global_id_lineage).toEqual([ev.global_id]);
    expect(Number.isInteger(ev.author)).toBe(true);
    expect(ev.author).toBeGreaterThan(0);
    expect(ev.status).toBe('publish');
    for (const k of ['date', 'date_utc', 'modified', 'modified_utc']) expect(ev[k]).toMatch(WALL);
    expect(ev.title).toBe(title);
    expect(ev.description).toBe('');
    expect(ev.excerpt).toBe('');
    expect(ev.slug).toBe(title.toLowerCase().replace(/ /g, '-'));
    expect(ev.url).toBe(`${serverOrigin()}/event/${ev.slug}/`);
    expect(ev.rest_url).toBe(eventUrl(ev.id));
    expect(ev.image).toBe(false);
    expect(ev.all_day).toBe(false);
    expect(ev.start_date).toBe(`${day} 20:00:00`);
    expect(ev.end_date).toBe(`${day} 23:30:00`);
    expect(ev.utc_start_date).toBe(`${day} 20:00:00`); // site time zone UTC
    expect(ev.utc_end_date).toBe(`${day} 23:30:00`);
    for (const k of ['start_date', 'end_date', 'utc_start_date', 'utc_end_date']) {
      expect(ev[`${k}_details`]).toEqual(details(ev[k]));
      expect(Object.keys(ev[`${k}_details`])).toEqual(['year', 'month', 'day', 'hour', 'minutes', 'seconds']);
      for (const v of Object.values(ev[`${k}_details`])) expect(typeof v).toBe('string');
    }
    expect(ev.timezone).toBe('UTC');
    expect(ev.timezone_abbr).toBe('UTC');
    expect(ev.cost).toBe('');
    expect(ev.cost_details).toEqual({ currency_symbol: '', currency_code: '', currency_position: '', values: [] });
    expect(Object.keys(ev.cost_details)).toEqual(['currency_symbol', 'currency_code', 'currency_position', 'values']);
    expect(ev.website).toBe(ev.url);
    for (const k of ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured']) expect(typeof ev[k]).toBe('boolean');
    expect(ev.hide_from_listings).toBe(false);
    expect(ev.sticky).toBe(false);
    expect(ev.featured).toBe(false);
    expect(ev.categories).toEqual([]);
    expect(ev.tags).toEqual([]);
    expect(ev.venue).toEqual([]);
    expect(ev.organizer).toEqual([]);
    expect(ev.custom_fields).toEqual([]);
    expect(ev).not.toHaveProperty('json_ld');
    expect(ev).not.toHaveProperty('password');
  });

  it('stores every write field it accepts', async () => {
    const day = futureDay();
    const res = await post({
      ...eventBody({ start_date: `${day} 09:15:00`, end_date: `${day} 17:45:30` }),
      description: '<p>Long <em>text</em></p>', excerpt: '<p>Short</p>', timezone: 'Europe/Berlin',
      website: 'https://example.org/events/1?a=1', image: 'https://cdn.example.org/pics/poster.jpg',
      show_map: true, show_map_link: false, sticky: true, featured: true, status: 'draft',
    });
    expectStatus(res, 201);
    const ev = res.json;
    expect(ev.description).toBe('<p>Long <em>text</em></p>');
    expect(ev.excerpt).toBe('<p>Short</p>');
    expect(ev.status).toBe('draft');
    expect(ev.timezone).toBe('Europe/Berlin');
    expect(['CET', 'CEST']).toContain(ev.timezone_abbr);
    expect(ev.start_date).toBe(`${day} 09:15:00`);
    expect(ev.end_date).toBe(`${day} 17:45:30`);
    expect(ev.website).toBe('https://example.org/events/1?a=1');
    expect(ev.image).toEqual({ url: 'https://cdn.example.org/pics/poster.jpg', id: 0, extension: 'jpg' });
    expect(Object.keys(ev.image)).toEqual(['url', 'id', 'extension']);
    expect([ev.show_map, ev.show_map_link, ev.sticky, ev.featured]).toEqual([true, false, true, true]);
  });

  it('with no show_map/show_map_link reports them false, as the origin does on create (reference §10.1)', async () => {
    const ev = await createEvent();
    expect(ev.show_map).toBe(false);
    expect(ev.show_map_link).toBe(false);
  });

  it('formats costs as in reference §4.7', async () => {
    const a = await createEvent({ cost: '20$' });
    expect(a.cost).toBe('20$');
    expect(a.cost_details).toEqual({ currency_symbol: '$', currency_code: '', currency_position: 'postfix', values: ['20'] });

    const b = await createEvent({ cost: ['0$', '20$', '30$'] });
    expect(b.cost).toBe('Free – 30$');
    expect(b.cost_details.values).toEqual(['0', '20', '30']);
    expect(b.cost_details.currency_symbol).toBe('$');
    expect(b.cost_details.currency_position).toBe('postfix');

    const c = await createEvent({ cost: '$23' });
    expect(c.cost).toBe('$23');
    expect(c.cost_details).toEqual({ currency_symbol: '$', currency_code: '', currency_position: 'prefix', values: ['23'] });
  });

  it('accepts a title of exactly 1,000 characters', async () => {
    const title = `${uid()} ${'x'.repeat(989)}`;
    expect(title.length).toBe(1000);
    const res = await post(eventBody({ title }));
    expectStatus(res, 201);
    expect(res.json.title).toBe(title);
  });

  it('keeps the booleans of contract §2 (JSON, 1/0, and true/false/yes/no/on/off in any case)', async () => {
    const a = await createEvent({ featured: 'YES', sticky: 'off', show_map: 1, show_map_link: 'On', hide_from_listings: '0' });
    expect([a.featured, a.sticky, a.show_map, a.show_map_link, a.hide_from_listings]).toEqual([true, false, true, true, false]);
    const b = await createEvent({ featured: 'no', sticky: 'TRUE', show_map: 0, show_map_link: 'false', all_day: '1' });
    expect([b.featured, b.sticky, b.show_map, b.show_map_link, b.all_day]).toEqual([false, true, false, false, true]);
  });
});

describe('create: required and invalid parameters', () => {
  it('names every missing required parameter (400 rest_missing_callback_param)', async () => {
    const res = await post({});
    expectError(res, 400, 'rest_missing_callback_param');
    expect([...res.json.data.params].sort()).toEqual(['end_date', 'start_date', 'title']);

    const day = futureDay();
    const one = await post({ start_date: `${day} 10:00`, end_date: `${day} 11:00`, description: 'no title' });
    expectError(one, 400, 'rest_missing_callback_param');
    expect(one.json.data.params).toEqual(['title']);
    expect(one.json.message).toContain('title');
  });

  it('a missing parameter is reported before an invalid one', async () => {
    const res = await post({ title: '', start_date: 'garbage' });
    expectError(res, 400, 'rest_missing_callback_param');
    expect(res.json.data.params).toEqual(['end_date']);
  });

  const invalid: [string, Record<string, unknown>][] = [
    ['empty title', { title: '' }],
    ['blank title', { title: '   ' }],
    ['title over 1,000 characters', { title: 'x'.repeat(1001) }],
    ['non-string title', { title: { a: 1 } }],
    ['empty description', { description: '' }],
    ['description over 100,000 characters', { description: 'd'.repeat(100_001) }],
    ['excerpt over 10,000 characters', { excerpt: 'e'.repeat(10_001) }],
    ['empty slug', { slug: '' }],
    ['unknown timezone', { timezone: 'Mars/Olympus_Mons' }],
    ['out-of-range offset timezone', { timezone: 'UTC+25' }],
    ['empty timezone', { timezone: '' }],
    ['unparseable start_date', { start_date: 'the day after never' }],
    ['impossible end_date', { end_date: '2031-13-45 10:00:00' }],
    ['empty start_date', { start_date: '' }],
    ['website that is not a URL', { website: 'foo' }],
    ['javascript: website', { website: 'javascript:alert(1)' }],
    ['image as a numeric id', { image: 123 }],
    ['image as a numeric string', { image: '55' }],
    ['image that is not a URL', { image: 'poster.jpg' }],
    ['bad boolean all_day', { all_day: 'maybe' }],
    ['bad boolean featured', { featured: 'perhaps' }],
    ['bad boolean show_map', { show_map: 2 }],
    ['bad boolean sticky', { sticky: [] }],
    ['bad boolean hide_from_listings', { hide_from_listings: 'yes please' }],
    ['unknown status', { status: 'kinda_thinking_about_it' }],
    ['non-numeric author', { author: 'foo' }],
    ['unknown author id', { author: 987654321 }],
    ['bad date', { date: 'not a date at all' }],
  ];
  it.each(invalid)('%s → 400 rest_invalid_param naming it', async (_, override) => {
    const res = await post(eventBody(override));
    expectInvalid(res, Object.keys(override)[0]!);
  });

  it('links to records that do not exist (or are not of that kind) → 400 rest_invalid_param (contract §3)', async () => {
    const other = await createEvent(); // an event id is not a venue, organizer or term id
    const outcomes: [string, number, string, string[]][] = [];
    for (const [name, value] of [
      ['venue', 987654321], ['venue', { id: 987654321 }], ['venue', other.id], ['organizer', [987654321]], ['organizer', [{ id: other.id }]],
      ['categories', [987654321]], ['tags', [987654321]],
    ] as const) {
      const res = await post(eventBody({ [name]: value }));
      outcomes.push([`create ${name}=${JSON.stringify(value)}`, res.status, res.json?.code, Object.keys(res.json?.data?.params ?? {})]);
    }
    for (const [name, value] of [['venue', 987654321], ['organizer', [987654321]]] as const) {
      const res = await update(other.id, { [name]: value }, 'PATCH');
      outcomes.push([`update ${name}=${JSON.stringify(value)}`, res.status, res.json?.code, Object.keys(res.json?.data?.params ?? {})]);
    }
    expect(outcomes).toEqual(outcomes.map(([label]) => [label, 400, 'rest_invalid_param', [label.split(' ')[1]!.split('=')[0]]]));
  });

  it('an image id is refused with a message saying that URLs are expected', async () => {
    const res = await post(eventBody({ image: 42 }));
    expectInvalid(res, 'image');
    expect(res.json.data.params.image).toMatch(/url/i);
  });

  it('end_date before start_date → 400 (the origin silently moves the end)', async () => {
    const day = futureDay();
    const res = await post(eventBody({ start_date: `${day} 20:00:00`, end_date: `${day} 19:59:59` }));
    expectError(res, 400, 'rest_invalid_param');
    expect(Object.keys(res.json.data.params)).toContain('end_date');
    // Same instant is fine (duration 0).
    const ok = await post(eventBody({ start_date: `${day} 20:00:00`, end_date: `${day} 20:00:00` }));
    expectStatus(ok, 201);
  });

  it('end before start across time zones is compared on the timeline', async () => {
    // Instants given in UTC: the end (13:00Z) is an hour before the start (14:00Z), whatever the event time zone.
    const day = futureDay();
    const res = await post(eventBody({ timezone: 'America/New_York', start_date: `${day}T14:00:00Z`, end_date: `${day}T13:00:00Z` }));
    expectError(res, 400, 'rest_invalid_param');
  });

  it('reports several invalid parameters at once', async () => {
    const res = await post(eventBody({ website: 'nope', timezone: 'Nowhere/Town', featured: 'kinda' }));
    expectInvalid(res, 'website', 'timezone', 'featured');
  });

  it('a rejected create stores nothing (no record under the would-be slug)', async () => {
    const title = `Rejected ${uid()}`;
    const res = await post(eventBody({ title, website: 'nope' }));
    expectInvalid(res, 'website');
    const bySlug = await api(`/events/by-slug/${title.toLowerCase().replace(/ /g, '-')}`, { token: editor });
    expectError(bySlug, 404, 'rest-event-not-found');
  });
});

describe('dates and time zones (contract §6)', () => {
  it('reads YYYY-MM-DD HH:MM as wall clock in the event time zone and derives UTC and the abbreviation', async () => {
    const ev = await createEvent({ timezone: 'America/New_York', start_date: '2031-07-01 20:00', end_date: '2031-07-01 22:00' });
    expect(ev.start_date).toBe('2031-07-01 20:00:00');
    expect(ev.end_date).toBe('2031-07-01 22:00:00');
    expect(ev.utc_start_date).toBe('2031-07-02 00:00:00');
    expect(ev.utc_end_date).toBe('2031-07-02 02:00:00');
    expect(ev.timezone_abbr).toBe('EDT');
    expect(ev.utc_start_date_details).toEqual(details('2031-07-02 00:00:00'));

    const winter = await createEvent({ timezone: 'America/New_York', start_date: '2031-01-15 20:00:00', end_date: '2031-01-15 21:00:00' });
    expect(winter.utc_start_date).toBe('2031-01-16 01:00:00');
    expect(winter.timezone_abbr).toBe('EST');
  });

  it('a date without a time is midnight', async () => {
    const ev = await createEvent({ start_date: '2032-02-02', end_date: '2032-02-03' });
    expect(ev.start_date).toBe('2032-02-02 00:00:00');
    expect(ev.end_date).toBe('2032-02-03 00:00:00');
  });

  it('converts ISO 8601 with Z or an offset into the event time zone', async () => {
    const ev = await createEvent({ timezone: 'Europe/Berlin', start_date: '2031-07-01T18:00:00Z', end_date: '2031-07-01T23:00:00+02:00' });
    expect(ev.start_date).toBe('2031-07-01 20:00:00');
    expect(ev.utc_start_date).toBe('2031-07-01 18:00:00');
    expect(ev.end_date).toBe('2031-07-01 23:00:00');
    expect(ev.utc_end_date).toBe('2031-07-01 21:00:00');
    expect(ev.timezone_abbr).toBe('CEST');
  });

  it('converts Unix timestamps (number or digit string) into the event time zone', async () => {
    const ev = await createEvent({ timezone: 'America/New_York', start_date: 1700000000, end_date: '1700003600' });
    expect(ev.utc_start_date).toBe('2023-11-14 22:13:20');
    expect(ev.start_date).toBe('2023-11-14 17:13:20');
    expect(ev.utc_end_date).toBe('2023-11-14 23:13:20');
    expect(ev.end_date).toBe('2023-11-14 18:13:20');
    expect(ev.timezone_abbr).toBe('EST');
  });

  it('accepts UTC±H[:MM] offsets as time zones', async () => {
    const ev = await createEvent({ timezone: 'UTC+5', start_date: '2031-03-01 20:00:00', end_date: '2031-03-01 21:00:00' });
    expect(ev.timezone).toBe('UTC+5');
    expect(ev.timezone_abbr).toBe('UTC+5');
    expect(ev.utc_start_date).toBe('2031-03-01 15:00:00');
    const half = await createEvent({ timezone: 'UTC-3:30', start_date: '2031-03-01 20:00:00', end_date: '2031-03-01 21:00:00' });
    expect(half.utc_start_date).toBe('2031-03-01 23:30:00');
  });

  it('accepts phrases such as "tomorrow 9am" (read in the event time zone)', async () => {
    const before = new Date();
    const res = await post({ title: `Phrase ${uid()}`, start_date: 'tomorrow 9am', end_date: 'tomorrow 5pm' });
    const after = new Date();
    expectStatus(res, 201);
    const tomorrow = (d: Date) => new Date(d.getTime() + 86_400_000).toISOString().slice(0, 10);
    expect([tomorrow(before), tomorrow(after)]).toContain(res.json.start_date.slice(0, 10));
    expect(res.json.start_date.slice(11)).toBe('09:00:00');
    expect(res.json.end_date.slice(11)).toBe('17:00:00');

    const ny = await post({ title: `Phrase ${uid()}`, timezone: 'America/New_York', start_date: 'tomorrow 9am', end_date: 'tomorrow 10am' });
    expectStatus(ny, 201);
    expect(ny.json.start_date.slice(11)).toBe('09:00:00');
    expect(['13:00:00', '14:00:00']).toContain(ny.json.utc_start_date.slice(11));
  });

  it('accepts the other phrases of the reference: "2018-01-01 4pm", "next wednesday 4pm", "+2 weeks"', async () => {
    const a = await post({ title: `Phrase ${uid()}`, start_date: '2018-01-01 4pm', end_date: '2018-01-01 6:30pm' });
    expectStatus(a, 201);
    expect([a.json.start_date, a.json.end_date]).toEqual(['2018-01-01 16:00:00', '2018-01-01 18:30:00']);

    const before = Date.now();
    const b = await post({ title: `Phrase ${uid()}`, start_date: 'next wednesday 4pm', end_date: '+2 weeks' });
    const after = Date.now();
    expectStatus(b, 201);
    const start = new Date(`${b.json.start_date.replace(' ', 'T')}Z`);
    expect(start.getUTCDay()).toBe(3);
    expect(b.json.start_date.slice(11)).toBe('16:00:00');
    expect(start.getTime()).toBeGreaterThan(before);
    expect(start.getTime()).toBeLessThanOrEqual(after + 15 * 86_400_000);
    const end = new Date(`${b.json.end_date.replace(' ', 'T')}Z`).getTime();
    expect(end).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 14 * 86_400_000 - 1000);
    expect(end).toBeLessThanOrEqual(after + 14 * 86_400_000 + 1000);
  });

  it('rejects time zones outside IANA names, UTC and UTC±H[:MM] (e.g. a bare "+02:00")', async () => {
    expectInvalid(await post(eventBody({ timezone: '+02:00' })), 'timezone');
    expectInvalid(await post(eventBody({ timezone: 'GMT+2:00:00' })), 'timezone');
    const ok = await createEvent({ timezone: 'UTC-3:30' });
    expect(ok.timezone).toBe('UTC-3:30');
  });

  it('date and date_utc set the post date (date in the site time zone, date_utc in UTC)', async () => {
    const a = await createEvent({ date: '2030-02-03 04:05:06' });
    expect([a.date, a.date_utc]).toEqual(['2030-02-03 04:05:06', '2030-02-03 04:05:06']);
    const b = await createEvent({ date_utc: '2030-02-03T04:05:06+01:00' });
    expect(b.date_utc).toBe('2030-02-03 03:05:06');
    const upd = await update(b.id, { excerpt: 'x' }, 'PATCH');
    expect(upd.json.date_utc).toBe('2030-02-03 03:05:06');
  });

  it('all_day snaps to 00:00:00–23:59:59 of the start and end days', async () => {
    const ev = await createEvent({ all_day: true, start_date: '2031-05-10 10:30:00', end_date: '2031-05-12 15:00:00' });
    expect(ev.all_day).toBe(true);
    expect(ev.start_date).toBe('2031-05-10 00:00:00');
    expect(ev.end_date).toBe('2031-05-12 23:59:59');
    expect(ev.utc_start_date).toBe('2031-05-10 00:00:00');
    expect(ev.utc_end_date).toBe('2031-05-12 23:59:59');

    const single = await createEvent({ all_day: true, start_date: '2031-05-10 10:30:00', end_date: '2031-05-10 11:00:00' });
    expect([single.start_date, single.end_date]).toEqual(['2031-05-10 00:00:00', '2031-05-10 23:59:59']);
  });

  it('an update that changes only the time zone keeps the wall clock and recomputes UTC', async () => {
    const ev = await createEvent({ start_date: '2031-07-01 20:00:00', end_date: '2031-07-01 22:00:00' });
    expect(ev.utc_start_date).toBe('2031-07-01 20:00:00');
    const res = await update(ev.id, { timezone: 'Europe/Berlin' });
    expectStatus(res, 200);
    expect(res.json.timezone).toBe('Europe/Berlin');
    expect(res.json.timezone_abbr).toBe('CEST');
    expect(res.json.start_date).toBe('2031-07-01 20:00:00');
    expect(res.json.end_date).toBe('2031-07-01 22:00:00');
    expect(res.json.utc_start_date).toBe('2031-07-01 18:00:00');
    expect(res.json.utc_end_date).toBe('2031-07-01 20:00:00');
    const read = await api(eventPath(ev.id));
    expect(read.json.utc_start_date).toBe('2031-07-01 18:00:00');
  });

  it('an update that sends dates reads them in the (new or stored) event time zone', async () => {
    const ev = await createEvent({ timezone: 'America/New_York', start_date: '2031-07-01 20:00:00', end_date: '2031-07-01 22:00:00' });
    const res = await update(ev.id, { start_date: '2031-07-01 18:00:00' });
    expectStatus(res, 200);
    expect(res.json.start_date).toBe('2031-07-01 18:00:00');
    expect(res.json.utc_start_date).toBe('2031-07-01 22:00:00');
    expect(res.json.end_date).toBe('2031-07-01 22:00:00');
  });

  it('an update that moves the start after the stored end → 400, and nothing changes', async () => {
    const ev = await createEvent({ start_date: '2031-07-01 20:00:00', end_date: '2031-07-01 22:00:00' });
    const res = await update(ev.id, { start_date: '2031-07-01 23:00:00' });
    expectError(res, 400, 'rest_invalid_param');
    const read = await api(eventPath(ev.id));
    expect(read.json.start_date).toBe('2031-07-01 20:00:00');
  });
});

describe('HTML sanitising (contract §5)', () => {
  it('removes scripts, event handlers and javascript: URLs from description and excerpt, keeping formatting', async () => {
    const dirty = '<p onclick="steal()">Hello <strong>world</strong> <a href="javascript:alert(1)">x</a>'
      + '<script>alert("pwned")</script><img src="https://example.org/a.png" onerror="steal()"></p>';
    const ev = await createEvent({ description: dirty, excerpt: `<em onmouseover="x()">Short</em><script>bad()</script>` });
    for (const html of [ev.description, ev.excerpt]) {
      expect(html).not.toMatch(/<script/i);
      expect(html).not.toMatch(/onclick|onerror|onmouseover/i);
      expect(html).not.toMatch(/javascript:/i);
      expect(html).not.toContain('pwned');
      expect(html).not.toContain('bad()');
    }
    expect(ev.description).toContain('<strong>world</strong>');
    expect(ev.description).toContain('Hello');
    expect(ev.excerpt).toContain('Short');
    const read = await api(eventPath(ev.id));
    expect(read.json.description).toBe(ev.description);

    const upd = await update(ev.id, { description: '<div><a href="JavaScript:void(0)" onClick="x()">link</a><b>ok</b></div>' });
    expectStatus(upd, 200);
    expect(upd.json.description).not.toMatch(/javascript:|onclick/i);
    expect(upd.json.description).toContain('<b>ok</b>');
  });
});

describe('read by id and by slug', () => {
  it('returns the same record by id and by slug, with json_ld', async () => {
    const ev = await createEvent({ description: '<p>About it</p>' });
    const byId = await api(eventPath(ev.id));
    expectStatus(byId, 200);
    const bySlug = await api(`/events/by-slug/${ev.slug}`);
    expectStatus(bySlug, 200);
    expect(bySlug.json.id).toBe(ev.id);
    expect(Object.keys(byId.json)).toEqual([...EVENT_KEYS, 'json_ld']);
    const { json_ld: ld, ...rest } = byId.json;
    const { json_ld: ld2, ...rest2 } = bySlug.json;
    expect(rest2).toEqual(rest);
    expect(ld2).toEqual(ld);
    // Apart from json_ld and volatile fields, the read equals what the create answered.
    expect(rest).toEqual(ev);
    expect(ld['@context']).toBe('http://schema.org');
    expect(ld['@type']).toBe('Event');
    expect(ld.name).toBe(ev.title);
    expect(typeof ld.startDate).toBe('string');

    const berlin = await createEvent({ timezone: 'Europe/Berlin', start_date: '2031-07-01 20:00:00', end_date: '2031-07-01 22:00:00' });
    const read = await api(eventPath(berlin.id));
    expect(read.json.json_ld.startDate).toBe('2031-07-01T20:00:00+02:00');
    expect(read.json.json_ld.endDate).toBe('2031-07-01T22:00:00+02:00');
  });

  it('json_ld is on single GETs only: not in create, update, delete or list answers', async () => {
    const ev = await createEvent();
    expect(ev).not.toHaveProperty('json_ld');
    const upd = await update(ev.id, { excerpt: 'changed' });
    expect(upd.json).not.toHaveProperty('json_ld');
    const list = await api('/events', { query: { include: [ev.id] } });
    expectStatus(list, 200);
    expect(list.json.events.map((e: any) => e.id)).toEqual([ev.id]);
    expect(list.json.events[0]).not.toHaveProperty('json_ld');
    expect(Object.keys(list.json.events[0])).toEqual(EVENT_KEYS);
    const del = await api(eventPath(ev.id), { method: 'DELETE', token: editor });
    expectStatus(del, 200);
    expect(del.json).not.toHaveProperty('json_ld');
  });

  it('404 rest-event-not-found for a missing id or slug', async () => {
    expectError(await api('/events/987654321'), 404, 'rest-event-not-found');
    expectError(await api(`/events/by-slug/no-such-event-${uid()}`), 404, 'rest-event-not-found');
    expectError(await api(`/events/by-slug/no-such-event-${uid()}`, { token: editor }), 404, 'rest-event-not-found');
  });

  it('404 rest-event-not-found for id 0 (reference §9.1 step 2: "including 0")', async () => {
    expectError(await api('/events/0'), 404, 'rest-event-not-found');
  });

  it('404 rest-event-not-found for a digits-only id too large to exist', async () => {
    expectError(await api('/events/99999999999999999999999'), 404, 'rest-event-not-found');
  });

  it('a non-digit id is 404 rest_no_route', async () => {
    expectError(await api('/events/abc'), 404, 'rest_no_route');
    expectError(await api('/events/12abc'), 404, 'rest_no_route');
    expectError(await api('/events/-5'), 404, 'rest_no_route');
  });
});

describe('slugs', () => {
  it('makes slugs unique with -2, -3', async () => {
    const title = `Same Title ${uid()}`;
    const base = title.toLowerCase().replace(/ /g, '-');
    const a = await createEvent({ title });
    const b = await createEvent({ title });
    const c = await createEvent({ title });
    expect([a.slug, b.slug, c.slug]).toEqual([base, `${base}-2`, `${base}-3`]);
    for (const ev of [a, b, c]) {
      const res = await api(`/events/by-slug/${ev.slug}`);
      expect(res.json.id).toBe(ev.id);
    }
  });

  it('takes an explicit slug (sanitised) and de-duplicates it too', async () => {
    const u = uid();
    const a = await createEvent({ slug: `My Custom Slug ${u}` });
    expect(a.slug).toBe(`my-custom-slug-${u}`);
    expect(a.url).toBe(`${serverOrigin()}/event/my-custom-slug-${u}/`);
    const b = await createEvent({ slug: `my-custom-slug-${u}` });
    expect(b.slug).toBe(`my-custom-slug-${u}-2`);
  });

  it('changing the slug on update frees the old one', async () => {
    const u = uid();
    const ev = await createEvent({ slug: `before-${u}` });
    const res = await update(ev.id, { slug: `after-${u}` });
    expectStatus(res, 200);
    expect(res.json.slug).toBe(`after-${u}`);
    expect((await api(`/events/by-slug/after-${u}`)).json.id).toBe(ev.id);
    expectError(await api(`/events/by-slug/before-${u}`), 404, 'rest-event-not-found');
    const other = await createEvent({ slug: `before-${u}` });
    expect(other.slug).toBe(`before-${u}`);
  });

  it('keeps non-Latin letters of a title intact in the slug (イベント must not become イヘント)', async () => {
    const u = uid();
    const ev = await createEvent({ title: `イベント ${u}` });
    expect(decodeURIComponent(ev.slug)).toBe(`イベント-${u}`);
    expect((await api(`/events/by-slug/${encodeURIComponent(decodeURIComponent(ev.slug))}`)).json.id).toBe(ev.id);
  });

  it('an update that re-sends the current slug keeps it (no -2)', async () => {
    const ev = await createEvent();
    const res = await update(ev.id, { slug: ev.slug });
    expect(res.json.slug).toBe(ev.slug);
  });
});

describe('partial updates (contract §7)', () => {
  const full = () => ({
    description: '<p>Full description</p>', excerpt: '<p>Excerpt</p>', timezone: 'Europe/Rome',
    cost: '15€', website: 'https://example.org/x', image: 'https://example.org/img/p.png', featured: true, sticky: true,
    show_map: true, show_map_link: true, all_day: false, status: 'draft',
  });
  const stable = (ev: any) => {
    const { modified, modified_utc, ...rest } = ev;
    return rest;
  };

  it.each(['POST', 'PUT', 'PATCH'])('%s changes only the fields sent', async (method) => {
    const ev = await createEvent(full());
    const res = await update(ev.id, { title: `Renamed ${uid()}` }, method);
    expectStatus(res, 200);
    expect(stable(res.json)).toEqual({ ...stable(ev), title: res.json.title });
    expect(res.json.status).toBe('draft'); // not republished (the origin publishes on every update)

    const second = await update(ev.id, { featured: false, cost: ['5$', '10$'] }, method);
    expectStatus(second, 200);
    expect(second.json.featured).toBe(false);
    expect(second.json.cost).toBe('5$ – 10$');
    for (const k of ['title', 'description', 'excerpt', 'timezone', 'website', 'image', 'sticky', 'show_map', 'show_map_link',
      'start_date', 'end_date', 'utc_start_date', 'status', 'slug', 'author', 'date_utc']) {
      expect([k, second.json[k]]).toEqual([k, res.json[k]]);
    }
    const read = await api(eventPath(ev.id), { token: editor });
    expect(stable(read.json)).toEqual(expect.objectContaining(stable(second.json)));
  });

  it('an empty update body changes nothing but answers 200', async () => {
    const ev = await createEvent(full());
    const res = await update(ev.id, {}, 'PATCH');
    expectStatus(res, 200);
    expect(stable(res.json)).toEqual(stable(ev));
  });

  it('all_day alone on update snaps the stored dates; start_date alone keeps end_date', async () => {
    const ev = await createEvent({ start_date: '2033-01-05 10:00:00', end_date: '2033-01-06 12:00:00' });
    const res = await update(ev.id, { all_day: true }, 'PATCH');
    expect([res.json.start_date, res.json.end_date, res.json.all_day]).toEqual(['2033-01-05 00:00:00', '2033-01-06 23:59:59', true]);
    const again = await update(ev.id, { title: 'Still all day' }, 'PATCH');
    expect(again.json.all_day).toBe(true);
  });

  it('clears website, cost and image with ""', async () => {
    const ev = await createEvent(full());
    const res = await update(ev.id, { website: '', cost: '', image: '' }, 'PATCH');
    expectStatus(res, 200);
    expect(res.json.website).toBe(''); // a cleared website reads "", not the permalink
    expect(res.json.cost).toBe('');
    expect(res.json.cost_details).toEqual({ currency_symbol: '', currency_code: '', currency_position: '', values: [] });
    expect(res.json.image).toBe(false);
    expect(res.json.description).toBe(ev.description);
    const read = await api(eventPath(ev.id), { token: editor });
    expect([read.json.website, read.json.cost, read.json.image]).toEqual(['', '', false]);
  });

  it('clears categories, tags and organizers with [] and the venue with 0 or null', async () => {
    const ev = await createEvent();
    for (const body of [{ categories: [], tags: [], organizer: [], venue: 0 }, { venue: null }]) {
      const res = await update(ev.id, body, 'PATCH');
      expectStatus(res, 200);
      expect([res.json.categories, res.json.tags, res.json.organizer, res.json.venue]).toEqual([[], [], [], []]);
    }
  });

  it('validates update parameters like create ones (empty title, bad dates, bad URL)', async () => {
    const ev = await createEvent();
    expectInvalid(await update(ev.id, { title: '' }), 'title');
    expectInvalid(await update(ev.id, { start_date: 'someday maybe' }), 'start_date');
    expectInvalid(await update(ev.id, { website: 'not a url' }), 'website');
    expectInvalid(await update(ev.id, { status: 'kinda_thinking_about_it' }), 'status');
    expectInvalid(await update(ev.id, { image: 7 }), 'image');
    const read = await api(eventPath(ev.id));
    expect(read.json.title).toBe(ev.title);
  });

  it('updates by slug', async () => {
    const ev = await createEvent();
    const res = await api(`/events/by-slug/${ev.slug}`, { method: 'PATCH', token: editor, body: { excerpt: 'by slug' } });
    expectStatus(res, 200);
    expect(res.json.id).toBe(ev.id);
    expect(res.json.excerpt).toBe('by slug');
  });

  it('update of a missing event by an editor → 404 rest-event-not-found', async () => {
    expectError(await update(987654321, { title: 'x' }), 404, 'rest-event-not-found');
    expectError(await api(`/events/by-slug/missing-${uid()}`, { method: 'PUT', token: editor, body: { title: 'x' } }), 404,
      'rest-event-not-found');
    expectError(await api('/events/987654321', { method: 'DELETE', token: editor }), 404, 'rest-event-not-found');
  });
});

describe('ETag and If-Match (contract §7)', () => {
  it('GET, create and update answer an ETag "<version>-<hash>" whose version moves with every write (contract §15)', async () => {
    const res = await post(eventBody());
    expect(etagVersion(res)).toBe('1');
    const id = res.json.id;
    const get1 = await api(eventPath(id));
    expect(etagVersion(get1)).toBe('1');
    expect((await api(eventPath(id))).headers.get('etag')).toBe(get1.headers.get('etag')); // strong: same body, same tag
    const upd = await update(id, { excerpt: 'v2' });
    expect(etagVersion(upd)).toBe('2');
    const get2 = await api(eventPath(id));
    expect(etagVersion(get2)).toBe('2');
    expect(get2.headers.get('etag')).not.toBe(get1.headers.get('etag'));
    expect((await api(`/events/by-slug/${res.json.slug}`)).headers.get('etag')).toBe(get2.headers.get('etag'));
    // Another language's representation has another tag, with the same version (If-Match compares the version).
    const de = await api(eventPath(id), { query: { translation_language: 'de' } });
    expect(etagVersion(de)).toBe('2');
    expectStatus(await update(id, { excerpt: 'v3' }, 'PATCH', { 'If-Match': de.headers.get('etag')! }), 200);
  });

  it('a write with a stale If-Match → 412 rest_precondition_failed and changes nothing; a current one → 200', async () => {
    const ev = await post(eventBody());
    const stale = ev.headers.get('etag')!;
    const id = ev.json.id;
    const first = await update(id, { excerpt: 'first' }, 'PATCH', { 'If-Match': stale });
    expectStatus(first, 200);
    const current = first.headers.get('etag')!;

    for (const method of ['POST', 'PUT', 'PATCH']) {
      expectError(await update(id, { excerpt: 'lost' }, method, { 'If-Match': stale }), 412, 'rest_precondition_failed');
    }
    expectError(await api(eventPath(id), { method: 'DELETE', token: editor, headers: { 'If-Match': stale } }), 412,
      'rest_precondition_failed');
    const read = await api(eventPath(id));
    expect(read.json.excerpt).toBe('first');
    expect(read.json.status).toBe('publish');

    const ok = await update(id, { excerpt: 'second' }, 'PUT', { 'If-Match': current });
    expectStatus(ok, 200);
    expect(ok.json.excerpt).toBe('second');
    const del = await api(eventPath(id), { method: 'DELETE', token: editor, headers: { 'If-Match': ok.headers.get('etag')! } });
    expectStatus(del, 200);
  });
});

describe('concurrency (contract §7)', () => {
  it('two concurrent partial updates of different fields are both applied', async () => {
    for (let round = 0; round < 3; round++) {
      const ev = await createEvent();
      const [a, b] = await Promise.all([
        update(ev.id, { excerpt: `two-a-${round}` }, 'PATCH'), update(ev.id, { website: `https://example.org/two-b-${round}` }, 'PATCH'),
      ]);
      expectStatus(a, 200);
      expectStatus(b, 200);
      const read = (await api(eventPath(ev.id))).json;
      expect([read.excerpt, read.website]).toEqual([`two-a-${round}`, `https://example.org/two-b-${round}`]);
    }
  });

  it('many concurrent partial updates: none is silently lost (each one either applies or fails loudly)', async () => {
    const ev = await createEvent();
    const changes: [string, unknown, unknown][] = [
      ['title', `Concurrent ${uid()}`, undefined], ['excerpt', 'c-excerpt', undefined], ['description', '<p>c-description</p>', undefined],
      ['cost', '7$', '7$'], ['website', 'https://example.org/c', undefined], ['featured', true, undefined], ['sticky', true, undefined],
      ['timezone', 'UTC+2', undefined],
    ];
    const results = await Promise.all(changes.map(([k, v]) => update(ev.id, { [k]: v }, 'PATCH')));
    const read = (await api(eventPath(ev.id))).json;
    results.forEach((r, i) => {
      const [k, v, shown] = changes[i]!;
      if (r.status === 200) expect([k, read[k]]).toEqual([k, shown ?? v]);
      else {
        expect([k, r.status]).toEqual([k, expect.any(Number)]);
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).not.toBe(500);
        expectError(r, r.status, r.json.code);
      }
    });
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(0);
  });

  it('concurrent creates with the same title get distinct slugs (numbering gaps allowed under a race)', async () => {
    const title = `Race ${uid()}`;
    const base = title.toLowerCase().replace(/ /g, '-');
    const results = await Promise.all(Array.from({ length: 5 }, () => post(eventBody({ title }))));
    for (const r of results) expectStatus(r, 201);
    const slugs = results.map((r) => r.json.slug as string);
    expect(new Set(slugs).size).toBe(5);
    expect(slugs).toContain(base);
    for (const slug of slugs) expect(slug).toMatch(new RegExp(`^${base}(-([2-9]|\\d{2,}))?$`));
    expect(new Set(results.map((r) => r.json.id)).size).toBe(5);
  });

  it('If-Match: * matches any current version', async () => {
    const ev = await createEvent();
    expectStatus(await update(ev.id, { excerpt: 'star' }, 'PATCH', { 'If-Match': '*' }), 200);
  });
});

describe('delete, trash and restore (contract §7, reference §10.5)', () => {
  it('moves to the trash; a second delete → 410; GET → 403 for everyone; the plain slug is free again', async () => {
    const title = `Trash me ${uid()}`;
    const ev = await createEvent({ title });
    const del = await api(eventPath(ev.id), { method: 'DELETE', token: editor });
    expectStatus(del, 200);
    expect(del.json.id).toBe(ev.id);
    expect(del.json.status).toBe('trash');
    expect(Object.keys(del.json)).toEqual(EVENT_KEYS);

    expectError(await api(eventPath(ev.id), { method: 'DELETE', token: editor }), 410, 'event-is-in-trash');
    expectError(await api(eventPath(ev.id)), 403, 'event-no-longer-available');
    expectError(await api(eventPath(ev.id), { token: editor }), 403, 'event-no-longer-available');

    const again = await createEvent({ title });
    expect(again.slug).toBe(ev.slug);
    const bySlug = await api(`/events/by-slug/${ev.slug}`);
    expectStatus(bySlug, 200);
    expect(bySlug.json.id).toBe(again.id);
  });

  it('deletes by slug', async () => {
    const ev = await createEvent();
    const del = await api(`/events/by-slug/${ev.slug}`, { method: 'DELETE', token: editor });
    expectStatus(del, 200);
    expect(del.json.id).toBe(ev.id);
    expect(del.json.status).toBe('trash');
  });

  it('an update that sets another status restores a trashed event with its slug', async () => {
    const ev = await createEvent({ excerpt: 'keep me' });
    expectStatus(await api(eventPath(ev.id), { method: 'DELETE', token: editor }), 200);
    const res = await update(ev.id, { status: 'publish' });
    expectStatus(res, 200);
    expect(res.json.status).toBe('publish');
    expect(res.json.slug).toBe(ev.slug);
    expect(res.json.excerpt).toBe('keep me');
    const read = await api(eventPath(ev.id));
    expectStatus(read, 200);
    expect((await api(`/events/by-slug/${ev.slug}`)).json.id).toBe(ev.id);

    expectStatus(await api(eventPath(ev.id), { method: 'DELETE', token: editor }), 200);
    const draft = await update(ev.id, { status: 'draft' }, 'PATCH');
    expect(draft.json.status).toBe('draft');
  });

  it('a restored event whose slug was taken meanwhile gets a unique slug', async () => {
    const title = `Restore clash ${uid()}`;
    const ev = await createEvent({ title });
    expectStatus(await api(eventPath(ev.id), { method: 'DELETE', token: editor }), 200);
    const taker = await createEvent({ title });
    expect(taker.slug).toBe(ev.slug);
    const res = await update(ev.id, { status: 'publish' });
    expectStatus(res, 200);
    expect(res.json.slug).toBe(`${ev.slug}-2`);
    expect((await api(`/events/by-slug/${ev.slug}`)).json.id).toBe(taker.id);
    expect((await api(`/events/by-slug/${ev.slug}-2`)).json.id).toBe(ev.id);
  });

  it('an update without a status leaves a trashed event in the trash', async () => {
    const ev = await createEvent();
    expectStatus(await api(eventPath(ev.id), { method: 'DELETE', token: editor }), 200);
    const res = await update(ev.id, { excerpt: 'edited in the bin' }, 'PATCH');
    expectStatus(res, 200);
    expect(res.json.status).toBe('trash');
    expectError(await api(eventPath(ev.id)), 403, 'event-no-longer-available');
  });

  it('force=true by an editor deletes permanently (200, then 404), also from the trash', async () => {
    const ev = await createEvent();
    const res = await api(eventPath(ev.id), { method: 'DELETE', token: editor, query: { force: true } });
    expectStatus(res, 200);
    expect(res.json.id).toBe(ev.id);
    expectError(await api(eventPath(ev.id)), 404, 'rest-event-not-found');
    expectError(await api(eventPath(ev.id), { method: 'DELETE', token: editor }), 404, 'rest-event-not-found');
    expectError(await api(`/events/by-slug/${ev.slug}`), 404, 'rest-event-not-found');
    const reuse = await createEvent({ title: ev.title });
    expect(reuse.slug).toBe(ev.slug);
    expect(reuse.id).not.toBe(ev.id);

    const trashed = await createEvent();
    expectStatus(await api(eventPath(trashed.id), { method: 'DELETE', token: editor }), 200);
    expectStatus(await api(eventPath(trashed.id), { method: 'DELETE', token: editor, query: { force: 'yes' } }), 200);
    expectError(await api(eventPath(trashed.id), { token: editor }), 404, 'rest-event-not-found');
  });

  it('an invalid force value → 400', async () => {
    const ev = await createEvent();
    expectInvalid(await api(eventPath(ev.id), { method: 'DELETE', token: editor, query: { force: 'sometimes' } }), 'force');
  });
});

describe('password-protected events (reference §11.3, contract §5)', () => {
  it('needs the password or context=edit by someone who may edit; the password is never returned', async () => {
    const password = `pw-${uid()}`;
    const res = await post(eventBody({ password, description: '<p>secret</p>' }));
    expectStatus(res, 201);
    expect(res.json).not.toHaveProperty('password');
    expect(res.text).not.toContain(password);
    const id = res.json.id;

    expectError(await api(eventPath(id)), 403, 'event-password-protected');
    expectError(await api(eventPath(id), { token: editor }), 403, 'event-password-protected');
    expectError(await api(`/events/by-slug/${res.json.slug}`), 403, 'event-password-protected');
    expectError(await api(eventPath(id), { query: { password: 'wrong' } }), 403, 'event-password-protected');
    expectError(await api(eventPath(id), { query: { context: 'edit' } }), 403, 'event-password-protected');
    expectError(await api(eventPath(id), { token: await tokenFor('author', `author-${uid()}`), query: { context: 'edit' } }), 403,
      'event-password-protected');

    const right = await api(eventPath(id), { query: { password } });
    expectStatus(right, 200);
    expect(right.json.description).toBe('<p>secret</p>');
    expect(right.json).not.toHaveProperty('password');
    expect(right.text).not.toContain(password);

    const edit = await api(eventPath(id), { token: editor, query: { context: 'edit' } });
    expectStatus(edit, 200);
    expect(edit.json).not.toHaveProperty('password');

    const upd = await update(id, { excerpt: 'still protected' });
    expect(upd.json).not.toHaveProperty('password');
    expectError(await api(eventPath(id)), 403, 'event-password-protected');
  });

  it('password "" removes the protection', async () => {
    const ev = await createEvent({ password: 'open-sesame' });
    expectError(await api(eventPath(ev.id)), 403, 'event-password-protected');
    expectStatus(await update(ev.id, { password: '' }, 'PATCH'), 200);
    expectStatus(await api(eventPath(ev.id)), 200);
  });

  it('?password= (empty) and an unknown context are 400 (reference §9.1)', async () => {
    const ev = await createEvent();
    expectInvalid(await api(eventPath(ev.id), { query: { password: '' } }), 'password');
    expectInvalid(await api(eventPath(ev.id), { query: { context: 'banana' } }), 'context');
  });
});

describe('input handling (contract §2)', () => {
  it('ignores unknown parameters and read-only output fields on create', async () => {
    const day = futureDay();
    const body = eventBody({
      start_date: `${day} 10:00:00`, end_date: `${day} 11:00:00`,
      id: 987654, url: 'https://evil.example/x/', rest_url: 'https://evil.example/rest', utc_start_date: '2000-01-01 00:00:00',
      utc_end_date: '2000-01-01 01:00:00', start_date_details: { year: '1999' }, timezone_abbr: 'XYZ', global_id: 'evil?id=1',
      cost_details: { currency_symbol: '£', values: ['99'] }, json_ld: { '@type': 'Thing' }, custom_fields: { a: 1 },
      no_such_param: 'whatever', modified: '2000-01-01 00:00:00',
    });
    const res = await post(body);
    expectStatus(res, 201);
    const ev = res.json;
    expect(ev.id).not.toBe(987654);
    expect(ev.url).toBe(`${serverOrigin()}/event/${ev.slug}/`);
    expect(ev.rest_url).toBe(eventUrl(ev.id));
    expect(ev.utc_start_date).toBe(`${day} 10:00:00`);
    expect(ev.utc_end_date).toBe(`${day} 11:00:00`);
    expect(ev.start_date_details.year).toBe(day.slice(0, 4));
    expect(ev.timezone_abbr).toBe('UTC');
    expect(ev.global_id).toBe(`${new URL(apiUrl()).host}?id=${ev.id}`);
    expect(ev.cost_details).toEqual({ currency_symbol: '', currency_code: '', currency_position: '', values: [] });
    expect(ev.custom_fields).toEqual([]);
    expect(ev).not.toHaveProperty('no_such_param');
    expect(ev).not.toHaveProperty('json_ld');
    expect(ev.modified).not.toBe('2000-01-01 00:00:00');
    expectError(await api('/events/987654'), 404, 'rest-event-not-found');
  });

  it('ignores read-only fields on update, and the path id wins over a body id', async () => {
    const a = await createEvent();
    const b = await createEvent();
    const res = await update(a.id, { id: b.id, title: `Path wins ${uid()}`, utc_start_date: '2000-01-01 00:00:00', url: 'x' });
    expectStatus(res, 200);
    expect(res.json.id).toBe(a.id);
    expect(res.json.utc_start_date).toBe(a.utc_start_date);
    expect(res.json.url).toBe(a.url);
    expect((await api(eventPath(b.id))).json.title).toBe(b.title);
    expect((await api(eventPath(a.id))).json.title).toBe(res.json.title);

    // Also when the id comes in the query string, and the slug of a by-slug route.
    const q = await api(eventPath(a.id), { method: 'PATCH', token: editor, query: { id: b.id }, body: { excerpt: 'query id' } });
    expect(q.json.id).toBe(a.id);
    expect((await api(eventPath(b.id))).json.excerpt).toBe(b.excerpt);
    const s = await api(`/events/by-slug/${a.slug}`, { method: 'PATCH', token: editor, body: { slug: a.slug, id: b.id, excerpt: 's' } });
    expect(s.json.id).toBe(a.id);
  });

  it('accepts form-encoded bodies, with a[]= lists', async () => {
    const day = futureDay();
    const title = `Form event ${uid()}`;
    const res = await api('/events', {
      method: 'POST', token: editor,
      form: { title, start_date: `${day} 18:00:00`, end_date: `${day} 19:00:00`, featured: 'yes', all_day: '0',
        cost: ['0$', '20$', '30$'], timezone: 'Europe/Berlin', website: 'https://example.org/?a=1&b=2', description: '<p>form</p>' },
    });
    expectStatus(res, 201);
    const ev = res.json;
    expect(ev.title).toBe(title);
    expect(ev.start_date).toBe(`${day} 18:00:00`);
    expect(ev.timezone).toBe('Europe/Berlin');
    expect(ev.featured).toBe(true);
    expect(ev.all_day).toBe(false);
    expect(ev.cost).toBe('Free – 30$');
    expect(ev.description).toBe('<p>form</p>');
    expect(ev.website).toBe('https://example.org/?a=1&amp;b=2'); // HTML-escaped on output (reference §4.1)

    const upd = await api(eventPath(ev.id), { method: 'PUT', token: editor, form: { excerpt: 'form update', sticky: 'on' } });
    expectStatus(upd, 200);
    expect([upd.json.excerpt, upd.json.sticky, upd.json.title]).toEqual(['form update', true, title]);
  });

  it('body values win over query values; the query string alone works too', async () => {
    const day = futureDay();
    const res = await api('/events', {
      method: 'POST', token: editor, query: { title: 'From the query', excerpt: 'query excerpt' },
      body: { title: `From the body ${uid()}`, start_date: `${day} 10:00:00`, end_date: `${day} 11:00:00` },
    });
    expectStatus(res, 201);
    expect(res.json.title).toMatch(/^From the body /);
    expect(res.json.excerpt).toBe('query excerpt');

    const q = await api('/events', {
      method: 'POST', token: editor, query: { title: `Query only ${uid()}`, start_date: `${day} 10:00:00`, end_date: `${day} 12:00:00` },
    });
    expectStatus(q, 201);
    expect(q.json.title).toMatch(/^Query only /);
    expect(q.json.end_date).toBe(`${day} 12:00:00`);
  });

  it('no input shape produces a 5xx', async () => {
    const weird: unknown[] = [
      { title: ['a', 'b'], start_date: {}, end_date: [] },
      { title: 'x', start_date: null, end_date: null },
      { title: 'x', start_date: true, end_date: 1.5 },
      { ...eventBody(), venue: 'abc', organizer: { nested: { deep: [1, 2] } }, categories: { a: 1 }, tags: [[], {}] },
      { ...eventBody(), cost: { a: 1 }, timezone: 42, website: ['https://a.b'], image: { url: 'https://a.b/c.png' } },
      { ...eventBody(), start_date: '9999999999999999999999', end_date: '-1e400' },
      { ...eventBody(), start_date: '0000-00-00 00:00:00' },
      '{"title":"proto","__proto__":{"title":"y"},"constructor":"z","start_date":"2031-01-01","end_date":"2031-01-02"}',
      '{"title":"x","start_date":"2031-01-01","end_date":"2031-01-02","status":{"toString":"publish"}}',
    ];
    for (const body of weird) {
      const res = await post(body);
      expect([res.status, res.text.slice(0, 300)]).toEqual([expect.any(Number), expect.any(String)]);
      expect(res.status).toBeGreaterThanOrEqual(200);
      expect(res.status).toBeLessThan(500);
      if (res.status >= 400) expectError(res, res.status, res.json.code);
    }
  });
});
