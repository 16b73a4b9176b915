/** Existence checks for ids given as filter values or links (contract §3: unknown → 400). */
import { batchGet, getItem } from './records.js';
import { postKey, slugKey, termKey } from './keys.js';
import { userExists } from './users.js';
import type { RefKind } from '../routes/types.js';

/**
 * Resolves references of one kind. Returns, per input value, the record id it names, or null when it names
 * nothing of that kind. Posts and users are referenced by id; terms by id or slug.
 */
export async function resolveRefs(kind: RefKind, values: (string | number)[]): Promise<(number | null)[]> {
  if (kind === 'user') return Promise.all(values.map(async (v) => (typeof v === 'number' && (await userExists(v)) ? v : null)));
  if (kind === 'category' || kind === 'tag') {
    const ids = values.map((v) => (typeof v === 'number' || /^\d+$/.test(v) ? Number(v) : null));
    const byId = await batchGet(ids.filter((i): i is number => i !== null).map(termKey), ['id', 'taxonomy']);
    const found = new Set(byId.filter((t) => t.taxonomy === kind).map((t) => t.id as number));
    return Promise.all(values.map(async (v, i) => {
      const id = ids[i];
      if (id != null && found.has(id)) return id;
      const guard = await getItem(slugKey(kind, String(v).toLowerCase()));
      return guard ? (guard.id as number) : null;
    }));
  }
  const items = await batchGet(values.map((v) => postKey(Number(v))), ['id', 'kind']);
  const found = new Set(items.filter((p) => p.kind === kind).map((p) => p.id as number));
  return values.map((v) => (found.has(Number(v)) ? Number(v) : null));
}
