/**
 * OpenAPI operationIds, derived in this one place from the internal operation ids of the route definitions.
 *
 * The internal ids ("events.update.put") key the handler tables, the CDK routes and tests, so they stay; the
 * document gets identifiers that code generators can use as method names: letters and digits only, verb first,
 * e.g. "events.list" → "listEvents", "events.getBySlug" → "getEventBySlug", "events.update.put" → "putEvent",
 * "tags.update.patch" → "patchTag". The root routes are named outright.
 */
import type { Group, OperationSpec, RouteSpec } from '../routes/types.js';

const NAMED: Record<string, string> = {
  'root.index': 'getNamespaceIndex',
  'root.doc': 'getOpenApiDocument',
  'root.docPage': 'getReferencePage',
  'root.docScript': 'getReferencePageScript',
  'root.docScriptLicense': 'getReferencePageScriptLicense',
  'changes.list': 'listChanges',
  'imports.run': 'runImport',
};

const SINGULAR: Record<Exclude<Group, 'root'>, string> = {
  events: 'Event', venues: 'Venue', organizers: 'Organizer', categories: 'Category', tags: 'Tag', imports: 'Import',
};

const capitalise = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** Any id as lower camel case of its alphanumeric words ("a.b-c" → "aBC"): the fallback for ids of another shape. */
const camel = (id: string): string =>
  id.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : capitalise(w))).join('');

/** The operationId of an operation of a route (see the module comment). */
export function operationId(route: RouteSpec, op: OperationSpec): string {
  const named = NAMED[op.id];
  if (named) return named;
  const m = /^(\w+)\.(list|create|get|update|delete)(\w*?)(?:\.(put|patch))?$/.exec(op.id);
  if (!m || route.group === 'root' || m[1] !== route.group) return camel(op.id);
  const group = route.group;
  const [, , verb, suffix = '', method] = m;
  if (verb === 'list') return `list${capitalise(group)}${suffix}`;
  return `${method ?? verb}${SINGULAR[group]}${suffix}`;
}

/** Every route's operations with their operationIds; throws if two are the same or one is not a plain identifier. */
export function operationIds(routes: readonly RouteSpec[]): Map<OperationSpec, string> {
  const ids = new Map<OperationSpec, string>();
  const seen = new Map<string, string>();
  for (const route of routes) {
    for (const op of route.operations) {
      const id = operationId(route, op);
      if (!/^[A-Za-z][A-Za-z0-9]*$/.test(id)) throw new Error(`operationId "${id}" of ${op.id} is not a plain identifier`);
      const other = seen.get(id);
      if (other) throw new Error(`operations ${other} and ${op.id} would both have the operationId "${id}"`);
      seen.set(id, op.id);
      ids.set(op, id);
    }
  }
  return ids;
}
