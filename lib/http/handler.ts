/**
 * The request pipeline shared by every function (contract §3 processing order):
 * route → token → required parameters → parameter validation (with reference checks) → capability → handler.
 */
import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { authenticate } from '../auth/token.js';
import { atLeast } from '../auth/roles.js';
import { config } from '../config.js';
import { ApiError, forbidden, invalidParams, missingParams, noRoute, ParamError } from './errors.js';
import { parseRequest } from './request.js';
import { CORS_HEADERS, json, type HttpResult } from './response.js';
import type { RequestContext } from './context.js';
import { allowedMethods, routeMatcher, splitApiPath, type RouteMatcher } from '../routes/matcher.js';
import { LANGUAGES, NAMESPACE, type Capability, type Group, type Language, type RouteSpec } from '../routes/types.js';
import { newMeter, withMeter } from '../store/meter.js';
import type { RefKind } from '../routes/types.js';

export type Operation = (ctx: RequestContext) => Promise<HttpResult>;

/**
 * What the pipeline itself reads from the store: reference checks and the caller's user id. Functions that
 * own data pass lib/store/pipeline.ts; the root function passes none and so bundles no database code.
 */
export interface PipelineStore {
  resolveRefs(kind: RefKind, values: (string | number)[]): Promise<(number | null)[]>;
  userIdForSub(sub: string): Promise<number>;
}

const MIN_ROLE: Record<Exclude<Capability, 'public'>, 'contributor' | 'author' | 'editor'> = {
  create_posts: 'contributor',
  edit_posts: 'contributor',
  manage_categories: 'author',
  manage_tags: 'editor',
};

async function dispatch(event: APIGatewayProxyEventV2, group: Group, routes: RouteMatcher, operations: Record<string, Operation>,
  store: PipelineStore | null, response: { lang: Language }): Promise<HttpResult> {
  const req = parseRequest(event);
  const api = splitApiPath(req.path);
  if (!api) throw noRoute();
  if (req.method === 'OPTIONS') {
    const route = routes.routeForPath(api.rel);
    if (!route) throw noRoute();
    const allow = allowedMethods(route).join(', ');
    return { statusCode: 204, headers: {
      Allow: allow, 'Access-Control-Allow-Methods': allow, 'Access-Control-Max-Age': '86400',
      'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ?? 'Authorization, Content-Type, If-Match',
    }, body: '' };
  }
  const match = routes.matchRoute(api.rel, req.method);
  if (match instanceof ApiError) throw match;
  const handler = operations[match.operation.id];
  if (match.route.group !== group || !handler) {
    // Behind API Gateway a path its routes don't spell exactly (trailing slash, letter case) reaches the root
    // function's $default route: send the client to the canonical URL, which reaches the right function.
    const canonical = `${req.stagePath}${api.prefix ? `/${api.prefix}` : ''}/${NAMESPACE}${api.rel === '/' ? '' : canonicalRel(api.rel)}`;
    if (group === 'root' && canonical !== event.rawPath) {
      const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
      return { statusCode: 308, headers: { Location: `${req.origin}${canonical}${query}` }, body: '' };
    }
    throw noRoute();
  }

  const raw: Record<string, unknown> = { ...req.query, ...req.body, ...match.pathParams };
  // Errors from here on answer in the request's language too (a body translation_language included).
  response.lang = (LANGUAGES as readonly unknown[]).includes(raw.translation_language) ? (raw.translation_language as Language)
    : api.prefix ?? 'en';
  const caller = await authenticate(req.headers.authorization);
  const stageBase = `${req.origin}${req.stagePath}`;
  let userId: Promise<number | null> | null = null;
  const ctx: RequestContext = {
    method: match.operation.method,
    route: match.route,
    operation: match.operation,
    lang: api.prefix ?? 'en',
    prefix: api.prefix,
    headers: req.headers,
    raw,
    queryNames: new Set(Object.keys(req.query)),
    params: {},
    caller,
    apiUrl: `${stageBase}${api.prefix ? `/${api.prefix}` : ''}/${NAMESPACE}`,
    origin: req.origin,
    host: req.host,
    siteUrl: config().siteUrl ?? req.origin,
    requestId: req.requestId,
    userId: () => (userId ??= caller && store ? store.userIdForSub(caller.sub) : Promise.resolve(null)),
  };

  const specs = match.operation.params;
  const missing = specs.filter((p) => p.required && (raw[p.name] === undefined || raw[p.name] === null)).map((p) => p.name);
  if (missing.length) throw missingParams(missing);

  const invalid: Record<string, string> = {};
  for (const spec of specs) {
    const value = raw[spec.name];
    if (value === undefined) {
      if (spec.default !== undefined) ctx.params[spec.name] = spec.default;
      continue;
    }
    try {
      ctx.params[spec.name] = await spec.parse(value, ctx);
    } catch (e) {
      if (!(e instanceof ParamError)) throw e;
      invalid[spec.name] = `${spec.name} ${e.message}`;
    }
  }
  for (const spec of specs) {
    if (!spec.refs || invalid[spec.name] || ctx.params[spec.name] === undefined) continue;
    const value = ctx.params[spec.name];
    const list = spec.refIds ? spec.refIds(value) : ((Array.isArray(value) ? value : [value]) as (string | number)[]);
    if (!store) throw new Error(`${spec.name} needs the store to check its references`);
    const ids = await store.resolveRefs(spec.refs, list);
    const unknown = list.filter((_, i) => ids[i] === null);
    if (unknown.length) invalid[spec.name] = `${spec.name}: no ${spec.refs} ${unknown.join(', ')}`;
    else if (!spec.refIds) ctx.params[spec.name] = Array.isArray(value) ? [...new Set(ids)] : ids[0];
  }
  if (Object.keys(invalid).length) throw invalidParams(invalid);
  if (ctx.params.translation_language) ctx.lang = ctx.params.translation_language as Language;

  const capability = match.operation.capability;
  if (capability !== 'public' && !atLeast(caller?.role ?? null, MIN_ROLE[capability])) throw forbidden(caller !== null);

  const result = await handler(ctx);
  result.headers['Content-Language'] = ctx.lang;
  return result;
}

/** The route's own spelling: fixed segments in lower case, captured ids and slugs as sent. */
function canonicalRel(rel: string): string {
  const parts = rel.split('/');
  return parts.map((part, i) => (/^\d+$/.test(part) || parts[i - 1]?.toLowerCase() === 'by-slug' ? part : part.toLowerCase())).join('/');
}

function errorResult(error: unknown, requestId: string): HttpResult {
  if (error instanceof ApiError) return json(error.status, error.body(), error.headers);
  const name = (error as Error)?.name ?? '';
  if (/Throttl|ProvisionedThroughputExceeded|RequestLimitExceeded/.test(name)) {
    return json(503, { code: 'rest_unavailable', message: 'The service is busy; retry shortly.', data: { status: 503 } },
      { 'Retry-After': '1' });
  }
  console.error(JSON.stringify({ level: 'error', requestId, error: String((error as Error)?.stack ?? error) }));
  return json(500, {
    code: 'rest_internal_error', message: 'The server failed to answer; the request id identifies the failure in the logs.',
    data: { status: 500, request_id: requestId },
  });
}

/**
 * Builds the Lambda handler of one route group from its operation implementations (keyed by operation id).
 * `routes` are the routes the function serves, and the only ones it matches: a group's own routes (API Gateway
 * sends a function nothing else, and neither does the local server), or every route for the root function,
 * which gets all other requests through $default (redirects to canonical paths, 405 for other methods).
 */
export function createGroupHandler(group: Group, routes: readonly RouteSpec[], operations: Record<string, Operation>,
  store: PipelineStore | null) {
  const foreign = routes.find((r) => r.group !== group);
  if (group !== 'root' && foreign) throw new Error(`the ${group} function was given a route of ${foreign.group}: ${foreign.path}`);
  const served = new Set(routes.flatMap((r) => (r.group === group ? r.operations.map((o) => o.id) : [])));
  const unrouted = Object.keys(operations).filter((id) => !served.has(id));
  if (unrouted.length) throw new Error(`the ${group} function implements operations none of its routes has: ${unrouted.join(', ')}`);
  const matcher = routeMatcher(routes);
  return middy<APIGatewayProxyEventV2, HttpResult, Error, Context>().handler(async (event) => {
    const requestId = event.requestContext?.requestId ?? randomUUID();
    let result: HttpResult;
    const response = { lang: languageOf(event) };
    const meter = process.env.CALENDAR_METER === '1' ? newMeter() : null;
    try {
      result = await (meter ? withMeter(meter, () => dispatch(event, group, matcher, operations, store, response))
        : dispatch(event, group, matcher, operations, store, response));
    } catch (error) {
      result = errorResult(error, requestId);
    }
    if (meter) {
      // Benchmarks read the DynamoDB cost of each call from this header (CALENDAR_METER=1 only).
      result.headers = { ...result.headers, 'X-Calendar-Meter':
        `requests=${meter.requests}; rcu=${meter.readUnits}; wcu=${meter.writeUnits}; items=${meter.itemsRead}; tx=${meter.transactions}` };
    }
    result.headers = { ...CORS_HEADERS, 'Content-Language': response.lang, ...result.headers };
    if (event.requestContext?.http?.method === 'HEAD') result.body = '';
    return result;
  });
}

/** The response language even for errors raised before validation (contract §8: Content-Language on every response). */
function languageOf(event: APIGatewayProxyEventV2): Language {
  const q = (event.rawQueryString ?? '').split('&').find((pair) => pair.startsWith('translation_language='))?.slice(21);
  if (q === 'en' || q === 'de' || q === 'pt-pt') return q;
  const prefix = /^(?:\/[^/]+)?\/(en|de|pt-pt)\/calendar\//i.exec(event.rawPath ?? '')?.[1]?.toLowerCase();
  return (prefix as Language | undefined) ?? 'en';
}
