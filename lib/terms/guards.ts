/** Name and slug guard changes of a term write, and the errors they produce (contract §7 `term_exists`). */
import { ApiError } from '../http/errors.js';
import { slugKey } from '../store/keys.js';
import type { TransactItem } from '../store/types.js';
import { slugify } from '../text/slug.js';
import { nameGuardKeys, type TermItem } from './item.js';
import { guardDelete, guardPut } from '../store/kit.js';
import { guardHolders } from './store.js';

/** 400 term_exists with the id of the term that has the name at that level (reference §10.4). */
export const termExists = (termId: number): ApiError =>
  new ApiError(400, 'term_exists', 'A term with the name provided already exists with this parent.', { term_id: termId });

/** 400 rest_taxonomy_not_hierarchical: `parent` sent for a tag. */
export const notHierarchical = (): ApiError =>
  new ApiError(400, 'rest_taxonomy_not_hierarchical', 'Cannot set parent term, taxonomy is not hierarchical.');

/** The slug a term write asks for: the `slug` sent, else the name, else the id (as WordPress falls back). */
export const slugBase = (slug: string | undefined, name: string, id: number): string =>
  (slug !== undefined ? slugify(slug) : '') || slugify(name) || String(id);

/**
 * The name guard puts and deletes that take a term from `prev` (null: new term) to `next`. A name the term
 * newly claims at its level that another term holds → term_exists. `lenient` (children moved up when their
 * parent is deleted, as WordPress does) keeps a name that collides at the new level without a guard instead.
 * A guard is only ever released by the term that holds it.
 */
export async function nameGuardItems(prev: TermItem | null, next: TermItem, mode: 'strict' | 'lenient' = 'strict'): Promise<TransactItem[]> {
  const before = prev ? nameGuardKeys(prev) : [];
  const after = nameGuardKeys(next);
  const holders = await guardHolders([...before, ...after]);
  const had = new Set(before.map((k) => k.PK));
  const keeps = new Set(after.map((k) => k.PK));
  const items: TransactItem[] = [];
  for (const key of after) {
    const holder = holders.get(key.PK);
    if (holder === next.id) continue;
    if (holder === undefined) items.push(guardPut(key, next.id));
    else if (mode === 'strict' && !had.has(key.PK)) throw termExists(holder);
  }
  for (const key of before) {
    if (!keeps.has(key.PK) && holders.get(key.PK) === next.id) items.push(guardDelete(key, next.id));
  }
  return items;
}

/** Slug guard moves when the slug changed. */
export function slugGuardItems(prev: Pick<TermItem, 'taxonomy' | 'slug' | 'id'>, next: Pick<TermItem, 'slug'>): TransactItem[] {
  if (prev.slug === next.slug) return [];
  return [guardDelete(slugKey(prev.taxonomy, prev.slug), prev.id), guardPut(slugKey(prev.taxonomy, next.slug), prev.id)];
}
