/**
 * The HTTP API's routes, derived from the route definitions the handlers use (lib/routes) and the routing rules of
 * lib/http/paths.ts: under every base (ours and the origin's, contract §12) and every path prefix (none, en, de,
 * pt-pt), one greedy route pair per top-level path segment, sent to the function of the group that owns that
 * segment — `ANY {root}/events` and `ANY {root}/events/{proxy+}` for the events function, and so on; the namespace
 * index itself goes to the root function. The functions then match their own routes exactly (404, 405 and OPTIONS
 * included), so API Gateway needs no method-level routes and the table stays far below its 300-route quota. Pure (no
 * constructs), so tests can compare the stack against it.
 */
import { apiRoot } from '../lib/http/paths.js';
import { BASES, LANGUAGES, ROUTES, type Base, type Group, type Language, type RouteSpec } from '../lib/routes/index.js';

export interface HttpApiRoute {
  /** Full API Gateway path, e.g. "/de/wp-json/tribe/events/v1/events/{proxy+}". */
  path: string;
  group: Group;
  base: Base;
  /** The language prefix, or null for the unprefixed path. */
  language: Language | null;
}

/** Path prefixes every route is served under: none, then each language. */
export const PATH_PREFIXES: readonly (Language | null)[] = [null, ...LANGUAGES];

/** The top-level segment of a route path ("/events/{id}" → "events"; "/" → ""), and the group that owns it. */
export function segmentOwners(routes: readonly RouteSpec[] = ROUTES): Map<string, Group> {
  const owners = new Map<string, Group>();
  for (const route of routes) {
    const segment = route.path.split('/')[1] ?? '';
    const owner = owners.get(segment);
    if (owner && owner !== route.group) throw new Error(`path segment "${segment}" belongs to both ${owner} and ${route.group}`);
    owners.set(segment, route.group);
  }
  return owners;
}

/** One entry per API Gateway route (method ANY): bases × prefixes × (the index + two per top-level segment). */
export function httpApiRoutes(routes: readonly RouteSpec[] = ROUTES): HttpApiRoute[] {
  const owners = segmentOwners(routes);
  const out: HttpApiRoute[] = [];
  for (const base of BASES) {
    for (const language of PATH_PREFIXES) {
      const root = apiRoot(language, base);
      for (const [segment, group] of owners) {
        if (segment === '') out.push({ path: root, group, base, language });
        else out.push({ path: `${root}/${segment}`, group, base, language }, { path: `${root}/${segment}/{proxy+}`, group, base, language });
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

/**
 * What each function may do on the table. The root function serves the namespace index, the OpenAPI document and
 * the caller's application passwords, and like every function checks Basic credentials: it may read and write only
 * the application-password and failed-attempt items (`accounts`). The data functions read and write the whole table
 * (their writes maintain records, guards, links and counters across item kinds).
 */
/** `none`: a function that reaches no table item (the change publisher reads the stream, granted by its event source). */
export type TableAccess = 'accounts' | 'read-write' | 'none';

export function tableAccess(group: Group): TableAccess {
  return group === 'root' ? 'accounts' : 'read-write';
}

/** The partition-key prefixes of the items `accounts` access may touch (lib/store/app-passwords.ts). */
export const ACCOUNT_KEY_PREFIXES = ['APPPW#', 'FAIL#'] as const;

/** The partition keys (or their prefixes) the root function reads for the changes feed (lib/store/changes.ts). */
export const CHANGE_READ_KEYS = ['CHG#*', 'COUNTER', 'USER#*', 'USERH#*'] as const;

/** IAM actions for reads: single items, batches of items, and key-condition queries on the table and its indexes. */
export const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;

/**
 * IAM actions for writes. TransactWriteItems is not an IAM action: each Put/Update/Delete/ConditionCheck inside a
 * transaction is authorised as PutItem/UpdateItem/DeleteItem/ConditionCheckItem. No BatchWriteItem (unused), and
 * never Scan.
 */
export const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'] as const;

export function tableActions(_access: TableAccess): string[] {
  return [...READ_ACTIONS, ...WRITE_ACTIONS];
}
