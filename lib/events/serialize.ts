/** The event wire shape of reference §4.1, key for key and in order, with contract §5 decisions. */
import type { RequestContext } from '../http/context.js';
import { htmlToText } from '../text/sanitize.js';
import { imageObject } from '../text/image.js';
import { dateDetails, isoWithOffset, siteWall } from '../time/format.js';
import { timezoneAbbr } from '../time/zones.js';
import { costDetails, formatCost } from './cost.js';
import { textOf, ticketProviders, type EventItem } from './record.js';
import {
  always, apiLink, arr, dateTime, emptyArray, globalIdLineageSchema, globalIdSchema, imageOrFalse, int, jsonLd, lockedBool, postStatus, ref, refd,
  sometimes, str, wireShape,
} from '../openapi/shape.js';

export type Json = Record<string, unknown>;

/** Linked records already serialised, by id (lib/events/embed.ts). */
export interface Embedded {
  venues: Map<number, Json>;
  organizers: Map<number, Json>;
  terms: Map<number, Json>;
  /** The attendance of the events the caller may edit (contract §19), in places. */
  attendance?: Map<number, Attendance>;
}

export interface Attendance {
  total_attendees: number;
  checked_in: number;
  not_checked_in: number;
}

export const noEmbeds = (): Embedded => ({ venues: new Map(), organizers: new Map(), terms: new Map() });

/** The cost an event shows: its own, else its tickets' (contract §19: "Free" for rsvp tickets only, as the add-on shows it). */
const shownCost = (item: EventItem): string[] => (item.cost.length ? item.cost : [...new Set([...(item.tkc ?? []), ...(item.tksc ?? [])])]);

const escapeHtmlAttr = (s: string): string => s.replace(/&(?!amp;)/g, '&amp;');

export const imageOf = (url: string | undefined): Json | false => imageObject(url) ?? false;

export function globalId(ctx: RequestContext, id: number): string {
  return `${ctx.host}?id=${id}`;
}

/** Embedded terms in WordPress' wp_get_post_terms order: by name. */
const termList = (ids: number[], embedded: Embedded): Json[] =>
  ids.map((id) => embedded.terms.get(id)).filter((t): t is Json => t !== undefined)
    .sort((a, b) => String(a.name).localeCompare(String(b.name)) || (a.id as number) - (b.id as number));

/** What an event's wire fields are computed from. */
interface EventView {
  item: EventItem;
  ctx: RequestContext;
  embedded: Embedded;
  url: string;
  gid: string;
  details: ReturnType<typeof costDetails>;
}

const BLANK_COST = { currency_symbol: '', currency_position: '', currency_code: '', values: [] };
const text = (field: 'title' | 'description' | 'excerpt') => (v: EventView) => textOf(v.item, v.ctx.lang, field);

/** The event's JSON (reference §4.1, key for key and in order) and its OpenAPI schema; `blank` values per §11.3. */
export const EVENT_SHAPE = wireShape<EventView>('An event (reference §4.1); the write-only password is never returned', {
  id: always(int('the event ID', { minimum: 1 }), (v) => v.item.id),
  global_id: always(globalIdSchema('event'), (v) => v.gid),
  global_id_lineage: always(globalIdLineageSchema(), (v) => [v.gid]),
  author: always(int('the author\'s user id (an integer, unlike the origin\'s numeric string)'), (v) => v.item.author),
  status: always(postStatus('event'), (v) => v.item.status),
  date: always(dateTime('publication date in the site time zone'), (v) => siteWall(v.item.dateUtc)),
  date_utc: always(dateTime('publication date in UTC'), (v) => v.item.dateUtc),
  modified: always(dateTime('last modification in the site time zone'), (v) => siteWall(v.item.modifiedUtc)),
  modified_utc: always(dateTime('last modification in UTC'), (v) => v.item.modifiedUtc),
  url: always(str('public page of the event', { format: 'uri' }), (v) => v.url),
  rest_url: always(apiLink('this event'), (v) => `${v.ctx.apiUrl}/events/${v.item.id}`),
  title: always(str('the event title, in the request language'), text('title')),
  description: always(str('the event description (sanitised HTML), in the request language'), text('description'), ''),
  excerpt: always(str('the event excerpt (sanitised HTML), in the request language; "" when not set'), text('excerpt'), ''),
  slug: always(str('the event slug'), (v) => v.item.slug),
  image: always(imageOrFalse('the featured image, or false when none'), (v) => imageOf(v.item.image), false),
  all_day: always(lockedBool('whether the event lasts whole days (00:00:00–23:59:59)'), (v) => v.item.allDay, null),
  start_date: always(dateTime('start, wall-clock time in the event time zone'), (v) => v.item.start),
  start_date_details: always(refd('DateDetails', 'parts of start_date'), (v) => dateDetails(v.item.start)),
  end_date: always(dateTime('end, wall-clock time in the event time zone'), (v) => v.item.end),
  end_date_details: always(refd('DateDetails', 'parts of end_date'), (v) => dateDetails(v.item.end)),
  utc_start_date: always(dateTime('start in UTC'), (v) => v.item.startUtc),
  utc_start_date_details: always(refd('DateDetails', 'parts of utc_start_date'), (v) => dateDetails(v.item.startUtc)),
  utc_end_date: always(dateTime('end in UTC'), (v) => v.item.endUtc),
  utc_end_date_details: always(refd('DateDetails', 'parts of utc_end_date'), (v) => dateDetails(v.item.endUtc)),
  timezone: always(str('the event time zone: an IANA name, UTC or UTC±H[:MM]', { example: 'Europe/Berlin' }), (v) => v.item.tz),
  timezone_abbr: always(str('abbreviation of the time zone at the start, e.g. CEST'), (v) => timezoneAbbr(v.item.tz, v.item.startUtc)),
  cost: always(str('the formatted cost, e.g. "$20" or "Free – 30$"; "" when none'),
    (v) => (shownCost(v.item).length ? formatCost(shownCost(v.item), v.details) : ''), ''),
  cost_details: always(refd('CostDetails', 'the parsed cost'), (v) => v.details, BLANK_COST),
  website: always(str('the event website; the public page when never set, "" when cleared'),
    (v) => (v.item.website === undefined ? v.url : escapeHtmlAttr(v.item.website)), ''),
  show_map: always(lockedBool('whether to show a map of the venue'), (v) => v.item.showMap, null),
  show_map_link: always(lockedBool('whether to show a link to a map of the venue'), (v) => v.item.showMapLink, null),
  hide_from_listings: always(lockedBool('true keeps the event out of every list'), (v) => v.item.hidden, null),
  sticky: always(lockedBool('whether the event sticks to the top of month views'), (v) => v.item.sticky, null),
  featured: always(lockedBool('whether the event is featured'), (v) => v.item.featured, null),
  categories: always(arr(ref('EventTerm'), 'the event categories, by name'), (v) => termList(v.item.categories, v.embedded), []),
  tags: always(arr(ref('EventTerm'), 'the event tags, by name'), (v) => termList(v.item.tags, v.embedded), []),
  venue: always({ oneOf: [ref('Venue'), { type: 'array', items: ref('Venue'), maxItems: 0 }], description: 'the linked venue, or [] when there is none' },
    (v) => (v.item.venue !== undefined ? v.embedded.venues.get(v.item.venue) : undefined) ?? [], []),
  organizer: always(arr(ref('Organizer'), 'the linked organizers in link order ([] when none)'),
    (v) => v.item.organizers.map((id) => v.embedded.organizers.get(id)).filter(Boolean), []),
  custom_fields: always(emptyArray('always [] (no additional fields)'), () => [], []),
  recurrence: always(arr(str('an RFC 5545 line: RRULE, RDATE or EXDATE'), 'a series\' recurrence lines; [] for single events and '
    + 'occurrences'), (v) => v.item.rec ?? [], []),
  series_id: always(int('on an occurrence, the id of its series; else 0', { minimum: 0 }), (v) => v.item.series ?? 0, 0),
  original_start_date: always(str('on an occurrence, its scheduled wall-clock start in the event time zone (YYYY-MM-DD HH:MM:SS); '
    + 'else ""'), (v) => v.item.orig ?? '', ''),
  ticketed: always({ oneOf: [{ type: 'boolean', enum: [false] }, arr(str('a ticket provider', { enum: ['external', 'rsvp'] }), 'the providers')],
    description: 'false, or the sorted providers of the event\'s tickets (its series\' included), e.g. ["rsvp"]' },
  (v) => { const p = ticketProviders(v.item); return p.length ? p : false; }, false),
  attendance: sometimes(refd('Attendance', 'places reserved on the event\'s rsvp tickets; only for callers who may edit the event'),
    (v) => v.embedded.attendance?.get(v.item.id)),
  // Added by single-event GETs (eventJsonLd), after the other fields.
  json_ld: sometimes(jsonLd('Event'), () => undefined),
});

/** An occurrence's page below its series' (contract §13): its original day, and its time when the day has two. */
const occurrencePath = (item: EventItem): string => (item.orig === undefined ? ''
  : `${item.orig.slice(0, 10)}${item.sameDay ? `-${item.orig.slice(11, 13)}${item.orig.slice(14, 16)}` : ''}/`);

/** The event's public page (contract §5, §13). */
export const eventUrl = (item: EventItem, ctx: RequestContext): string =>
  `${ctx.siteUrl}/event/${encodeURIComponent(item.slug)}/${occurrencePath(item)}`;

/** The event as the API shows it; `blank` for a password-protected event the caller has not unlocked. */
export function serializeEvent(item: EventItem, ctx: RequestContext, embedded: Embedded = noEmbeds(), opts: { blank?: boolean } = {}): Json {
  const url = eventUrl(item, ctx);
  return EVENT_SHAPE.render({ item, ctx, embedded, url, gid: globalId(ctx, item.id), details: costDetails(shownCost(item)) }, opts);
}

/** schema.org Event for single GETs (reference §4.1 `json_ld`). */
export function eventJsonLd(item: EventItem, ctx: RequestContext, wire: Json): Json {
  const ld: Json = {
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: textOf(item, ctx.lang, 'title'),
    description: htmlToText(textOf(item, ctx.lang, 'excerpt') || textOf(item, ctx.lang, 'description')),
    inLanguage: ctx.lang,
    url: wire.url,
    eventStatus: 'https://schema.org/EventScheduled',
    startDate: isoWithOffset(item.start, item.tz),
    endDate: isoWithOffset(item.end, item.tz),
  };
  if (item.image) ld.image = item.image;
  const venue = wire.venue as Json | [];
  if (!Array.isArray(venue) && venue.json_ld) ld.location = venue.json_ld;
  const organizers = (wire.organizer as Json[]).map((o) => o.json_ld).filter(Boolean);
  if (organizers.length) ld.organizer = organizers.length === 1 ? organizers[0] : organizers;
  const details = wire.cost_details as { values: string[] };
  const prices = details.values.filter((v) => /^\d+(\.\d+)?$/.test(v));
  if (prices.length) {
    ld.offers = prices.map((price) => ({ '@type': 'Offer', price, url: wire.url, category: 'primary' }));
  }
  return ld;
}
