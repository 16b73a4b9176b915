/**
 * The HTTP API's routes, generated from the route definitions the handlers use (lib/routes): every operation of
 * every RouteSpec, once without a language prefix and once under each language prefix. Pure (no constructs), so
 * tests can compare the stack against it.
 */
// lib/routes/index.ts re-exports match.ts, which reads ROUTES from index.ts at load time: loading match.ts first
// lets that import cycle resolve (loading index.ts first throws "Cannot access 'ROUTES' before initialization").
import '../lib/routes/match.js';
import { LANGUAGES, NAMESPACE, ROUTES, type Group, type Language, type Method, type RouteSpec } from '../lib/routes/index.js';

export interface HttpApiRoute {
  method: Method;
  /** Full API Gateway path, e.g. "/de/calendar/events/v1/events/{id}". */
  path: string;
  group: Group;
  /** Any capability other than 'public' writes: these routes get the JWT authorizer. */
  isWrite: boolean;
  operationId: string;
  /** The language prefix, or null for the unprefixed path. */
  language: Language | null;
}

/** Path prefixes every route is served under: none, then each language. */
export const PATH_PREFIXES: readonly (Language | null)[] = [null, ...LANGUAGES];

/** "/" → "/calendar/events/v1"; "/events/{id}" under "de" → "/de/calendar/events/v1/events/{id}". */
export function apiPath(relative: string, language: Language | null = null): string {
  const base = `${language ? `/${language}` : ''}/${NAMESPACE}`;
  return relative === '/' ? base : `${base}${relative}`;
}

/** One entry per (method, path): the route definitions' operations times the path prefixes. */
export function httpApiRoutes(routes: readonly RouteSpec[] = ROUTES): HttpApiRoute[] {
  const out: HttpApiRoute[] = [];
  for (const language of PATH_PREFIXES) {
    for (const route of routes) {
      for (const op of route.operations) {
        out.push({
          method: op.method,
          path: apiPath(route.path, language),
          group: route.group,
          isWrite: op.capability !== 'public',
          operationId: op.id,
          language,
        });
      }
    }
  }
  return out;
}

/** The groups in definition order; one Lambda function each, entry functions/<group>.ts. */
export function functionGroups(routes: readonly RouteSpec[] = ROUTES): Group[] {
  return [...new Set(routes.map((r) => r.group))];
}

/** The group whose function also serves the `$default` catch-all route (the API's own 404/405 JSON). */
export const DEFAULT_ROUTE_GROUP: Group = 'root';

export type TableAccess = 'none' | 'read' | 'read-write';

/**
 * What each function may do on the table. The root function answers only from the route definitions (namespace
 * index, OpenAPI document, 404/405 for unknown paths), so it gets no DynamoDB access at all. Every other group
 * reads; it writes if any of its operations needs a capability other than 'public'.
 */
export function tableAccess(group: Group, routes: readonly RouteSpec[] = ROUTES): TableAccess {
  if (group === 'root') return 'none';
  const writes = routes.some((r) => r.group === group && r.operations.some((o) => o.capability !== 'public'));
  return writes ? 'read-write' : 'read';
}

/** IAM actions for reads: single items, batches of items, and key-condition queries on the table and its indexes. */
export const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;

/**
 * IAM actions for writes. TransactWriteItems is not an IAM action: each Put/Update/Delete/ConditionCheck inside a
 * transaction is authorised as PutItem/UpdateItem/DeleteItem/ConditionCheckItem. No BatchWriteItem (unused), and
 * never Scan.
 */
export const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'] as const;

export function tableActions(access: TableAccess): string[] {
  if (access === 'none') return [];
  return access === 'read' ? [...READ_ACTIONS] : [...READ_ACTIONS, ...WRITE_ACTIONS];
}
