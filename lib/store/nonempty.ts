/**
 * Exact counts of the records that are not empty (lib/store/README.md "Non-empty counts"): tags with published events,
 * categories with published events of their own or of a descendant (WordPress' hierarchical rule), venues and
 * organizers with `linked` > 0, per status. One item per kind, `PK = NONEMPTY`, `SK = <kind>`, moved by ADD only in
 * the transactions where a record's counter crosses zero.
 *
 * Counters (`cnt`, `linked`) move by ADD inside transactions, so a write knows a crossing only from the value its plan
 * read. Every counter ADD therefore carries a condition that keeps that knowledge true: when the read value says the
 * counter crosses zero, that it still has exactly that value; otherwise, that it stays on the side of zero it was read
 * on. A stale read can only cancel the transaction, and the write then plans again on fresh reads.
 *
 * Categories keep `linked` = (1 when their own `cnt` > 0) + (the number of their direct children whose `linked` > 0),
 * so `linked` > 0 exactly when the category or a descendant has published events. A crossing moves the parent's
 * `linked` by one; the cascade goes up the parent chain and stops at the first category that does not cross.
 */
import { counterAdd } from './counters.js';
import { table } from './client.js';
import { LinkConflict } from './errors.js';
import { carryNotes, notedCounts } from './changes.js';
import { termKey, type Taxonomy } from './keys.js';
import type { Item } from './records.js';
import type { LinkKind } from './event-sources.js';
import type { Key, TransactItem } from './types.js';

export const NONEMPTY_PARTITION = 'NONEMPTY';
export const nonEmptyKey = (kind: LinkKind): Key => ({ PK: NONEMPTY_PARTITION, SK: kind });

/** A condition on one attribute of an item (a missing number reads as 0), on an attribute's absence, or on the item's presence. */
export type Cond =
  | { exists: boolean }
  | { absent: string }
  | { attr: string; op: '=' | '<>' | '>=' | '<='; value: number | string };

export const EXISTS: Cond = { exists: true };
export const ABSENT: Cond = { exists: false };

const holdsForZero = (op: string, v: number): boolean =>
  (op === '=' && v === 0) || (op === '>=' && v <= 0) || (op === '<=' && v >= 0) || (op === '<>' && v !== 0);

/** Renders conditions with placeholders from `prefix` (`#<prefix>0`, `:<prefix>0`…). */
export function renderConds(conds: Cond[], prefix: string): { expression: string; names: Record<string, string>; values: Record<string, unknown> } {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const parts = conds.map((c, i) => {
    if ('exists' in c) return c.exists ? 'attribute_exists(PK)' : 'attribute_not_exists(PK)';
    const n = `#${prefix}${i}`;
    if ('absent' in c) {
      names[n] = c.absent;
      return `attribute_not_exists(${n})`;
    }
    const v = `:${prefix}${i}`;
    names[n] = c.attr;
    values[v] = c.value;
    const compare = `${n} ${c.op} ${v}`;
    return typeof c.value === 'number' && holdsForZero(c.op, c.value) ? `(attribute_not_exists(${n}) OR ${compare})` : compare;
  });
  return { expression: parts.join(' AND '), names, values };
}

/** `item` with `conds` added to its condition (an item of a transaction can carry only one action). */
export function withConds(item: TransactItem, conds: Cond[]): TransactItem {
  if (conds.length === 0) return item;
  const action = (item.Update ?? item.Delete ?? item.Put ?? item.ConditionCheck)!;
  const { expression, names, values } = renderConds(conds, 'ne');
  const joined = action.ConditionExpression ? `(${action.ConditionExpression}) AND ${expression}` : expression;
  const mergedNames = { ...action.ExpressionAttributeNames, ...names };
  const mergedValues = { ...action.ExpressionAttributeValues, ...values };
  const next = {
    ...action,
    ConditionExpression: joined,
    ...(Object.keys(mergedNames).length ? { ExpressionAttributeNames: mergedNames } : {}),
    ...(Object.keys(mergedValues).length ? { ExpressionAttributeValues: mergedValues } : {}),
  };
  if (item.Update) return carryNotes(item, { Update: next as typeof item.Update });
  if (item.Delete) return carryNotes(item, { Delete: next as typeof item.Delete });
  if (item.Put) return carryNotes(item, { Put: next as typeof item.Put });
  return { ConditionCheck: next as typeof item.ConditionCheck };
}

/**
 * The conditions under which a counter read as `read` and changed by `delta` crosses zero exactly as the read value
 * says: crossing, the value read; not crossing, the same side of zero before and after.
 */
export function sideConds(attr: string, read: number, delta: number): Cond[] {
  const before = read > 0;
  const after = read + delta > 0;
  if (before !== after) return [{ attr, op: '=', value: read }];
  if (before) return [{ attr, op: '>=', value: Math.max(1, 1 - delta) }];
  return [{ attr, op: '<=', value: Math.min(0, 0 - delta) }];
}

/** +1 when a counter read as `read` becomes positive by `delta`, −1 when it stops being positive, else 0. */
export const crossing = (read: number, delta: number): number => Number(read + delta > 0) - Number(read > 0);

/**
 * The counter ADDs and conditions of one transaction, merged per item (a transaction may act on an item only once):
 * `add` and `require` on the same key become one Update (or a ConditionCheck when nothing is added); `count` moves a
 * kind's non-empty counts (unconditional ADDs, folded with any other on the same item by lib/store/counters.ts).
 */
export class ItemActions {
  private readonly byKey = new Map<string, { key: Key; add: Map<string, number>; conds: Map<string, Cond>;
    shown?: { kind: Taxonomy; id: number } }>();
  private readonly counts = new Map<LinkKind, Map<string, number>>();

  private entry(key: Key) {
    const id = `${key.PK}\u0000${key.SK}`;
    let e = this.byKey.get(id);
    if (!e) this.byKey.set(id, (e = { key: { PK: key.PK, SK: key.SK }, add: new Map(), conds: new Map() }));
    return e;
  }

  /** `shown`: the term whose shown `count` this moves (its change is logged, lib/store/changes.ts). */
  add(key: Key, attr: string, delta: number, shown?: { kind: Taxonomy; id: number }): void {
    const e = this.entry(key);
    e.add.set(attr, (e.add.get(attr) ?? 0) + delta);
    if (shown) e.shown = shown;
  }

  require(key: Key, ...conds: Cond[]): void {
    const e = this.entry(key);
    for (const c of conds) e.conds.set(JSON.stringify(c), c);
  }

  count(kind: LinkKind, attr: string, delta: number): void {
    if (delta === 0) return;
    const m = this.counts.get(kind) ?? new Map<string, number>();
    this.counts.set(kind, m);
    m.set(attr, (m.get(attr) ?? 0) + delta);
  }

  items(): TransactItem[] {
    const out: TransactItem[] = [];
    for (const { key, add, conds, shown } of this.byKey.values()) {
      const adds = [...add].filter(([, d]) => d !== 0);
      const { expression, names, values } = renderConds([...conds.values()], 'c');
      adds.forEach(([attr, d], i) => {
        names[`#a${i}`] = attr;
        values[`:a${i}`] = d;
      });
      const common = {
        TableName: table(),
        Key: key,
        ...(expression ? { ConditionExpression: expression } : {}),
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
      };
      if (adds.length) {
        const update: TransactItem = { Update: { ...common, UpdateExpression: `ADD ${adds.map((_, i) => `#a${i} :a${i}`).join(', ')}` } };
        out.push(shown && add.get('cnt') ? notedCounts(update, [shown]) : update);
      }
      else if (expression) out.push({ ConditionCheck: { ...common, ConditionExpression: expression } });
    }
    for (const [kind, deltas] of this.counts) {
      const moved = [...deltas].filter(([, d]) => d !== 0);
      if (moved.length) out.push(counterAdd(nonEmptyKey(kind), Object.fromEntries(moved)));
    }
    return out;
  }
}

// ------------------------------------------------------------------------------------------------ categories

/** A category whose non-emptiness may change in a write. */
export interface CategoryChange {
  id: number;
  /** +1 / −1 when its own `cnt` crosses zero in this write. */
  own?: number;
  /** Its parent after the write, when the write moves it. */
  parent?: number;
  /** Deleted by this write. */
  deleted?: boolean;
}

/** Reads categories by id (as the write plans: eventually consistent first, consistent when it plans again). */
export type CategoryReader = (ids: number[]) => Promise<Map<number, Item | null>>;

/** Deeper than any chain the term writes allow (50 levels): a longer one was read across concurrent moves. */
const MAX_ROUNDS = 60;

interface Node {
  item: Item | null;
  change?: CategoryChange;
}

/**
 * Plans what `changes` do to the categories' `linked` and to the non-empty count: reads the parents that a change
 * reaches (one read per level, stopping where a category does not cross) and adds each `linked` ADD with its
 * conditions to `actions`. Categories in `own` are written by the caller (rewritten or deleted in the same
 * transaction): their conditions are returned for the caller's own action instead.
 */
export async function planCategoryChanges(changes: CategoryChange[], read: CategoryReader, actions: ItemActions,
  own: Set<number> = new Set()): Promise<Cond[]> {
  const nodes = new Map<number, Node>();
  const load = async (ids: number[]): Promise<void> => {
    const found = await read(ids);
    for (const id of ids) nodes.set(id, { item: found.get(id) ?? null, change: nodes.get(id)?.change });
  };
  for (const c of changes) nodes.set(c.id, { item: null, change: c });
  await load(changes.map((c) => c.id));

  const n = (id: number): Node => nodes.get(id)!;
  const linkedOf = (node: Node): number => Number(node.item?.linked ?? 0);
  const before = (id: number): number => Number(n(id).item?.parent ?? 0);
  const after = (id: number): number => n(id).change?.parent ?? before(id);
  const wasFilled = (id: number): boolean => n(id).item !== null && linkedOf(n(id)) > 0;

  let delta = new Map<number, number>();
  let filled = new Map<number, boolean>();
  const evaluate = (): number[] => {
    const kidsAfter = new Map<number, number[]>();
    const kidsBefore = new Map<number, number[]>();
    for (const [id, node] of nodes) {
      if (!node.item) continue;
      if (!node.change?.deleted) kidsAfter.set(after(id), [...(kidsAfter.get(after(id)) ?? []), id]);
      kidsBefore.set(before(id), [...(kidsBefore.get(before(id)) ?? []), id]);
    }
    delta = new Map();
    filled = new Map();
    const visiting = new Set<number>();
    const isFilled = (id: number): boolean => {
      const known = filled.get(id);
      if (known !== undefined) return known;
      // Parent links read at different moments across concurrent moves can seem to form a cycle: plan again.
      if (visiting.has(id)) throw new LinkConflict();
      visiting.add(id);
      const node = n(id);
      let d = node.change?.own ?? 0;
      for (const kid of kidsAfter.get(id) ?? []) d += Number(isFilled(kid));
      for (const kid of kidsBefore.get(id) ?? []) d -= Number(wasFilled(kid));
      delta.set(id, d);
      const f = node.item !== null && !node.change?.deleted && linkedOf(node) + d > 0;
      filled.set(id, f);
      visiting.delete(id);
      return f;
    };
    const needed: number[] = [];
    for (const id of nodes.keys()) {
      const moved = after(id) !== before(id) || Boolean(n(id).change?.deleted);
      const was = wasFilled(id);
      const is = isFilled(id);
      if (was && (moved || !is) && before(id) !== 0 && !nodes.has(before(id))) needed.push(before(id));
      if (is && (moved || !was) && after(id) !== 0 && !nodes.has(after(id))) needed.push(after(id));
    }
    return [...new Set(needed)];
  };

  for (let round = 0; ; round++) {
    const needed = evaluate();
    if (needed.length === 0) break;
    if (round >= MAX_ROUNDS) throw new LinkConflict();
    await load(needed);
  }

  const ownConds: Cond[] = [];
  for (const [id, node] of nodes) {
    const key = termKey(id);
    if (!node.item) {
      // Gone (or never there): nothing to count; the write requires it still to be gone.
      if (!own.has(id)) actions.require(key, ABSENT);
      continue;
    }
    const d = delta.get(id) ?? 0;
    const crossed = Number(filled.get(id)) - Number(wasFilled(id));
    actions.count('category', 'filled', crossed);
    // The category's search entries say whether it is empty: flag them behind (lib/terms/words.ts).
    if (crossed !== 0) actions.count('category', `d${id}`, 1);
    if (own.has(id)) {
      ownConds.push(...sideConds('linked', linkedOf(node), 0));
      continue;
    }
    if (d === 0 && crossed === 0) continue;
    actions.add(key, 'linked', d);
    actions.require(key, EXISTS, ...sideConds('linked', linkedOf(node), d));
    // Its crossing was counted on the parent it has: that parent must still be it.
    if (crossed !== 0) actions.require(key, { attr: 'parent', op: '=', value: before(id) });
  }
  return ownConds;
}
