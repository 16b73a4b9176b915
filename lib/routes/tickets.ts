/** The /tickets, /events/{id}/tickets and /attendees routes (contract §19). */
import { ParamError } from '../model/errors.js';
import { boolParam, forceParam, idParam, page, param, perPage, required, requiredWhen, translationLanguage, withDefault } from './common.js';
import { parseEnum, parseNumber, parsePositiveInt, parseString, parseUrl, TEXT_LIMITS } from './parsers.js';
import { text } from './schemas.js';
import type { OperationSpec, ParamValues, RouteSpec } from './types.js';

export const PROVIDERS = ['rsvp', 'external'] as const;
export const MAX_QUANTITY = 10;

const wall = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const siteDate = <N extends string>(name: N, what: string) =>
  param(name, 'body', `${what} (YYYY-MM-DD HH:MM:SS in the site time zone); "" returns to the default`,
    { type: 'string', pattern: '^\\s*(\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2})?\\s*$' }, (v): string => {
      const s = parseString(v, 19, { allowEmpty: true }).trim();
      if (s !== '' && !wall.test(s)) throw new ParamError('must be YYYY-MM-DD HH:MM:SS, or "" for the default');
      return s;
    });

const eventRef = (name: 'post_id' | 'event_id' | 'event' | 'include_post', what: string) =>
  param(name, name === 'post_id' || name === 'event_id' ? 'body' : 'query', what, { type: 'integer', minimum: 1 }, (v) => parsePositiveInt(v));

export function ticketWriteParams(create: boolean) {
  return [
    requiredWhen(create, eventRef('post_id', 'the event the ticket belongs to: a single event, an occurrence or a series (fixed after create)')),
    param('provider', 'body', 'rsvp (default): free places reserved through this API; external: sold elsewhere, at url',
      { type: 'string', enum: PROVIDERS }, parseEnum(PROVIDERS)),
    requiredWhen(create, param('title', 'body', 'the ticket title', text(TEXT_LIMITS.name), (v) => parseString(v, TEXT_LIMITS.name).trim())),
    param('description', 'body', 'the ticket description (HTML, sanitised)', text(TEXT_LIMITS.other, { allowEmpty: true }),
      (v) => parseString(v, TEXT_LIMITS.other, { allowEmpty: true })),
    param('price', 'body', 'the price (≥ 0); an rsvp ticket\'s is 0', { anyOf: [{ type: 'number', minimum: 0 }, { type: 'string', pattern: '^\\s*\\d+(\\.\\d+)?\\s*$' }] }, (v) => {
      const n = parseNumber(v);
      if (!(n >= 0) || n > 1e9) throw new ParamError('must be a number from 0');
      return n;
    }),
    param('currency', 'body', 'ISO 4217 currency code; default CALENDAR_CURRENCY', { type: 'string', pattern: '^[A-Za-z]{3}$' }, (v) => {
      const s = parseString(v, 3).toUpperCase();
      if (!/^[A-Z]{3}$/.test(s)) throw new ParamError('must be an ISO 4217 code such as EUR');
      return s;
    }),
    param('url', 'body', 'where an external ticket is sold (absolute http(s) URL)', { type: 'string', format: 'uri' }, (v) => parseUrl(v)),
    param('capacity', 'body', 'places (integer ≥ 1), or -1 for unlimited (default)', { type: 'integer', minimum: -1 }, (v) => {
      const n = parseNumber(v);
      if (!Number.isInteger(n) || (n < 1 && n !== -1) || n > 1_000_000) throw new ParamError('must be an integer from 1 to 1000000, or -1 for unlimited');
      return n;
    }),
    siteDate('available_from', 'when reservations open; default: the ticket\'s creation'),
    siteDate('available_until', 'when reservations close; default: the event\'s start (for a series ticket, each occurrence\'s)'),
    translationLanguage,
  ] as const;
}
export type TicketWriteParams = ParamValues<ReturnType<typeof ticketWriteParams>>;

const ticketReadParams = [idParam('ticket'), eventRef('event', 'for a series ticket: the occurrence whose places to show'), translationLanguage] as const;
export type TicketReadParams = ParamValues<typeof ticketReadParams>;

const ticketListParams = [page, perPage, eventRef('event', 'only the tickets of this event (an occurrence: its own and its series\')'),
  eventRef('include_post', 'alias of event'),
  param('provider', 'query', 'only tickets of this provider', { type: 'string', enum: PROVIDERS }, parseEnum(PROVIDERS)),
  boolParam('is_available', 'only tickets that can (true) or cannot (false) be reserved or bought now', 'query'), translationLanguage] as const;
export type TicketListParams = ParamValues<typeof ticketListParams> & { id?: number };

const quantity = param('quantity', 'body', `places, 1 to ${MAX_QUANTITY}`, { type: 'integer', minimum: 1, maximum: MAX_QUANTITY }, (v) => {
  const n = parseNumber(v);
  if (!Number.isInteger(n) || n < 1 || n > MAX_QUANTITY) throw new ParamError(`must be an integer from 1 to ${MAX_QUANTITY}`);
  return n;
});
const token = param('token', 'query', 'the reservation\'s secret token, from the answer that created it', { type: 'string', maxLength: 200 },
  (v) => parseString(v, 200));

const attendeeCreateParams = [
  required(param('ticket_id', 'body', 'the rsvp ticket', { type: 'integer', minimum: 1 }, (v) => parsePositiveInt(v))),
  eventRef('event_id', 'the occurrence, for a series ticket (required then); else the ticket\'s event, or left out'),
  required(param('name', 'body', 'the attendee\'s name', text(TEXT_LIMITS.name), (v) => parseString(v, TEXT_LIMITS.name).trim())),
  required(param('email', 'body', 'the attendee\'s email address', { type: 'string', format: 'email', maxLength: 254 }, (v) => {
    const s = parseString(v, 254).trim();
    if (!/^[^\s@<>"',;]+@[^\s@<>"',;]+\.[^\s@<>"',;]+$/.test(s)) throw new ParamError('must be a valid email address');
    return s;
  })),
  withDefault(quantity, 1),
] as const;
export type AttendeeCreateParams = ParamValues<typeof attendeeCreateParams>;

const attendeeReadParams = [idParam('attendee'), token] as const;
export type AttendeeReadParams = ParamValues<typeof attendeeReadParams>;
const attendeeUpdateParams = [idParam('attendee'), token, quantity, boolParam('checked_in', 'whether the attendee came (organisers only)')] as const;
export type AttendeeUpdateParams = ParamValues<typeof attendeeUpdateParams>;
const attendeeListParams = [page, perPage, required(eventRef('event', 'the event (a series: every occurrence\'s attendees)')),
  param('ticket', 'query', 'only this ticket\'s attendees', { type: 'integer', minimum: 1 }, (v) => parsePositiveInt(v))] as const;
export type AttendeeListParams = ParamValues<typeof attendeeListParams>;

const update = (id: string, params: OperationSpec['params'], summary: string, response: string, capability: OperationSpec['capability'],
  errors: number[]) =>
  (['POST', 'PUT', 'PATCH'] as const).map((method): OperationSpec => ({ id: `${id}${method === 'POST' ? '' : `.${method.toLowerCase()}`}`, method,
    summary, capability, success: 200, errors, response, params }));

export const ticketRoutes: RouteSpec[] = [
  { path: '/tickets', group: 'events', operations: [
    { id: 'tickets.list', method: 'GET', summary: 'Lists tickets', capability: 'public', success: 200, errors: [400, 401, 404],
      response: 'TicketList', params: ticketListParams },
    { id: 'tickets.create', method: 'POST', summary: 'Creates a ticket on an event (needs the right to edit it)', capability: 'edit_posts',
      success: 201, errors: [400, 401, 403], response: 'Ticket', params: ticketWriteParams(true) },
  ] },
  { path: '/tickets/{id}', group: 'events', operations: [
    { id: 'tickets.get', method: 'GET', summary: 'Returns one ticket', capability: 'public', success: 200, errors: [400, 401, 404],
      response: 'Ticket', params: ticketReadParams },
    ...update('tickets.update', [idParam('ticket'), ...ticketWriteParams(false)], 'Updates a ticket (only the fields sent change)', 'Ticket',
      'edit_posts', [400, 401, 403, 404]),
    { id: 'tickets.delete', method: 'DELETE', summary: 'Deletes a ticket (one with attendees only with force=true, by an editor)',
      capability: 'edit_posts', success: 200, errors: [401, 403, 404, 409], response: 'Ticket', params: [idParam('ticket'), forceParam] },
  ] },
  { path: '/events/{id}/tickets', group: 'events', operations: [
    { id: 'tickets.ofEvent', method: 'GET', summary: 'Lists an event\'s tickets (an occurrence: its own and its series\', with its places)',
      capability: 'public', success: 200, errors: [400, 401, 404], response: 'TicketList',
      params: [idParam('event'), ...ticketListParams.filter((p) => p.name !== 'event' && p.name !== 'include_post')] },
  ] },
  { path: '/attendees', group: 'events', operations: [
    { id: 'attendees.list', method: 'GET', summary: 'Lists an event\'s attendees (whoever may edit the event)', capability: 'edit_posts',
      success: 200, errors: [400, 401, 403, 404], response: 'AttendeeList', params: attendeeListParams },
    { id: 'attendees.create', method: 'POST', summary: 'Reserves places on an rsvp ticket (anyone who may read the event); the answer holds '
      + 'the reservation\'s secret token, shown only here', capability: 'public', success: 201, errors: [400, 409, 429], response: 'NewAttendee',
    params: attendeeCreateParams },
  ] },
  { path: '/attendees/{id}', group: 'events', operations: [
    { id: 'attendees.get', method: 'GET', summary: 'Reads a reservation (with its token, or as whoever may edit the event)', capability: 'public',
      success: 200, errors: [404], response: 'Attendee', params: attendeeReadParams },
    ...update('attendees.update', attendeeUpdateParams, 'Changes a reservation\'s places (with its token), or checks an attendee in '
      + '(whoever may edit the event)', 'Attendee', 'public', [400, 404, 409]),
    { id: 'attendees.delete', method: 'DELETE', summary: 'Cancels a reservation (with its token), or erases an attendee (whoever may edit the '
      + 'event), freeing the places', capability: 'public', success: 200, errors: [404], response: 'Attendee', params: attendeeReadParams },
  ] },
];
