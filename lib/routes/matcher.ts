/**
 * Route matching over a given list of routes. A function matches only the routes it serves (API Gateway sends it
 * nothing else), so its bundle holds no other group's parameter definitions and parsers; the root function, behind
 * the $default route, matches every route (match.ts).
 */
import { methodNotAllowed, noRoute, type ApiError } from '../http/errors.js';
import type { Method, OperationSpec, RouteSpec } from './types.js';

export interface RouteMatch {
  route: RouteSpec;
  operation: OperationSpec;
  pathParams: Record<string, string>;
}

export interface RouteMatcher {
  /** Finds the operation for a path relative to the API root; 404 unknown path, 405 known path with another method. */
  matchRoute(rel: string, method: string): RouteMatch | ApiError;
  /** The route whose path matches, whatever the method (CORS preflight). */
  routeForPath(rel: string): RouteSpec | null;
}

export const allowedMethods = (route: RouteSpec): string[] => [...new Set(route.operations.map((o) => o.method)), 'OPTIONS'];

export function routeMatcher(routes: readonly RouteSpec[]): RouteMatcher {
  const compiled = routes.map((route) => {
    const names: string[] = [];
    const source = route.path.replace(/\./g, '\\.').replace(/\{(\w+)\}/g, (_, name: string) => {
      names.push(name);
      // There is no by-slug feed (contract §1): a slug ending in .ics names no route.
      return name === 'id' ? '(\\d+)' : '(?![^/]*\\.ics$)([^/]+)';
    });
    return { route, names, re: new RegExp(`^${source}$`, 'i') };
  });

  return {
    matchRoute(rel, method) {
      for (const { route, names, re } of compiled) {
        const m = re.exec(rel);
        if (!m) continue;
        const lookup = method === 'HEAD' ? 'GET' : method;
        const operation = route.operations.find((o) => o.method === (lookup as Method));
        if (!operation) return methodNotAllowed(allowedMethods(route));
        const pathParams: Record<string, string> = {};
        try {
          names.forEach((n, i) => (pathParams[n] = decodeURIComponent(m[i + 1]!)));
        } catch {
          return noRoute(); // a malformed %-escape cannot name a record
        }
        return { route, operation, pathParams };
      }
      return noRoute();
    },
    routeForPath: (rel) => compiled.find(({ re }) => re.test(rel))?.route ?? null,
  };
}
