/**
 * The OpenAPI 3.0.3 document served at GET {api}/doc (contract §10), generated from ROUTES: every route, method,
 * parameter, request body, response schema, response header and status each operation can answer, with input
 * schemas no stricter than the parsers (inputs.ts), operationIds from operation-ids.ts, optional credentials on
 * reads and required ones on writes. It lints clean under Redocly's and Spectral's recommended rules
 * (test/unit/openapi-lint.test.ts).
 *
 * Everything but `servers` is independent of the request, so tags, components and paths are built once, deep-frozen
 * and shared by every document; only the small top-level object and its `servers` are built per call.
 */
import { allowedMethods } from '../routes/match.js';
import { LANGUAGES, ROUTES, isCreate, takesIdempotencyKey, type Capability, type Group, type OperationSpec, type ParamSpec, type RouteSpec } from '../routes/index.js';
import { COMPONENT_HEADERS, COMPONENT_SCHEMAS, ref, responseSchemaName, type OpenApiSchema } from './schemas.js';
import { deepFreeze } from './freeze.js';
import { wireSchema } from './inputs.js';
import { operationIds } from './operation-ids.js';
import { apiRootFor, splitApiUrl, trimSlashes } from './urls.js';

export const OPENAPI_VERSION = '3.0.3';
export const API_TITLE = 'Calendar Events API';

export interface BuildOpenApiOptions {
  /** Absolute API root of the request, e.g. https://host/prod/calendar/events/v1 (maybe under /de/ etc.). */
  apiUrl: string;
  /** More API roots to list, e.g. the language-prefixed roots (duplicates are dropped). */
  serverUrls?: string[];
}

export interface OpenApiServer {
  url: string;
  description: string;
}

export interface OpenApiDocument {
  openapi: string;
  info: {
    title: string;
    version: string;
    description: string;
    contact: { name: string };
    license: { name: string; url: string };
  };
  servers: OpenApiServer[];
  tags: { name: string; description: string }[];
  components: Record<string, unknown>;
  paths: Record<string, Record<string, unknown>>;
}

type Json = Record<string, unknown>;
const BODY_TYPES = ['application/json', 'application/x-www-form-urlencoded'] as const;
/** Methods whose request the pipeline reads a body from (size 413, type 415, syntax 400). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const INFO = deepFreeze({
  title: API_TITLE,
  version: '1.0.0',
  description: [
    'A calendar of events, venues, organizers, categories and tags. Wire-compatible with The Events Calendar REST API v1',
    '(WordPress namespace tribe/events/v1), served under the namespace calendar/events/v1.',
    '',
    `Languages: ${LANGUAGES.join(', ')} (default en). Every route also exists under a language prefix`,
    `(${LANGUAGES.map((l) => `/${l}/calendar/events/v1`).join(', ')}); the translation_language parameter overrides the prefix.`,
    '',
    'Parameters: any parameter may be sent in the query string or, on a write, in the body (JSON or form); the body wins',
    'over the query and the path wins over both. Lists are JSON arrays, repeated `a[]=` keys or comma-separated strings',
    '(at most 100 entries). Booleans are JSON booleans, 1/0 or the strings true/false/1/0/yes/no/on/off in any case.',
    'A body without a Content-Type, or sent as text/plain, is read as JSON when it parses as JSON, else as a form.',
    'Unknown parameters and read-only fields are ignored.',
    '',
    'Authentication: `Authorization: Bearer <JWT>`. Without the header a request is anonymous; any other Authorization',
    'header that is not a valid token is refused with 401 rest_invalid_token, on every route. Reads accept anonymous',
    'callers; writes need credentials.',
    '',
    'Errors are always `{"code", "message", "data": {"status", ...}}`. A path that does not exist is 404 rest_no_route;',
    'a method a path does not support is 405 rest_no_route with an Allow header listing the methods it does (each path',
    'says which). OPTIONS answers the CORS preflight of every path. Every',
    'response carries X-Content-Type-Options: nosniff and Content-Language, and any origin may read it (CORS).',
    'Lists send X-TEC-Total, X-TEC-TotalPages and a Link header. Every GET sends a strong ETag (If-None-Match with it',
    'answers 304); a single record\'s tag is what writes check with If-Match. Reads without credentials carry',
    'Cache-Control: public, max-age=N (the deployment\'s setting, default 0); reads with credentials and writes are private, no-store.',
    '',
    'Feeds: GET /events.ics (the /events filters, all pages up to limit) and GET /events/{id}.ics answer',
    'text/calendar; charset=utf-8 (RFC 5545), for calendar applications to subscribe to (webcal://). Their errors are JSON.',
    '',
    'Reference page: GET /doc.html answers text/html; charset=utf-8, this document rendered for people by Redoc, whose',
    'script the service serves itself (GET /doc.html/redoc.standalone.js, application/javascript), so the page works with',
    'no internet access.',
    '',
    'Clients of The Events Calendar: every path also answers under the origin\'s base, /wp-json/tribe/events/v1 (and',
    `${LANGUAGES.map((l) => `/${l}/wp-json/tribe/events/v1`).join(', ')}), with the same responses, except that the URLs they`,
    'contain keep that base and the namespace index names the namespace tribe/events/v1.',
  ].join('\n'),
  contact: { name: 'Calendar Events API maintainers' },
  license: { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' },
});

const TAGS: Record<Group, string> = {
  imports: 'Imports: calendars brought in from iCalendar feeds and files and from sites running The Events Calendar, kept in step (editors only)',
  root: 'Discovery: the namespace index (every route with its arguments), this OpenAPI document and its reference page',
  events: 'Events: lists in a date window with filters, single events by ID or slug, and their writes',
  venues: 'Venues: the places where events happen',
  organizers: 'Organizers: the people and organisations that run events',
  categories: 'Event categories: hierarchical terms, deleted permanently',
  tags: 'Event tags: flat terms, deleted permanently',
};

const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A JWT (Cognito in AWS, HS256 locally). The highest of its cognito:groups gives the role: ' +
      'administrator/editor → editor, author, contributor, anything else → subscriber.',
  },
  basicAuth: {
    type: 'http',
    scheme: 'basic',
    description: 'A username and an application password (WordPress\'s scheme for API clients; create one with ' +
      'POST /application-passwords). It acts as the user and role it was made with. More than 10 failed attempts in a ' +
      'minute for a username or from an address answer 429 rest_too_many_attempts.',
  },
} as const;

/** Reads: anonymous ({}), or with credentials, which decide which unpublished records are visible. */
const READ_SECURITY = [{}, { bearerAuth: [] }, { basicAuth: [] }];
/** Writes: credentials required. */
const WRITE_SECURITY = [{ bearerAuth: [] }, { basicAuth: [] }];

const CAPABILITY_TEXT: Record<Capability, string> = {
  public: 'Open to anonymous callers; credentials, when sent, decide which unpublished records are visible.',
  signed_in: 'Needs the credentials of any signed-in user (a bearer token or an application password).',
  create_posts: 'Needs the credentials of a contributor, author or editor.',
  edit_posts: 'Needs the credentials of a contributor, author or editor who may change this record ' +
    '(contributors: their own drafts; authors: their own records; editors: everything).',
  manage_categories: 'Needs the credentials of an author or editor.',
  manage_tags: 'Needs the credentials of an editor.',
  manage_imports: 'Needs the credentials of an editor: only editors see imports.',
};

const SINGULAR: Record<Group, string> = {
  imports: 'import', root: 'namespace', events: 'event', venues: 'venue', organizers: 'organizer', categories: 'category', tags: 'tag',
};

/** Record kinds whose DELETE moves to the trash (and answers the trashed record with its ETag). */
const TRASHABLE = new Set<Group>(['events', 'venues', 'organizers']);

const isList = (op: OperationSpec): boolean => COMPONENT_SCHEMAS[responseSchemaName(op.response)]?.properties?.total_pages !== undefined;
const headerRef = (name: keyof typeof COMPONENT_HEADERS): Json => ({ $ref: `#/components/headers/${name}` });
const responseRef = (name: string): Json => ({ $ref: `#/components/responses/${name}` });

/** A copy of a route-definition schema with only OpenAPI 3.0 keywords (arrays copied, undefined dropped). */
export function toOpenApiSchema(schema: OpenApiSchema): OpenApiSchema {
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined) continue;
    if (key === 'items' || key === 'additionalProperties') {
      out[key] = typeof value === 'object' && value !== null ? toOpenApiSchema(value as OpenApiSchema) : value;
    } else if (key === 'oneOf' || key === 'anyOf' || key === 'allOf') {
      out[key] = (value as OpenApiSchema[]).map(toOpenApiSchema);
    } else if (key === 'properties') {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, OpenApiSchema>).map(([k, v]) => [k, toOpenApiSchema(v)]));
    } else if (value !== null && typeof value === 'object') {
      out[key] = structuredClone(value); // enum lists, object defaults: never share (the document is frozen)
    } else {
      out[key] = value;
    }
  }
  return out as OpenApiSchema;
}

/** The wire schema of a parameter (inputs.ts), with its documented default. */
export function paramSchema(p: ParamSpec): OpenApiSchema {
  const schema = toOpenApiSchema(p.schema);
  if (p.default !== undefined && schema.default === undefined) schema.default = p.default;
  return wireSchema(p, schema);
}

function parameter(p: ParamSpec): Json {
  const schema = paramSchema(p);
  return {
    name: p.name,
    in: p.in,
    description: p.description,
    required: p.in === 'path' || p.required === true,
    schema,
    // Lists in the query string are comma-separated (a[]=1&a[]=2 works too; repeated plain keys keep the last one).
    ...(p.in === 'query' && schema.type === 'array' ? { style: 'form', explode: false } : {}),
  };
}

/** The object schema of an operation's body parameters. */
export function bodySchema(params: ParamSpec[], description: string): OpenApiSchema {
  const properties: Record<string, OpenApiSchema> = {};
  for (const p of params) properties[p.name] = { ...paramSchema(p), description: p.description };
  const required = params.filter((p) => p.required).map((p) => p.name);
  return { type: 'object', description, properties, ...(required.length ? { required } : {}) };
}

/**
 * Body schemas live in components.schemas (both media types refer to them), named after the operationId of the
 * first operation with that body ("UpdateEventBody"); operations with the same body (POST/PUT/PATCH updates) share one.
 */
class BodySchemas {
  readonly schemas: Record<string, OpenApiSchema> = {};
  private readonly byContent = new Map<string, string>();

  nameFor(op: OperationSpec, operationId: string, params: ParamSpec[]): string {
    const schema = bodySchema(params, `The body of: ${op.summary}`);
    const content = JSON.stringify(schema);
    let name = this.byContent.get(content);
    if (!name) {
      name = `${operationId[0]!.toUpperCase()}${operationId.slice(1)}Body`;
      if (this.schemas[name] || COMPONENT_SCHEMAS[name]) throw new Error(`body schema name ${name} is taken`);
      this.schemas[name] = schema;
      this.byContent.set(content, name);
    }
    return name;
  }
}

function requestBody(params: ParamSpec[], schemaName: string): Json {
  const required = params.some((p) => p.required);
  return {
    description: (required ? 'The record\'s fields.' : 'Only the fields sent change.') +
      ' Form bodies nest with brackets: a[]=1&a[]=2, venue[city]=X. At most 1 MiB.',
    required,
    content: Object.fromEntries(BODY_TYPES.map((type) => [type, { schema: ref(schemaName) }])),
  };
}

/** Headers every response carries, errors included. */
const COMMON_HEADERS: Json = {
  'Content-Language': headerRef('Content-Language'),
  'X-Content-Type-Options': headerRef('X-Content-Type-Options'),
};

/** Whether a successful response carries an ETag: every GET; of writes, single records except after a permanent delete. */
const sendsETag = (route: RouteSpec, op: OperationSpec): boolean =>
  op.method === 'GET' || (route.group !== 'root' && !isList(op) && (op.method !== 'DELETE' || TRASHABLE.has(route.group)));

/** Caching headers of a successful response (contract §15). */
const cacheHeaders = (op: OperationSpec): Json => (op.method === 'GET'
  ? { 'Cache-Control': headerRef('Cache-Control'), Vary: headerRef('Vary') }
  : { 'Cache-Control': headerRef('Cache-Control') });

function successResponse(route: RouteSpec, op: OperationSpec): Json {
  const name = responseSchemaName(op.response);
  const kind = SINGULAR[route.group];
  let description: string;
  if (route.group === 'root') description = COMPONENT_SCHEMAS[name]!.description ?? name;
  else if (op.success === 201) description = `Created: the new ${kind}`;
  else if (op.success === 202) description = op.queuedCreate ? `Accepted: the new ${kind}, its first run queued` : `Accepted: the ${kind}, its run queued`;
  else if (op.mediaType) description = COMPONENT_SCHEMAS[name]!.description ?? name;
  else if (op.method === 'GET') description = isList(op) ? `A page of ${route.group}` : `The ${kind}`;
  else if (op.method === 'DELETE') {
    description = TRASHABLE.has(route.group)
      ? `The ${kind} as deleted: status "trash", or its last state when deleted permanently with force=true`
      : `The deleted ${kind}, as it was`;
  } else description = `The updated ${kind}`;
  const headers: Json = {};
  if (isList(op)) {
    headers['X-TEC-Total'] = headerRef('X-TEC-Total');
    headers['X-TEC-TotalPages'] = headerRef('X-TEC-TotalPages');
    headers.Link = headerRef('Link');
  }
  if (sendsETag(route, op)) headers.ETag = headerRef('ETag');
  if (isCreate(op)) headers.Location = headerRef('Location');
  if (isCreate(op) && takesIdempotencyKey(op)) headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
  for (const name of op.headers ?? []) {
    if (!Object.hasOwn(COMPONENT_HEADERS, name)) throw new Error(`${op.id} names the response header ${name}, which the document does not define`);
    headers[name] = headerRef(name as keyof typeof COMPONENT_HEADERS);
  }
  Object.assign(headers, cacheHeaders(op), COMMON_HEADERS);
  return { description, headers, content: { [op.mediaType ?? 'application/json']: { schema: ref(name) } } };
}

function badRequestDescription(route: RouteSpec, op: OperationSpec): string {
  const causes: string[] = [];
  if (BODY_METHODS.has(op.method)) causes.push('a body that is not a JSON object (rest_invalid_json)');
  if (op.params.some((p) => p.required && p.in !== 'path')) causes.push('missing parameters (rest_missing_callback_param, data.params lists them)');
  causes.push('invalid parameters (rest_invalid_param, data.params gives each reason), unknown ids among filters or links included');
  if (op.method !== 'GET' && (route.group === 'categories' || route.group === 'tags') && op.method !== 'DELETE') {
    causes.push('a term of that name under the same parent (term_exists, data.term_id)');
    if (route.group === 'tags') causes.push('a parent for a tag (rest_taxonomy_not_hierarchical)');
  }
  if (op.method !== 'GET' && op.method !== 'DELETE' && route.group !== 'categories' && route.group !== 'tags') {
    causes.push('more linked records changed at once than one write can hold (rest_too_many_changes)');
  }
  return `${causes[0]![0]!.toUpperCase()}${causes.join('; ').slice(1)}`;
}

/** The ticket and attendee routes (contract §19) live in the events group: their 404s name their own records. */
const TICKET_404: Record<string, string> = {
  'tickets.list': 'The page is past the last page (rest-ticket-archive-page-not-found)',
  'tickets.ofEvent': 'No event with this ID (rest-event-not-found), or the page is past the last page (rest-ticket-archive-page-not-found)',
  'attendees.list': 'The page is past the last page (rest-attendee-archive-page-not-found)',
  ...Object.fromEntries(['get', 'update', 'delete'].map((a) => [`tickets.${a}`, 'No ticket with this ID (rest-ticket-not-found)'])),
  ...Object.fromEntries(['get', 'update', 'delete'].map((a) => [`attendees.${a}`,
    'No attendee with this ID, or not for this caller: a missing or wrong token reads the same (rest-attendee-not-found)'])),
  'imports.list': 'The page is past the last page (rest-import-archive-page-not-found)',
  ...Object.fromEntries(['get', 'update', 'delete', 'run'].map((a) => [`imports.${a}`, 'No import with this ID (rest-import-not-found)'])),
};

/** The 409s of the import routes (contract §20): with Retry-After, as the idempotency key's own 409 has it. */
const IMPORT_409: Record<string, string> = {
  'imports.create': 'There are 100 imports already, the most there may be (rest-import-limit); or a request with this Idempotency-Key is '
    + 'still running (rest_idempotency_in_progress): retry after Retry-After seconds to get its answer',
  'imports.run': 'A run of this import is queued or running (rest-import-running); retry after Retry-After seconds',
};

function errorDescription(status: number, route: RouteSpec, op: OperationSpec): string {
  const kind = SINGULAR[route.group];
  switch (status) {
    case 400:
      return badRequestDescription(route, op);
    case 403:
      return op.capability === 'public'
        ? `The ${kind} is not accessible to the caller: not published, in the trash or password-protected`
        : 'The caller is not allowed to do this (rest_forbidden)';
    case 404:
      return TICKET_404[op.id.split('.').slice(0, 2).join('.')] ?? (isList(op)
        ? `The page is past the last page (${kind}-archive-page-not-found)`
        : `No ${kind} with this ${route.path.includes('{slug}') ? 'slug' : 'ID'} (rest-${kind}-not-found)`);
    case 410:
      return op.id === 'changes.list'
        ? 'The cursor is older than the changes kept (rest_changes_expired): list everything again, then follow since=latest'
        : `The ${kind} is already in the trash (${kind}-is-in-trash)`;
    case 412:
      return 'If-Match does not match the record\'s current ETag: it changed since it was read (rest_precondition_failed)';
    case 413:
      return op.method === 'DELETE'
        ? 'The request body is larger than 1 MiB (rest_payload_too_large)'
        : 'The request body is larger than 1 MiB, or the record would hold more than 350 KB of text (rest_payload_too_large)';
    case 409:
      return op.id.startsWith('attendees.')
        ? 'The places do not fit (rest-ticket-sold-out, with data.available), or the ticket cannot be reserved now (rest-ticket-not-available)'
        : 'The ticket has attendees: an editor may delete them with it using force=true (rest-ticket-has-attendees)';
    case 429:
      return 'Too many reservations a minute for this ticket from this address (rest_too_many_attempts; see Retry-After)';
    default:
      throw new Error(`no description for status ${status} of ${op.id}`);
  }
}

/** Error responses shared by many operations (components.responses). */
const SHARED_RESPONSES: Record<string, Json> = {
  InvalidCredentials: {
    description: 'The Authorization header holds an invalid, expired or wrongly signed token, or a credential of another ' +
      'scheme (rest_invalid_token)',
    headers: { 'WWW-Authenticate': headerRef('WWW-Authenticate'), ...COMMON_HEADERS },
    content: { 'application/json': { schema: ref('Error') } },
  },
  CredentialsRequired: {
    description: 'Credentials are needed (rest_forbidden, no Authorization header) or were refused (rest_invalid_token)',
    headers: { 'WWW-Authenticate': headerRef('WWW-Authenticate'), ...COMMON_HEADERS },
    content: { 'application/json': { schema: ref('Error') } },
  },
  UnsupportedMediaType: {
    description: 'The body is neither JSON nor a form (rest_unsupported_media_type)',
    headers: COMMON_HEADERS,
    content: { 'application/json': { schema: ref('Error') } },
  },
  InternalError: {
    description: 'Unexpected failure (rest_internal_error); data.request_id identifies it',
    headers: COMMON_HEADERS,
    content: { 'application/json': { schema: ref('Error') } },
  },
  IdempotencyInProgress: {
    description: 'A request with this Idempotency-Key is still running (rest_idempotency_in_progress); retry after Retry-After seconds '
      + 'to get its answer',
    headers: { 'Retry-After': headerRef('Retry-After'), ...COMMON_HEADERS },
    content: { 'application/json': { schema: ref('Error') } },
  },
  IdempotencyKeyReused: {
    description: 'This Idempotency-Key was sent with a different request within 24 hours (rest_idempotency_key_reused)',
    headers: COMMON_HEADERS,
    content: { 'application/json': { schema: ref('Error') } },
  },
  NotModified: {
    description: 'Not modified: If-None-Match names the current ETag (or *); no body',
    headers: { ETag: headerRef('ETag'), 'Cache-Control': headerRef('Cache-Control'), Vary: headerRef('Vary'), ...COMMON_HEADERS },
  },
  Unavailable: {
    description: 'The database is busy or unreachable, or the request ran out of time (rest_unavailable); retry after ' +
      'Retry-After seconds. On a write, data.outcome "unknown" means it may or may not have been stored',
    headers: { 'Retry-After': headerRef('Retry-After'), ...COMMON_HEADERS },
    content: { 'application/json': { schema: ref('Error') } },
  },
};

/**
 * Every error status an operation can answer: the pipeline's, which apply to any operation of its kind — 400 (each
 * operation validates parameters), 401 (a refused Authorization header, on every route), 413 and 415 (methods with
 * a body, DELETE included), 500, and 503 (the store, or the function's time limit) — and the operation's own.
 * 405 is a path's answer to the methods it lacks, not an operation's; 304 is not answered yet.
 */
export function errorStatuses(_route: RouteSpec, op: OperationSpec): number[] {
  const statuses = new Set(op.errors);
  if (op.params.length) statuses.add(400);
  statuses.add(401);
  if (BODY_METHODS.has(op.method)) {
    statuses.add(413);
    statuses.add(415);
  }
  if (takesIdempotencyKey(op)) {
    statuses.add(409);
    statuses.add(422);
  }
  statuses.add(500);
  statuses.add(503);
  return [...statuses].sort((a, b) => a - b);
}

function errorResponse(status: number, route: RouteSpec, op: OperationSpec): Json {
  switch (status) {
    case 401:
      return responseRef(op.capability === 'public' ? 'InvalidCredentials' : 'CredentialsRequired');
    case 415:
      return responseRef('UnsupportedMediaType');
    case 409:
      return IMPORT_409[op.id] ? { description: IMPORT_409[op.id], headers: { 'Retry-After': headerRef('Retry-After'), ...COMMON_HEADERS },
        content: { 'application/json': { schema: ref('Error') } } } : responseRef('IdempotencyInProgress');
    case 422:
      return responseRef('IdempotencyKeyReused');
    case 500:
      return responseRef('InternalError');
    case 503:
      return responseRef('Unavailable');
    default:
      return {
        description: errorDescription(status, route, op),
        headers: COMMON_HEADERS,
        content: { 'application/json': { schema: ref('Error') } },
      };
  }
}

function operation(route: RouteSpec, op: OperationSpec, operationId: string, bodies: BodySchemas): Json {
  const parameters: Json[] = op.params.filter((p) => p.in !== 'body').map(parameter);
  if (op.errors.includes(412)) {
    parameters.push({ name: 'If-Match', in: 'header', required: false, schema: { type: 'string' },
      description: 'the ETag of the record as last read (or *); the write is refused with 412 if the record changed since' });
  }
  if (takesIdempotencyKey(op)) {
    parameters.push({ name: 'Idempotency-Key', in: 'header', required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
      description: `a key of your choosing (1–255 visible ASCII characters) that makes retrying safe: a repeat of the same request by the same `
        + `user within 24 hours gets the first answer again (Idempotent-Replayed: true) and creates nothing more${op.alsoCreates
          ? '; taken only with scope=following' : ''}` });
  }
  if (op.method === 'GET') {
    parameters.push({ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' },
      description: 'ETags of responses already held (or *): the answer is 304 without a body while one is current' });
  }
  const body = op.params.filter((p) => p.in === 'body');
  const responses: Json = { [String(op.success)]: successResponse(route, op) };
  if (op.method === 'GET') responses['304'] = responseRef('NotModified');
  if (op.alsoCreates) {
    const created = successResponse(route, { ...op, success: 201 });
    responses['201'] = { ...created, description: `Created: ${op.alsoCreates}` };
  }
  if (op.alsoQueues) responses['202'] = { ...successResponse(route, op), description: `Accepted: ${op.alsoQueues}` };
  for (const status of errorStatuses(route, op)) responses[String(status)] = errorResponse(status, route, op);
  return {
    tags: [route.group],
    summary: op.summary,
    description: CAPABILITY_TEXT[op.capability],
    operationId,
    ...(parameters.length ? { parameters } : {}),
    ...(body.length ? { requestBody: requestBody(body, bodies.nameFor(op, operationId, body)) } : {}),
    responses,
    security: op.capability === 'public' ? READ_SECURITY : WRITE_SECURITY,
  };
}

function pathItem(route: RouteSpec, ids: Map<OperationSpec, string>, bodies: BodySchemas): Json {
  const item: Json = {
    description: `Other methods answer 405 rest_no_route with Allow: ${allowedMethods(route).join(', ')}. ` +
      'OPTIONS answers CORS preflight.',
  };
  for (const op of route.operations) {
    const method = op.method.toLowerCase();
    if (item[method]) throw new Error(`two ${op.method} operations on ${route.path}`);
    item[method] = operation(route, op, ids.get(op)!, bodies);
  }
  return item;
}

let shared: Pick<OpenApiDocument, 'tags' | 'components' | 'paths'> | null = null;

/** tags, components and paths: the same (frozen) objects for every document. */
function sharedParts(): Pick<OpenApiDocument, 'tags' | 'components' | 'paths'> {
  if (shared) return shared;
  const paths: Record<string, Record<string, unknown>> = {};
  const ids = operationIds(ROUTES);
  const bodies = new BodySchemas();
  for (const route of ROUTES) {
    if (paths[route.path]) throw new Error(`duplicate route ${route.path}`);
    paths[route.path] = pathItem(route, ids, bodies);
  }
  const groups = [...new Set(ROUTES.map((r) => r.group))];
  const components = {
    securitySchemes: SECURITY_SCHEMES,
    schemas: {
      ...Object.fromEntries(Object.entries(COMPONENT_SCHEMAS).map(([k, v]) => [k, toOpenApiSchema(v)])),
      ...bodies.schemas,
    },
    responses: SHARED_RESPONSES,
    headers: Object.fromEntries(Object.entries(COMPONENT_HEADERS).map(([k, v]) => [k, { description: v.description,
      schema: toOpenApiSchema(v.schema) }])),
  };
  shared = deepFreeze({ tags: groups.map((name) => ({ name, description: TAGS[name] })), components, paths });
  return shared;
}

function serverDescription(url: string, own: boolean): string {
  const parts = splitApiUrl(url);
  const language = !parts.recognised ? 'another root of this API'
    : parts.prefix ? `content in ${parts.prefix} unless translation_language says otherwise`
    : 'content in en unless translation_language says otherwise';
  return own ? `This API root (${language})` : language[0]!.toUpperCase() + language.slice(1);
}

/** apiUrl, then the given roots, then apiUrl's base under no prefix and under every language prefix; no duplicates. */
export function buildServers(apiUrl: string, serverUrls: readonly string[] = []): OpenApiServer[] {
  const parts = splitApiUrl(apiUrl);
  const urls = [parts.apiUrl, ...serverUrls.map(trimSlashes).filter((u) => u !== '')];
  if (parts.recognised) urls.push(apiRootFor(parts.base, null, parts.apiBase), ...LANGUAGES.map((l) => apiRootFor(parts.base, l, parts.apiBase)));
  return [...new Set(urls)].map((url, i) => ({ url, description: serverDescription(url, i === 0) }));
}

/** The OpenAPI document for a request whose API root is apiUrl. Nested objects are shared and frozen: do not mutate. */
export function buildOpenApiDocument(options: BuildOpenApiOptions): OpenApiDocument {
  const { tags, components, paths } = sharedParts();
  return {
    openapi: OPENAPI_VERSION,
    info: INFO,
    servers: buildServers(options.apiUrl, options.serverUrls),
    tags,
    components,
    paths,
  };
}
