/**
 * Term reads and the building blocks of term transactions (lib/store/README.md "Terms"): guard items for
 * slugs and names, free slugs, the parent chain and the `kids` counters that keep the hierarchy acyclic and
 * free of orphans.
 */
import { invalidParam } from '../http/errors.js';
import { termKey, type Taxonomy } from '../store/keys.js';
import { guardDelete, guardPut } from '../store/kit.js';
import { EXISTS, ItemActions, type CategoryReader } from '../store/nonempty.js';
import { batchGet, getItem, getTerm, queryAll, type Item } from '../store/records.js';
import type { TransactItem } from '../store/types.js';
import { isTerm, nameOrderKeys, termsPartition, type TermItem } from './item.js';

export type Key = { PK: string; SK: string };

/** A term as the byStart index projects it (enough to filter, order and count a list). */
export interface TermEntry {
  id: number;
  slug: string;
  nm: Partial<Record<string, string>>;
  parent: number;
  cnt: number;
  /** Categories: > 0 when the category or a descendant has published events (lib/store/nonempty.ts). */
  linked: number;
}

/** The term with this id if it is one of `taxonomy`. */
export async function readTerm(taxonomy: Taxonomy, id: number, consistent = true): Promise<TermItem | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const item = await getTerm(id, consistent);
  return isTerm(item, taxonomy) ? item : null;
}

/** Every term of a taxonomy from its byStart partition (one paginated Query; bounded by the number of terms). */
export async function queryTermIndex(taxonomy: Taxonomy): Promise<TermEntry[]> {
  const items = await queryAll({
    IndexName: 'byStart',
    KeyConditionExpression: 'GSI2PK = :pk',
    ExpressionAttributeValues: { ':pk': termsPartition(taxonomy) },
    ProjectionExpression: '#id, #slug, #nm, #parent, #cnt, #linked',
    ExpressionAttributeNames: { '#id': 'id', '#slug': 'slug', '#nm': 'nm', '#parent': 'parent', '#cnt': 'cnt', '#linked': 'linked' },
  });
  return items.map(toEntry);
}

export const toEntry = (item: Item): TermEntry => ({
  id: Number(item.id),
  slug: String(item.slug ?? ''),
  nm: (item.nm as TermEntry['nm'] | undefined) ?? {},
  parent: Number(item.parent ?? 0),
  cnt: Number(item.cnt ?? 0),
  linked: Number(item.linked ?? 0),
});

/**
 * The name-order items a term write moves (lib/terms/item.ts nameOrderKeys): puts for the languages whose name now
 * sorts apart from the first language's, deletes for those that no longer do. Held like guards (`id`).
 */
export function nameOrderItems(prev: TermItem | null, next: TermItem | null): TransactItem[] {
  const before = new Set((prev ? nameOrderKeys(prev) : []).map((k) => `${k.PK}\n${k.SK}`));
  const after = new Set((next ? nameOrderKeys(next) : []).map((k) => `${k.PK}\n${k.SK}`));
  const key = (s: string): Key => ({ PK: s.split('\n')[0]!, SK: s.split('\n')[1]! });
  const id = (next ?? prev)!.id;
  return [
    ...[...before].filter((k) => !after.has(k)).map((k) => guardDelete(key(k), id)),
    ...[...after].filter((k) => !before.has(k)).map((k) => guardPut(key(k), id)),
  ];
}

/** Who holds each guard: PK → holder id. Strongly consistent: these reads decide `term_exists` and slug errors. */
export async function guardHolders(keys: Key[]): Promise<Map<string, number>> {
  const items = await batchGet(keys, ['id'], true);
  return new Map(items.map((item) => [String(item.PK), Number(item.id)]));
}

/** The holder of one guard, or null. */
export const guardHolder = async (key: Key): Promise<number | null> => (await getItem(key, true))?.id as number | undefined ?? null;

/** One link of a parent chain: the category and the parent it had when read. */
export interface ChainLink {
  id: number;
  parent: number;
}

const MAX_DEPTH = 50;

/**
 * The ancestors of category `from` up to the top level, read consistently. A chain that reaches `selfId`
 * means `from` is `selfId` or one of its descendants: making it the parent would create a cycle.
 */
export async function ancestry(from: number, selfId: number | null): Promise<ChainLink[]> {
  const chain: ChainLink[] = [];
  for (let current = from; current !== 0;) {
    if (current === selfId) {
      throw invalidParam('parent', current === from
        ? 'parent: a category cannot be its own parent'
        : `parent: category ${from} is a descendant of this category`);
    }
    if (chain.length >= MAX_DEPTH || chain.some((c) => c.id === current)) {
      throw invalidParam('parent', `parent: categories may be nested at most ${MAX_DEPTH} levels deep`);
    }
    const term = await readTerm('category', current);
    if (!term) throw invalidParam('parent', `parent: no category ${current}`);
    chain.push({ id: current, parent: Number(term.parent ?? 0) });
    current = Number(term.parent ?? 0);
  }
  return chain;
}

/**
 * Hierarchy actions of a category transaction: `kids` counter changes (`deltas`, by category id) and conditions that
 * every category of `chain` still has the parent it was read with (so two concurrent moves cannot form a cycle). Each
 * requires the category to exist. Added to `actions`, which merges them with the write's other actions on the same
 * categories (one action per item, as DynamoDB requires).
 */
export function hierarchyActions(chain: ChainLink[], deltas: Map<number, number>, actions: ItemActions): void {
  const parents = new Map(chain.map((c) => [c.id, c.parent]));
  const ids = [...new Set([...parents.keys(), ...[...deltas.keys()].filter((id) => id !== 0 && deltas.get(id) !== 0)])];
  for (const id of ids) {
    const key = termKey(id);
    actions.require(key, EXISTS);
    if (parents.has(id)) actions.require(key, { attr: 'parent', op: '=', value: parents.get(id)! });
    const delta = deltas.get(id) ?? 0;
    if (delta !== 0) actions.add(key, 'kids', delta);
  }
}

/** hierarchyActions as transaction items of their own. */
export function hierarchyItems(chain: ChainLink[], deltas: Map<number, number>): TransactItem[] {
  const actions = new ItemActions();
  hierarchyActions(chain, deltas, actions);
  return actions.items();
}

/** Categories read strongly consistently (term writes decide on them), those in `known` from memory. */
export const termReader = (known: TermItem[]): CategoryReader => async (ids) => {
  const have = new Map<number, Item | null>(known.map((t) => [t.id, t]));
  const rest = ids.filter((id) => !have.has(id));
  for (const item of rest.length ? await batchGet(rest.map(termKey), undefined, true) : []) have.set(Number(item.id), item);
  return new Map(ids.map((id) => [id, have.get(id) ?? null]));
};

/** Direct children of a category, from the index (eventually consistent; `kids` tells whether any remain). */
export async function childrenOf(id: number): Promise<number[]> {
  return (await queryTermIndex('category')).filter((e) => e.parent === id).map((e) => e.id);
}
