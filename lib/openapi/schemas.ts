/**
 * OpenAPI 3.0 component schemas of the wire shapes (reference §4–§5 with the contract's §5 decisions).
 * Property order is the order in which the API emits the keys. Only OpenAPI 3.0 keywords are used
 * (`nullable`/`oneOf`/`allOf`, never 3.1 type arrays), and a `$ref` never has siblings: a described
 * reference is written `{allOf: [{$ref}], description}`.
 */
import { LANGUAGES, NAMESPACE } from '../routes/types.js';


import { arr, bool, dateTime, int, obj, ref, refd, str, type OpenApiSchema } from './shape.js';
import { EVENT_SHAPE } from '../events/serialize.js';
import { ORGANIZER_SHAPE, VENUE_SHAPE } from '../linked/serialize.js';
import { EVENT_TERM_SHAPE, TERM_SHAPE } from '../terms/serialize.js';
import { ATTENDANCE_SCHEMA, ATTENDEE_SHAPE, NEW_ATTENDEE_SHAPE, TICKET_SHAPE } from '../tickets/record.js';
import { IMPORT_SHAPE } from '../imports/record.js';

export { ref, type OpenApiSchema } from './shape.js';

const listEnvelope = (key: string, item: string, what: string): OpenApiSchema =>
  obj({
    [key]: arr(ref(item), `the ${what} of this page`),
    rest_url: str(`absolute API URL of this page, with the normalised query (${NAMESPACE}/${key}/?…)`, { format: 'uri' }),
    next_rest_url: str('absolute API URL of the next page; absent on the last page', { format: 'uri' }),
    previous_rest_url: str('absolute API URL of the previous page; absent on the first page', { format: 'uri' }),
    total: int(`number of ${what} that match, ignoring pagination`, { minimum: 0 }),
    total_pages: int('number of pages (0 when total is 0)', { minimum: 0 }),
  }, [key, 'rest_url', 'total', 'total_pages'], `A page of ${what} (reference §5.1); a page past the last one is 404`);

const termListEnvelope = (key: string, what: string): OpenApiSchema =>
  obj({
    rest_url: str('absolute API URL of the collection, without query parameters', { format: 'uri' }),
    total: int(`number of ${what} that match, ignoring pagination`, { minimum: 0 }),
    total_pages: int('number of pages (0 when total is 0)', { minimum: 0 }),
    [key]: arr(ref('Term'), `the ${what} of this page`),
    next_rest_url: str('absolute API URL of the next page (only the page parameter); absent on the last page', { format: 'uri' }),
    previous_rest_url: str('absolute API URL of the previous page (only the page parameter); absent on the first page',
      { format: 'uri' }),
  }, ['rest_url', 'total', 'total_pages', key], `A page of ${what} (reference §5.2); a page past the last one is an empty list`);

const methodList = (description: string): OpenApiSchema =>
  arr({ type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] }, description);
const hrefList = (description: string): OpenApiSchema =>
  arr(obj({ href: str('absolute URL', { format: 'uri' }) }, ['href'], 'a link'), description);

export const COMPONENT_SCHEMAS: Record<string, OpenApiSchema> = {
  DateDetails: obj({
    year: str('four-digit year', { example: '2025' }),
    month: str('zero-padded month, 01–12', { example: '07' }),
    day: str('zero-padded day of the month, 01–31', { example: '14' }),
    hour: str('zero-padded hour, 00–23', { example: '20' }),
    minutes: str('zero-padded minutes, 00–59', { example: '00' }),
    seconds: str('zero-padded seconds, 00–59', { example: '00' }),
  }, ['year', 'month', 'day', 'hour', 'minutes', 'seconds'],
  'The parts of a YYYY-MM-DD HH:MM:SS value as zero-padded strings (no time-zone conversion)'),

  CostDetails: obj({
    currency_symbol: str('currency symbol parsed from the cost, e.g. "$"; "" when none'),
    currency_code: str('ISO 4217 currency code; "" when none'),
    currency_position: str('where the symbol goes: prefix or postfix; "" when there is no cost',
      { enum: ['prefix', 'postfix', ''] }),
    values: arr({ type: 'string' }, 'every number found in the cost, as strings with a "." decimal, ascending'),
  }, ['currency_symbol', 'currency_code', 'currency_position', 'values'], 'The parsed cost of an event (reference §4.7)'),

  Image: obj({
    url: str('absolute URL of the image', { format: 'uri' }),
    id: int('always 0: there is no media library'),
    extension: str('file extension taken from the URL, e.g. "jpg"; "" when the URL has none'),
  }, ['url', 'id', 'extension'], 'A featured image, set as an absolute URL'),

  EventTerm: EVENT_TERM_SHAPE.schema,
  Term: TERM_SHAPE.schema,

  Venue: VENUE_SHAPE.schema,
  Organizer: ORGANIZER_SHAPE.schema,

  Event: EVENT_SHAPE.schema,

  EventList: listEnvelope('events', 'Event', 'events'),
  Ticket: TICKET_SHAPE.schema,
  TicketList: listEnvelope('tickets', 'Ticket', 'tickets'),
  Attendee: ATTENDEE_SHAPE.schema,
  NewAttendee: NEW_ATTENDEE_SHAPE.schema,
  AttendeeList: listEnvelope('attendees', 'Attendee', 'attendees'),
  Import: IMPORT_SHAPE.schema,
  ImportList: listEnvelope('imports', 'Import', 'imports'),
  Attendance: ATTENDANCE_SCHEMA,
  VenueList: listEnvelope('venues', 'Venue', 'venues'),
  OrganizerList: listEnvelope('organizers', 'Organizer', 'organizers'),
  CategoryList: termListEnvelope('categories', 'categories'),
  TagList: termListEnvelope('tags', 'tags'),

  Calendar: str('An iCalendar document (RFC 5545): VERSION:2.0, METHOD:PUBLISH, one VTIMEZONE per zone used, a VEVENT per event '
    + '(a series: one VEVENT with RRULE/RDATE/EXDATE, plus one with RECURRENCE-ID per occurrence edited on its own)'),

  Error: obj({
    code: str('machine-readable error code, e.g. rest_invalid_param or rest-event-not-found'),
    message: str('short English explanation saying what to change'),
    data: obj({
      status: int('the HTTP status', { minimum: 400, maximum: 599 }),
      params: {
        oneOf: [
          arr({ type: 'string' }, 'rest_missing_callback_param: the names of the missing parameters'),
          { type: 'object', additionalProperties: { type: 'string' }, description: 'rest_invalid_param: parameter name → reason' },
        ],
        description: 'the parameters at fault',
      },
      term_id: int('term_exists: the ID of the existing term'),
      request_id: str('rest_internal_error: the id to quote when reporting the failure'),
      outcome: str('rest_unavailable on a write: "unknown" when the write may or may not have been stored', { enum: ['unknown'] }),
    }, ['status'], 'the HTTP status and details', { additionalProperties: true }),
  }, ['code', 'message', 'data'], 'Every error response, whatever the status'),

  NamespaceIndex: obj({
    namespace: str('the namespace', { enum: [NAMESPACE] }),
    routes: {
      type: 'object',
      description: 'route regex (as in WordPress, e.g. /calendar/events/v1/events/(?P<id>\\d+)) → its description',
      additionalProperties: obj({
        namespace: str('the namespace', { enum: [NAMESPACE] }),
        methods: methodList('every method of the route'),
        endpoints: arr(obj({
          methods: methodList('the methods served by this handler'),
          args: {
            type: 'object',
            description: 'argument name → JSON schema of the argument plus required and description',
            additionalProperties: { type: 'object', additionalProperties: true, description: 'one argument' },
          },
        }, ['methods', 'args'], 'one handler of the route'), 'the handlers of the route'),
        _links: obj({ self: hrefList('the route\'s absolute URL') }, ['self'], 'only on routes without captures'),
      }, ['namespace', 'methods', 'endpoints'], 'one route'),
    },
    _links: obj({ up: hrefList('the API base, above the namespace') }, ['up'], 'links'),
  }, ['namespace', 'routes', '_links'], 'The namespace index (reference §3.1): every route, its methods and arguments'),

  ApplicationPassword: obj({
    uuid: str('the password\'s id', { format: 'uuid' }),
    app_id: str('the client application\'s UUID as sent when created, else ""'),
    name: str('the name given when created'),
    created: dateTime('when it was created, UTC'),
    last_used: str('when it last authenticated a request, UTC YYYY-MM-DD HH:MM:SS (updated at most once a minute)',
      { nullable: true }),
    username: str('the username to send with it (HTTP Basic)'),
  }, ['uuid', 'app_id', 'name', 'created', 'last_used', 'username'], 'An application password, without its secret'),
  NewApplicationPassword: obj({
    uuid: str('the password\'s id', { format: 'uuid' }),
    app_id: str('the client application\'s UUID as sent, else ""'),
    name: str('the name given'),
    created: dateTime('when it was created, UTC'),
    last_used: str('always null for a new password', { nullable: true }),
    password: str('the password: 24 letters and digits in groups of four; shown only in this answer', { example: 'abcd EFGH 1234 ijkl MNOP 5678' }),
    username: str('the username to send with it (HTTP Basic)'),
  }, ['uuid', 'app_id', 'name', 'created', 'last_used', 'password', 'username'], 'A new application password, with its secret'),
  ApplicationPasswords: arr(ref('ApplicationPassword'), 'The caller\'s application passwords, newest first'),
  DeletedApplicationPassword: obj({
    deleted: bool('always true'),
    previous: refd('ApplicationPassword', 'the password as it was'),
  }, ['deleted', 'previous'], 'A revoked application password'),

  ChangeFeed: obj({
    changes: arr(obj({
      kind: str('the kind of record', { enum: ['event', 'venue', 'organizer', 'category', 'tag', 'ticket'] }),
      id: int('the record\'s ID', { minimum: 1 }),
      action: str('created: new, or newly readable to the caller; deleted: deleted, trashed, or no longer readable to the caller; '
        + 'updated: anything else it shows changed', { enum: ['created', 'updated', 'deleted'] }),
      modified_utc: str('when it changed, UTC YYYY-MM-DD HH:MM:SS (the deletion time for deleted)', { example: '2026-11-26 09:30:00' }),
      rest_url: str('absolute API URL of the record', { format: 'uri' }),
    }, ['kind', 'id', 'action', 'modified_utc', 'rest_url'], 'one change'), 'the changes, in commit order'),
    next_cursor: str('pass it as since to read on from here; always present'),
    more: bool('true when more changes are already waiting: read again at once'),
  }, ['changes', 'next_cursor', 'more'], 'Changes since a cursor (contract §16)'),
  DocPage: str('An HTML page (text/html; charset=utf-8) on which Redoc renders this document: every operation with its parameters, '
    + 'responses and examples. It loads Redoc\'s script and the document from the service only, so it works with no internet access'),
  DocScript: str('Redoc\'s standalone script (MIT; its license notices are next to it, in redoc.standalone.js.LICENSE.txt)'),
  DocScriptLicense: str('The license notices of the packages in Redoc\'s standalone script, as plain text'),
  OpenApiDocument: obj({
    openapi: str('the OpenAPI version', { example: '3.0.3' }),
    info: { type: 'object', additionalProperties: true, description: 'title, version and description of the API' },
    servers: arr(obj({ url: str('an API root', { format: 'uri' }), description: str('what it serves') }, ['url'], 'a server'),
      'the API roots: this one and its language-prefixed variants'),
    tags: arr(obj({ name: str('the tag'), description: str('what its operations are about') }, ['name'], 'a tag'),
      'the tags of the operations, one per route group'),
    components: { type: 'object', additionalProperties: true, description: 'schemas, headers and security schemes' },
    paths: { type: 'object', additionalProperties: true, description: 'every route and operation' },
  }, ['openapi', 'info', 'paths'], 'This OpenAPI 3.0 document'),
};

/** Response names of OperationSpec that share a component schema. */
const RESPONSE_ALIASES: Record<string, string> = { Category: 'Term', Tag: 'Term' };

/** The component schema an OperationSpec.response names; throws for an unknown name. */
export function responseSchemaName(response: string): string {
  const name = RESPONSE_ALIASES[response] ?? response;
  if (!Object.hasOwn(COMPONENT_SCHEMAS, name)) throw new Error(`no OpenAPI component schema for response "${response}"`);
  return name;
}

/** Response headers (components.headers). */
export const COMPONENT_HEADERS = {
  'X-TEC-Total': { description: 'number of matching records, ignoring pagination', schema: { type: 'integer', minimum: 0 } },
  'X-TEC-TotalPages': { description: 'number of pages', schema: { type: 'integer', minimum: 0 } },
  Link: { description: 'RFC 8288 links to the next and previous pages (rel="next", rel="prev"; none when there is a single page), and on '
    + 'event lists to the same list as an iCalendar feed (rel="alternate"; type="text/calendar")', schema: { type: 'string' } },
  ETag: { description: 'a strong tag that changes whenever the body would: a single record\'s is "<version>-<hash>" (send it as If-Match '
    + 'on a write to refuse overwriting a newer change; absent when the record no longer exists, after a permanent delete with '
    + 'force=true), any other body\'s "<hash>". Send it as If-None-Match on a GET to get 304 while it is current',
  schema: { type: 'string' } },
  'Cache-Control': { description: 'public, max-age=<seconds the deployment allows> on reads without credentials; private, no-store on '
    + 'reads with credentials and on every write', schema: { type: 'string' } },
  'Content-Encoding': { description: 'gzip when the request\'s Accept-Encoding allows it; absent otherwise',
    schema: { type: 'string', enum: ['gzip'] } },
  'Content-Security-Policy': { description: 'what the page may load: scripts, styles and the document from this service only, '
    + 'nothing from another host', schema: { type: 'string' } },
  'Idempotent-Replayed': { description: 'true when this is the stored answer of an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] } },
  Vary: { description: 'Authorization, Accept-Encoding: reads differ by caller', schema: { type: 'string' } },
  Location: { description: 'absolute API URL of the created record', schema: { type: 'string', format: 'uri' } },
  'Content-Language': { description: 'the language of the response (translation_language, else the path prefix, else en)',
    schema: { type: 'string', enum: [...LANGUAGES] } },
  'X-Content-Type-Options': { description: 'always nosniff', schema: { type: 'string', enum: ['nosniff'] } },
  'WWW-Authenticate': { description: 'Bearer error="invalid_token" when the Authorization header was refused; Bearer realm="calendar" '
    + 'when a write needs credentials', schema: { type: 'string' } },
  'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
} as const satisfies Record<string, { description: string; schema: OpenApiSchema }>;
