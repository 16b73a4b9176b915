/**
 * Per-kind status counts of venues and organizers (lib/store/README.md "Venues and organizers"): one item
 * `PK = POSTCOUNT`, `SK = <kind>`, one number per status, moved by `ADD` in every transaction that creates,
 * changes the status of, or deletes a record of the kind. A plain list's total is then one GetItem.
 */
import { counterAdd } from '../store/counters.js';
import { nonEmptyKey, sideConds, type Cond } from '../store/nonempty.js';
import { getItem } from '../store/records.js';
import type { TransactItem } from '../store/types.js';
import type { LinkedItem, LinkedKind } from './item.js';
import { nameTransactItems } from './names.js';

export const kindCountKey = (kind: LinkedKind) => ({ PK: 'POSTCOUNT', SK: kind });

export function kindCountItems(kind: LinkedKind, prev: { status: string } | null, next: { status: string } | null): TransactItem[] {
  if (prev?.status === next?.status) return [];
  const deltas: Record<string, number> = {};
  if (prev) deltas[prev.status] = -1;
  if (next) deltas[next.status] = 1;
  return [counterAdd(kindCountKey(kind), deltas)];
}

type Counted = { status: string; linked?: number };

/**
 * The kind's non-empty counts (lib/store/nonempty.ts: records with `linked` > 0, per status) when a record goes from
 * `prev` (as read) to `next` with `delta` added to its `linked` (null: created with its `linked`, or deleted), and the
 * conditions its own action must carry: `linked` is not covered by the record's version (event writes ADD to it), so
 * the side of zero it was read on is required to hold.
 */
export function nonEmptyMove(kind: LinkedKind, prev: Counted | null, next: Counted | null, delta = 0): { conds: Cond[]; items: TransactItem[] } {
  const read = Number(prev?.linked ?? 0);
  const after = next ? (prev ? read + delta : Number(next.linked ?? 0)) : 0;
  const deltas: Record<string, number> = {};
  if (prev && read > 0) deltas[prev.status] = -1;
  if (next && after > 0) deltas[next.status] = (deltas[next.status] ?? 0) + 1;
  const moved = Object.entries(deltas).filter(([, d]) => d !== 0);
  const conds = prev && (delta !== 0 || !next || next.status !== prev.status) ? sideConds('linked', read, next ? delta : 0) : [];
  return { conds, items: moved.length ? [counterAdd(nonEmptyKey(kind), Object.fromEntries(moved))] : [] };
}

/**
 * Everything a record write moves besides the record and its slug guard: its name items, the kind's status counts and
 * its non-empty counts, with the conditions the record's own action must carry (`prev` as read, `linked` included).
 */
export function recordTransactItems(kind: LinkedKind, id: number, prev: LinkedItem | null, next: LinkedItem | null):
  { items: TransactItem[]; conds: Cond[] } {
  const filled = nonEmptyMove(kind, prev, next);
  return { items: [...nameTransactItems(kind, id, prev, next), ...kindCountItems(kind, prev, next), ...filled.items], conds: filled.conds };
}

/**
 * How many records of the kind with one of `statuses` have (`hasEvents` true) or have not (false) events counted in
 * `linked`; null while the non-empty counts have not been built (lib/store/nonempty-rebuild.ts).
 */
export async function countByEvents(kind: LinkedKind, statuses: readonly string[], hasEvents: boolean): Promise<number | null> {
  const [filledItem, all] = await Promise.all([getItem(nonEmptyKey(kind)), hasEvents ? Promise.resolve(0) : countByStatus(kind, statuses)]);
  if (!filledItem?.built) return null;
  const filled = statuses.reduce((sum, s) => sum + ((filledItem[s] as number | undefined) ?? 0), 0);
  return hasEvents ? filled : all - filled;
}

/** How many records of the kind have each of `statuses`. */
export async function countByStatus(kind: LinkedKind, statuses: readonly string[]): Promise<number> {
  const item = await getItem(kindCountKey(kind));
  return statuses.reduce((sum, s) => sum + ((item?.[s] as number | undefined) ?? 0), 0);
}
