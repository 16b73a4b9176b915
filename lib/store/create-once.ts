/**
 * Creates that happen once, however often they are sent (contract §20: a run taken over after its worker died sends
 * again the creates it had recorded). The create's own transaction puts `ONCE#<ref>`/`ONCE` naming the record it made;
 * sent again with the same ref, that transaction is refused on the item (CreatedBefore) and `createdBefore` names the
 * record. Unlike an Idempotency-Key (lib/store/idempotency.ts), nothing is held while the first send runs, so no held
 * key can lapse and let a second send through after the first one committed — and it costs one item, not two requests.
 */
import { onceKey } from './keys.js';
import { CREATED_BEFORE, heldPut } from './kit.js';
import { getItem } from './records.js';
import type { TransactItem } from './types.js';

/** How long a once-item is kept: longer than any run of an import lasts, taken over or not. */
const ONCE_SECONDS = 7 * 24 * 60 * 60;

const refs = new WeakMap<object, string>();

/** A copy of `caller` whose creates happen once for `ref` (only in-process callers are made this way: lib/imports/api.ts). */
export function creatingOnce<T extends object>(caller: T, ref: string): T {
  const copy = { ...caller };
  refs.set(copy, ref);
  return copy;
}

/** The ref a create by `caller` happens once for; undefined for every caller not made by `creatingOnce`. */
export const onceRef = (caller: object | null): string | undefined => (caller ? refs.get(caller) : undefined);

/**
 * The item a create's transaction puts for `ref`, naming the record `id` it makes (kept until `expires`, the table's
 * TTL); refused as CreatedBefore when another record's create put it (the same record's retried transaction may again).
 */
export const onceItem = (ref: string, id: number): TransactItem =>
  heldPut(onceKey(ref), id, CREATED_BEFORE, { expires: Math.floor(Date.now() / 1000) + ONCE_SECONDS });

/** The record the create of `ref` made (read strongly consistent), or null. */
export async function createdBefore(ref: string): Promise<number | null> {
  const item = await getItem(onceKey(ref), true);
  return item ? Number(item.id) : null;
}
