/**
 * The feeds' pure parts (contract §14): a series' recurrence written in its DTSTART's zone and type
 * (lib/events/feed-rules.ts), the zones a feed writes with their VTIMEZONEs, UIDs, and whole calendars read back by
 * ical.js (lib/events/feed-calendar.ts).
 */
import ICAL from 'ical.js';
import { resetConfig } from '../../lib/config.js';
import { feedCalendar, feedZone, uid, type FeedEvent } from '../../lib/events/feed-calendar.js';
import { seriesLines } from '../../lib/events/feed-rules.js';
import type { EventItem } from '../../lib/events/record.js';
import { noEmbeds } from '../../lib/events/serialize.js';
import type { RequestContext } from '../../lib/http/context.js';
import { wallToUtc } from '../../lib/time/format.js';

/** An event record with the fields a feed reads. */
function event(fields: Partial<EventItem> & { start: string; end: string; tz: string }): EventItem {
  return {
    PK: 'POST#1', SK: 'POST', kind: 'event', id: 1, v: 3, author: 1, status: 'publish', slug: 'e', tr: { en: { title: 'E' } }, lang0: 'en',
    dateUtc: '2027-01-01 00:00:00', modifiedUtc: '2027-01-02 00:00:00', allDay: false, cost: [], showMap: false, showMapLink: false,
    hidden: false, sticky: false, featured: false, organizers: [], categories: [], tags: [],
    startUtc: wallToUtc(fields.start, fields.tz), endUtc: wallToUtc(fields.end, fields.tz), ...fields,
  } as EventItem;
}

const berlin = (rec: string[], extra: Partial<EventItem> = {}) =>
  event({ start: '2027-03-02 18:00:00', end: '2027-03-02 19:00:00', tz: 'Europe/Berlin', rec, ...extra });

describe('seriesLines', () => {
  test('UNTIL in UTC beside a TZID, as the series stores it (its lines are canonical: UNTIL is always UTC there)', () => {
    expect(seriesLines(berlin(['RRULE:FREQ=WEEKLY;UNTIL=20270330T160000Z']), 'Europe/Berlin', []))
      .toEqual(['RRULE:FREQ=WEEKLY;UNTIL=20270330T160000Z']);
    expect(seriesLines(berlin(['RRULE:FREQ=WEEKLY;COUNT=4;BYDAY=TU']), 'Europe/Berlin', [])).toEqual(['RRULE:FREQ=WEEKLY;COUNT=4;BYDAY=TU']);
  });

  test('EXDATE and RDATE values in the series\' zone: dates at its start time, other zones and UTC converted, sorted, once', () => {
    const series = berlin(['RRULE:FREQ=WEEKLY;COUNT=10', 'EXDATE;VALUE=DATE:20270309', 'EXDATE;TZID=America/New_York:20270316T130000',
      'EXDATE:20270323T170000Z', 'RDATE;TZID=Europe/Berlin:20270304T120000,20270309T090000']);
    expect(seriesLines(series, 'Europe/Berlin', ['2027-04-06 18:00:00', '2027-03-16 18:00:00'])).toEqual([
      'RRULE:FREQ=WEEKLY;COUNT=10',
      // an RDATE on an excluded day goes with it
      'RDATE;TZID=Europe/Berlin:20270304T120000',
      'EXDATE;TZID=Europe/Berlin:20270309T180000,20270316T180000,20270323T180000,20270406T180000',
    ]);
  });

  test('written in UTC when the feed has no VTIMEZONE for the zone', () => {
    const series = event({ start: '2027-03-02 18:00:00', end: '2027-03-02 19:00:00', tz: 'UTC+5:30',
      rec: ['RRULE:FREQ=DAILY;UNTIL=20270310T123000Z', 'EXDATE:20270303T180000'] });
    expect(seriesLines(series, null, ['2027-03-04 18:00:00'])).toEqual([
      'RRULE:FREQ=DAILY;UNTIL=20270310T123000Z', 'EXDATE:20270303T123000Z,20270304T123000Z']);
  });

  test('all-day series: dates throughout, UNTIL too', () => {
    const series = event({ start: '2027-05-03 00:00:00', end: '2027-05-03 23:59:59', tz: 'America/New_York', allDay: true,
      rec: ['RRULE:FREQ=DAILY;UNTIL=20270510T035959Z', 'RDATE;VALUE=DATE:20270601', 'EXDATE;VALUE=DATE:20270505'] });
    expect(seriesLines(series, 'America/New_York', ['2027-05-07 00:00:00'])).toEqual([
      'RRULE:FREQ=DAILY;UNTIL=20270509', 'RDATE;VALUE=DATE:20270601', 'EXDATE;VALUE=DATE:20270505,20270507']);
  });

  test('a series of dates alone: a rule that yields its start only, so the RDATE line is never read as a rule', () => {
    expect(seriesLines(berlin(['RDATE;VALUE=DATE:20270310']), 'Europe/Berlin', []))
      .toEqual(['RRULE:FREQ=DAILY;COUNT=1', 'RDATE;TZID=Europe/Berlin:20270310T180000']);
  });
});

describe('zones', () => {
  test('IANA zones by the VTIMEZONE library\'s name; whole-hour offsets as Etc/GMT; UTC and offsets with minutes in UTC', () => {
    expect(feedZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(feedZone('UTC')).toBeNull();
    expect(feedZone('UTC+5')).toBe('Etc/GMT-5');
    expect(feedZone('UTC-3')).toBe('Etc/GMT+3');
    expect(feedZone('UTC+0')).toBeNull();
    expect(feedZone('UTC+5:30')).toBeNull();
  });
});

describe('uid', () => {
  afterEach(() => {
    delete process.env.CALENDAR_SITE_URL;
    resetConfig();
  });

  test('event-<id>@ the host of CALENDAR_SITE_URL, else "calendar"', () => {
    delete process.env.CALENDAR_SITE_URL;
    resetConfig();
    expect(uid(12)).toBe('event-12@calendar');
    process.env.CALENDAR_SITE_URL = 'https://events.example.org:8443/site/';
    resetConfig();
    expect(uid(12)).toBe('event-12@events.example.org:8443');
  });
});

describe('feedCalendar', () => {
  const ctx = { lang: 'en', siteUrl: 'https://site.example' } as RequestContext;
  const read = (text: string) => {
    const cal = new ICAL.Component(ICAL.parse(text));
    for (const tz of cal.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(tz);
    return cal.getAllSubcomponents('vevent').map((v) => new ICAL.Event(v));
  };

  test('times in an offset zone: its Etc/GMT VTIMEZONE; with minutes, exact instants in UTC', () => {
    const plus2 = event({ start: '2027-03-02 18:00:00', end: '2027-03-02 19:00:00', tz: 'UTC+2' });
    const plus530 = event({ id: 2, start: '2027-03-02 18:00:00', end: '2027-03-02 19:00:00', tz: 'UTC+5:30' });
    const text = feedCalendar([plus2, plus530].map((e): FeedEvent => ({ shows: e, record: e, locked: false })), noEmbeds(), ctx, 'Events');
    expect(text).toContain('DTSTART;TZID=Etc/GMT-2:20270302T180000\r\n');
    expect(text).toContain('BEGIN:VTIMEZONE\r\nTZID:Etc/GMT-2\r\n');
    expect(text).toContain('DTSTART:20270302T123000Z\r\n');
    expect(read(text).map((e) => e.startDate.toJSDate().toISOString())).toEqual(['2027-03-02T16:00:00.000Z', '2027-03-02T12:30:00.000Z']);
  });

  test('SEQUENCE is the version less one; DTSTAMP and LAST-MODIFIED the modification; a locked event keeps its summary', () => {
    const e = event({ start: '2027-03-02 18:00:00', end: '2027-03-02 19:00:00', tz: 'UTC', v: 3, pw: 'x',
      tr: { en: { title: 'Closed', description: '<p>Hidden</p>' } } });
    const text = feedCalendar([{ shows: e, record: e, locked: true }], noEmbeds(), ctx, 'Events');
    expect(text).toContain('SEQUENCE:2\r\n');
    expect(text).toContain('DTSTAMP:20270102T000000Z\r\n');
    expect(text).toContain('LAST-MODIFIED:20270102T000000Z\r\n');
    expect(text).toContain('SUMMARY:Closed\r\n');
    expect(text).not.toContain('Hidden');
  });

  test('an all-day occurrence of a timed series keeps the series\' zone for its RECURRENCE-ID', () => {
    const series = berlin(['RRULE:FREQ=WEEKLY;COUNT=3']);
    const occurrence = event({ id: 5, series: 1, orig: '2027-03-09 18:00:00', start: '2027-03-09 00:00:00', end: '2027-03-09 23:59:59',
      tz: 'Europe/Berlin', allDay: true });
    const text = feedCalendar([{ shows: series, record: series, series, hidden: [], locked: false },
      { shows: occurrence, record: occurrence, series, recurrenceId: occurrence.orig, locked: false }], noEmbeds(), ctx, 'Events');
    expect(text).toContain('RECURRENCE-ID;TZID=Europe/Berlin:20270309T180000\r\n');
    expect(text).toContain('DTSTART;VALUE=DATE:20270309\r\n');
    const [main, exception] = read(text);
    main!.relateException(exception!);
    const it = main!.iterator();
    const days: string[] = [];
    for (let next = it.next(); next; next = it.next()) days.push(main!.getOccurrenceDetails(next).startDate.toString());
    expect(days).toEqual(['2027-03-02T18:00:00', '2027-03-09', '2027-03-16T18:00:00']);
  });
});
