/**
 * The HTTP API's routes, derived from the route definitions the handlers use (lib/routes) and the routing rules of
 * lib/http/paths.ts: under every base (ours and the origin's, contract §12) and every path prefix (none, en, de,
 * pt-pt), greedy routes per top-level path segment, sent to the function of the group that owns that segment —
 * `ANY {root}/events` and `ANY {root}/events/{proxy+}` for the events function, and so on; the namespace index itself
 * goes to the root function. The functions then match their own routes exactly (404, 405 and OPTIONS included).
 *
 * API Gateway throttles per route key, so reads and writes get keys of their own where a segment has both: a segment
 * with public reads and writes gets `GET` keys (reads) next to its `ANY` keys (writes and every other method). An
 * HTTP API matches methods exactly — HEAD does not match a GET route — so HEAD goes to the `ANY` key and shares the
 * write bucket; HEAD keys of their own would take another 96 routes. OPTIONS needs no route: with `corsPreflight`
 * configured API Gateway answers preflight requests itself. Pure (no constructs), so tests can compare the stack
 * against it.
 *
 * The quota (300 routes per API) decides which spellings API Gateway routes itself. Every path is served either way:
 * a request no route spells reaches the root function through `$default`, which hands it to the function that owns it
 * (lib/aws/forward.ts) — one extra synchronous invocation, so only rarely used spellings go that way:
 * - the origin's base under a language prefix (`/de/wp-json/tribe/events/v1/…`: 93 routes otherwise) — the origin's
 *   clients call the unprefixed base; `?translation_language=` is how they ask for a language (contract §8);
 * - every spelling of /tickets and /attendees but our unprefixed base (NARROW_SEGMENTS);
 * - paths in another letter case (API Gateway matches case-sensitively).
 * The calendar pages (contract §21) are routed under every language prefix: they are what people visit.
 */
import { apiRoot } from '../lib/http/paths.js';
import { PAGE_SEGMENTS } from '../lib/pages/paths.js';
import {
  BASES, LANGUAGES, ROUTES, type Base, type Group, type Language, type OperationSpec, type RouteSpec,
} from '../lib/routes/index.js';
import type { FunctionGroup } from '../lib/routes/types.js';

/** The throttle a route key gets (infra/config.ts `routeThrottles`). */
export type TrafficClass = 'read' | 'write' | 'docs';
export const TRAFFIC_CLASSES: readonly TrafficClass[] = ['read', 'write', 'docs'];

/** API Gateway's quota of routes per API (adjustable on request); the stack keeps well below it. */
export const ROUTES_PER_API_QUOTA = 300;

export interface HttpApiRoute {
  /** Full API Gateway path, e.g. "/de/wp-json/tribe/events/v1/events/{proxy+}". */
  path: string;
  group: FunctionGroup;
  /** The API base, or null for a page route (the pages live outside the API's namespace). */
  base: Base | null;
  /** The language prefix, or null for the unprefixed path. */
  language: Language | null;
  /** `GET` for the reads of a segment that also has writes; `ANY` otherwise. */
  method: 'GET' | 'ANY';
  traffic: TrafficClass;
}

/** The API Gateway route key, e.g. "GET /calendar/events/v1/events/{proxy+}" (also the key of the stage's RouteSettings). */
export const routeKey = (route: Pick<HttpApiRoute, 'method' | 'path'>): string => `${route.method} ${route.path}`;

/** The root group's own operations (root.index, root.doc, …) are the documentation: generated from static definitions. */
const isDocumentation = (op: OperationSpec): boolean => op.id.startsWith('root.');

/**
 * The route keys of a top-level segment, from the methods of its operations: documentation; reads only; writes whose
 * reads need sign-in (account management: one key, throttled as writes); public reads and writes (a GET key and an ANY
 * key).
 */
export function segmentKeys(operations: readonly OperationSpec[]): { method: 'GET' | 'ANY'; traffic: TrafficClass }[] {
  if (operations.every(isDocumentation)) return [{ method: 'ANY', traffic: 'docs' }];
  const writes = operations.some((op) => op.method !== 'GET');
  if (!writes) return [{ method: 'ANY', traffic: 'read' }];
  const publicReads = operations.some((op) => op.method === 'GET' && op.capability === 'public');
  if (!publicReads) return [{ method: 'ANY', traffic: 'write' }];
  return [{ method: 'ANY', traffic: 'write' }, { method: 'GET', traffic: 'read' }];
}

/** Each top-level segment's operations, in definition order. */
function segmentOperations(routes: readonly RouteSpec[]): Map<string, OperationSpec[]> {
  const out = new Map<string, OperationSpec[]>();
  for (const route of routes) {
    const segment = route.path.split('/')[1] ?? '';
    out.set(segment, [...(out.get(segment) ?? []), ...route.operations]);
  }
  return out;
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

/**
 * Segments whose routes API Gateway spells only under our base without a language prefix, with one `ANY` key: each
 * full segment costs 32 routes of the quota of 300. Their other spellings (language prefixes, the origin's base) reach
 * the root function through `$default`, which hands them to the owning group's function (lib/aws/forward.ts).
 */
export const NARROW_SEGMENTS: ReadonlySet<string> = new Set(['tickets', 'attendees', 'imports']);

/** Whether API Gateway routes a base under a path prefix itself: the origin's base only without a language prefix. */
export const routedBase = (base: Base, language: Language | null): boolean => base === BASES[0] || language === null;

/**
 * The route keys of a page segment: pages are reads; the event pages also take their forms' posts (RSVP, cancel,
 * password), which get the write throttle on the `ANY` key next to a `GET` key for the reads.
 */
export const pageSegmentKeys = (segment: string): { method: 'GET' | 'ANY'; traffic: TrafficClass }[] =>
  segment === 'event' ? [{ method: 'ANY', traffic: 'write' }, { method: 'GET', traffic: 'read' }] : [{ method: 'ANY', traffic: 'read' }];

/**
 * One entry per API Gateway route: the API's (routed bases × prefixes × (the index + two paths per top-level segment)
 * × its keys), then the pages' (prefixes × two paths per page segment × its keys), all to the pages function.
 */
export function httpApiRoutes(routes: readonly RouteSpec[] = ROUTES): HttpApiRoute[] {
  const owners = segmentOwners(routes);
  const operations = segmentOperations(routes);
  const out: HttpApiRoute[] = [];
  for (const base of BASES) {
    for (const language of PATH_PREFIXES) {
      if (!routedBase(base, language)) continue;
      const root = apiRoot(language, base);
      for (const [segment, group] of owners) {
        const narrow = NARROW_SEGMENTS.has(segment);
        if (narrow && (language !== null || base !== BASES[0])) continue;
        const keys = narrow ? [{ method: 'ANY' as const, traffic: 'write' as const }] : segmentKeys(operations.get(segment)!);
        const paths = segment === '' ? [root] : [`${root}/${segment}`, `${root}/${segment}/{proxy+}`];
        for (const path of paths) for (const key of keys) out.push({ path, group, base, language, ...key });
      }
    }
  }
  for (const language of PATH_PREFIXES) {
    for (const segment of PAGE_SEGMENTS) {
      const root = `${language ? `/${language}` : ''}/${segment}`;
      for (const path of [root, `${root}/{proxy+}`]) {
        for (const key of pageSegmentKeys(segment)) out.push({ path, group: 'pages', base: null, language, ...key });
      }
    }
  }
  return out;
}

/**
 * The functions: the API's groups in definition order, then the pages; one Lambda function each, entry
 * functions/<group>.ts. The pages have a function of their own rather than joining the root group: their bundle
 * (templates, messages, style sheet, and the API operations they run in-process) is unlike the root's, rendering a
 * page runs several operations (more CPU, so more memory), they read and write the whole table (RSVP, password
 * counters) where the root function may touch only account items, and a crawler on the pages is throttled by their
 * own reserved concurrency without starving the API's index and sign-in paths.
 */
export function functionGroups(routes: readonly RouteSpec[] = ROUTES): FunctionGroup[] {
  return [...new Set<FunctionGroup>(routes.map((r) => r.group)), 'pages'];
}

/** The group whose function also serves the `$default` catch-all route (the API's own 404/405 JSON; forwards the rest). */
export const DEFAULT_ROUTE_GROUP: Group = 'root';

/**
 * What each function may do on the table. The root function serves the namespace index, the OpenAPI document and
 * the caller's application passwords, and like every function checks Basic credentials: it may read and write only
 * the application-password and failed-attempt items (`accounts`). The data functions read and write the whole table
 * (their writes maintain records, guards, links and counters across item kinds).
 */
/** `none`: a function that reaches no table item (the change publisher reads the stream, granted by its event source). */
/** `imports`: the import dispatcher, which reads the import list and runs and queues runs (lib/imports/dispatch.ts). */
export type TableAccess = 'accounts' | 'read-write' | 'imports' | 'none';

export function tableAccess(group: FunctionGroup): TableAccess {
  return group === 'root' ? 'accounts' : 'read-write';
}

/** The partition-key prefixes of the items `accounts` access may touch (lib/store/app-passwords.ts). */
export const ACCOUNT_KEY_PREFIXES = ['APPPW#', 'FAIL#'] as const;

/** The partition keys the import dispatcher may read and update: the import list and count, and each import's items. */
export const IMPORT_KEY_PREFIXES = ['IMPORTS', 'IMPORT#*'] as const;

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
