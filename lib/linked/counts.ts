/**
 * Per-kind status counts of venues and organizers (lib/store/README.md "Venues and organizers"): one item
 * `PK = POSTCOUNT`, `SK = <kind>`, one number per status, moved by `ADD` in every transaction that creates,
 * changes the status of, or deletes a record of the kind. A plain list's total is then one GetItem.
 */
import { counterAdd } from '../store/counters.js';
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

/** Everything a record write moves besides the record and its slug guard: its name items and the kind's counts. */
export const recordTransactItems = (kind: LinkedKind, id: number, prev: LinkedItem | null, next: LinkedItem | null): TransactItem[] =>
  [...nameTransactItems(kind, id, prev, next), ...kindCountItems(kind, prev, next)];

/** How many records of the kind have each of `statuses`. */
export async function countByStatus(kind: LinkedKind, statuses: readonly string[]): Promise<number> {
  const item = await getItem(kindCountKey(kind));
  return statuses.reduce((sum, s) => sum + ((item?.[s] as number | undefined) ?? 0), 0);
}
