/**
 * OpenAPI 3.0 component schemas of the wire shapes (reference §4–§5 with the contract's §5 decisions).
 * Property order is the order in which the API emits the keys. Only OpenAPI 3.0 keywords are used
 * (`nullable`/`oneOf`/`allOf`, never 3.1 type arrays), and a `$ref` never has siblings: a described
 * reference is written `{allOf: [{$ref}], description}`.
 */
import { LANGUAGES, NAMESPACE } from '../routes/types.js';
import { POST_STATUSES } from '../routes/common.js';

/** An OpenAPI 3.0 Schema Object (the subset this service uses). */
export interface OpenApiSchema {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
  format?: string;
  description?: string;
  enum?: readonly unknown[];
  items?: OpenApiSchema;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  additionalProperties?: boolean | OpenApiSchema;
  oneOf?: OpenApiSchema[];
  allOf?: OpenApiSchema[];
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  anyOf?: OpenApiSchema[];
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  example?: unknown;
  $ref?: string;
}

export const ref = (name: string): OpenApiSchema => ({ $ref: `#/components/schemas/${name}` });
/** A `$ref` with a description of its own (siblings of `$ref` are ignored in OpenAPI 3.0). */
const refd = (name: string, description: string): OpenApiSchema => ({ allOf: [ref(name)], description });
const str = (description: string, extra: OpenApiSchema = {}): OpenApiSchema => ({ type: 'string', ...extra, description });
const int = (description: string, extra: OpenApiSchema = {}): OpenApiSchema => ({ type: 'integer', ...extra, description });
const bool = (description: string): OpenApiSchema => ({ type: 'boolean', description });
const arr = (items: OpenApiSchema, description: string, extra: OpenApiSchema = {}): OpenApiSchema =>
  ({ type: 'array', items, ...extra, description });
const obj = (properties: Record<string, OpenApiSchema>, required: string[], description: string,
  extra: OpenApiSchema = {}): OpenApiSchema =>
  ({ type: 'object', description, properties, ...(required.length ? { required } : {}), ...extra });
/** Always the empty JSON array. */
const emptyArray = (description: string): OpenApiSchema => ({ type: 'array', items: {}, maxItems: 0, description });

const DATE_EXAMPLE = '2025-07-14 20:00:00';
const dateTime = (description: string): OpenApiSchema =>
  str(`${description}, YYYY-MM-DD HH:MM:SS (no T, no offset)`, { example: DATE_EXAMPLE });
const apiLink = (what: string): OpenApiSchema => str(`absolute API URL of ${what}`, { format: 'uri' });

/** The fields every post-like record (event, venue, organizer) starts with, in wire order. */
const postHead = (kind: string): Record<string, OpenApiSchema> => ({
  id: int(`the ${kind} ID`, { minimum: 1 }),
  author: int('the author\'s user id (an integer, unlike the origin\'s numeric string)'),
  status: str(`the ${kind} status`, { enum: POST_STATUSES }),
  date: dateTime('publication date in the site time zone'),
  date_utc: dateTime('publication date in UTC'),
  modified: dateTime('last modification in the site time zone'),
  modified_utc: dateTime('last modification in UTC'),
  url: str(`public page of the ${kind}`, { format: 'uri' }),
});

const globalIds = (kind: string): Record<string, OpenApiSchema> => ({
  global_id: str(`"<host>?id=<id>": identifies the ${kind} across sites`, { example: 'example.com?id=12' }),
  global_id_lineage: arr({ type: 'string' }, 'the global ids this record descends from: [global_id]'),
});

const jsonLd = (type: string): OpenApiSchema => ({
  type: 'object',
  additionalProperties: true,
  description: `schema.org ${type} as JSON-LD; only on single-record GETs (and on the records embedded in them)`,
});

const termUrls = (): OpenApiSchema =>
  obj({
    self: apiLink('this term'),
    collection: apiLink('the term collection'),
    up: str('absolute API URL of the parent category (only when parent is not 0)', { format: 'uri' }),
  }, ['self', 'collection'], 'API links of the term');

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

  EventTerm: obj({
    name: str('the term name, in the request language'),
    slug: str('the term slug'),
    term_group: int('always 0'),
    term_taxonomy_id: int('the term ID again'),
    taxonomy: str('tribe_events_cat for categories, post_tag for tags', { enum: ['tribe_events_cat', 'post_tag'] }),
    description: str('the term description (HTML), in the request language'),
    parent: int('the parent category ID, 0 for top-level categories and for every tag', { minimum: 0 }),
    count: int('number of published events with this term', { minimum: 0 }),
    filter: str('always "raw"', { enum: ['raw'] }),
    id: int('the term ID', { minimum: 1 }),
    urls: termUrls(),
  }, ['name', 'slug', 'term_group', 'term_taxonomy_id', 'taxonomy', 'description', 'parent', 'count', 'filter', 'id', 'urls'],
  'A category or tag as embedded in an event (reference §4.4(a)): no public url'),

  Term: obj({
    id: int('the term ID', { minimum: 1 }),
    count: int('number of published events with this term', { minimum: 0 }),
    description: str('the term description (HTML), in the request language'),
    name: str('the term name, in the request language'),
    slug: str('the term slug'),
    taxonomy: str('tribe_events_cat for categories, post_tag for tags', { enum: ['tribe_events_cat', 'post_tag'] }),
    parent: int('the parent category ID, 0 for top-level categories; categories only (tags have no parent key)',
      { minimum: 0 }),
    meta: emptyArray('always []'),
    url: str('public archive page of the term (/events/category/<slug>/ or /tag/<slug>/)', { format: 'uri' }),
    urls: termUrls(),
  }, ['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'meta', 'url', 'urls'],
  'A category or tag as returned by /categories and /tags (reference §4.4(b))'),

  Venue: obj({
    ...postHead('venue'),
    venue: str('the venue name, in the request language'),
    description: str('the venue description (sanitised HTML), in the request language'),
    excerpt: str('the venue excerpt (sanitised HTML)'),
    slug: str('the venue slug'),
    image: { oneOf: [ref('Image'), { type: 'boolean', enum: [false] }],
      description: 'the venue image; absent when there is none, false on a protected record whose password was not given' },
    address: str('street address'),
    city: str('city'),
    country: str('country'),
    province: str('province'),
    state: str('state'),
    zip: str('postal code'),
    phone: str('phone number'),
    website: str('website URL'),
    stateprovince: str('state or province'),
    json_ld: jsonLd('Place'),
    show_map: { ...bool('whether to show a map (true unless turned off) (null on a password-protected record whose password was not given)'), nullable: true },
    show_map_link: { ...bool('whether to show a map link (true unless turned off) (null on a password-protected record whose password was not given)'), nullable: true },
    ...globalIds('venue'),
  }, ['id', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url', 'show_map', 'show_map_link', 'global_id',
    'global_id_lineage'],
  'A venue (reference §4.2): empty values (name, address parts, image…) are left out instead of sent as ""'),

  Organizer: obj({
    ...postHead('organizer'),
    organizer: str('the organizer name, in the request language'),
    description: str('the organizer description (sanitised HTML), in the request language'),
    excerpt: str('the organizer excerpt (sanitised HTML)'),
    slug: str('the organizer slug'),
    image: { oneOf: [ref('Image'), { type: 'boolean', enum: [false] }],
      description: 'the organizer image; absent when there is none, false on a protected record whose password was not given' },
    phone: str('phone number'),
    website: str('website URL'),
    email: str('e-mail address'),
    json_ld: jsonLd('Organization'),
    ...globalIds('organizer'),
  }, ['id', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url', 'global_id', 'global_id_lineage'],
  'An organizer (reference §4.3): empty values (phone, e-mail, website, image…) are left out instead of sent as ""'),

  Event: obj({
    id: int('the event ID', { minimum: 1 }),
    ...globalIds('event'),
    author: int('the author\'s user id (an integer, unlike the origin\'s numeric string)'),
    status: str('the event status', { enum: POST_STATUSES }),
    date: dateTime('publication date in the site time zone'),
    date_utc: dateTime('publication date in UTC'),
    modified: dateTime('last modification in the site time zone'),
    modified_utc: dateTime('last modification in UTC'),
    url: str('public page of the event', { format: 'uri' }),
    rest_url: apiLink('this event'),
    title: str('the event title, in the request language'),
    description: str('the event description (sanitised HTML), in the request language'),
    excerpt: str('the event excerpt (sanitised HTML), in the request language; "" when not set'),
    slug: str('the event slug'),
    image: { oneOf: [ref('Image'), { type: 'boolean', enum: [false] }], description: 'the featured image, or false when none' },
    all_day: { ...bool('whether the event lasts whole days (00:00:00–23:59:59) (null on a password-protected record whose password was not given)'), nullable: true },
    start_date: dateTime('start, wall-clock time in the event time zone'),
    start_date_details: refd('DateDetails', 'parts of start_date'),
    end_date: dateTime('end, wall-clock time in the event time zone'),
    end_date_details: refd('DateDetails', 'parts of end_date'),
    utc_start_date: dateTime('start in UTC'),
    utc_start_date_details: refd('DateDetails', 'parts of utc_start_date'),
    utc_end_date: dateTime('end in UTC'),
    utc_end_date_details: refd('DateDetails', 'parts of utc_end_date'),
    timezone: str('the event time zone: an IANA name, UTC or UTC±H[:MM]', { example: 'Europe/Berlin' }),
    timezone_abbr: str('abbreviation of the time zone at the start, e.g. CEST'),
    cost: str('the formatted cost, e.g. "$20" or "Free – 30$"; "" when none'),
    cost_details: refd('CostDetails', 'the parsed cost'),
    website: str('the event website; the public page when never set, "" when cleared'),
    show_map: { ...bool('whether to show a map of the venue (null on a password-protected record whose password was not given)'), nullable: true },
    show_map_link: { ...bool('whether to show a link to a map of the venue (null on a password-protected record whose password was not given)'), nullable: true },
    hide_from_listings: { ...bool('true keeps the event out of every list (null on a password-protected record whose password was not given)'), nullable: true },
    sticky: { ...bool('whether the event sticks to the top of month views (null on a password-protected record whose password was not given)'), nullable: true },
    featured: { ...bool('whether the event is featured (null on a password-protected record whose password was not given)'), nullable: true },
    categories: arr(ref('EventTerm'), 'the event categories, by name'),
    tags: arr(ref('EventTerm'), 'the event tags, by name'),
    venue: {
      oneOf: [ref('Venue'), { type: 'array', items: ref('Venue'), maxItems: 0 }],
      description: 'the linked venue, or [] when there is none',
    },
    organizer: arr(ref('Organizer'), 'the linked organizers in link order ([] when none)'),
    custom_fields: emptyArray('always [] (no additional fields)'),
    json_ld: jsonLd('Event'),
  }, ['id', 'global_id', 'global_id_lineage', 'author', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url',
    'rest_url', 'title', 'description', 'excerpt', 'slug', 'image', 'all_day', 'start_date', 'start_date_details', 'end_date',
    'end_date_details', 'utc_start_date', 'utc_start_date_details', 'utc_end_date', 'utc_end_date_details', 'timezone',
    'timezone_abbr', 'cost', 'cost_details', 'website', 'show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured',
    'categories', 'tags', 'venue', 'organizer', 'custom_fields'],
  'An event (reference §4.1); the write-only password is never returned'),

  EventList: listEnvelope('events', 'Event', 'events'),
  VenueList: listEnvelope('venues', 'Venue', 'venues'),
  OrganizerList: listEnvelope('organizers', 'Organizer', 'organizers'),
  CategoryList: termListEnvelope('categories', 'categories'),
  TagList: termListEnvelope('tags', 'tags'),

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
  Link: { description: 'RFC 8288 links to the next and previous pages (rel="next", rel="prev"); absent when there is a single page',
    schema: { type: 'string' } },
  ETag: { description: 'the record\'s version tag, "<version>-<hash>"; send it as If-Match on a write to refuse overwriting a newer '
    + 'change. Absent when the record no longer exists (a permanent delete with force=true)', schema: { type: 'string' } },
  Location: { description: 'absolute API URL of the created record', schema: { type: 'string', format: 'uri' } },
  'Content-Language': { description: 'the language of the response (translation_language, else the path prefix, else en)',
    schema: { type: 'string', enum: [...LANGUAGES] } },
  'X-Content-Type-Options': { description: 'always nosniff', schema: { type: 'string', enum: ['nosniff'] } },
  'WWW-Authenticate': { description: 'Bearer error="invalid_token" when the Authorization header was refused; Bearer realm="calendar" '
    + 'when a write needs credentials', schema: { type: 'string' } },
  'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
} as const satisfies Record<string, { description: string; schema: OpenApiSchema }>;
