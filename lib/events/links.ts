/** Resolution of the records an event write links to. */
import { invalidParam } from '../http/errors.js';
import { resolveRefs } from '../store/refs.js';
import { slugify } from '../text/slug.js';

/**
 * Categories/tags on an event write: ids must exist; other strings are matched by slug, then by the slug of
 * the name. Unknown names are rejected until term creation from event writes exists (linked-records issue).
 */
export async function resolveTermInput(kind: 'category' | 'tag', param: string, values: (number | string)[]): Promise<number[]> {
  const keys = values.map((v) => (typeof v === 'number' ? v : slugify(v) || v));
  const ids = await resolveRefs(kind, keys);
  const unknown = values.filter((_, i) => ids[i] === null);
  if (unknown.length) throw invalidParam(param, `${param}: no ${kind} ${unknown.join(', ')}`);
  return [...new Set(ids as number[])];
}
