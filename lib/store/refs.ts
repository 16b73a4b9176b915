/** Existence checks for ids given as filter values or links (contract §3: unknown → 400). */
import { batchGet } from './records.js';
import { postKey, slugKey, termKey } from './keys.js';
import { perRequest } from './scope.js';
import { rememberItems } from './reads.js';
import { userExists } from './users.js';
import type { RefKind } from '../model/kinds.js';

/** The longest slug the service stores (contract §2); a longer one names nothing. */
export const MAX_SLUG_CHARS = 200;

/** What a post reference must satisfy beyond existing: the caller may read it (contract §4, §7). */
export type ReadableCheck = (record: { author?: unknown; status?: unknown; pw?: unknown; statusBeforeTrash?: unknown }) => boolean;

/** How many events each record referenced in this request links to, as read while resolving the references. */
const linkCounts = (): Promise<Map<string, number>> => perRequest('link-counts', async () => new Map<string, number>());

/**
 * The number of events linked to a record resolved by this request: published ones for terms (`cnt`), those not
 * draft or pending for venues and organizers (`linked`). Undefined when the reference was not read (a term named by
 * slug) or outside a request.
 */
export const linkCountOf = async (kind: RefKind, id: number): Promise<number | undefined> => (await linkCounts()).get(`${kind}#${id}`);

async function remember(kind: RefKind, items: { id?: unknown }[], attribute: 'cnt' | 'linked'): Promise<void> {
  const counts = await linkCounts();
  for (const item of items) counts.set(`${kind}#${String(item.id)}`, Number((item as Record<string, unknown>)[attribute] ?? 0));
}

/**
 * Resolves references of one kind. Returns, per input value, the record id it names, or null when it names nothing
 * of that kind (or, for posts, nothing the caller may read). Posts and users are referenced by id; terms by id or
 * slug. At most two requests whatever the number of values (the lists are capped at 100 entries).
 */
export async function resolveRefs(kind: RefKind, values: (string | number)[], readable: ReadableCheck): Promise<(number | null)[]> {
  if (kind === 'user') return Promise.all(values.map(async (v) => (typeof v === 'number' && (await userExists(v)) ? v : null)));
  if (kind === 'category' || kind === 'tag') {
    const asId = (v: string | number): number | null => (typeof v === 'number' ? v : /^\d{1,15}$/.test(v) ? Number(v) : null);
    const asSlug = (v: string | number): string | null => {
      const slug = String(v).toLowerCase();
      return [...slug].length <= MAX_SLUG_CHARS ? slug : null;
    };
    const ids = values.map(asId).filter((i): i is number => i !== null);
    const slugs = values.map(asSlug).filter((s): s is string => s !== null);
    const found = await batchGet([...ids.map(termKey), ...slugs.map((s) => slugKey(kind, s))], ['id', 'taxonomy', 'cnt']);
    const terms = found.filter((t) => t.taxonomy === kind);
    await remember(kind, terms, 'cnt');
    const byId = new Set(terms.map((t) => t.id as number));
    const bySlug = new Map(found.filter((t) => String(t.PK).startsWith('SLUG#')).map((g) => [String(g.PK), g.id as number]));
    return values.map((v) => {
      const id = asId(v);
      if (id !== null && byId.has(id)) return id;
      const slug = asSlug(v);
      return slug === null ? null : bySlug.get(slugKey(kind, slug).PK) ?? null;
    });
  }
  const numeric = values.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);
  // Whole items, at the same read cost as a projection: an event write's plan then takes them from here (reads.ts).
  const items = await batchGet(numeric.map(postKey));
  await rememberItems(numeric.map(postKey), items);
  const readableItems = items.filter((p) => p.kind === kind && readable(p));
  await remember(kind, readableItems, 'linked');
  const found = new Set(readableItems.map((p) => p.id as number));
  return values.map((v) => (found.has(Number(v)) ? Number(v) : null));
}
