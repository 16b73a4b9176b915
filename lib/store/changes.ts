/**
 * The change log (contract §16). Every transaction that creates, rewrites or deletes a record (or moves a term's
 * count) also puts one entry per such record, numbered from the `COUNTER`/`change` item: the write takes its numbers
 * with one `ADD` just before it sends its transaction, and records when (`at`). Writes commit in any order, so a
 * reader may find a number missing while higher ones are there: the missing one is still in flight, or its write
 * failed. A write sends its transaction only within SETTLE_MS / 2 of taking its numbers (and marks the numbers of a
 * refused transaction void at once), so once an entry with a higher number is older than SETTLE_MS, nothing can fill
 * the gap: readers carry the numbers still missing in their cursor until they arrive or settle (lib/changes/feed.ts),
 * and never pass a change that commits later. Keys and costs: lib/store/README.md "Change log".
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.js';
import { db, table } from './client.js';
import { batchGet } from './records.js';
import { CHANGE_BLOCK, changeKey, counterKey, type PostKind, type Taxonomy } from './keys.js';
import type { TransactItem } from './types.js';

export type ChangeKind = PostKind | Taxonomy | 'ticket';

/** What readers need to know of a record's state to decide who may read it: status and author. */
export interface Audience {
  s: string;
  a?: number;
}

/** One record's change within a transaction. */
export interface RecordChange {
  kind: ChangeKind;
  id: number;
  /** The record before and after; null when it did not exist (or no longer does). */
  before: Audience | null;
  after: Audience | null;
  /** The record's own `modifiedUtc` after the write, when it has one: the entry's time is the record's. */
  t?: string;
}

/** How long after taking its numbers a write can still commit, at most (a margin over SETTLE_MS / 2 and clock skew). */
export const SETTLE_MS = 60_000;

/** A stored entry. */
export interface ChangeEntry {
  seq: number;
  /** When its numbers were taken (epoch ms); a void entry stands for a write that was refused. */
  at: number;
  void?: boolean;
  kind: ChangeKind;
  id: number;
  /** c(reated), u(pdated) or d(eleted: deleted or moved to the trash) */
  a: 'c' | 'u' | 'd';
  /** UTC `YYYY-MM-DD HH:MM:SS` of the change. */
  t: string;
  b: Audience | null;
  f: Audience | null;
}

const NOTES = new WeakMap<TransactItem, RecordChange[]>();

/** Attributes that are bookkeeping, not anything a reader is shown: a rewrite of only these is no change. */
const UNSHOWN = new Set(['v', 'busy', 'own', 'gone', 'ws', 'wu', 'sameDay', 'cnt', 'linked', 'kids', 'statusBeforeTrash',
  'slugBeforeTrash']);

type RecordLike = Record<string, unknown>;

const kindOf = (record: RecordLike): ChangeKind | null => {
  const kind = record.kind ?? record.taxonomy;
  return kind === 'event' || kind === 'venue' || kind === 'organizer' || kind === 'category' || kind === 'tag' || kind === 'ticket' ? kind : null;
};

const audienceOf = (record: RecordLike): Audience => ({
  s: typeof record.status === 'string' ? record.status : 'publish',
  ...(typeof record.author === 'number' ? { a: record.author } : {}),
});

/** Whether a rewrite changes anything a reader sees. */
function shownChange(prev: RecordLike, next: RecordLike): boolean {
  for (const k of new Set([...Object.keys(prev), ...Object.keys(next)])) {
    if (!UNSHOWN.has(k) && JSON.stringify(prev[k]) !== JSON.stringify(next[k])) return true;
  }
  return false;
}

/**
 * Marks a transaction item as the write of a record (from `prev` to `next`, either null), so that the transaction
 * that carries it appends the change. Returns the item.
 */
export function noted(item: TransactItem, prev: object | null, next: object | null): TransactItem {
  const p = prev as RecordLike | null;
  const n = next as RecordLike | null;
  const kind = kindOf((n ?? p)!);
  if (!kind || (p && n && !shownChange(p, n))) return item;
  NOTES.set(item, [...(NOTES.get(item) ?? []), { kind, id: Number((n ?? p)!.id), before: p && audienceOf(p), after: n && audienceOf(n),
    ...(typeof n?.modifiedUtc === 'string' ? { t: n.modifiedUtc } : {}) }]);
  return item;
}

/** Marks an item that moves the count of terms (shown as their `count`): each is changed. */
export function notedCounts(item: TransactItem, terms: { kind: Taxonomy; id: number }[]): TransactItem {
  const changes = terms.map((t) => ({ ...t, before: { s: 'publish' }, after: { s: 'publish' } }));
  NOTES.set(item, [...(NOTES.get(item) ?? []), ...changes]);
  return item;
}

/** `to` stands for `from` (the same write with more conditions): it carries its changes. */
export function carryNotes(from: TransactItem, to: TransactItem): TransactItem {
  const notes = NOTES.get(from);
  if (notes) NOTES.set(to, notes);
  return to;
}

/** The record changes a transaction's items carry, one per record (its first state before, its last after). */
export function changesIn(items: TransactItem[]): RecordChange[] {
  const byRecord = new Map<string, RecordChange>();
  for (const item of items) {
    for (const c of NOTES.get(item) ?? []) {
      const key = `${c.kind}#${c.id}`;
      const seen = byRecord.get(key);
      byRecord.set(key, seen ? { ...seen, after: c.after, t: c.t } : c);
    }
  }
  return [...byRecord.values()];
}

/** Actions the change log adds to a transaction with these changes (its entries). */
export const changeLogActions = (changes: number): number => changes;

const DAY_MS = 86_400_000;
export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
const utcText = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** Numbers taken for a write's changes: the first of them, and when they were taken. */
export interface Numbers {
  first: number;
  at: number;
}

/**
 * Takes `count` numbers. The counter also keeps, per UTC day, the lowest number taken that day (`d<yyyymmdd>`), for
 * readers that start at the oldest change kept; days past the retention are dropped by any write in the nine days
 * after they expire.
 */
export async function takeNumbers(count: number): Promise<Numbers> {
  const res = await db().send(new UpdateCommand({
    TableName: table(), Key: counterKey('change'), UpdateExpression: 'ADD #n :k', ExpressionAttributeNames: { '#n': 'n' },
    ExpressionAttributeValues: { ':k': count }, ReturnValues: 'ALL_NEW',
  }));
  const at = Date.now();
  const first = Number(res.Attributes!.n) - count + 1;
  const today = `d${dayOf(at)}`;
  const known = res.Attributes![today];
  if (known === undefined || Number(known) > first) {
    const retention = config().changesRetentionSeconds * 1000;
    const stale = Array.from({ length: 9 }, (_, i) => `d${dayOf(at - retention - (i + 2) * DAY_MS)}`);
    const names: Record<string, string> = { '#today': today };
    stale.forEach((d, i) => (names[`#s${i}`] = d));
    await db().send(new UpdateCommand({
      TableName: table(), Key: counterKey('change'),
      UpdateExpression: `SET #today = :first REMOVE ${stale.map((_, i) => `#s${i}`).join(', ')}`,
      ConditionExpression: 'attribute_not_exists(#today) OR #today > :first',
      ExpressionAttributeNames: names, ExpressionAttributeValues: { ':first': first },
    })).catch((e: Error) => {
      if (e.name !== 'ConditionalCheckFailedException') throw e;
    });
  }
  return { first, at };
}

const expiresAt = (at: number): number => Math.floor(at / 1000) + config().changesRetentionSeconds + 86_400;

/** The entries of a write's changes, numbered from `numbers.first`, to go into its transaction. */
export function changeLogItems(numbers: Numbers, changes: RecordChange[]): TransactItem[] {
  const t = utcText(numbers.at);
  const expires = expiresAt(numbers.at);
  return changes.map((c, i): TransactItem => {
    const a = c.after === null || c.after.s === 'trash' ? 'd' : c.before === null || c.before.s === 'trash' ? 'c' : 'u';
    return { Put: { TableName: table(), Item: { ...changeKey(numbers.first + i), kind: c.kind, id: c.id, a, t: c.t ?? t, at: numbers.at,
      b: c.before, f: c.after, expires } } };
  });
}

/** Marks the numbers of a write whose transaction was refused as void, so readers need not wait at them. */
export async function voidNumbers(numbers: Numbers, count: number): Promise<void> {
  const expires = expiresAt(numbers.at);
  await Promise.all(Array.from({ length: count }, async (_, i) => {
    try {
      await db().send(new PutCommand({
        TableName: table(), Item: { ...changeKey(numbers.first + i), void: true, at: numbers.at, expires },
        ConditionExpression: 'attribute_not_exists(PK)',
      }));
    } catch {
      // Best effort: without the mark, readers wait up to SETTLE_MS at this number.
    }
  }));
}

/** The counter item: the last number handed out and the first number of each day kept. */
export async function readChangeCounter(): Promise<{ n: number; firstOfDay: Map<string, number> }> {
  const res = await db().send(new GetCommand({ TableName: table(), Key: counterKey('change'), ConsistentRead: true }));
  const item = res.Item ?? {};
  const firstOfDay = new Map(Object.entries(item).filter(([k]) => /^d\d{8}$/.test(k)).map(([k, v]) => [k.slice(1), Number(v)]));
  return { n: Number(item.n ?? 0), firstOfDay };
}

/** An entry as stored (a Query's item, or a stream record's new image). */
// biome-ignore lint/suspicious/noExplicitAny: an unmarshalled item, read field by field
export const entryOf = (item: Record<string, any>): ChangeEntry => ({ seq: Number(item.SK), at: Number(item.at), ...(item.void ? { void: true } : {}),
  kind: item.kind, id: Number(item.id), a: item.a, t: item.t, b: item.b ?? null, f: item.f ?? null });

/** The entries of these numbers that exist, in number order. */
export async function readChangesAt(numbers: number[]): Promise<ChangeEntry[]> {
  const items = await batchGet(numbers.map(changeKey), undefined, true);
  return items.map(entryOf).sort((a, b) => a.seq - b.seq);
}

/** Entries numbered `through` and below, newest first, at most `limit` (for finding where the settled log ends). */
export async function readChangesDown(through: number, limit: number): Promise<ChangeEntry[]> {
  const out: ChangeEntry[] = [];
  for (let block = Math.floor(through / CHANGE_BLOCK); block >= 0 && out.length < limit; block--) {
    const res = await db().send(new QueryCommand({
      TableName: table(), KeyConditionExpression: 'PK = :pk AND SK <= :to', ScanIndexForward: false, Limit: limit - out.length,
      ExpressionAttributeValues: { ':pk': changeKey(block * CHANGE_BLOCK).PK, ':to': changeKey(through).SK },
    }));
    out.push(...(res.Items ?? []).map(entryOf));
    if (res.LastEvaluatedKey) break;
  }
  return out;
}

/** Entries numbered above `after`, in order, at most `limit`, none above `through`. */
export async function readChanges(after: number, through: number, limit: number): Promise<ChangeEntry[]> {
  const out: ChangeEntry[] = [];
  let from = after;
  while (out.length < limit && from < through) {
    const block = Math.floor((from + 1) / CHANGE_BLOCK);
    const last = Math.min(through, (block + 1) * CHANGE_BLOCK - 1);
    const res = await db().send(new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': changeKey(from + 1).PK, ':from': changeKey(from + 1).SK, ':to': changeKey(last).SK },
      Limit: limit - out.length,
    }));
    out.push(...(res.Items ?? []).map(entryOf));
    // The block is read to its end (or the page is full): the next block, or done.
    from = res.LastEvaluatedKey ? Number(out.at(-1)!.seq) : last;
  }
  return out;
}

