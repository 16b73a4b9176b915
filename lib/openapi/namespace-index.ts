/**
 * The namespace index served at GET {api} (reference §3.1, contract §10), generated from ROUTES: one entry per route
 * keyed by its full WordPress-style route regex, with its methods and one endpoint per handler group.
 *
 * The endpoints are built once, deep-frozen and shared; only the URLs (`_links`) are built per call.
 */
import { NAMESPACE, ROUTES, type Method, type OperationSpec, type ParamSpec, type RouteSpec, type Schema } from '../routes/index.js';
import { deepFreeze } from './freeze.js';
import { splitApiUrl } from './urls.js';

export interface IndexArg {
  type?: string;
  description: string;
  required: boolean;
  default?: unknown;
  enum?: unknown[];
  items?: Record<string, unknown>;
  format?: string;
  [keyword: string]: unknown;
}

export interface IndexEndpoint {
  methods: Method[];
  args: Record<string, IndexArg>;
}

export interface IndexRoute {
  namespace: string;
  methods: Method[];
  endpoints: IndexEndpoint[];
  _links?: { self: { href: string }[] };
}

export interface NamespaceIndex {
  namespace: string;
  routes: Record<string, IndexRoute>;
  _links: { up: { href: string }[] };
}

/** JSON-schema keywords kept in args (route-definition extras such as parsers and `in` are dropped). */
const SCHEMA_KEYWORDS = ['type', 'format', 'enum', 'items', 'oneOf', 'anyOf', 'properties', 'additionalProperties', 'minimum',
  'maximum', 'minLength', 'maxLength', 'pattern', 'maxItems', 'nullable', 'default'] as const;

/**
 * "/events/{id}" → "/calendar/events/v1/events/(?P<id>\d+)", as WordPress names routes (ids are digits only; a literal
 * dot, as in "/events.ics", is escaped).
 */
export function routeKey(path: string, namespace: string = NAMESPACE): string {
  const rel = path === '/' ? '' : path.replace(/\./g, '\\.').replace(/\{(\w+)\}/g, (_, name: string) => `(?P<${name}>${name === 'id' ? '\\d+' : '[^/]+'})`);
  return `/${namespace}${rel}`;
}

function jsonSchema(schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SCHEMA_KEYWORDS) {
    const value = schema[key];
    if (value === undefined) continue;
    if (key === 'items') out[key] = jsonSchema(value as Schema);
    else if (key === 'oneOf' || key === 'anyOf') out[key] = (value as Schema[]).map(jsonSchema);
    else if (key === 'properties') {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, jsonSchema(v)]));
    } else if (key === 'additionalProperties' && typeof value === 'object') out[key] = jsonSchema(value as Schema);
    else out[key] = value !== null && typeof value === 'object' ? structuredClone(value) : value;
  }
  return out;
}

/** An argument as the index shows it: {type, description, required, default?, enum?, items?, format?, …}. */
export function indexArg(p: ParamSpec): IndexArg {
  const { type, default: schemaDefault, enum: values, items, format, ...rest } = jsonSchema(p.schema);
  const arg: IndexArg = { ...(type !== undefined ? { type: type as string } : {}), description: p.description,
    required: p.in === 'path' || p.required === true };
  const def = p.default !== undefined ? p.default : schemaDefault;
  if (def !== undefined) arg.default = structuredClone(def);
  if (values !== undefined) arg.enum = values as unknown[];
  if (items !== undefined) arg.items = items as Record<string, unknown>;
  if (format !== undefined) arg.format = format as string;
  return Object.assign(arg, rest);
}

/** What makes two operations of a route one handler: everything but their id and method. */
function handlerKey(op: OperationSpec, args: Record<string, IndexArg>): string {
  return JSON.stringify([op.summary, op.capability, op.success, op.response, [...op.errors].sort(), args]);
}

function endpoints(route: RouteSpec): IndexEndpoint[] {
  const groups = new Map<string, IndexEndpoint>();
  for (const op of route.operations) {
    // Args are keyed by name; when a name is both a path and a body parameter (the new `slug` of a by-slug
    // update) the first — the path capture, which wins at run time — is the one described.
    const args: Record<string, IndexArg> = {};
    for (const p of op.params) if (!Object.hasOwn(args, p.name)) args[p.name] = indexArg(p);
    const key = handlerKey(op, args);
    const group = groups.get(key);
    if (group) {
      if (!group.methods.includes(op.method)) group.methods.push(op.method);
    } else groups.set(key, { methods: [op.method], args });
  }
  return [...groups.values()];
}

interface SharedRoute {
  key: string;
  path: string;
  methods: Method[];
  endpoints: IndexEndpoint[];
  linked: boolean;
}

let shared: SharedRoute[] | null = null;

function sharedRoutes(): SharedRoute[] {
  if (shared) return shared;
  const keys = new Set<string>();
  shared = ROUTES.map((route) => {
    const key = routeKey(route.path);
    if (keys.has(key)) throw new Error(`duplicate route ${key}`);
    keys.add(key);
    return deepFreeze({
      key,
      path: route.path,
      methods: [...new Set(route.operations.map((o) => o.method))],
      endpoints: endpoints(route),
      linked: !/\{\w+\}/.test(route.path),
    });
  });
  return shared;
}

/** The namespace index for a request whose API root is apiUrl. Nested method lists and endpoints are shared and frozen. */
export function buildNamespaceIndex(options: { apiUrl: string }): NamespaceIndex {
  const { apiUrl, base, apiBase } = splitApiUrl(options.apiUrl);
  const namespace = apiBase.namespace;
  const routes: Record<string, IndexRoute> = {};
  for (const r of sharedRoutes()) {
    routes[namespace === NAMESPACE ? r.key : routeKey(r.path, namespace)] = {
      namespace,
      methods: r.methods,
      endpoints: r.endpoints,
      ...(r.linked ? { _links: { self: [{ href: r.path === '/' ? apiUrl : `${apiUrl}${r.path}` }] } } : {}),
    };
  }
  return { namespace, routes, _links: { up: [{ href: `${base}/` }] } };
}
