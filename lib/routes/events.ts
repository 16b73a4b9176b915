/** The /events routes (reference §6, §9.1, §10.1; contract §5–§7). */
import { ParamError } from '../model/errors.js';
import { validateFilterDate } from '../time/list-bounds.js';
import {
  boolParam, checking, contextParam, forceParam, idParam, page, param, passwordRead, perPage, requiredWhen, resolving, search,
  slugParam, statusFilter, statusWrite, translationLanguage, withDefault, geoParams,
} from './common.js';
import type { LinkInput, LinkRef } from '../model/links.js';
import { MAX_LIST, parseBoolean, parseEnum, parseIdList, parseList, parsePositiveInt, parseString, parseUrl, TEXT_LIMITS } from './parsers.js';
import type { AnyParam, OperationSpec, ParamValues, RecordRefParams, RouteSpec, Schema } from './types.js';
import { dateInput, NOT_BLANK, queryList, text, urlOrEmpty } from './schemas.js';
import { normalizeTimezone } from '../time/zones.js';
import { parseInstant } from '../time/parse.js';

const dateFilter = <N extends string>(name: N, description: string) =>
  param(name, 'query', `${description} (a date, date and time, Unix timestamp or phrase such as "tomorrow")`,
    dateInput(), validateFilterDate);

/** ids or slugs of terms; resolved to ids by the pipeline. */
const termFilter = <N extends 'categories' | 'tags'>(name: N, kind: 'category' | 'tag') =>
  resolving(param(name, 'query', `${kind} ids or slugs; events in any of them`, queryList(text(TEXT_LIMITS.other, { allowEmpty: true })),
    (v) => parseList(v).map((i) => (typeof i === 'number' ? i : parseString(i)))), kind);

/** The filters of /events: every list parameter but paging (the feed takes them too, contract §14). */
const eventFilterParams = [
  dateFilter('start_date', 'events that start on or after this day'),
  dateFilter('end_date', 'events that end on or before this day'),
  dateFilter('starts_before', 'events that start before this day'),
  dateFilter('starts_after', 'events that start after this day'),
  dateFilter('ends_before', 'events that end before this day'),
  dateFilter('ends_after', 'events that end after this day'),
  withDefault(param('strict_dates', 'query', 'true compares the exact times given instead of whole days', { type: 'boolean', default: false },
    parseBoolean), false),
  search('title, description and excerpt'),
  termFilter('categories', 'category'),
  termFilter('tags', 'tag'),
  resolving(param('venue', 'query', 'venue ids; events at any of them', queryList({ type: 'integer', minimum: 1 }), parseIdList), 'venue'),
  resolving(param('organizer', 'query', 'organizer ids; events by any of them', queryList({ type: 'integer', minimum: 1 }), parseIdList),
    'organizer'),
  boolParam('featured', 'true: only featured events; false: only events that are not featured', 'query'),
  statusFilter('event'),
  ...geoParams('events'),
  param('include', 'query', 'only these event ids (the date window is ignored)', queryList({ type: 'integer', minimum: 1 }),
    parseIdList),
  resolving(param('post_parent', 'query', 'events whose parent is this event', { type: 'integer', minimum: 1 }, (v) => parsePositiveInt(v)),
    'event'),
  boolParam('ticketed', 'true: only events with tickets (a series\' tickets count for its occurrences); false: only events without', 'query'),
  passwordRead,
  translationLanguage,
] as const;
export const eventListParams = [page, perPage, ...eventFilterParams] as const;
export type EventListParams = ParamValues<typeof eventListParams>;
export type EventFilterParams = ParamValues<typeof eventFilterParams>;

/** The most list entries a feed holds (contract §14); larger values are clamped, as per_page is (contract §2). */
export const MAX_FEED_LIMIT = 2000;
const feedLimit = withDefault(param('limit', 'query', `the most list entries the feed holds, earliest first (clamped to ${MAX_FEED_LIMIT}); `
  + 'a series counts once per listed occurrence', { type: 'integer', minimum: 1, default: 500 },
(v) => Math.min(parsePositiveInt(v), MAX_FEED_LIMIT)), 500);
export const eventFeedParams = [...eventFilterParams, feedLimit] as const;
export type EventFeedParams = ParamValues<typeof eventFeedParams>;
const eventItemFeedParams = [idParam('event'), passwordRead, translationLanguage] as const;
export type EventItemFeedParams = ParamValues<typeof eventItemFeedParams>;

/** A venue: 0, null or "" clears; an id or {id} links; an object creates or reuses one (contract §7). */
function parseVenueInput(v: unknown): LinkInput {
  if (v === null || v === '' || v === 0 || v === '0' || (Array.isArray(v) && v.length === 0)) return { clear: true };
  // A one-element list is what the origin's clients send (`venue: [12]`); an event has one venue.
  if (Array.isArray(v)) {
    if (v.length > 1) throw new ParamError('must be one venue: an event has at most one');
    return parseVenueInput(v[0]);
  }
  if (typeof v === 'number' || (typeof v === 'string' && /^\s*\d+\s*$/.test(v))) return { id: parsePositiveInt(v) };
  if (typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (o.id !== undefined) return { id: parsePositiveInt(o.id) };
    return { inline: o };
  }
  throw new ParamError('must be a venue id, {"id": N}, a venue object, or 0 to remove the venue');
}

function parseOrganizerInput(v: unknown): LinkRef[] {
  if (v === null || v === '' || v === 0 || v === '0') return [];
  const items = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean)
    : typeof v === 'number' ? [v] : typeof v === 'object' ? (isOrganizerObject(v) ? [v] : Object.values(v as object)) : null;
  if (!items) throw new ParamError('must be a list of organizer ids, {"id": N} objects or organizer objects');
  if (items.length > MAX_LIST) throw new ParamError(`must hold at most ${MAX_LIST} entries`);
  return items.map((i): LinkRef => {
    if (typeof i === 'number' || (typeof i === 'string' && /^\d+$/.test(i))) return { id: parsePositiveInt(i) };
    if (i && typeof i === 'object' && !Array.isArray(i)) {
      const o = i as Record<string, unknown>;
      return o.id !== undefined ? { id: parsePositiveInt(o.id) } : { inline: o };
    }
    throw new ParamError('must be a list of organizer ids, {"id": N} objects or organizer objects');
  });
}

/** The ids among parsed venue/organizer inputs ({id} entries); inline objects are checked when created. */
const linkedIds = (inputs: LinkInput[]): number[] => inputs.flatMap((i) => ('id' in i ? [i.id] : []));

const isOrganizerObject = (v: object): boolean => 'organizer' in v || 'email' in v || 'phone' in v;

function parseTermsInput(v: unknown): (number | string)[] {
  if (v === '' || v === null || (Array.isArray(v) && v.length === 0)) return [];
  const items = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : typeof v === 'number' ? [v] : null;
  if (!items) throw new ParamError('must be a list of term ids, slugs or names');
  if (items.length > MAX_LIST) throw new ParamError(`must hold at most ${MAX_LIST} entries`);
  return items
    .map((i) => (typeof i === 'string' ? i.trim() : i))
    .filter((i) => i !== '')
    .map((i): number | string => {
      if (typeof i === 'number' && Number.isInteger(i) && i > 0) return i;
      if (typeof i === 'string') return /^\d+$/.test(i) ? Number(i) : parseString(i, TEXT_LIMITS.name);
      throw new ParamError('must be a list of term ids, slugs or names');
    });
}

function parseCost(v: unknown): string[] {
  if (v === null) return [];
  const items = Array.isArray(v) ? v : [v];
  return items.map((i) => {
    if (typeof i === 'number' && Number.isFinite(i)) return String(i);
    if (typeof i === 'string') return parseString(i, TEXT_LIMITS.other, { allowEmpty: true }).trim();
    throw new ParamError('must be a string or a list of strings');
  }).filter((s) => s !== '');
}

function parseImage(v: unknown): string {
  if (typeof v === 'number' || (typeof v === 'string' && /^\s*\d+\s*$/.test(v))) {
    throw new ParamError('must be an absolute image URL (there is no media library, so attachment ids are not accepted), or "" to remove it');
  }
  return parseUrl(v, { allowEmpty: true });
}

/** parseCost: a string or number, or a list of them; "", [] and null clear the cost. */
const COST_INPUT: Schema = {
  anyOf: [
    { type: 'string', maxLength: TEXT_LIMITS.other, nullable: true },
    { type: 'number' },
    { type: 'array', items: { anyOf: [{ type: 'string', maxLength: TEXT_LIMITS.other }, { type: 'number' }] } },
  ],
};

/** parseTermsInput: ids, slugs or names, as a list, a comma-separated string or one id; empty or null clears. */
const termsInput = (kind: string): Schema => ({
  anyOf: [
    { type: 'array', maxItems: MAX_LIST, items: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', maxLength: TEXT_LIMITS.name }] } },
    { type: 'string', nullable: true, description: `comma-separated ${kind} ids, slugs or names (at most ${MAX_LIST})` },
    { type: 'integer', minimum: 1 },
  ],
});

/** A venue or organizer given inline: the fields of its own create body, or {"id": N}. */
const linkedObject = (kind: string): Schema =>
  ({ type: 'object', additionalProperties: true, description: `{"id": N}, or a ${kind} object with the fields of POST /${kind}s` });

/** parseVenueInput: 0/""/"0"/[]/null clear; an id (number or digits), {id}, an object, or a one-element list of those. */
const VENUE_INPUT: Schema = {
  anyOf: [
    { type: 'integer', minimum: 0, nullable: true },
    { type: 'string', pattern: '^\\s*\\d*\\s*$' },
    linkedObject('venue'),
    { type: 'array', maxItems: 1, items: { anyOf: [{ type: 'integer', minimum: 0, nullable: true }, { type: 'string', pattern: '^\\s*\\d*\\s*$' },
      linkedObject('venue')] } },
  ],
};

/** parseOrganizerInput: a list (at most MAX_LIST) of ids, digit strings or objects; one of them; comma-separated ids; 0/""/null clear. */
const ORGANIZER_INPUT: Schema = {
  anyOf: [
    { type: 'array', maxItems: MAX_LIST, items: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^\\d+$' },
      linkedObject('organizer')] } },
    { type: 'integer', minimum: 0, nullable: true },
    { type: 'string', pattern: '^[\\s\\d,]*$', description: 'comma-separated organizer ids' },
    linkedObject('organizer'),
  ],
};

const writeDate = <N extends string>(name: N, description: string) =>
  param(name, 'body', `${description} (YYYY-MM-DD HH:MM:SS in the event time zone, ISO 8601, Unix timestamp or a phrase)`,
    dateInput(), (v): string | number => {
      parseInstant(v, 'UTC'); // format check only; the handler reads the value in the event's time zone
      return v as string | number; // parseInstant accepts only strings and numbers
    });

/** Event fields accepted on create and update; `requiredWhen` marks the create-only requirement. */
export function eventWriteParams(create: boolean) {
  return [
    requiredWhen(create, param('title', 'body', 'the event title', text(TEXT_LIMITS.title),
      (v) => parseString(v, TEXT_LIMITS.title).trim())),
    param('description', 'body', 'the event description (HTML, sanitised)', text(TEXT_LIMITS.description),
      (v) => parseString(v, TEXT_LIMITS.description)),
    param('excerpt', 'body', 'the event excerpt (HTML, sanitised)', text(TEXT_LIMITS.excerpt),
      (v) => parseString(v, TEXT_LIMITS.excerpt)),
    param('slug', 'body', 'the event slug (made unique with -2, -3…)', text(TEXT_LIMITS.name), (v) => parseString(v, TEXT_LIMITS.name)),
    statusWrite('event'),
    resolving(param('author', 'body', 'the author user id (editors only may set someone else)', { type: 'integer', minimum: 1 },
      (v) => parsePositiveInt(v)), 'user'),
    writeDate('date', 'the publication date'),
    writeDate('date_utc', 'the publication date in UTC'),
    requiredWhen(create, writeDate('start_date', 'the event start')),
    requiredWhen(create, writeDate('end_date', 'the event end')),
    param('timezone', 'body', 'an IANA time zone name, UTC or UTC±H[:MM]; default: the site time zone',
      { type: 'string', minLength: 1, pattern: NOT_BLANK },
      normalizeTimezone),
    boolParam('all_day', 'whether the event lasts whole days (times snap to 00:00:00–23:59:59)'),
    param('image', 'body', 'an absolute http(s) image URL, or "" to remove the image', urlOrEmpty(), parseImage),
    param('cost', 'body', 'the event cost, e.g. "15€" or ["0$", "20$"]; "", [] or null clears it', COST_INPUT, parseCost),
    param('website', 'body', 'the event website (absolute http(s) URL), or "" to clear it', urlOrEmpty(),
      (v) => parseUrl(v, { allowEmpty: true })),
    boolParam('show_map', 'whether to show a map of the venue'),
    boolParam('show_map_link', 'whether to show a link to a map of the venue'),
    boolParam('hide_from_listings', 'true keeps the event out of every list'),
    boolParam('sticky', 'whether the event sticks to the top of month views'),
    boolParam('featured', 'whether the event is featured'),
    param('categories', 'body', 'category ids, slugs or names (unknown names create categories; at most 20 per event), as a list or '
      + 'comma-separated; [], "" or null removes all', termsInput('category'), parseTermsInput),
    param('tags', 'body', 'tag ids, slugs or names (unknown names create tags; at most 20 per event), as a list or comma-separated; '
      + '[], "" or null removes all', termsInput('tag'), parseTermsInput),
    checking(param('venue', 'body', 'a venue id, {"id": N}, a one-element list of either, or a venue object to create (as the body of '
      + 'POST /venues); 0, "", [] or null removes the venue', VENUE_INPUT, parseVenueInput), 'venue', (v) => linkedIds([v])),
    checking(param('organizer', 'body', 'organizer ids, {"id": N} objects or organizer objects to create (as the body of POST '
      + '/organizers; at most 10 per event), as a list, one of them, or comma-separated ids; [], 0, "" or null removes all',
    ORGANIZER_INPUT, parseOrganizerInput), 'organizer', linkedIds),
    param('password', 'body', 'a password that readers must send to see the event; "" removes it', text(TEXT_LIMITS.other, { allowEmpty: true }),
      (v) => parseString(v, TEXT_LIMITS.other, { allowEmpty: true })),
    param('recurrence', 'body', 'makes the event a recurring series: RFC 5545 lines (at most one RRULE, any RDATE and EXDATE lines; '
      + '`;TZID=` and `;VALUE=DATE` allowed; times without a zone are read in the event time zone), or the object form '
      + '{"rules": [{"type": "every-week", "on": "monday", "end_type": "On", "end": "2027-06-30"}], "exclusions": [...]}; [] turns '
      + 'a series back into a single event. Not accepted on an occurrence.', RECURRENCE_INPUT, parseRecurrenceShape),
    translationLanguage,
  ] as const;
}

/**
 * The shape of `recurrence`; its lines are checked by the handler (lib/events/recurrence.ts), which evaluates them with an RFC
 * 5545 library that only the events function needs to bundle.
 */
function parseRecurrenceShape(v: unknown): unknown {
  if (v === null || typeof v === 'string' || (typeof v === 'object' && !Array.isArray(v))) return v;
  if (Array.isArray(v) && v.length <= 100 && v.every((l) => typeof l === 'string')) return v;
  throw new ParamError('must be a list of at most 100 RFC 5545 lines (strings), or a {"rules": [...]} object');
}

/** parseRecurrenceShape: RFC 5545 lines, the recurring-events add-on's object form, or [] / null for none. */
const RECURRENCE_INPUT: Schema = {
  anyOf: [
    { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 2000, description: 'e.g. RRULE:FREQ=WEEKLY;BYDAY=TU' } },
    { type: 'object', additionalProperties: true, description: 'the recurring-events add-on\'s form, translated into RFC 5545 lines', properties: {
      rules: { type: 'array', description: 'at most one repeating rule, and any dates (type "date")', items: { type: 'object', additionalProperties: true,
        description: 'one rule', properties: {
        type: { type: 'string', description: 'every-day, every-week, every-month, every-year or date (any letter case)' },
        on: { type: 'string', description: 'e.g. "first monday", "monday, friday" or "15"' },
        end_type: { type: 'string', description: 'never, On or After (any letter case)' },
        end: { type: 'string', description: 'the last day (YYYY-MM-DD) with end_type On' },
        end_count: { type: 'integer', minimum: 1, description: 'how many occurrences with end_type After' },
      } } },
      exclusions: { type: 'array', description: 'dates to leave out: "YYYY-MM-DD" or {"date": "YYYY-MM-DD"}', items: { anyOf: [{ type: 'string' }, { type: 'object', additionalProperties: true }] } },
    } },
    { type: 'string', nullable: true, description: 'RFC 5545 lines separated by line breaks' },
  ],
};

/** `?scope=following` on an update of an occurrence splits its series there (contract §13). */
const scopeParam = param('scope', 'query', 'following: on an occurrence, splits its series there (201 with the new series); '
  + 'only for occurrences', { type: 'string', enum: ['following'] }, parseEnum(['following'] as const));
export type EventWriteParams = ParamValues<ReturnType<typeof eventWriteParams>>;
export type EventUpdateParams = RecordRefParams & EventWriteParams & ParamValues<readonly [typeof scopeParam]>;

const readErrors = [400, 401, 403, 404];
const writeErrors = [400, 401, 403, 404, 412, 413];

const single = (idOrSlug: AnyParam, suffix: string): OperationSpec[] => [
  { id: `events.get${suffix}`, method: 'GET', summary: 'Returns one event', capability: 'public', success: 200,
    errors: readErrors, response: 'Event', params: [idOrSlug, passwordRead, contextParam, translationLanguage] },
  ...(['POST', 'PUT', 'PATCH'] as const).map((method): OperationSpec => ({
    id: `events.update${suffix}${method === 'POST' ? '' : `.${method.toLowerCase()}`}`, method,
    summary: 'Updates an event (only the fields sent change); with scope=following on an occurrence, splits its series there: 201 with the new series and its Location', capability: 'edit_posts', success: 200, errors: writeErrors,
    response: 'Event', params: [idOrSlug, ...eventWriteParams(false).filter((p) => !(suffix && p.name === 'slug')), scopeParam],
    alsoCreates: 'with scope=following on an occurrence, the new series that continues from it (Location names it)' })),
  { id: `events.delete${suffix}`, method: 'DELETE', summary: 'Moves an event to the trash, or deletes it with force=true',
    capability: 'edit_posts', success: 200, errors: [400, 401, 403, 404, 410, 412], response: 'Event',
    params: [idOrSlug, forceParam, translationLanguage] },
];

export const eventRoutes: RouteSpec[] = [
  {
    path: '/events', group: 'events', operations: [
      { id: 'events.list', method: 'GET', summary: 'Lists events in a date window', capability: 'public', success: 200,
        errors: [400, 401, 404], response: 'EventList', params: eventListParams },
      { id: 'events.create', method: 'POST', summary: 'Creates an event', capability: 'create_posts', success: 201,
        errors: [400, 401, 403, 413], response: 'Event', params: eventWriteParams(true) },
    ],
  },
  {
    path: '/events.ics', group: 'events', operations: [
      { id: 'events.listFeed', method: 'GET', summary: 'The events a list with these parameters would show, all pages, as an iCalendar '
        + 'feed (a series is one VEVENT with its rules); without date parameters the feed starts 30 days ago', capability: 'public',
      success: 200, errors: [400, 401], response: 'Calendar', mediaType: 'text/calendar', params: eventFeedParams },
    ],
  },
  {
    path: '/events/{id}.ics', group: 'events', operations: [
      { id: 'events.getFeed', method: 'GET', summary: 'One event, or a whole recurring series, as an iCalendar feed (an occurrence: '
        + 'one VEVENT with its series\' UID and a RECURRENCE-ID)', capability: 'public', success: 200, errors: [400, 401, 403, 404],
      response: 'Calendar', mediaType: 'text/calendar', params: eventItemFeedParams },
    ],
  },
  { path: '/events/{id}', group: 'events', operations: single(idParam('event'), '') },
  {
    path: '/events/{id}/occurrences', group: 'events', operations: [
      { id: 'events.occurrences', method: 'GET', summary: 'Lists the occurrences of a recurring series (of an occurrence: its series; of a '
        + 'single event: that event), with the /events date parameters, paging and envelope', capability: 'public', success: 200,
      errors: [400, 401, 404], response: 'EventList', params: [idParam('event'), ...eventListParams.filter((p) => p.name !== 'post_parent')] },
    ],
  },
  { path: '/events/by-slug/{slug}', group: 'events', operations: single(slugParam('event'), 'BySlug') },
];
