/**
 * Writes a feed's iCalendar text (contract §14) with ical-generator, which ends lines in CRLF, folds them at 75 octets
 * (never inside a UTF-8 character) and escapes text as RFC 5545 says; the VTIMEZONE of each zone used comes from
 * timezones-ical-library. Nothing here depends on the time of the request, so an unchanged feed is byte-identical.
 */
import { TZDate } from '@date-fns/tz/date';
import ical, { escape, type ICalCalendarMethod, type ICalEventData, type ICalEventStatus, type ICalLocation } from 'ical-generator';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import { config } from '../config.js';
import type { RequestContext } from '../http/context.js';
import type { Language } from '../model/language.js';
import type { PostStatus } from '../model/status.js';
import { htmlToText } from '../text/sanitize.js';
import { wallToUtc, type Wall } from '../time/format.js';
import { seriesLines } from './feed-rules.js';
import { textOf, type EventItem } from './record.js';
import { eventUrl, type Embedded, type Json } from './serialize.js';

/** One VEVENT. */
export interface FeedEvent {
  /** The record whose text, links and status it shows. */
  shows: EventItem;
  /** The record whose dates, version and page it has: a series' master, the series; else the same as `shows`. */
  record: EventItem;
  /** The series it belongs to: its UID, and the zone and value type of its recurrence values. */
  series?: EventItem;
  /** A series' master: the original starts (walls in its zone) of the occurrences its reader does not see (EXDATE). */
  hidden?: Wall[];
  /** An occurrence shown apart from its series' rule: its original start, a wall in the series' zone. */
  recurrenceId?: Wall;
  /** Password-protected and not unlocked: summary, dates, URL and status only (contract §14). */
  locked: boolean;
}

const CALENDAR_NAMES: Record<Language, string> = { en: 'Events', de: 'Veranstaltungen', 'pt-pt': 'Eventos' };
export const calendarName = (lang: Language): string => CALENDAR_NAMES[lang];

const STATUS: Record<PostStatus, `${ICalEventStatus}`> = {
  publish: 'CONFIRMED', private: 'CONFIRMED', draft: 'TENTATIVE', pending: 'TENTATIVE', future: 'TENTATIVE', trash: 'CANCELLED',
};

/** How often subscribers should fetch the feed again (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
const REFRESH_SECONDS = 3600;

/** The iCalendar text of a feed named `name` (X-WR-CALNAME). */
export function feedCalendar(events: FeedEvent[], embeds: Embedded, ctx: RequestContext, name: string): string {
  const calendar = ical({
    prodId: { company: 'Calendar Events API', product: 'calendar/events/v1', language: 'EN' },
    method: 'PUBLISH' as ICalCalendarMethod,
    // (ical-generator writes the name as it is given)
    name: escape(name, false),
    ttl: REFRESH_SECONDS,
    // No calendar zone (DTSTAMP, CREATED and LAST-MODIFIED stay in UTC); a VTIMEZONE for each zone the events use.
    timezone: { name: null, generator: vtimezone },
  });
  for (const event of events) calendar.createEvent(vevent(event, embeds, ctx));
  // Every content line ends in CRLF (RFC 5545 §3.1); ical-generator leaves the last one, END:VCALENDAR, without.
  return `${calendar.toString()}\r\n`;
}

function vevent(event: FeedEvent, embeds: Embedded, ctx: RequestContext): ICalEventData {
  const { shows, record, series } = event;
  const tzid = feedZone((series ?? record).tz);
  const data: ICalEventData = {
    id: uid(series?.id ?? record.id),
    // Every write of a record raises its version, so its SEQUENCE grows with every change of its dates (and of others).
    sequence: Math.max(0, record.v - 1),
    stamp: instant(record.modifiedUtc),
    lastModified: instant(record.modifiedUtc),
    created: instant(record.dateUtc),
    ...times(record, tzid, series?.allDay ?? record.allDay),
    summary: textOf(shows, ctx.lang, 'title'),
    url: eventUrl(record, ctx),
    status: STATUS[shows.status] as ICalEventStatus,
  };
  if (event.hidden) data.repeating = seriesLines(record, tzid, event.hidden).join('\r\n');
  if (event.recurrenceId !== undefined) Object.assign(data, recurrenceId(event.recurrenceId, series ?? record, tzid));
  return event.locked ? data : { ...data, ...details(shows, embeds, ctx) };
}

/**
 * DTSTART and DTEND: date-times in the zone's TZID (or UTC); all-day events as dates, the end exclusive. An all-day
 * occurrence of a timed series keeps the series' zone, which its RECURRENCE-ID is written in.
 */
function times(record: EventItem, tzid: string | null, seriesAllDay: boolean):
  { start: Date; end: Date; timezone: string | null; allDay?: true } {
  if (!record.allDay) return { start: at(record.startUtc, tzid), end: at(record.endUtc, tzid), timezone: tzid };
  const zone = seriesAllDay ? null : tzid;
  return { allDay: true, start: day(record.start, zone), end: day(record.end, zone, 1), timezone: zone };
}

/**
 * RECURRENCE-ID in the zone and value type of the series' DTSTART. ical-generator writes it as a date-time only; an
 * all-day series' is a date (RFC 5545 §3.8.4.4), written as a property of the event's own (its name needs no case).
 */
function recurrenceId(orig: Wall, series: EventItem, tzid: string | null): Partial<ICalEventData> {
  if (series.allDay) return { x: [['RECURRENCE-ID;VALUE=DATE', orig.slice(0, 10).replace(/-/g, '')]] };
  return { recurrenceId: at(wallToUtc(orig, series.tz), tzid) };
}

/** What a locked event leaves out: DESCRIPTION, LOCATION, ORGANIZER (the first organizer with an e-mail), CATEGORIES. */
function details(item: EventItem, embeds: Embedded, ctx: RequestContext): Partial<ICalEventData> {
  const description = htmlToText(textOf(item, ctx.lang, 'description'));
  const venue = item.venue !== undefined ? embeds.venues.get(item.venue) : undefined;
  const location = venue ? locationOf(venue) : null;
  const organizer = item.organizers.map((id) => embeds.organizers.get(id)).find((o) => typeof o?.email === 'string' && o.email !== '');
  const categories = item.categories.map((id) => embeds.terms.get(id)?.name).filter((n): n is string => typeof n === 'string' && n !== '')
    .sort((a, b) => a.localeCompare(b));
  return {
    ...(description ? { description } : {}),
    ...(location ? { location } : {}),
    ...(organizer ? { organizer: { name: String(organizer.organizer || organizer.email), email: String(organizer.email) } } : {}),
    ...(categories.length ? { categories: categories.map((name) => ({ name })) } : {}),
  };
}

/** The venue's name and its address on one line. */
function locationOf(venue: Json): ICalLocation | null {
  const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
  const address = ['address', 'city', 'stateprovince', 'zip', 'country'].map((k) => text(venue[k])).filter(Boolean).join(', ');
  const title = text(venue.venue) || address;
  if (!title) return null;
  // GEO (contract §14, §18) when the venue has coordinates.
  const lat = venue.geo_lat;
  const lon = venue.geo_lng;
  const geo = typeof lat === 'number' && typeof lon === 'number' && !(lat === 0 && lon === 0) ? { geo: { lat, lon } } : {};
  return title === address || !address ? { title, ...geo } : { title, address, ...geo };
}

/** `event-<series or event id>@<CALENDAR_SITE_URL host, else "calendar">`: the same whoever asks, and however. */
export function uid(id: number): string {
  return `event-${id}@${siteHost()}`;
}

function siteHost(): string {
  const site = config().siteUrl;
  if (!site) return 'calendar';
  try {
    return new URL(site).host || 'calendar';
  } catch {
    return 'calendar';
  }
}

const instant = (utcWall: Wall): Date => new Date(`${utcWall.replace(' ', 'T')}Z`);
/** An instant in the zone of `tzid` (or in UTC). */
const at = (utcWall: Wall, tzid: string | null): Date => (tzid ? new TZDate(instant(utcWall).getTime(), tzid) : instant(utcWall));
/** The day of a wall (plus `add` days) as midnight in the zone of `tzid`, or in UTC (ical-generator writes its date). */
function day(wall: Wall, tzid: string | null, add = 0): Date {
  const d = new Date(Date.UTC(Number(wall.slice(0, 4)), Number(wall.slice(5, 7)) - 1, Number(wall.slice(8, 10)) + add));
  return tzid ? new TZDate(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), tzid) : d;
}

// ------------------------------------------------------------------------------------------------ zones

/** The TZID each event zone is written with; null: in UTC. */
const zones = new Map<string, string | null>();

/**
 * The TZID a zone's times are written with, whose VTIMEZONE the feed carries: the zone's own name as the VTIMEZONE
 * library spells it, Etc/GMT∓H for a whole-hour offset (Etc/GMT-5 is UTC+5). Null — times in UTC, exact instants — for
 * UTC itself, offsets with minutes and zones the library does not know (a rule of such a series runs in UTC there).
 */
export function feedZone(tz: string): string | null {
  let tzid = zones.get(tz);
  if (tzid === undefined) {
    tzid = vtimezoneTzid(tz);
    if (zones.size < 1000) zones.set(tz, tzid);
  }
  return tzid;
}

function vtimezoneTzid(tz: string): string | null {
  if (tz === 'UTC') return null;
  let name = tz;
  if (tz.startsWith('UTC')) {
    // UTC±H[:MM] (lib/time/zones.ts)
    const whole = /^UTC([+-])(\d{1,2})$/.exec(tz);
    if (!whole || whole[2] === '0') return null;
    name = `Etc/GMT${whole[1] === '+' ? '-' : '+'}${whole[2]}`;
  }
  const block = tzlib_get_ical_block(name);
  return Array.isArray(block) && block[0] ? block[1]!.replace(/^TZID=/, '') : null;
}

/** The VTIMEZONE of a TZID that feedZone gave. */
function vtimezone(tzid: string): string | null {
  const block = tzlib_get_ical_block(tzid);
  return Array.isArray(block) && block[0] ? block[0] : null;
}
