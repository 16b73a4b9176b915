/**
 * iCalendar imports (contract §20) over HTTP against DynamoDB Local, read by lib/imports/ics/. A file (content source) and a feed served by a loopback server: instants checked against an independent parse
 * (node-ical), all-day events, a series with an edited and a cancelled occurrence, venues with GEO, organizers,
 * categories, private events skipped and cancelled ones removed, events without UID (a one-time import keys them, a
 * scheduled one refuses them), a rerun answered 304 (every event unchanged, the validators sent), an event that left the
 * feed removed, and a source that is not iCalendar.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nodeIcal from 'node-ical';
import { eventsIn, finished, type Instance, rerun, startInstance, TARGET_ENV, TARGET_SECRET } from './helpers/imports.js';

const SLOW = 90_000;
let target: Instance;

beforeAll(async () => {
  target = await startInstance('imports-ics-target', TARGET_SECRET, TARGET_ENV);
}, 120_000);
afterAll(async () => {
  await target?.server.stop();
});

const CRLF = (lines: string[]) => `${lines.join('\r\n')}\r\n`;
const BERLIN = ['BEGIN:VTIMEZONE', 'TZID:Europe/Berlin', 'BEGIN:DAYLIGHT', 'TZOFFSETFROM:+0100', 'TZOFFSETTO:+0200', 'TZNAME:CEST',
  'DTSTART:19700329T020000', 'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU', 'END:DAYLIGHT', 'BEGIN:STANDARD', 'TZOFFSETFROM:+0200', 'TZOFFSETTO:+0100',
  'TZNAME:CET', 'DTSTART:19701025T030000', 'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU', 'END:STANDARD', 'END:VTIMEZONE'];
const event = (lines: string[]) => ['BEGIN:VEVENT', 'DTSTAMP:20340101T000000Z', ...lines, 'END:VEVENT'];

/** A calendar of its own: the cases this file checks, in 2027 (within the recurrence horizon: the series' occurrences exist). */
const CALENDAR = CRLF(['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calendar tests//imports//EN', ...BERLIN,
  ...event(['UID:concert@test', 'SUMMARY:Concert', 'DESCRIPTION:Doors at 7.\\nBring friends.', 'DTSTART;TZID=Europe/Berlin:20270305T200000',
    'DTEND;TZID=Europe/Berlin:20270305T223000', 'LOCATION:Harbour Stage\\, Pier 4\\, Hamburg', 'GEO:53.54;9.98',
    'ORGANIZER;CN=Acme Events:mailto:team@acme.example.org', 'CATEGORIES:Music,Live', 'URL:https://example.org/concert']),
  ...event(['UID:fair@test', 'SUMMARY:Book fair', 'DTSTART;VALUE=DATE:20270310', 'DTEND;VALUE=DATE:20270312']),
  ...event(['UID:class@test', 'SUMMARY:Weekly class', 'DTSTART;TZID=Europe/Berlin:20270320T090000', 'DTEND;TZID=Europe/Berlin:20270320T100000',
    'RRULE:FREQ=WEEKLY;COUNT=4']),
  ...event(['UID:class@test', 'RECURRENCE-ID;TZID=Europe/Berlin:20270327T090000', 'SUMMARY:Weekly class (room 2)',
    'DTSTART;TZID=Europe/Berlin:20270327T100000', 'DTEND;TZID=Europe/Berlin:20270327T110000']),
  ...event(['UID:class@test', 'RECURRENCE-ID;TZID=Europe/Berlin:20270403T090000', 'STATUS:CANCELLED', 'SUMMARY:Weekly class',
    'DTSTART;TZID=Europe/Berlin:20270403T090000', 'DTEND;TZID=Europe/Berlin:20270403T100000']),
  ...event(['UID:private@test', 'SUMMARY:Private dinner', 'CLASS:PRIVATE', 'DTSTART:20270306T180000Z', 'DTEND:20270306T200000Z']),
  ...event(['UID:cancelled@test', 'SUMMARY:Called off', 'STATUS:CANCELLED', 'DTSTART:20270307T180000Z', 'DTEND:20270307T200000Z']),
  ...event(['SUMMARY:No UID', 'DTSTART:20270308T180000Z', 'DTEND:20270308T190000Z']),
  'END:VCALENDAR']);

const fileImport = async (content: string, extra: Record<string, unknown> = {}) => {
  const res = await target.call('POST', '/imports', { name: `File ${Date.now()}`, source: { type: 'ics', content }, ...extra });
  if (res.status !== 202) throw new Error(`POST /imports: ${res.status} ${res.text}`);
  return finished(target, res.json.id);
};

describe('a file', () => {
  let imp: any;
  beforeAll(async () => {
    imp = await fileImport(CALENDAR);
  }, SLOW);

  test('imports its events at the instants an independent parser reads, counted', async () => {
    // concert, fair, the class series (one, with its edited occurrence), the one without UID (a one-time import keys it),
    // the private one skipped and the cancelled one never created.
    expect(imp.last_run).toMatchObject({ state: 'done', created: 4, failed: 0 });
    const events = await eventsIn(target, '2027-03-01', '2027-04-30');
    const parsed = Object.values(nodeIcal.sync.parseICS(CALENDAR) as Record<string, any>).filter((c) => c.type === 'VEVENT' && !c.recurrenceid);
    for (const title of ['Concert', 'No UID']) {
      const ours = events.find((e) => e.title === title)!;
      const theirs = parsed.find((c) => c.summary === title)!;
      expect([title, `${ours.utc_start_date.replace(' ', 'T')}.000Z`, `${ours.utc_end_date.replace(' ', 'T')}.000Z`])
        .toEqual([title, theirs.start.toISOString(), theirs.end.toISOString()]);
    }
    expect(events.map((e) => e.title)).not.toEqual(expect.arrayContaining(['Private dinner']));
    expect(events.map((e) => e.title)).not.toEqual(expect.arrayContaining(['Called off']));
  }, SLOW);

  test('maps the fields: description as paragraphs, all-day dates, venue with GEO, organizer, categories, website', async () => {
    const events = await eventsIn(target, '2027-03-01', '2027-04-30');
    const concert = events.find((e) => e.title === 'Concert')!;
    expect([concert.start_date, concert.timezone, concert.website]).toEqual(['2027-03-05 20:00:00', 'Europe/Berlin', 'https://example.org/concert']);
    expect(concert.description).toContain('Doors at 7.');
    expect(concert.venue).toMatchObject({ venue: 'Harbour Stage', geo_lat: 53.54, geo_lng: 9.98 });
    expect(concert.organizer.map((o: any) => [o.organizer, o.email])).toEqual([['Acme Events', 'team@acme.example.org']]);
    expect(concert.categories.map((c: any) => c.name).sort()).toEqual(['Live', 'Music']);
    const fair = events.find((e) => e.title === 'Book fair')!;
    expect([fair.all_day, fair.start_date, fair.end_date]).toEqual([true, '2027-03-10 00:00:00', '2027-03-11 23:59:59']);
  }, SLOW);

  test('a series with its edited occurrence and its cancelled one', async () => {
    const occurrences = (await eventsIn(target, '2027-03-01', '2027-04-30')).filter((e) => e.title.startsWith('Weekly class'));
    expect(occurrences.map((e) => [e.title, e.start_date])).toEqual([['Weekly class', '2027-03-20 09:00:00'],
      ['Weekly class (room 2)', '2027-03-27 10:00:00'], ['Weekly class', '2027-04-10 09:00:00']]);
    const series = await target.ok('GET', `/events/${occurrences[0].series_id}`);
    expect(series.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=4']);
  }, SLOW);

  test('a rerun of the same file writes nothing', async () => {
    const again = await rerun(target, imp.id);
    expect(again.last_run).toMatchObject({ state: 'done', created: 0, updated: 0, removed: 0, unchanged: again.last_run.total });
  }, SLOW);

  test('a text that is not iCalendar fails the run with a message saying so', async () => {
    const failed = await fileImport('<!doctype html><html><body>Not a calendar</body></html>');
    expect(failed.last_run).toMatchObject({ state: 'failed', message: expect.stringMatching(/iCalendar/i) });
  }, SLOW);
});

describe('real-world files', () => {
  const fixture = (name: string) => readFileSync(new URL(`../fixtures/ics/${name}`, import.meta.url), 'utf8');

  test.each(['meetup-geo.ics', 'outlook-windows-zones.ics', 'exchange-custom-tz.ics', 'google-kiev-recurrence-id.ics', 'sabredav-all-day.ics'])(
    '%s imports at the instants node-ical reads', async (name) => {
      const text = fixture(name);
      const imp = await fileImport(text);
      // Some files hold a broken VEVENT on purpose (the reader's own tests): each is an error, the rest imports.
      expect(imp.last_run).toMatchObject({ state: 'done', failed: imp.last_run.errors.length });
      const masters = Object.values(nodeIcal.sync.parseICS(text) as Record<string, any>)
        .filter((c) => c.type === 'VEVENT' && !c.recurrenceid && !c.rrule && c.start && c.datetype !== 'date');
      for (const theirs of masters) {
        const day = theirs.start.toISOString().slice(0, 10);
        const ours = (await eventsIn(target, day, day)).filter((e) => e.utc_start_date === theirs.start.toISOString().slice(0, 19).replace('T', ' '));
        expect([name, theirs.summary, ours.length]).toEqual([name, theirs.summary, 1]);
      }
    }, SLOW);
});

describe('a feed', () => {
  let server: Server;
  let feed: string;
  let text = CALENDAR;
  const seen: { inm?: string; ims?: string }[] = [];
  const ETAG = () => `"${Buffer.from(text).length}"`;

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ inm: req.headers['if-none-match'], ims: req.headers['if-modified-since'] });
      if (req.url === '/html') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>no</html>');
        return;
      }
      if (req.headers['if-none-match'] === ETAG()) {
        res.writeHead(304, { etag: ETAG() });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/calendar', etag: ETAG(), 'last-modified': 'Mon, 02 Jan 2034 10:00:00 GMT' });
      res.end(text);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    feed = `http://127.0.0.1:${(server.address() as AddressInfo).port}/calendar.ics`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test('scheduled: events without UID are refused; a rerun sends the validators and a 304 leaves every event unchanged', async () => {
    const res = await target.call('POST', '/imports', { name: 'Feed', source: { type: 'ics', url: feed }, schedule: 'daily',
      start_date: '2034-05-01', end_date: '2034-12-31' });
    expect(res.status).toBe(202);
    // The first run reads the calendar above (nothing in the window); then the feed changes.
    expect((await finished(target, res.json.id)).last_run).toMatchObject({ state: 'done', created: 0 });
    text = CRLF(['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//t//EN',
      ...event(['UID:may-1@test', 'SUMMARY:May one', 'DTSTART:20340501T180000Z', 'DTEND:20340501T190000Z']),
      ...event(['UID:may-2@test', 'SUMMARY:May two', 'DTSTART:20340502T180000Z', 'DTEND:20340502T190000Z']),
      ...event(['SUMMARY:May, no UID', 'DTSTART:20340503T180000Z', 'DTEND:20340503T190000Z']), 'END:VCALENDAR']);
    const first = await rerun(target, res.json.id);
    expect(first.last_run.errors).toEqual([{ uid: '', message: expect.stringMatching(/missing UID/) }]);
    expect((await eventsIn(target, '2034-05-01', '2034-05-31')).map((e) => e.title)).toEqual(['May one', 'May two']);
    const again = await rerun(target, res.json.id);
    expect(seen.at(-1)).toEqual({ inm: ETAG(), ims: 'Mon, 02 Jan 2034 10:00:00 GMT' });
    expect(again.last_run).toMatchObject({ state: 'done', unchanged: first.last_run.total, created: 0, updated: 0, removed: 0 });
    // An event that left the feed is removed; the other stays as it was.
    text = text.replace(/BEGIN:VEVENT\r\nDTSTAMP:20340101T000000Z\r\nUID:may-2@test[\s\S]*?END:VEVENT\r\n/, '');
    const after = await rerun(target, res.json.id);
    expect(after.last_run).toMatchObject({ removed: 1, created: 0, updated: 0 });
    expect((await eventsIn(target, '2034-05-01', '2034-05-31')).map((e) => e.title)).toEqual(['May one']);
  }, SLOW);

  test('an HTML page where a calendar was expected fails the run', async () => {
    const res = await target.call('POST', '/imports', { name: 'Page', source: { type: 'ics', url: feed.replace('/calendar.ics', '/html') } });
    const done = await finished(target, res.json.id);
    expect(done.last_run).toMatchObject({ state: 'failed', message: expect.stringMatching(/iCalendar/i) });
  }, SLOW);
});
