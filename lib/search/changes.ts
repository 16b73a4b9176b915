/**
 * The items that take the event word index (./README.md) from what it holds for an event to what it should hold:
 * the postings of each letter that changed, one `ADD` per count item that moves, and the span entries of long events.
 * The same function serves every write, the finishing of an interrupted one, and the benchmark's bulk seeding.
 */
import { table } from '../store/client.js';
import { durationBucket } from '../store/events.js';
import { SHORT_BUCKET, spanTier } from '../store/event-counts.js';
import { pad } from '../store/keys.js';
import type { Key, TransactItem } from '../store/types.js';
import { countContributions, countSortKey, postingValues, type EventWords } from './terms.js';

export const postingPartition = (letter: string): string => `W1#${letter}`;
export const countPartition = (group: string): string => `C#W2#${group}`;
export const spanPartitionOf = (tier: number, letter: string): string => `WS1#${tier}#${letter}`;
/** The posting attribute of an event. */
export const postingAttribute = (id: number): string => `e${id}`;

/** The span tier of a long event (over 32 hours), else null (lib/store/event-counts.ts). */
export function longTier(startUtc: string, endUtc: string): number | null {
  const bucket = durationBucket(startUtc, endUtc);
  return bucket > SHORT_BUCKET ? spanTier(bucket) : null;
}

const spanKey = (id: number, w: EventWords, letter: string, tier: number): Key =>
  ({ PK: spanPartitionOf(tier, letter), SK: `${w.startUtc}#${pad(id)}` });

/** An `ADD` of packed counts to one item. */
export function countAdd(key: Key, deltas: Map<string, number>): TransactItem {
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  const parts: string[] = [];
  let i = 0;
  for (const [name, delta] of deltas) {
    names[`#w${i}`] = name;
    values[`:w${i}`] = delta;
    parts.push(`#w${i} :w${i}`);
    i++;
  }
  return { Update: { TableName: table(), Key: key, UpdateExpression: `ADD ${parts.join(', ')}`, ExpressionAttributeNames: names,
    ExpressionAttributeValues: values } };
}

/** The count increments of an event, by count item key (`<group>\u0000<sort key>`). */
function countsByItem(w: EventWords | null, sign: number, into: Map<string, Map<string, number>>): void {
  if (!w) return;
  const sk = countSortKey(w.status, w.startUtc.slice(0, 7));
  for (const [group, attrs] of countContributions(w)) {
    const k = `${group}\u0000${sk}`;
    let deltas = into.get(k);
    if (!deltas) into.set(k, (deltas = new Map()));
    for (const [name, unit] of attrs) deltas.set(name, (deltas.get(name) ?? 0) + sign * unit);
  }
}

/**
 * The index changes of event `id` going from `before` to `after` (null: nothing indexed), in a stable order (postings,
 * spans, counts; each by key), so that the chunks of a large change are the same whoever computes them.
 */
export function indexChanges(id: number, before: EventWords | null, after: EventWords | null): TransactItem[] {
  const b = before ? postingValues(before) : new Map<string, string>();
  const a = after ? postingValues(after) : new Map<string, string>();
  const bDay = before?.startUtc.slice(0, 10);
  const aDay = after?.startUtc.slice(0, 10);
  const attr = { '#e': postingAttribute(id) };
  const postings: TransactItem[] = [];
  const spans: TransactItem[] = [];
  const bTier = before ? longTier(before.startUtc, before.endUtc) : null;
  const aTier = after ? longTier(after.startUtc, after.endUtc) : null;
  for (const letter of [...new Set([...b.keys(), ...a.keys()])].sort()) {
    const was = b.get(letter);
    const now = a.get(letter);
    if (was !== undefined && (now === undefined || bDay !== aDay)) {
      postings.push({ Update: { TableName: table(), Key: { PK: postingPartition(letter), SK: bDay! }, UpdateExpression: 'REMOVE #e',
        ExpressionAttributeNames: attr } });
    }
    if (now !== undefined && (now !== was || bDay !== aDay)) {
      postings.push({ Update: { TableName: table(), Key: { PK: postingPartition(letter), SK: aDay! }, UpdateExpression: 'SET #e = :v',
        ExpressionAttributeNames: attr, ExpressionAttributeValues: { ':v': now } } });
    }
    const oldSpan = was !== undefined && bTier !== null ? spanKey(id, before!, letter, bTier) : null;
    const newSpan = now !== undefined && aTier !== null ? spanKey(id, after!, letter, aTier) : null;
    const same = oldSpan && newSpan && oldSpan.PK === newSpan.PK && oldSpan.SK === newSpan.SK;
    if (oldSpan && !same) spans.push({ Delete: { TableName: table(), Key: oldSpan } });
    if (newSpan && !(same && was === now)) spans.push({ Put: { TableName: table(), Item: { ...newSpan, id, v: now! } } });
  }
  const moves = new Map<string, Map<string, number>>();
  countsByItem(before, -1, moves);
  countsByItem(after, 1, moves);
  const counts: TransactItem[] = [];
  for (const k of [...moves.keys()].sort()) {
    const deltas = new Map([...moves.get(k)!].filter(([, d]) => d !== 0));
    if (deltas.size === 0) continue;
    const [group, sk] = k.split('\u0000');
    counts.push(countAdd({ PK: countPartition(group!), SK: sk! }, deltas));
  }
  return [...postings, ...spans, ...counts];
}
