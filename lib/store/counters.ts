/**
 * Counter items: numbers changed only by unconditional `ADD` in the transactions of the writes they count
 * (event day/month counts, per-kind status counts of venues and organizers).
 */
import { table } from './client.js';
import type { TransactItem } from './types.js';

const COUNTER_EXPRESSION = /^ADD #c\d+ :c\d+(, #c\d+ :c\d+)*$/;

/** An unconditional `ADD` of numbers to one item. */
export function counterAdd(key: { PK: string; SK: string }, deltas: Record<string, number>): TransactItem {
  // A plain loop: an event write builds one of these for every search term and count item it moves.
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  let expression = 'ADD';
  let i = 0;
  for (const name in deltas) {
    names[`#c${i}`] = name;
    values[`:c${i}`] = deltas[name]!;
    expression += `${i ? ',' : ''} #c${i} :c${i}`;
    i++;
  }
  return { Update: { TableName: table(), Key: key, UpdateExpression: expression, ExpressionAttributeNames: names, ExpressionAttributeValues: values } };
}

/**
 * A transaction may touch an item only once, but one write can move a counter item more than once (an event
 * creating two organizers inline): counterAdd updates of the same item are summed into one, zero sums dropped.
 */
export function foldCounters(items: TransactItem[]): TransactItem[] {
  const counters = new Map<string, { key: { PK: string; SK: string }; deltas: Record<string, number> }>();
  const rest: TransactItem[] = [];
  for (const t of items) {
    const u = t.Update;
    if (!u || u.ConditionExpression || !COUNTER_EXPRESSION.test(u.UpdateExpression ?? '')) {
      rest.push(t);
      continue;
    }
    const key = u.Key as { PK: string; SK: string };
    const entry = counters.get(`${key.PK}\u0000${key.SK}`) ?? { key, deltas: {} };
    counters.set(`${key.PK}\u0000${key.SK}`, entry);
    for (const [placeholder, name] of Object.entries(u.ExpressionAttributeNames ?? {})) {
      const delta = u.ExpressionAttributeValues?.[placeholder.replace('#', ':')] as number;
      entry.deltas[name] = (entry.deltas[name] ?? 0) + delta;
    }
  }
  for (const { key, deltas } of counters.values()) {
    const moved = Object.entries(deltas).filter(([, d]) => d !== 0);
    if (moved.length) rest.push(counterAdd(key, Object.fromEntries(moved)));
  }
  return rest;
}
