/**
 * Step 1 (contract §1, §3): the route and the method are decided before anything else, the body included. Unknown
 * path → 404, a method the path does not support (any method name) → 405 with Allow, OPTIONS → the CORS preflight.
 */
import { LANGUAGES, type FunctionGroup, type Group, type Language } from '../../routes/types.js';
import { allowedMethods, type RouteMatcher } from '../../routes/matcher.js';
import { CORS } from '../cors.js';
import { ApiError, noRoute } from '../errors.js';
import { apiRoot, splitApiPath } from '../paths.js';
import { parseQuery, requestLine } from '../request.js';
import { Reply } from './errors.js';
import type { HttpResult } from '../response.js';
import { stateOf, type Middleware, type PipelineRequest } from './state.js';

/** Hands a request to another group's function (the root function in AWS, lib/aws/forward.ts). */
export type Forward = (group: FunctionGroup, event: PipelineRequest['event']) => Promise<HttpResult>;

export function routing(group: Group, matcher: RouteMatcher, forward?: Forward): Middleware {
  return {
    before: async (request: PipelineRequest): Promise<void> => {
      const { event } = request;
      const line = requestLine(event);
      const query = parseQuery(event);
      const state = stateOf(request.event);
      Object.assign(state, { line, query: query.values, invalid: query.invalid, api: splitApiPath(line.path) });
      const api = state.api;
      const asked = query.values.translation_language;
      state.lang = (LANGUAGES as readonly unknown[]).includes(asked) ? (asked as Language) : api?.prefix ?? 'en';
      if (!api) throw noRoute();
      if (line.method === 'OPTIONS') {
        const route = matcher.routeForPath(api.rel);
        if (!route) throw noRoute();
        const allow = allowedMethods(route).join(', ');
        throw new Reply({ statusCode: 204, headers: {
          Allow: allow, 'Access-Control-Allow-Methods': allow, 'Access-Control-Max-Age': String(CORS.maxAgeSeconds),
          'Access-Control-Allow-Headers': CORS.allowHeaders.join(', '),
        }, body: '' });
      }
      const match = matcher.matchRoute(api.rel, line.method);
      if (match instanceof ApiError) throw match;
      if (match.route.group !== group) {
        // Behind API Gateway a path its routes don't spell exactly (letter case) reaches the root function's $default
        // route: the root function hands it to the right function, or (where it cannot) redirects to the canonical URL.
        if (group === 'root' && forward) throw new Reply(await forward(match.route.group, event));
        const canonical = `${line.stagePath}${apiRoot(api.prefix, api.base)}${api.rel === '/' ? '' : canonicalRel(api.rel)}`;
        if (group === 'root' && canonical !== event.rawPath) {
          const q = event.rawQueryString ? `?${event.rawQueryString}` : '';
          throw new Reply({ statusCode: 308, headers: { Location: `${line.origin}${canonical}${q}` }, body: '' });
        }
        throw noRoute();
      }
      state.match = match;
    },
  };
}

/** The route's own spelling: fixed segments in lower case, captured ids and slugs as sent. */
function canonicalRel(rel: string): string {
  const parts = rel.split('/');
  return parts.map((part, i) => (/^\d+$/.test(part) || parts[i - 1]?.toLowerCase() === 'by-slug' ? part : part.toLowerCase())).join('/');
}
