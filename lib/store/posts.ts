/**
 * Writes of post records (events, venues, organizers): every write is one conditional transaction that also
 * maintains the record's slug guard item, so slugs stay unique per kind (a GSI cannot enforce that).
 */
import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { slugCandidates } from '../text/slug.js';
import { db, table } from './client.js';
import { foldCounters } from './counters.js';
import { postKey, slugKey, type PostKind } from './keys.js';
import { LinkConflict, NoFreeSlug, RecordTooLarge, StoreUnavailable, TooManyChanges, VersionConflict } from './errors.js';
import { batchGet, type Item } from './records.js';
import { backoff } from './retry.js';
import { timeLeft } from './scope.js';
import type { PostStatus } from '../model/status.js';
import type { Language } from '../model/language.js';

export type { TransactItem } from './types.js';
import type { TransactItem } from './types.js';

/** What every post record (event, venue, organizer) stores; the kinds add their own fields. */
export type PostRecord<Kind extends PostKind, Text> = {
  PK: string;
  SK: string;
  kind: Kind;
  id: number;
  /** Version for optimistic locking; the ETag is "<id>-<v>". */
  v: number;
  author: number;
  status: PostStatus;
  slug: string;
  /** Slug and status to restore when a trashed record comes back. */
  slugBeforeTrash?: string;
  statusBeforeTrash?: PostStatus;
  /** Translatable text per language (contract §8). */
  tr: Partial<Record<Language, Text>>;
  /** The first language written: the fallback of every other language. */
  lang0: Language;
  dateUtc: string;
  modifiedUtc: string;
};

export { LinkConflict, VersionConflict } from './errors.js';

const SLUG_BATCH = 25;

/**
 * The first of base, base-2, base-3… that no other record of this kind holds. After a lost race (`spread` > 0)
 * it picks at random among the first free candidates, so concurrent writers of one title stop colliding.
 */
export async function freeSlug(kind: PostKind | 'category' | 'tag', base: string, selfId: number, spread = 0): Promise<string> {
  for (let from = 1; from < 10_000; from += SLUG_BATCH) {
    const candidates = slugCandidates(base, from, SLUG_BATCH);
    const taken = await batchGet(candidates.map((s) => slugKey(kind, s)), ['id']);
    const holders = new Map(taken.map((g) => [String(g.PK).slice(`SLUG#${kind}#`.length), g.id as number]));
    const free = candidates.filter((s) => !holders.has(s) || holders.get(s) === selfId);
    if (free.length) return free[Math.floor(Math.random() * Math.min(free.length, spread + 1))]!;
  }
  throw new NoFreeSlug();
}

const guardPut = (kind: PostKind | 'category' | 'tag', slug: string, id: number): TransactItem => ({
  Put: { TableName: table(), Item: { ...slugKey(kind, slug), id }, ConditionExpression: 'attribute_not_exists(PK) OR id = :id',
    ExpressionAttributeValues: { ':id': id } },
});

const guardDelete = (kind: PostKind | 'category' | 'tag', slug: string, id: number): TransactItem => ({
  Delete: { TableName: table(), Key: slugKey(kind, slug), ConditionExpression: 'attribute_not_exists(PK) OR id = :id',
    ExpressionAttributeValues: { ':id': id } },
});

function reasonsOf(e: unknown): string[] {
  if ((e as Error).name !== 'TransactionCanceledException') throw e;
  return ((e as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code ?? 'None');
}

/** Cancellation reasons that mean "throttled": nothing was applied, and the same transaction can be sent again. */
const THROTTLED = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

/**
 * Runs one transaction: null when it committed, else the cancellation reasons (one per item). Throttled
 * transactions are sent again (with the same ClientRequestToken, so a retry after a lost answer cannot apply
 * twice) while the request has time; a conflict with another transaction in flight reads as ['TransactionConflict'].
 */
export async function transact(all: TransactItem[]): Promise<string[] | null> {
  const items = foldCounters(all);
  if (items.length > 100) throw new TooManyChanges();
  for (const t of items) if (t.Put) checkSize(t.Put.Item as Item);
  const ClientRequestToken = randomUUID();
  for (let attempt = 0; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken }));
      return null;
    } catch (e) {
      const reasons = reasonsOf(e);
      if (reasons.some((r) => THROTTLED.has(r))) {
        if (attempt >= 6 || timeLeft() < 500) throw new StoreUnavailable(false, { cause: e });
        await backoff(attempt);
        continue;
      }
      if (reasons.some((r) => r === 'TransactionConflict')) return ['TransactionConflict'];
      return reasons;
    }
  }
}

export const withSlug = <T extends Item>(kind: PostKind, item: T, slug: string): T & { slug: string } =>
  ({ ...item, slug, GSI1PK: `${kind}#${slug}`, GSI1SK: kind });

/** The record's own items on create: the record and its slug guard, both conditional. */
export function postCreateItems(kind: PostKind, stored: Item & { id: number; slug: string }): TransactItem[] {
  return [
    { Put: { TableName: table(), Item: stored, ConditionExpression: 'attribute_not_exists(PK)' } },
    guardPut(kind, stored.slug, stored.id),
  ];
}

/**
 * Creates a record with a slug derived from `slugBase` (suffixed on collision). `extra` items (links, counters)
 * join the same transaction. Returns the stored item.
 */
export async function createPost(kind: PostKind, item: Item & { id: number }, slugBase: string,
  extra: TransactItem[] | ((stored: Item) => TransactItem[]) = []): Promise<Item> {
  for (let attempt = 0; attempt < 12; attempt++) {
    const slug = await freeSlug(kind, slugBase, item.id, attempt);
    const stored = withSlug(kind, item, slug);
    const reasons = await transact([...postCreateItems(kind, stored), ...(typeof extra === 'function' ? extra(stored) : extra)]);
    if (!reasons) return stored;
    if (reasons[0] === 'ConditionalCheckFailed') throw new Error(`id ${item.id} is already in use`);
    if (reasons.slice(2).some((r) => r === 'ConditionalCheckFailed')) throw new LinkConflict();
    // The slug was taken between the check and the write, or a concurrent transaction touched an item: retry.
  }
  throw new LinkConflict();
}

/**
 * One attempt at creating a record whose slug the caller's plan chose (lib/store/reads.ts): the record, its slug
 * guard and `extra` in one transaction. False when a condition other than the record's own failed (the slug or a
 * name taken meanwhile, a linked record changed or deleted) or a concurrent transaction got in the way: the
 * caller plans again on fresh reads, which either succeeds or finds the reason to refuse (e.g. a deleted term).
 */
export async function createPlanned(kind: PostKind, stored: Item & { id: number; slug: string }, extra: TransactItem[]): Promise<boolean> {
  const reasons = await transact([...postCreateItems(kind, stored), ...extra]);
  if (!reasons) return true;
  if (reasons[0] === 'ConditionalCheckFailed') throw new Error(`id ${stored.id} is already in use`);
  return false;
}

/** Attributes maintained by ADD in other records' transactions; a record rewrite never touches them. */
export const COUNTER_ATTRIBUTES = ['cnt', 'linked'] as const;

/**
 * An Update that turns `prev` into `next` (SET what changed, REMOVE what is gone) if the item still has
 * `expectedVersion`. It leaves the counter attributes alone, so concurrent link changes are never lost.
 */
/** The most a record may hold (contract §2: 350 KB of stored text), measured as its JSON, which is at least as large. */
export const MAX_RECORD_BYTES = 350_000;

function checkSize(item: Item): void {
  if (Buffer.byteLength(JSON.stringify(item)) > MAX_RECORD_BYTES) throw new RecordTooLarge();
}

export function rewriteItem(key: { PK: string; SK: string }, prev: Item, next: Item, expectedVersion: number): TransactItem {
  checkSize(next);
  const names: Record<string, string> = { '#v': 'v' };
  const values: Record<string, unknown> = { ':expected': expectedVersion };
  const set: string[] = [];
  const remove: string[] = [];
  const skip = new Set<string>(['PK', 'SK', ...COUNTER_ATTRIBUTES]);
  let i = 0;
  for (const [k, v] of Object.entries(next)) {
    if (skip.has(k) || v === undefined) continue;
    if (k !== 'v' && JSON.stringify(prev[k]) === JSON.stringify(v) && !(v instanceof Set)) continue;
    const n = k === 'v' ? '#v' : `#a${i}`;
    names[n] = k;
    values[`:a${i}`] = v;
    set.push(`${n} = :a${i}`);
    i++;
  }
  for (const k of Object.keys(prev)) {
    if (skip.has(k) || next[k] !== undefined) continue;
    names[`#r${i}`] = k;
    remove.push(`#r${i}`);
    i++;
  }
  return {
    Update: {
      TableName: table(),
      Key: key,
      UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
      ConditionExpression: '#v = :expected',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * Rewrites a record (from `prev`, as read, at version `prev.v`) into `item`. When `slugBase` is given the
 * record moves to a free slug derived from it and its old slug is released. Throws VersionConflict when the
 * record changed in between.
 */
export async function replacePost(kind: PostKind, item: Item & { id: number; slug: string; v: number }, prev: Item & { slug: string; v: number },
  slugBase?: string, extra: TransactItem[] | ((stored: Item) => TransactItem[]) = []): Promise<Item> {
  for (let attempt = 0; attempt < 12; attempt++) {
    const slug = slugBase !== undefined ? await freeSlug(kind, slugBase, item.id, attempt) : prev.slug;
    const stored = { ...item, slug, GSI1PK: `${kind}#${slug}`, GSI1SK: kind };
    const items: TransactItem[] = [
      rewriteItem(postKey(item.id), prev, stored, prev.v),
      ...(slug !== prev.slug ? [guardDelete(kind, prev.slug, item.id), guardPut(kind, slug, item.id)] : []),
      ...(typeof extra === 'function' ? extra(stored) : extra),
    ];
    const reasons = await transact(items);
    if (!reasons) return stored;
    if (reasons[0] === 'ConditionalCheckFailed') throw new VersionConflict();
    if (reasons.some((r) => r === 'ConditionalCheckFailed')) throw new LinkConflict();
  }
  throw new LinkConflict();
}


/** Deletes a record permanently (if it still has `expectedVersion`) and releases its slug. */
export async function deletePost(kind: PostKind, item: Item & { id: number; slug: string }, expectedVersion: number,
  extra: TransactItem[] = []): Promise<void> {
  // Deleting is final, so a linked record's change must not be mistaken for this record's: see reasons[0].
  const reasons = await transact([
    { Delete: { TableName: table(), Key: postKey(item.id), ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': expectedVersion } } },
    guardDelete(kind, item.slug, item.id),
    ...extra,
  ]);
  if (!reasons) return;
  if (reasons[0] === 'ConditionalCheckFailed' || reasons[0] === 'TransactionConflict') throw new VersionConflict();
  throw new LinkConflict();
}

/** Runs a prepared transaction (for writes that are not one record's create/rewrite/delete). */
export async function writeTransaction(items: TransactItem[]): Promise<void> {
  if (items.length === 0) return;
  const reasons = await transact(items);
  if (!reasons) return;
  if (reasons[0] === 'TransactionConflict' || reasons.includes('TransactionConflict')) throw new VersionConflict();
  throw new LinkConflict();
}
