/**
 * The iCalendar source reader of imports (lib/imports/ics, contract §20). Real files from public projects' test data
 * (test/fixtures/ics/README.md) are read and their instants checked against an independent parser, node-ical; the
 * mapping, the options and hostile inputs are checked on small calendars written here.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodeIcal from 'node-ical';
import { NotICalendarError, readIcs, type ReadOptions } from '../../lib/imports/ics/read.js';
import { zoneName } from '../../lib/imports/ics/zones.js';
import type { SourceEvent, SourceRead } from '../../lib/imports/source.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/ics');
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const NOW = new Date('2026-01-01T00:00:00Z');
const OPTIONS: ReadOptions = { siteTimeZone: 'Europe/London', oneTime: true, now: NOW };
const read = (text: string, options: Partial<ReadOptions> = {}): SourceRead => readIcs(text, { ...OPTIONS, ...options });
const byKey = (r: SourceRead, key: string): SourceEvent => {
  const event = r.events.find((e) => e.key === key);
  if (!event) throw new Error(`no event ${key} in ${r.events.map((e) => e.key).join(', ')}`);
  return event;
};

/** A calendar around VEVENTs given as lines (CRLF, as RFC 5545 writes). */
const calendar = (...events: string[][]): string =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events.flatMap((e) => ['BEGIN:VEVENT', ...e, 'END:VEVENT']), 'END:VCALENDAR', ''].join('\r\n');
const vevent = (uid: string, ...lines: string[]): string[] => [`UID:${uid}`, 'DTSTAMP:20260101T000000Z', 'SUMMARY:Event', ...lines];

// ------------------------------------------------------------------------------------------------ the independent parse

interface Independent { uid: string; summary: string; start: Date; end?: Date; dateOnly: boolean }

/** node-ical's reading of a file's master VEVENTs (node-ical nests RECURRENCE-ID VEVENTs under them). */
function independent(text: string): Independent[] {
  const data = nodeIcal.sync.parseICS(text);
  return Object.values(data).flatMap((c) => {
    if (c?.type !== 'VEVENT' || c.recurrenceid) return [];
    const start = c.start as Date & { dateOnly?: boolean };
    return [{ uid: String(c.uid ?? ''), summary: String(c.summary ?? '').trim(), start, end: c.end, dateOnly: start.dateOnly === true }];
  });
}

const utcWall = (d: Date): string => d.toISOString().slice(0, 19).replace('T', ' ');
/** node-ical builds a DATE in the process's own zone: its local fields are the date. */
const localDay = (d: Date): string =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

const REAL = readdirSync(FIXTURES).filter((f) => f.endsWith('.ics')).sort();

describe('real files', () => {
  test('every file of the fixtures folder is described in its README (origin and licence)', () => {
    const readme = readFileSync(join(FIXTURES, 'README.md'), 'utf8');
    expect(REAL.length).toBeGreaterThanOrEqual(13);
    for (const file of REAL) expect(readme).toContain(file);
  });

  test.each(REAL)('%s: instants as node-ical reads them', (file) => {
    const text = fixture(file);
    // (a horizon near the files' dates: an endless daily series from 2012 is over 1,000 occurrences by now)
    const result = read(text, { now: new Date('2012-08-01T00:00:00Z') });
    const others = independent(text);
    let compared = 0;
    for (const event of result.events) {
      const other = others.find((o) => (event.key.startsWith('uid:') ? `uid:${o.uid}` === event.key : o.summary === event.fields.title));
      expect(other).toBeDefined();
      if (!other) continue;
      compared++;
      expect(event.fields.all_day).toBe(other.dateOnly);
      if (other.dateOnly) {
        expect(event.fields.start_date.slice(0, 10)).toBe(localDay(other.start));
        if (other.end) expect(event.fields.end_date.slice(0, 10)).toBe(localDay(new Date(other.end.getTime() - 86_400_000)));
        continue;
      }
      expect(event.startUtc).toBe(utcWall(other.start));
      if (!event.fields.recurrence) expect(event.endUtc).toBe(utcWall(other.end ?? other.start));
      else expect(utcWall(other.end ?? other.start) <= event.endUtc).toBe(true);
    }
    expect(compared).toBeGreaterThan(0);
    expect(compared + result.errors.filter((e) => e.uid !== '' || /missing UID/.test(e.message)).length).toBeGreaterThanOrEqual(result.events.length);
  });

  test('Google Calendar: a daily series with an edited occurrence (Europe/Kiev, its own VTIMEZONE)', () => {
    const r = read(fixture('google-kiev-recurrence-id.ics'));
    expect(r.errors).toEqual([]);
    const series = byKey(r, 'uid:6m2q7kb2l02798oagemrcgm6pk@google.com');
    expect(series.fields).toMatchObject({ title: 'repeated', start_date: '2016-08-25 14:00:00', end_date: '2016-08-25 15:00:00', all_day: false,
      timezone: 'Europe/Kiev', recurrence: ['RRULE:FREQ=DAILY;UNTIL=20160828T110000Z'] });
    expect(series.overrides).toEqual([{ recurrenceId: '2016-08-26 14:00:00', removed: false, fields: { title: 'bla bla' } }]);
    // The last occurrence starts 2016-08-28 14:00 EEST, 11:00 UTC: UNTIL=20160828T110000Z includes it.
    expect([series.startUtc, series.endUtc]).toEqual(['2016-08-25 11:00:00', '2016-08-28 12:00:00']);
  });

  test('Google Calendar: an edit written before its series, moved by half an hour (America/Denver, no VTIMEZONE)', () => {
    const series = byKey(read(fixture('google-recurrence-order.ics')), 'uid:aaaaaaaaaa888se1rr0b24sm4p@google.com');
    expect(series.fields.recurrence).toEqual(['RRULE:FREQ=DAILY;COUNT=3']);
    expect(series.overrides).toEqual([{ recurrenceId: '2026-02-11 10:00:00', removed: false,
      fields: { title: 'TEST RECURR 3 - MODIFIED', start_date: '2026-02-11 10:30:00', end_date: '2026-02-11 11:00:00', all_day: false } }]);
    expect([series.startUtc, series.endUtc]).toEqual(['2026-02-10 17:00:00', '2026-02-12 17:30:00']);
  });

  test('Google Calendar: an endless daily series runs on past the horizon; refused as the service would when it yields over 1,000', () => {
    const text = fixture('google-daily-recur.ics');
    const early = read(text, { now: new Date('2012-08-01T00:00:00Z') });
    expect(early.events.map((e) => [e.fields.recurrence, e.fields.timezone, e.startUtc, e.endUtc]))
      .toEqual([[['RRULE:FREQ=DAILY'], 'America/Los_Angeles', '2012-08-01 12:00:00', '9999-12-31 23:59:59']]);
    expect(read(text).errors).toEqual([{ uid: 'tgh9qho17b07pk2n2ji3gluans@google.com', message: expect.stringMatching(/more than 1000 occurrences/) }]);
  });

  test('Outlook/Exchange: Windows zone ids with their VTIMEZONEs; a malformed VEVENT is an error of its own', () => {
    const r = read(fixture('outlook-windows-zones.ics'));
    expect(r.events.map((e) => [e.fields.title, e.fields.timezone, e.startUtc])).toEqual([
      ['Not the actual summary either', 'America/Los_Angeles', '2020-07-07 19:00:00'],
      ['test', 'Europe/Berlin', '2020-09-10 07:00:00'],
      ['Not the actual summary 1', 'America/Los_Angeles', '2020-09-15 15:30:00'],
    ]);
    expect(r.events[0]!.fields.recurrence).toEqual(['RRULE:FREQ=WEEKLY;BYDAY=TU,TH,FR,SU;WKST=SU;UNTIL=20210309T200000Z',
      'EXDATE:20200721T190000Z,20200723T190000Z,20200728T190000Z,20200813T190000Z,20200825T190000Z,20200903T190000Z']);
    expect(r.events[0]!.fields.venue).toEqual({ venue: 'https://bluejeans.com/7999979999' });
    expect(r.errors).toEqual([{ uid: '040000008200E00074C5B7101A82E008000000008001F1896B63D301000000000000000', message: expect.stringMatching(/^malformed VEVENT/) }]);
  });

  test('Outlook (OWA): display names as TZIDs without VTIMEZONE; events without UID keyed by summary once, refused when scheduled', () => {
    const text = fixture('outlook-display-names.ics');
    const once = read(text);
    expect(once.errors).toEqual([]);
    expect(once.events.map((e) => [e.fields.title, e.fields.timezone, e.startUtc, e.endUtc])).toEqual([
      ['TEST Syd', 'Australia/Sydney', '2020-10-28 02:30:00', '2020-10-28 04:00:00'],
      ['TEST', 'America/New_York', '2020-10-28 17:30:00', '2020-10-28 19:00:00'],
      ['TEST 3', 'America/New_York', '2020-11-02 18:30:00', '2020-11-02 20:00:00'],
      ['TEST2', 'America/New_York', '2020-11-02 18:30:00', '2021-08-27 19:00:00'],
    ]);
    const sum = createHash('sha256').update('TEST Syd|2020-10-28 02:30:00|').digest('hex');
    expect(once.events[0]!.key).toBe(`sum:${sum}`);
    const scheduled = read(text, { oneTime: false });
    expect(scheduled.events).toEqual([]);
    expect(scheduled.errors).toEqual(Array(4).fill({ uid: '', message: 'missing UID' }));
  });

  test('Exchange: a custom VTIMEZONE named by a display name gives the instants; the name gives the zone', () => {
    const [event] = read(fixture('exchange-custom-tz.ics')).events;
    expect(event!.fields).toMatchObject({ title: 'Test event', start_date: '2019-04-30 09:00:00', end_date: '2019-04-30 12:00:00', timezone: 'Asia/Bangkok', description: '' });
    expect([event!.startUtc, event!.endUtc]).toEqual(['2019-04-30 02:00:00', '2019-04-30 05:00:00']);
  });

  test('Apple Calendar: UTC times in the site zone, a TZID without VTIMEZONE as an IANA name, STATUS:CANCELLED removed', () => {
    const r = read(fixture('apple-macos-status.ics'));
    expect(r.events.map((e) => [e.fields.title, e.fields.timezone, e.fields.start_date, e.removed ?? null, e.fields.organizer ?? null])).toEqual([
      ['Tentative', 'Europe/London', '2022-07-05 00:00:00', null, [{ organizer: 'tentative@example.com', email: 'tentative@example.com' }]],
      ['Confirmed', 'America/Vancouver', '2022-07-05 09:00:00', null, [{ organizer: 'confirmed@example.com', email: 'confirmed@example.com' }]],
      ['Cancelled', 'America/Vancouver', '2022-07-06 13:00:00', 'cancelled', [{ organizer: 'cancelled@example.com', email: 'cancelled@example.com' }]],
      ['No Status', 'America/Vancouver', '2022-07-07 09:00:00', null, null],
    ]);
  });

  test('Meetup: LOCATION split at its first comma, GEO on the venue, URL as website', () => {
    const [event] = read(fixture('meetup-geo.ics')).events;
    expect(event!.fields.venue).toEqual({ venue: 'Open Source Project Tempe (1415 E University Dr. #103A', address: 'Tempe, AZ 85281)', geo_lat: 33.56, geo_lng: -111.9 });
    expect(event!.fields.website).toBe('http://www.meetup.com/Phoenix-Drupal-User-Group/events/33627272/');
    expect(event!.fields.description).toMatch(/^<p>Phoenix Drupal User Group<br \/>Wednesday, November 9 at 7:00 PM<\/p>\n<p>/);
  });

  test('Nextcloud: a yearly all-day series, CLASS:PRIVATE removed, categories, organizer (never the attendees)', () => {
    const [event] = read(fixture('nextcloud-yearly-private.ics')).events;
    expect(event!.removed).toBe('private');
    expect(event!.fields).toEqual({
      title: 'Some more complex event', description: '<p>Event with a tag, a notification<br />and a recurrence.</p>',
      start_date: '2022-09-20 00:00:00', end_date: '2022-09-20 23:59:59', all_day: true, timezone: 'Europe/London',
      venue: { venue: 'Some Hotel', address: 'Some Country' }, organizer: [{ organizer: 'File Sharing User 1', email: 'user-1@file-sharing-test.com' }],
      categories: ['Holiday'], recurrence: ['RRULE:FREQ=YEARLY;BYMONTH=9'],
    });
    expect(JSON.stringify(event)).not.toMatch(/user-2|user-3|File Sharing User 2/);
    expect(event!.endUtc).toBe('9999-12-31 23:59:59');
  });

  test('Thunderbird/Lightning: its VTIMEZONE, a description of code escaped into paragraphs', () => {
    const [event] = read(fixture('thunderbird-lightning.ics')).events;
    expect(event!.fields).toMatchObject({ title: 'Just a Test', timezone: 'Europe/Berlin', start_date: '2014-01-02 11:00:00' });
    expect(event!.fields.description).toMatch(/^<p>Here is a new Class:<\/p>\n<p>&lt;\?php<\/p>\n<p>\/\*\*<br \/> \* This is iCalParse/);
    expect(event!.fields.description).not.toMatch(/<\?php|<script/);
  });

  test('The Events Calendar (?ical=1): its TZID=UTC+0, URL, empty DESCRIPTION', () => {
    const [event] = read(fixture('tec-ecp-export.ics')).events;
    expect(event!.key).toBe('uid:978-1523093400-1523100600@bloorneighbours.ca');
    expect(event!.fields).toEqual({ title: 'Mini-Fair & Garage Sale', description: '', start_date: '2018-04-07 09:30:00', end_date: '2018-04-07 11:30:00',
      all_day: false, timezone: 'UTC+0', website: 'http://bloorneighbours.ca/event/mini-fair-garage-sale/' });
  });

  test('SabreDAV: a multi-day all-day event (exclusive DTEND)', () => {
    const [event] = read(fixture('sabredav-all-day.ics')).events;
    expect(event!.fields).toMatchObject({ all_day: true, start_date: '2018-07-02 00:00:00', end_date: '2018-08-10 23:59:59', timezone: 'Europe/London' });
    expect([event!.startUtc, event!.endUtc]).toEqual(['2018-07-01 23:00:00', '2018-08-10 22:59:59']);
  });

  test('X-ALT-DESC (Podio): its HTML, sanitised, instead of DESCRIPTION', () => {
    const [event] = read(fixture('podio-x-alt-desc.ics')).events;
    expect(event!.fields.description).toBe('<p>Toller <strong>Termin</strong> für</p><blockquote><p>mal <em>zu"gucken"</em></p></blockquote><p><u>und</u> <del>so</del><br /></p>');
  });
});

// ------------------------------------------------------------------------------------------------ time zones

describe('time zones', () => {
  test.each([
    ['Europe/Berlin', 'Europe/Berlin'],
    ['europe/berlin', 'Europe/Berlin'],
    ['UTC', 'UTC'],
    ['W. Europe Standard Time', 'Europe/Berlin'],
    ['Eastern Standard Time', 'America/New_York'],
    ['(UTC-05:00) Eastern Time (US & Canada)', 'America/New_York'],
    ['(UTC-05:00) Eastern Time (US and Canada)', 'America/New_York'],
    ['(GMT+10:00) Canberra, Melbourne, Sydney', 'Australia/Sydney'],
    ['(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna', 'Europe/Berlin'],
    ['(UTC) Coordinated Universal Time', 'Etc/UTC'],
    ['Tokyo Standard Time', 'Asia/Tokyo'],
  ])('%s → %s', (tzid, iana) => {
    expect(zoneName(tzid)).toBe(iana);
  });

  test.each(['Mars/Olympus', 'Customized Time Zone', '', 'Eastern'])('%s is no zone', (tzid) => {
    expect(zoneName(tzid)).toBeUndefined();
  });

  test('a TZID nobody knows fails its event with "unknown time zone"; the others import', () => {
    const r = read(calendar(vevent('a', 'DTSTART;TZID=Mars/Olympus:20260301T100000'), vevent('b', 'DTSTART;TZID=Europe/Paris:20260301T100000')));
    expect(r.errors).toEqual([{ uid: 'a', message: 'unknown time zone' }]);
    expect(r.events.map((e) => [e.key, e.startUtc])).toEqual([['uid:b', '2026-03-01 09:00:00']]);
  });

  test('a VTIMEZONE of a name no table knows: its instants, written in a fixed offset', () => {
    const text = calendar(vevent('a', 'DTSTART;TZID=Custom:20260701T100000', 'DTEND;TZID=Custom:20260701T110000'))
      .replace('BEGIN:VEVENT', ['BEGIN:VTIMEZONE', 'TZID:Custom', 'BEGIN:STANDARD', 'DTSTART:16010101T030000', 'TZOFFSETFROM:+0200', 'TZOFFSETTO:+0100',
        'RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10', 'END:STANDARD', 'BEGIN:DAYLIGHT', 'DTSTART:16010101T020000', 'TZOFFSETFROM:+0100', 'TZOFFSETTO:+0200',
        'RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3', 'END:DAYLIGHT', 'END:VTIMEZONE', 'BEGIN:VEVENT'].join('\r\n'));
    const [event] = read(text).events;
    expect([event!.startUtc, event!.endUtc, event!.fields.timezone, event!.fields.start_date]).toEqual(['2026-07-01 08:00:00', '2026-07-01 09:00:00', 'UTC+2', '2026-07-01 10:00:00']);
  });

  test('the file\'s VTIMEZONE wins over the name: a zone called Europe/Berlin with other rules is read by its rules', () => {
    const text = calendar(vevent('a', 'DTSTART;TZID=Europe/Berlin:20260701T100000'))
      .replace('BEGIN:VEVENT', ['BEGIN:VTIMEZONE', 'TZID:Europe/Berlin', 'BEGIN:STANDARD', 'DTSTART:19700101T000000', 'TZOFFSETFROM:+0500',
        'TZOFFSETTO:+0500', 'END:STANDARD', 'END:VTIMEZONE', 'BEGIN:VEVENT'].join('\r\n'));
    const [event] = read(text).events;
    expect([event!.startUtc, event!.fields.timezone, event!.fields.start_date]).toEqual(['2026-07-01 05:00:00', 'Europe/Berlin', '2026-07-01 07:00:00']);
  });

  test('floating times in the site time zone; a single UTC time shown in it; a series in UTC stays in UTC', () => {
    const r = read(calendar(vevent('float', 'DTSTART:20260701T100000'), vevent('utc', 'DTSTART:20260701T100000Z'),
      vevent('series', 'DTSTART:20260701T100000Z', 'RRULE:FREQ=WEEKLY;COUNT=3')), { siteTimeZone: 'America/New_York' });
    expect(r.events.map((e) => [e.key, e.fields.timezone, e.fields.start_date, e.startUtc])).toEqual([
      ['uid:series', 'UTC', '2026-07-01 10:00:00', '2026-07-01 10:00:00'],
      ['uid:utc', 'America/New_York', '2026-07-01 06:00:00', '2026-07-01 10:00:00'],
      ['uid:float', 'America/New_York', '2026-07-01 10:00:00', '2026-07-01 14:00:00'],
    ]);
  });
});

// ------------------------------------------------------------------------------------------------ mapping

describe('mapping', () => {
  const one = (...lines: string[]): SourceEvent => {
    const r = read(calendar(vevent('x', 'DTSTART:20260301T100000Z', ...lines)));
    expect(r.errors).toEqual([]);
    return r.events[0]!;
  };

  test('DESCRIPTION: plain text escaped, paragraphs at blank lines, <br /> at line breaks', () => {
    expect(one('DESCRIPTION:a <b> & "c"\\n\\nsecond\\nline').fields.description).toBe('<p>a &lt;b&gt; &amp; &quot;c&quot;</p>\n<p>second<br />line</p>');
  });

  test('X-ALT-DESC;FMTTYPE=text/html replaces DESCRIPTION, sanitised (no script, no handlers, no javascript: links)', () => {
    const event = one('DESCRIPTION:plain', 'X-ALT-DESC;FMTTYPE=text/html:<p onclick="x()">Hi\\, <b>there</b></p><script>alert(1)</script><a href="javascript:x">l</a>');
    expect(event.fields.description).toBe('<p>Hi, <b>there</b></p><a>l</a>');
    expect(one('DESCRIPTION:plain', 'X-ALT-DESC;FMTTYPE=text/html:<html><body><script>x</script></body></html>').fields.description).toBe('<p>plain</p>');
    expect(one('DESCRIPTION:plain', 'X-ALT-DESC;FMTTYPE=text/plain:<b>x</b>').fields.description).toBe('<p>plain</p>');
  });

  test('LOCATION: the name before the first comma, the address after; GEO out of range is dropped', () => {
    expect(one('LOCATION:Town Hall\\, 1 Main St\\, Springfield', 'GEO:91;10').fields.venue).toEqual({ venue: 'Town Hall', address: '1 Main St, Springfield' });
    expect(one('LOCATION:Online').fields.venue).toEqual({ venue: 'Online' });
    expect(one('GEO:1;2').fields.venue).toBeUndefined();
  });

  test('ORGANIZER: CN and mailto, the address when there is no CN, nothing without either', () => {
    expect(one('ORGANIZER;CN="Doe, Jane":MAILTO:jane@example.org').fields.organizer).toEqual([{ organizer: 'Doe, Jane', email: 'jane@example.org' }]);
    expect(one('ORGANIZER:mailto:jane@example.org').fields.organizer).toEqual([{ organizer: 'jane@example.org', email: 'jane@example.org' }]);
    expect(one('ORGANIZER;CN=Board:urn:uuid:1234').fields.organizer).toEqual([{ organizer: 'Board' }]);
    expect(one('ORGANIZER:urn:uuid:1234').fields.organizer).toBeUndefined();
  });

  test('CATEGORIES: every value of every property, split at commas, trimmed, each once', () => {
    expect(one('CATEGORIES:Music, Arts,,music', 'CATEGORIES:Kids\\,Family', 'CATEGORIES:Arts').fields.categories).toEqual(['Music', 'Arts', 'Kids', 'Family']);
  });

  test('URL: only absolute http(s) addresses', () => {
    expect(one('URL:https://example.org/e?id=1').fields.website).toBe('https://example.org/e?id=1');
    for (const url of ['javascript:alert(1)', '/relative', 'ftp://example.org/x', 'not a url']) expect(one(`URL:${url}`).fields.website).toBeUndefined();
  });

  test('ATTENDEE is never read', () => {
    expect(JSON.stringify(one('ATTENDEE;CN=Secret Person:mailto:secret@example.org'))).not.toMatch(/secret/i);
  });

  test('CLASS:PRIVATE and CONFIDENTIAL are removed as private; STATUS:CANCELLED as cancelled', () => {
    expect(one('CLASS:PRIVATE').removed).toBe('private');
    expect(one('CLASS:CONFIDENTIAL').removed).toBe('private');
    expect(one('CLASS:PUBLIC').removed).toBeUndefined();
    expect(one('STATUS:CANCELLED').removed).toBe('cancelled');
  });

  test('dates: DURATION in wall time, all-day by DURATION, no end = no length, an end before the start is an error', () => {
    expect(one('DURATION:PT1H30M').fields.end_date).toBe('2026-03-01 11:30:00');
    const r = read(calendar(
      vevent('d', 'DTSTART;TZID=Europe/Berlin:20260328T120000', 'DURATION:P1DT1H'),
      vevent('all', 'DTSTART;VALUE=DATE:20260301', 'DURATION:P3D'),
      vevent('none', 'DTSTART;VALUE=DATE:20260301'),
      vevent('back', 'DTSTART:20260301T100000Z', 'DTEND:20260301T090000Z'),
      vevent('mixed', 'DTSTART;VALUE=DATE:20260301', 'DTEND:20260302T090000Z'),
    ));
    // one day later across the change to summer time is 13:00 the next day, 23 hours later
    expect(byKey(r, 'uid:d').fields.end_date).toBe('2026-03-29 13:00:00');
    expect(byKey(r, 'uid:d').endUtc).toBe('2026-03-29 11:00:00');
    expect(byKey(r, 'uid:all').fields).toMatchObject({ start_date: '2026-03-01 00:00:00', end_date: '2026-03-03 23:59:59', all_day: true });
    expect(byKey(r, 'uid:none').fields.end_date).toBe('2026-03-01 23:59:59');
    expect(r.errors).toEqual([{ uid: 'back', message: 'the event ends before it starts' }, { uid: 'mixed', message: 'DTEND is a date-time but DTSTART a date' }]);
  });

  test('a VEVENT without SUMMARY or DTSTART is an error', () => {
    const r = read(calendar(['UID:a', 'DTSTART:20260301T100000Z'], ['UID:b', 'SUMMARY:x']));
    expect(r.errors).toEqual([{ uid: 'a', message: 'missing SUMMARY' }, { uid: 'b', message: 'missing DTSTART' }]);
  });
});

// ------------------------------------------------------------------------------------------------ series

describe('series', () => {
  test('RRULE, RDATE and EXDATE as the service\'s lines: times in UTC, dates as dates', () => {
    const [event] = read(calendar(vevent('s', 'DTSTART;TZID=Europe/Berlin:20260302T180000', 'DTEND;TZID=Europe/Berlin:20260302T190000',
      'RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=MO', 'RDATE;TZID=Europe/Berlin:20260304T180000', 'EXDATE;TZID=Europe/Berlin:20260309T180000',
      'EXDATE;VALUE=DATE:20260316'))).events;
    expect(event!.fields.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=MO', 'RDATE:20260304T170000Z', 'EXDATE;VALUE=DATE:20260316',
      'EXDATE:20260309T170000Z']);
    // ten Mondays from 2 March, the last on 4 May at 18:00 CEST (16:00 UTC)
    expect([event!.startUtc, event!.endUtc]).toEqual(['2026-03-02 17:00:00', '2026-05-04 17:00:00']);
  });

  test('edits: a cancelled occurrence is removed; of two edits of one occurrence the higher SEQUENCE wins', () => {
    const [event] = read(calendar(
      vevent('s', 'DTSTART:20260302T100000Z', 'RRULE:FREQ=DAILY;COUNT=5'),
      vevent('s', 'RECURRENCE-ID:20260303T100000Z', 'DTSTART:20260303T100000Z', 'STATUS:CANCELLED'),
      ['UID:s', 'RECURRENCE-ID:20260304T100000Z', 'SEQUENCE:2', 'SUMMARY:Later', 'DTSTART:20260304T100000Z'],
      ['UID:s', 'RECURRENCE-ID:20260304T100000Z', 'SEQUENCE:1', 'SUMMARY:Earlier', 'DTSTART:20260304T100000Z'],
    )).events;
    expect(event!.overrides).toEqual([
      { recurrenceId: '2026-03-03 10:00:00', removed: true, fields: {} },
      { recurrenceId: '2026-03-04 10:00:00', removed: false, fields: { title: 'Later' } },
    ]);
  });

  test('an edit without its series in the file is an event of its own', () => {
    const r = read(calendar(['UID:lonely', 'RECURRENCE-ID:20260304T100000Z', 'SUMMARY:Invited once', 'DTSTART:20260304T120000Z']));
    expect(r.events.map((e) => [e.key, e.fields.title, e.startUtc])).toEqual([['uid:lonely#20260304T100000Z', 'Invited once', '2026-03-04 12:00:00']]);
  });

  test('lines the service refuses fail the event with its message', () => {
    const r = read(calendar(vevent('x', 'DTSTART:20260302T100000Z', 'RRULE:FREQ=DAILY;COUNT=3', 'RRULE:FREQ=WEEKLY'),
      vevent('y', 'DTSTART:20260302T100000Z', 'RRULE:FREQ=HOURLY;COUNT=3000'),
      vevent('z', 'DTSTART:20260302T100000Z', 'RRULE:FREQ=DAILY;COUNT=3', 'EXRULE:FREQ=WEEKLY')));
    expect(r.errors).toEqual([
      { uid: 'x', message: 'more than one RRULE (RFC 5545 allows one)' },
      { uid: 'y', message: expect.stringMatching(/more than 1000 occurrences within the horizon/) },
      { uid: 'z', message: expect.stringMatching(/EXRULE/) },
    ]);
  });

  test('many EXDATEs: lines of at most 100 values, as the service takes them', () => {
    const exdates = Array.from({ length: 250 }, (_, i) => `EXDATE:${new Date(Date.UTC(2026, 0, 2 + i, 10)).toISOString().replace(/[-:]|\.000/g, '')}`);
    const [event] = read(calendar(vevent('s', 'DTSTART:20260101T100000Z', 'RRULE:FREQ=DAILY;COUNT=300', ...exdates))).events;
    expect(event!.fields.recurrence!.map((l) => l.split(',').length)).toEqual([1, 100, 100, 50]);
    expect(event!.endUtc).toBe('2026-10-27 10:00:00');
  });

  test('an EXDATE of the first occurrence (Google\'s deleted first occurrence) moves the series to the next one', () => {
    const r = read(calendar(
      vevent('count', 'DTSTART;TZID=Europe/Berlin:20260302T180000', 'DTEND;TZID=Europe/Berlin:20260302T190000', 'RRULE:FREQ=WEEKLY;COUNT=4',
        'EXDATE;TZID=Europe/Berlin:20260302T180000,20260309T180000', 'EXDATE;TZID=Europe/Berlin:20260323T180000'),
      vevent('day', 'DTSTART;VALUE=DATE:20260302', 'RRULE:FREQ=DAILY;UNTIL=20260305', 'EXDATE;VALUE=DATE:20260302'),
      vevent('all', 'DTSTART:20260302T100000Z', 'RRULE:FREQ=DAILY;COUNT=2', 'EXDATE:20260302T100000Z,20260303T100000Z'),
    ));
    expect(byKey(r, 'uid:count').fields).toMatchObject({ start_date: '2026-03-16 18:00:00', end_date: '2026-03-16 19:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2', 'EXDATE:20260309T170000Z,20260323T170000Z'] });
    expect([byKey(r, 'uid:count').startUtc, byKey(r, 'uid:count').endUtc]).toEqual(['2026-03-16 17:00:00', '2026-03-16 18:00:00']);
    expect(byKey(r, 'uid:day').fields).toMatchObject({ start_date: '2026-03-03 00:00:00', end_date: '2026-03-03 23:59:59',
      recurrence: ['RRULE:FREQ=DAILY;UNTIL=20260305'] });
    expect(r.errors).toEqual([{ uid: 'all', message: 'EXDATE excludes every occurrence' }]);
  });
});

// ------------------------------------------------------------------------------------------------ options and identity

describe('options', () => {
  const events = calendar(
    vevent('jan', 'DTSTART:20260110T100000Z'),
    vevent('mar', 'DTSTART:20260310T100000Z'),
    vevent('weekly', 'DTSTART:20251201T100000Z', 'DTEND:20251201T110000Z', 'RRULE:FREQ=WEEKLY;COUNT=20'),
    vevent('long', 'DTSTART:20251201T100000Z', 'DTEND:20260601T100000Z'),
  );

  test('window: events outside left out; a series kept when one occurrence is inside; an event spanning it kept', () => {
    const keys = (window: ReadOptions['window']) => read(events, { window }).events.map((e) => e.key);
    expect(keys(undefined)).toEqual(['uid:long', 'uid:weekly', 'uid:jan', 'uid:mar']);
    expect(keys({ startUtc: '2026-03-10 09:00:00', endUtc: '2026-03-10 23:59:59' })).toEqual(['uid:long', 'uid:mar']);
    expect(keys({ startUtc: '2026-03-11 00:00:00', endUtc: '2026-03-31 23:59:59' })).toEqual(['uid:long', 'uid:weekly']);
    // the weekly series runs to 13 April: an occurrence on Monday 6 April
    expect(keys({ startUtc: '2026-04-06 00:00:00', endUtc: '2026-04-06 23:59:59' })).toEqual(['uid:long', 'uid:weekly']);
    // but none on Tuesday 7 April
    expect(keys({ startUtc: '2026-04-07 00:00:00', endUtc: '2026-04-07 23:59:59' })).toEqual(['uid:long']);
    expect(keys({ endUtc: '2026-01-01 00:00:00' })).toEqual(['uid:long', 'uid:weekly']);
  });

  test('limit: the first events by start, and an error naming the limit', () => {
    const r = read(events, { limit: 2 });
    expect(r.events.map((e) => e.key)).toEqual(['uid:long', 'uid:weekly']);
    expect(r.errors).toEqual([{ uid: '', message: 'the source has 4 events; at most 2 are imported per run (the first 2 by start)' }]);
  });

  test('the hash: equal for the same content in another order, different when a field changes', () => {
    const a = calendar(vevent('a', 'DTSTART:20260110T100000Z', 'LOCATION:Hall\\, Street', 'CATEGORIES:x,y'));
    const reordered = calendar(['CATEGORIES:x,y', 'LOCATION:Hall\\, Street', 'DTSTART:20260110T100000Z', 'SUMMARY:Event', 'DTSTAMP:20270101T000000Z', 'UID:a']);
    const hash = (text: string) => read(text).events[0]!.hash;
    expect(hash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hash(reordered)).toBe(hash(a));
    expect(hash(a.replace('SUMMARY:Event', 'SUMMARY:Other'))).not.toBe(hash(a));
    expect(hash(a.replace('Hall', 'Room'))).not.toBe(hash(a));
    expect(hash(`${a.replace('END:VEVENT', 'CLASS:PRIVATE\r\nEND:VEVENT')}`)).not.toBe(hash(a));
  });

  test('without UID, one-time: the key is the SHA-256 of summary, start and location', () => {
    const r = read(calendar(['SUMMARY:Picnic', 'DTSTART:20260601T120000Z', 'LOCATION:Park']));
    expect(r.events[0]!.key).toBe(`sum:${createHash('sha256').update('Picnic|2026-06-01 12:00:00|Park').digest('hex')}`);
    expect(read(calendar(['SUMMARY:Picnic', 'DTSTART:20260601T120000Z']), { oneTime: false }).errors).toEqual([{ uid: '', message: 'missing UID' }]);
  });
});

// ------------------------------------------------------------------------------------------------ not iCalendar, hostile

describe('not iCalendar', () => {
  test.each([
    ['<!doctype html><html><body>Calendar</body></html>', 'it looks like HTML or XML'],
    ['{"events": []}', 'it looks like JSON'],
    ['', 'it is empty'],
    ['   \r\n ', 'it is empty'],
    ['BEGIN:VCARD\r\nEND:VCARD', 'it does not begin with BEGIN:VCALENDAR'],
  ])('%j fails the run', (text, why) => {
    expect(() => read(text)).toThrow(NotICalendarError);
    expect(() => read(text)).toThrow(`the source is not iCalendar: ${why}`);
  });

  test('a byte-order mark and LF line ends are fine', () => {
    expect(read(`\uFEFF${calendar(vevent('a', 'DTSTART:20260101T100000Z')).replace(/\r\n/g, '\n')}`).events).toHaveLength(1);
  });
});

describe('hostile input: errors, never exceptions, quickly', () => {
  const timed = (text: string, options: Partial<ReadOptions> = {}): { result: SourceRead; ms: number } => {
    const t0 = performance.now();
    const result = read(text, options);
    return { result, ms: performance.now() - t0 };
  };

  test('a 20 MB line', () => {
    const { result, ms } = timed(calendar(vevent('big', 'DTSTART:20260101T100000Z', `DESCRIPTION:${'x'.repeat(20_000_000)}`), vevent('ok', 'DTSTART:20260101T100000Z')));
    expect(result.errors).toEqual([{ uid: 'big', message: 'DESCRIPTION is longer than 100000 characters' }]);
    expect(result.events.map((e) => e.key)).toEqual(['uid:ok']);
    expect(ms).toBeLessThan(10_000);
  });

  test('components nested 100,000 deep, and 100,000 BEGIN lines never closed', () => {
    const deep = calendar([...vevent('deep', 'DTSTART:20260101T100000Z'), ...Array(100_000).fill('BEGIN:X'), ...Array(100_000).fill('END:X')]);
    const { result, ms } = timed(deep);
    expect(result.events.map((e) => e.key)).toEqual(['uid:deep']);
    const open = timed(`BEGIN:VCALENDAR\r\n${'BEGIN:VEVENT\r\n'.repeat(100_000)}`);
    expect(open.result.events).toEqual([]);
    expect(open.result.errors).toEqual([{ uid: '', message: expect.stringMatching(/^malformed VEVENT/) }]);
    expect(ms + open.ms).toBeLessThan(10_000);
  });

  test('30,000 VEVENTs, some malformed: the limit holds, every malformed one is an error', () => {
    const many = Array.from({ length: 30_000 }, (_, i) => (i % 1000 === 0 ? ['UID:bad', 'DTSTART;TZID="unclosed:20260101T100000'] : vevent(`e${i}`, `DTSTART:2026${String(1 + (i % 12)).padStart(2, '0')}01T100000Z`)));
    const { result, ms } = timed(calendar(...many));
    expect(result.events).toHaveLength(10_000);
    expect(result.errors.filter((e) => e.uid === 'bad')).toHaveLength(30);
    expect(result.errors.at(-1)).toEqual({ uid: '', message: 'the source has 29970 events; at most 10000 are imported per run (the first 10000 by start)' });
    expect(ms).toBeLessThan(20_000);
  });

  test('invalid dates', () => {
    const dates = ['20260230T100000Z', '2026XX01T100000', '20261301', '20260101T250000', '00000101T000000Z', '99991231T235959', 'garbage'];
    const { result } = timed(calendar(...dates.map((d, i) => vevent(`d${i}`, `DTSTART:${d}`))));
    expect(result.events.map((e) => e.key)).toEqual(['uid:d5']);
    expect(result.errors.map((e) => e.uid)).toEqual(['d0', 'd1', 'd2', 'd3', 'd4', 'd6']);
  });

  test('values of hostile types (UID or TZID as DATE-TIME, SUMMARY as DATE, garbage DURATION and UNTIL) fail their event only', () => {
    const zone = ['BEGIN:VTIMEZONE', 'TZID;VALUE=DATE-TIME:garbage', 'BEGIN:STANDARD', 'DTSTART:19700101T000000', 'TZOFFSETFROM:+0100', 'TZOFFSETTO:+0100',
      'END:STANDARD', 'END:VTIMEZONE'].join('\r\n');
    const text = calendar(
      ['UID;VALUE=DATE-TIME:garbage', 'SUMMARY:x', 'DTSTART:20260101T100000Z'],
      vevent('summary', 'DTSTART:20260101T100000Z').map((l) => (l === 'SUMMARY:Event' ? 'SUMMARY;VALUE=DATE:x' : l)),
      vevent('duration', 'DTSTART:20260101T100000Z', 'DURATION:garbage'),
      vevent('until', 'DTSTART:20260101T100000Z', 'RRULE:FREQ=DAILY;UNTIL=garbage'),
      vevent('ok', 'DTSTART:20260101T100000Z'),
    ).replace('BEGIN:VEVENT', `${zone}\r\nBEGIN:VEVENT`);
    const { result } = timed(text);
    expect(result.events.map((e) => e.key)).toContain('uid:ok');
    expect(result.errors.map((e) => e.uid)).toEqual(['summary', 'duration', 'until']);
  });

  test('long runs that would make a backtracking pattern quadratic: spaces in LOCATION, an address, a TZID', () => {
    const { result, ms } = timed(calendar(
      vevent('location', 'DTSTART:20260101T100000Z', `LOCATION:a${' '.repeat(300_000)}b`),
      vevent('organizer', 'DTSTART:20260101T100000Z', `ORGANIZER:mailto:a@${'b.'.repeat(150_000)}`),
      vevent('tzid', `DTSTART;TZID=/${'a/'.repeat(150_000)}:20260101T100000`),
    ));
    expect(result.events.map((e) => [e.key, e.fields.organizer ?? null])).toEqual([['uid:organizer', null]]);
    expect(result.errors).toEqual([{ uid: 'location', message: 'LOCATION is longer than 1000 characters' }, { uid: 'tzid', message: 'unknown time zone' }]);
    expect(ms).toBeLessThan(5_000);
  });

  test('a property with 200,000 parameters (ical.js reads parameters in quadratic time), folded or not', () => {
    const { result, ms } = timed(calendar(
      vevent('flat', 'DTSTART:20260101T100000Z', `X-FOO${';A=1'.repeat(200_000)}:v`),
      vevent('folded', 'DTSTART:20260101T100000Z', `X-FOO${'\r\n ;A="x:y"'.repeat(200_000)}:v`),
      vevent('ok', 'DTSTART:20260101T100000Z', 'ATTENDEE;CN="A: B";ROLE=CHAIR;PARTSTAT=ACCEPTED:mailto:a@example.org'),
    ));
    expect(result.events.map((e) => e.key)).toEqual(['uid:ok']);
    expect(result.errors).toEqual(['flat', 'folded'].map((uid) => ({ uid, message: 'malformed VEVENT: a property has more than 100 parameters' })));
    expect(ms).toBeLessThan(5_000);
  });

  test('a bare YYYYMMDD DTSTART without VALUE=DATE is read as a date, as node-ical reads it', () => {
    expect(read(calendar(vevent('d', 'DTSTART:20260101', 'DTEND:20260103'))).events[0]!.fields)
      .toMatchObject({ all_day: true, start_date: '2026-01-01 00:00:00', end_date: '2026-01-02 23:59:59' });
  });

  test('rules whose parts never meet: the first cost the service\'s evaluation limit, the rest are not evaluated', () => {
    const rules = Array.from({ length: 40 }, (_, i) => vevent(`r${i}`, 'DTSTART:20260101T100000Z', 'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30'));
    const { result, ms } = timed(calendar(...rules));
    expect(result.errors.length + result.events.length).toBe(40);
    expect(result.errors.every((e) => /too few dates/.test(e.message))).toBe(true);
    expect(result.events.every((e) => e.endUtc === '9999-12-31 23:59:59')).toBe(true);
    expect(ms).toBeLessThan(6_000);
  });

  test('VTIMEZONEs made to expand forever are not read; they are unknown time zones', () => {
    const zone = (tzid: string, rule: string) => ['BEGIN:VTIMEZONE', `TZID:${tzid}`, ...Array(3).fill(['BEGIN:STANDARD', 'DTSTART:00010101T000000',
      'TZOFFSETFROM:+0100', 'TZOFFSETTO:+0200', rule, 'END:STANDARD']).flat(), 'END:VTIMEZONE'].join('\r\n');
    const zones = [zone('Evil', 'RRULE:FREQ=SECONDLY'), ...Array.from({ length: 200 }, (_, i) => zone(`Y${i}`, 'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU'))];
    const text = calendar(vevent('evil', 'DTSTART;TZID=Evil:99990101T100000'), ...Array.from({ length: 200 }, (_, i) => vevent(`y${i}`, `DTSTART;TZID=Y${i}:99990101T100000`)))
      .replace('BEGIN:VEVENT', `${zones.join('\r\n')}\r\nBEGIN:VEVENT`);
    const { result, ms } = timed(text);
    expect(result.errors[0]).toEqual({ uid: 'evil', message: 'unknown time zone' });
    expect(result.errors.length + result.events.length).toBe(201);
    expect(result.errors.every((e) => e.message === 'unknown time zone')).toBe(true);
    expect(ms).toBeLessThan(10_000);
  });
});
