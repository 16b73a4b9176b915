/**
 * The OpenAPI 3.0.3 document served at GET {api}/doc (contract §10), generated from ROUTES: every route, method,
 * parameter, request body, response schema and error status.
 *
 * Everything but `servers` is independent of the request, so components and paths are built once, deep-frozen
 * and shared by every document; only the small top-level object and its `servers` are built per call.
 */
import { allowedMethods } from '../routes/match.js';
import { LANGUAGES, ROUTES, type Capability, type Group, type OperationSpec, type ParamSpec, type RouteSpec } from '../routes/index.js';
import { COMPONENT_HEADERS, COMPONENT_SCHEMAS, ref, responseSchemaName, type OpenApiSchema } from './schemas.js';
import { deepFreeze } from './freeze.js';
import { apiRootFor, splitApiUrl, trimSlashes } from './urls.js';

export const OPENAPI_VERSION = '3.0.3';

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
  info: { title: string; version: string; description: string };
  servers: OpenApiServer[];
  components: Record<string, unknown>;
  paths: Record<string, Record<string, unknown>>;
}

type Json = Record<string, unknown>;
const JSON_TYPES = ['application/json', 'application/x-www-form-urlencoded'] as const;

const INFO = deepFreeze({
  title: 'Calendar Events API',
  version: '1.0.0',
  description: [
    'A calendar of events, venues, organizers, categories and tags. Wire-compatible with The Events Calendar REST API v1',
    '(WordPress namespace tribe/events/v1), served under the namespace calendar/events/v1.',
    '',
    `Languages: ${LANGUAGES.join(', ')} (default en). Every route also exists under a language prefix`,
    `(${LANGUAGES.map((l) => `/${l}/calendar/events/v1`).join(', ')}); the translation_language parameter overrides the prefix.`,
    '',
    'Authentication: `Authorization: Bearer <JWT>`. Without the header a request is anonymous; any other Authorization',
    'header that is not a valid token is refused with 401 rest_invalid_token, on every route.',
    '',
    'Errors are always `{"code", "message", "data": {"status", ...}}`. Lists send X-TEC-Total, X-TEC-TotalPages and a',
    'Link header; single-record GETs send an ETag that writes may check with If-Match.',
  ].join('\n'),
});

const CAPABILITY_TEXT: Record<Capability, string> = {
  public: 'Open to anonymous callers; a bearer token, when sent, decides which unpublished records are visible.',
  signed_in: 'Needs credentials of any signed-in user (a bearer token or an application password).',
  create_posts: 'Needs a bearer token of a contributor, author or editor.',
  edit_posts: 'Needs a bearer token of a contributor, author or editor who may change this record ' +
    '(contributors: their own drafts; authors: their own records; editors: everything).',
  manage_categories: 'Needs a bearer token of an author or editor.',
  manage_tags: 'Needs a bearer token of an editor.',
};

const SINGULAR: Record<Group, string> = {
  root: 'namespace', events: 'event', venues: 'venue', organizers: 'organizer', categories: 'category', tags: 'tag',
};

const isList = (op: OperationSpec): boolean => COMPONENT_SCHEMAS[responseSchemaName(op.response)]?.properties?.total_pages !== undefined;
const hasCaptures = (route: RouteSpec): boolean => /\{\w+\}/.test(route.path);
const headerRef = (name: keyof typeof COMPONENT_HEADERS): Json => ({ $ref: `#/components/headers/${name}` });

/** A copy of a route-definition schema with only OpenAPI 3.0 keywords (arrays copied, undefined dropped). */
export function toOpenApiSchema(schema: OpenApiSchema): OpenApiSchema {
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined) continue;
    if (key === 'items' || key === 'additionalProperties') {
      out[key] = typeof value === 'object' && value !== null ? toOpenApiSchema(value as OpenApiSchema) : value;
    } else if (key === 'oneOf' || key === 'allOf') {
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

function paramSchema(p: ParamSpec): OpenApiSchema {
  const schema = toOpenApiSchema(p.schema);
  if (p.default !== undefined && schema.default === undefined) schema.default = p.default;
  return schema;
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

/** "events.update.put" → "EventsUpdatePutBody". */
const bodySchemaName = (op: OperationSpec): string =>
  `${op.id.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}Body`;

/**
 * Body schemas live in components.schemas (both media types refer to them), named after the first operation
 * with that body; operations with the same body (POST/PUT/PATCH updates, by id and by slug) share one.
 */
class BodySchemas {
  readonly schemas: Record<string, OpenApiSchema> = {};
  private readonly byContent = new Map<string, string>();

  nameFor(op: OperationSpec, params: ParamSpec[]): string {
    const schema = bodySchema(params, `The body of: ${op.summary}`);
    const content = JSON.stringify(schema);
    let name = this.byContent.get(content);
    if (!name) {
      name = bodySchemaName(op);
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
    description: required
      ? 'The record\'s fields. Form bodies nest with brackets: a[]=1&a[]=2, venue[city]=X.'
      : 'Only the fields sent change. Form bodies nest with brackets: a[]=1&a[]=2, venue[city]=X.',
    required,
    content: Object.fromEntries(JSON_TYPES.map((type) => [type, { schema: ref(schemaName) }])),
  };
}

function successResponse(route: RouteSpec, op: OperationSpec): Json {
  const name = responseSchemaName(op.response);
  const kind = SINGULAR[route.group];
  let description: string;
  if (route.group === 'root') description = COMPONENT_SCHEMAS[name]!.description ?? name;
  else if (op.success === 201) description = `Created: the new ${kind}`;
  else if (op.method === 'GET') description = isList(op) ? `A page of ${route.group}` : `The ${kind}`;
  else if (op.method === 'DELETE') {
    description = op.errors.includes(410)
      ? `The ${kind} as deleted: status "trash", or its last state when deleted permanently with force=true`
      : `The deleted ${kind}`;
  } else description = `The updated ${kind}`;
  const headers: Json = {};
  if (isList(op)) {
    headers['X-TEC-Total'] = headerRef('X-TEC-Total');
    headers['X-TEC-TotalPages'] = headerRef('X-TEC-TotalPages');
    headers.Link = headerRef('Link');
  }
  if (op.method === 'GET' && hasCaptures(route)) headers.ETag = headerRef('ETag');
  if (op.success === 201) headers.Location = headerRef('Location');
  headers['Content-Language'] = headerRef('Content-Language');
  return { description, headers, content: { 'application/json': { schema: ref(name) } } };
}

function errorDescription(status: number, route: RouteSpec, op: OperationSpec): string {
  const kind = SINGULAR[route.group];
  switch (status) {
    case 400:
      return 'Missing parameters (rest_missing_callback_param, data.params lists them), invalid parameters ' +
        '(rest_invalid_param, data.params gives each reason) or malformed JSON (rest_invalid_json)';
    case 401:
      return op.capability === 'public'
        ? 'The Authorization header holds an invalid, expired or wrongly signed token (rest_invalid_token)'
        : 'Authentication required (rest_forbidden, no token) or the token is invalid (rest_invalid_token)';
    case 403:
      return op.capability === 'public'
        ? `The ${kind} is not accessible to the caller: not published, in the trash or password-protected`
        : 'The caller is not allowed to do this (rest_forbidden)';
    case 404:
      return isList(op)
        ? `The page is past the last page (${kind}-archive-page-not-found)`
        : `No ${kind} with this ${route.path.includes('{slug}') ? 'slug' : 'ID'} (rest-${kind}-not-found)`;
    case 410:
      return `The ${kind} is already in the trash (${kind}-is-in-trash)`;
    case 412:
      return 'If-Match does not match the record\'s current ETag: it changed since it was read (rest_precondition_failed)';
    case 413:
      return 'The request body is larger than 1 MiB (rest_payload_too_large)';
    case 500:
      return 'Unexpected failure (rest_internal_error); data.request_id identifies it';
    case 503:
      return 'The database is busy (rest_unavailable); retry after Retry-After seconds';
    default:
      return `Error ${status}`;
  }
}

/** The documented error statuses of an operation: its own, plus 500 always and 503 where the database is used. */
export function errorStatuses(route: RouteSpec, op: OperationSpec): number[] {
  const statuses = new Set(op.errors);
  statuses.add(500);
  if (route.group !== 'root') statuses.add(503);
  return [...statuses].sort((a, b) => a - b);
}

function operation(route: RouteSpec, op: OperationSpec, bodies: BodySchemas): Json {
  const parameters: Json[] = op.params.filter((p) => p.in !== 'body').map(parameter);
  if (op.errors.includes(412)) {
    parameters.push({ name: 'If-Match', in: 'header', required: false, schema: { type: 'string' },
      description: 'the ETag of the record as last read; the write is refused with 412 if it changed since' });
  }
  const body = op.params.filter((p) => p.in === 'body');
  const responses: Json = { [String(op.success)]: successResponse(route, op) };
  for (const status of errorStatuses(route, op)) {
    const headers = status === 401 ? { 'WWW-Authenticate': headerRef('WWW-Authenticate') }
      : status === 503 ? { 'Retry-After': headerRef('Retry-After') } : undefined;
    responses[String(status)] = {
      description: errorDescription(status, route, op),
      ...(headers ? { headers } : {}),
      content: { 'application/json': { schema: ref('Error') } },
    };
  }
  return {
    tags: [route.group],
    summary: op.summary,
    description: CAPABILITY_TEXT[op.capability],
    operationId: op.id,
    ...(parameters.length ? { parameters } : {}),
    ...(body.length ? { requestBody: requestBody(body, bodies.nameFor(op, body)) } : {}),
    responses,
    ...(op.capability === 'public' ? {} : { security: [{ bearerAuth: [] }] }),
  };
}

function pathItem(route: RouteSpec, bodies: BodySchemas): Json {
  const item: Json = {
    description: `Other methods answer 405 rest_no_route with Allow: ${allowedMethods(route).join(', ')}. ` +
      'OPTIONS answers CORS preflight.',
  };
  for (const op of route.operations) {
    const method = op.method.toLowerCase();
    if (item[method]) throw new Error(`two ${op.method} operations on ${route.path}`);
    item[method] = operation(route, op, bodies);
  }
  return item;
}

let shared: Pick<OpenApiDocument, 'components' | 'paths'> | null = null;

/** components and paths: the same (frozen) objects for every document. */
function sharedParts(): Pick<OpenApiDocument, 'components' | 'paths'> {
  if (shared) return shared;
  const paths: Record<string, Record<string, unknown>> = {};
  const bodies = new BodySchemas();
  for (const route of ROUTES) {
    if (paths[route.path]) throw new Error(`duplicate route ${route.path}`);
    paths[route.path] = pathItem(route, bodies);
  }
  const components = {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'A JWT (Cognito in AWS, HS256 locally). The highest of its cognito:groups gives the role: ' +
          'administrator/editor → editor, author, contributor, anything else → subscriber.',
      },
    },
    schemas: {
      ...Object.fromEntries(Object.entries(COMPONENT_SCHEMAS).map(([k, v]) => [k, toOpenApiSchema(v)])),
      ...bodies.schemas,
    },
    headers: Object.fromEntries(Object.entries(COMPONENT_HEADERS).map(([k, v]) => [k, { description: v.description,
      schema: toOpenApiSchema(v.schema) }])),
  };
  shared = deepFreeze({ components, paths });
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
  const { components, paths } = sharedParts();
  return {
    openapi: OPENAPI_VERSION,
    info: INFO,
    servers: buildServers(options.apiUrl, options.serverUrls),
    components,
    paths,
  };
}
