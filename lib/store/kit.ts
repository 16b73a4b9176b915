/**
 * The write kit (lib/store/README.md "Writes"): every record kind — events, venues, organizers, categories, tags —
 * is described once (its key, its slug scope, whether the bySlug index lists it), and every write of a record goes
 * through the same few operations: the items that create, rewrite or delete it together with its slug guard, one
 * conditional transaction that commits them with whatever else the write changes, and the trash/restore transition.
 * Free slugs come from the planning reads (reads.ts: ReadSet.freeSlug); the retry policy is retry.ts.
 */
import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { PostStatus } from '../model/status.js';
import { db, table } from './client.js';
import { changeLogActions, changeLogItems, changesIn, noted, SETTLE_MS, takeNumbers, voidNumbers, type RecordChange } from './changes.js';
import { foldCounters } from './counters.js';
import { CreatedBefore, GuardTaken, ItemTooLarge, LinkConflict, RecordTooLarge, StoreUnavailable, TooManyChanges, VersionConflict } from './errors.js';
import { postKey, slugIndexKey, slugKey, termKey, type PostKind, type Taxonomy } from './keys.js';
import { backoff } from './retry.js';
import { markCommitted, timeLeft } from './scope.js';
import type { Key, TransactItem } from './types.js';
import type { ReadSet } from './reads.js';
import { withConds, type Cond } from './nonempty.js';
import { getItem } from './records.js';

export type KindName = PostKind | Taxonomy;

/** What the kit needs to know of a kind of record. */
export interface RecordKind {
  name: KindName;
  key: (id: number) => Key;
}

export const KINDS: Record<KindName, RecordKind> = {
  event: { name: 'event', key: postKey },
  venue: { name: 'venue', key: postKey },
  organizer: { name: 'organizer', key: postKey },
  category: { name: 'category', key: termKey },
  tag: { name: 'tag', key: termKey },
};

/** Every record the kit writes has an id, a version and a slug. */
export interface Stored {
  id: number;
  v: number;
  slug: string;
}

/** A record's attributes by name (records are plain objects of their kind's shape). */
const attributes = (record: object): Map<string, unknown> => new Map(Object.entries(record));

// ------------------------------------------------------------------------------------------------ guards

/**
 * What a refused transaction reports for one of this process's items whose condition failed, where that says more than
 * ConditionalCheckFailed (see `commit`): GUARD_TAKEN for a guard Put, CREATED_BEFORE for a once-Put (create-once.ts).
 */
const FAILURE_CODES = new WeakMap<TransactItem, string>();
const GUARD_TAKEN = 'GuardTaken';
export const CREATED_BEFORE = 'CreatedBefore';

/** `item`, reported as `code` when its condition fails. */
function failingAs(item: TransactItem, code: string): TransactItem {
  FAILURE_CODES.set(item, code);
  return item;
}

/** Put of an item held by `id` (with `more` attributes); fails, reported as `code`, when another record holds it. */
export const heldPut = (key: Key, id: number, code: string, more: Record<string, unknown> = {}): TransactItem => failingAs({ Put: {
  TableName: table(), Item: { ...key, id, ...more }, ConditionExpression: 'attribute_not_exists(PK) OR id = :id',
  ExpressionAttributeValues: { ':id': id } } }, code);

/** Put of a guard item (a slug, a term name) held by `id`; fails when another record holds it. */
export const guardPut = (key: Key, id: number): TransactItem => heldPut(key, id, GUARD_TAKEN);

/** Delete of a guard item held by `id` (never releases someone else's). */
export const guardDelete = (key: Key, id: number): TransactItem => ({
  Delete: { TableName: table(), Key: key, ConditionExpression: 'attribute_not_exists(PK) OR id = :id',
    ExpressionAttributeValues: { ':id': id } },
});

/** The record with its slug, and its bySlug index keys. */
export const withSlug = <T extends object>(kind: KindName, item: T, slug: string): T & { slug: string } =>
  ({ ...item, slug, GSI1PK: slugIndexKey(kind, slug), GSI1SK: kind });

// ------------------------------------------------------------------------------------------------ the items of a write

/** The most a record may hold (contract §2: 350 KB of stored text), measured as its JSON, which is at least as large. */
export const MAX_RECORD_BYTES = 350_000;

function checkSize(item: object): void {
  if (Buffer.byteLength(JSON.stringify(item)) > MAX_RECORD_BYTES) throw new RecordTooLarge();
}

/** Attributes maintained by ADD in other records' transactions; a record rewrite never touches them. */
export const COUNTER_ATTRIBUTES = ['cnt', 'linked', 'kids'] as const;

/**
 * An Update that turns `prev` into `next` (SET what changed, REMOVE what is gone) if the item still has
 * `expectedVersion`. It leaves the counter attributes alone, so concurrent link changes are never lost.
 */
export function rewriteItem(key: Key, prevRecord: object, nextRecord: object, expectedVersion: number): TransactItem {
  checkSize(nextRecord);
  const prev = attributes(prevRecord);
  const next = attributes(nextRecord);
  const names: Record<string, string> = { '#v': 'v' };
  const values: Record<string, unknown> = { ':expected': expectedVersion };
  const set: string[] = [];
  const remove: string[] = [];
  const skip = new Set<string>(['PK', 'SK', ...COUNTER_ATTRIBUTES]);
  let i = 0;
  for (const [k, v] of next) {
    if (skip.has(k) || v === undefined) continue;
    if (k !== 'v' && JSON.stringify(prev.get(k)) === JSON.stringify(v) && !(v instanceof Set)) continue;
    const n = k === 'v' ? '#v' : `#a${i}`;
    names[n] = k;
    values[`:a${i}`] = v;
    set.push(`${n} = :a${i}`);
    i++;
  }
  for (const k of prev.keys()) {
    if (skip.has(k) || next.get(k) !== undefined) continue;
    names[`#r${i}`] = k;
    remove.push(`#r${i}`);
    i++;
  }
  return noted({
    Update: {
      TableName: table(),
      Key: key,
      UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
      ConditionExpression: '#v = :expected',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  }, prevRecord, nextRecord);
}

/** A new record and its slug guard: the record first (its failure means the id is taken: a bug). */
export function createItems(kind: KindName, stored: Stored): TransactItem[] {
  checkSize(stored);
  return [
    noted({ Put: { TableName: table(), Item: stored, ConditionExpression: 'attribute_not_exists(PK)' } }, null, stored),
    guardPut(slugKey(kind, stored.slug), stored.id),
  ];
}

/** A record rewritten at the version read, its slug guard moved when the slug changed: the rewrite first. */
export function rewriteItems(kind: KindName, prev: Stored, next: Stored): TransactItem[] {
  return [
    rewriteItem(KINDS[kind].key(next.id), prev, next, prev.v),
    ...(next.slug !== prev.slug ? [guardDelete(slugKey(kind, prev.slug), next.id), guardPut(slugKey(kind, next.slug), next.id)] : []),
  ];
}

/** A record deleted at the version read, and its slug guard: the delete first. */
export function deleteItems(kind: KindName, prev: Stored, extraCondition?: { expression: string; names: Record<string, string>;
  values: Record<string, unknown> }): TransactItem[] {
  return [
    noted({ Delete: { TableName: table(), Key: KINDS[kind].key(prev.id),
      ConditionExpression: `#v = :v${extraCondition ? ` AND ${extraCondition.expression}` : ''}`,
      ExpressionAttributeNames: { '#v': 'v', ...extraCondition?.names },
      ExpressionAttributeValues: { ':v': prev.v, ...extraCondition?.values } } }, prev, null),
    guardDelete(slugKey(kind, prev.slug), prev.id),
  ];
}

// ------------------------------------------------------------------------------------------------ committing

/** Cancellation reasons that mean "throttled": nothing was applied, and the same transaction can be sent again. */
const THROTTLED = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

type Reason = { Code?: string; Item?: Record<string, unknown> };

function reasonsOf(e: unknown): Reason[] {
  if ((e as Error).name !== 'TransactionCanceledException') throw e;
  return (e as { CancellationReasons?: Reason[] }).CancellationReasons ?? [];
}

/** The codes of a refused transaction's `items`, a failed condition as its item's failure code. */
const codes = (items: TransactItem[], reasons: Reason[]): string[] => reasons.map((r, i) => {
  const code = r.Code ?? 'None';
  return code === 'ConditionalCheckFailed' ? FAILURE_CODES.get(items[i]!) ?? code : code;
});

// ------------------------------------------------------------------------------------------------ optional items

/**
 * Items a transaction takes only if they fit once everything else is in (a venue's index changes inside an event
 * write, which has little room). Until then the transaction carries `instead`, one item that stands for them (a
 * marker asking for the work to be done after the commit); `taken` says, once the transaction committed, which of
 * the two went in.
 */
export interface Optional {
  readonly instead: TransactItem;
  readonly items: TransactItem[];
  taken: boolean;
}

const OPTIONAL = new WeakMap<TransactItem, Optional>();

export function optional(instead: TransactItem, items: TransactItem[]): Optional {
  const o: Optional = { instead, items, taken: false };
  OPTIONAL.set(instead, o);
  return o;
}

const itemKey = (t: TransactItem): string => {
  const key = (t.Put?.Item ?? t.Update?.Key ?? t.Delete?.Key ?? t.ConditionCheck?.Key) as Key;
  return `${key.PK}\u0000${key.SK}`;
};

/** An unconditional Update that sets or removes one attribute (`#e`), as index buckets are written. */
const ONE_ATTRIBUTE = /^(SET #e = :v|REMOVE #e)$/;

/**
 * Several records' optional items may write one bucket (two organizers created by one event write share words):
 * such single-attribute writes of one item are merged into one Update, as a transaction may touch an item once.
 * Null when items of one key remain that cannot be merged.
 */
export function mergeOneAttributeWrites(items: TransactItem[]): TransactItem[] | null {
  const groups = new Map<string, TransactItem[]>();
  for (const t of items) groups.set(itemKey(t), [...(groups.get(itemKey(t)) ?? []), t]);
  const out: TransactItem[] = [];
  for (const group of groups.values()) {
    if (group.length === 1) {
      out.push(group[0]!);
      continue;
    }
    const updates = group.map((t) => t.Update);
    if (updates.some((u) => !u || u.ConditionExpression || !ONE_ATTRIBUTE.test(u.UpdateExpression ?? ''))) return null;
    const attributes = updates.map((u) => u!.ExpressionAttributeNames!['#e']!);
    if (new Set(attributes).size !== attributes.length) return null;
    const sets: string[] = [];
    const removes: string[] = [];
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    updates.forEach((u, i) => {
      names[`#e${i}`] = attributes[i]!;
      if (u!.UpdateExpression!.startsWith('SET')) {
        sets.push(`#e${i} = :v${i}`);
        values[`:v${i}`] = u!.ExpressionAttributeValues![':v'];
      } else removes.push(`#e${i}`);
    });
    out.push({ Update: { TableName: updates[0]!.TableName, Key: updates[0]!.Key,
      UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].filter(Boolean).join(' '),
      ExpressionAttributeNames: names, ...(sets.length ? { ExpressionAttributeValues: values } : {}) } });
  }
  return out;
}

/** The transaction with every optional group that fits in `room` actions taken in (in order), and the groups taken. */
function withOptional(items: TransactItem[], room: number): { items: TransactItem[]; taken: Optional[] } {
  const base = items.filter((t) => !OPTIONAL.has(t));
  const groups = items.filter((t) => OPTIONAL.has(t)).map((t) => OPTIONAL.get(t)!);
  const taken: Optional[] = [];
  let current = items;
  for (const o of groups) {
    const merged = mergeOneAttributeWrites(foldCounters([...base, ...taken.flatMap((g) => g.items), ...o.items]));
    if (!merged) continue;
    const candidate = [...merged, ...groups.filter((g) => g !== o && !taken.includes(g)).map((g) => g.instead)];
    if (candidate.length <= room) {
      current = candidate;
      taken.push(o);
    }
  }
  return { items: current, taken };
}

/**
 * Runs one transaction (with the change log's entries for the records it writes): null when it committed, else the
 * cancellation reasons (one per item); a conflict with another transaction in flight reads as ['TransactionConflict'].
 */
export async function transact(all: TransactItem[]): Promise<string[] | null> {
  // The change log's entries go into the same transaction, one per record it writes (lib/store/changes.ts).
  const changes = changesIn(all);
  const room = 100 - changeLogActions(changes.length);
  const folded = foldCounters(all);
  if (folded.length > room) throw new TooManyChanges();
  if (folded.some((t) => OPTIONAL.has(t))) {
    const { items, taken } = withOptional(folded, room);
    if (taken.length) {
      try {
        const reasons = await send(items, changes);
        if (!reasons) for (const o of taken) o.taken = true;
        return reasons;
      } catch (e) {
        // An optional item that would pass the item size limit (a full index bucket): the work goes after the commit.
        if (!((e as Error).name === 'ValidationException' && /size/i.test((e as Error).message))) throw e;
      }
    }
  }
  return send(folded, changes);
}

/**
 * Sends a transaction with the change log's entries for `changes`, numbered just before (lib/store/changes.ts); the
 * numbers of a refused transaction are marked void.
 */
async function send(items: TransactItem[], changes: RecordChange[]): Promise<string[] | null> {
  for (const t of items) if (t.Put?.Item) checkSize(t.Put.Item);
  if (!changes.length) {
    const reasons = await sendOnce(items);
    return reasons && codes(items, reasons);
  }
  const numbers = await takeNumbers(changes.length);
  const sent = [...items, ...changeLogItems(numbers, changes)];
  const reasons = await sendOnce(sent, numbers.at + SETTLE_MS / 2);
  if (!reasons) return null;
  await voidNumbers(numbers, changes.length);
  return codes(sent, reasons).slice(0, items.length);
}

/**
 * Runs one transaction, sent no later than `sendBy`: null when it committed, else the cancellation reasons (one per
 * item). Throttled transactions are sent again (with the same ClientRequestToken, so a retry after a lost answer cannot
 * apply twice) while the request has time; a conflict with another transaction in flight reads as [TransactionConflict].
 */
async function sendOnce(items: TransactItem[], sendBy = Infinity): Promise<Reason[] | null> {
  const ClientRequestToken = randomUUID();
  for (let attempt = 0; ; attempt++) {
    // Past it, a commit could land after readers have passed its change log numbers (lib/store/changes.ts).
    if (Date.now() > sendBy) throw new StoreUnavailable(false);
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken }));
      markCommitted();
      return null;
    } catch (e) {
      const reasons = reasonsOf(e);
      if (reasons.some((r) => THROTTLED.has(r.Code ?? ''))) {
        if (attempt >= 6 || timeLeft() < 500) throw new StoreUnavailable(false, { cause: e });
        await backoff(attempt);
        continue;
      }
      if (reasons.some((r) => r.Code === 'TransactionConflict')) return [{ Code: 'TransactionConflict' }];
      return reasons;
    }
  }
}

/**
 * Commits a write. A once-item held by another record is a CreatedBefore (the create was made before). When its first
 * item is the record's own (create, rewrite, delete), a failure of that item is a
 * VersionConflict (the record changed since it was read); a slug or name taken meanwhile is a GuardTaken; any other
 * failure — a linked record changed or gone, a transaction in the way — is a LinkConflict: the caller plans again
 * (retry.ts), spreading its slug choices only after a GuardTaken.
 */
export async function commit(items: TransactItem[], opts: { ownFirst?: boolean } = {}): Promise<void> {
  if (items.length === 0) return;
  const reasons = await transact(items);
  if (!reasons) return;
  if (reasons.includes(CREATED_BEFORE)) throw new CreatedBefore();
  if (opts.ownFirst && reasons[0] === 'ConditionalCheckFailed') throw new VersionConflict();
  if (reasons.includes(GUARD_TAKEN)) throw new GuardTaken();
  if (reasons.includes('ValidationError')) throw new ItemTooLarge();
  throw new LinkConflict();
}

// ------------------------------------------------------------------------------------------------ trash

/** What trashing and restoring keep on a record (events, venues, organizers). */
export interface Trashable {
  status: PostStatus;
  slug: string;
  slugBeforeTrash?: string;
  statusBeforeTrash?: PostStatus;
}

/**
 * The fields and slug base of a status change (reference §10.5): into the trash, the slug moves to `<slug>__trashed`
 * (freeing it) and the slug and status are remembered; out of it, the remembered slug is taken back (or the next free
 * one). Null when the status does not enter or leave the trash.
 */
export function trashTransition<T extends Trashable>(prev: T, next: T, requestedSlugBase?: string):
  { record: T; slugBase: string } | null {
  if (prev.status === 'trash' && next.status !== 'trash') {
    const { slugBeforeTrash: _s, statusBeforeTrash: _t, ...rest } = next;
    return { record: rest as T, slugBase: requestedSlugBase ?? prev.slugBeforeTrash ?? prev.slug.replace(/__trashed(-\d+)?$/, '') };
  }
  if (prev.status !== 'trash' && next.status === 'trash') {
    const slugBeforeTrash = requestedSlugBase ?? prev.slug;
    return { record: { ...next, slugBeforeTrash, statusBeforeTrash: prev.status }, slugBase: `${slugBeforeTrash}__trashed` };
  }
  return null;
}

// ------------------------------------------------------------------------------------------------ the record writes

/**
 * Commits a write whose first item is the record's own. With `counted` (conditions on counters the version does not
 * cover, lib/store/nonempty.ts), a failure of that item is a VersionConflict only when the version moved; otherwise
 * a counter moved since it was read, and the write plans again (LinkConflict), also under If-Match.
 */
async function commitOwn(kind: KindName, prev: Stored, items: TransactItem[], counted: boolean): Promise<void> {
  try {
    await commit(items, { ownFirst: true });
  } catch (e) {
    if (!counted || !(e instanceof VersionConflict)) throw e;
    const now = await getItem(KINDS[kind].key(prev.id), true);
    if (now && now.v === prev.v) throw new LinkConflict();
    throw e;
  }
}

/** Creates a record (its slug chosen by the plan) with the rest of its write in one transaction. */
export const createRecord = (kind: KindName, stored: Stored, extra: TransactItem[] = []): Promise<void> =>
  commit([...createItems(kind, stored), ...extra], { ownFirst: true });

/**
 * Rewrites a record at the version read (moving its slug guard if the slug changed) with the rest of its write;
 * `conds` are further conditions of the record's own action (on its counters, as read).
 */
export function rewriteRecord(kind: KindName, prev: Stored, next: Stored, extra: TransactItem[] = [], conds: Cond[] = []): Promise<void> {
  const [own, ...guards] = rewriteItems(kind, prev, next);
  return commitOwn(kind, prev, [withConds(own!, conds), ...guards, ...extra], conds.length > 0);
}

/** Deletes a record at the version read, and its slug guard, with the rest of its write (and `conds`, as above). */
export function deleteRecord(kind: KindName, prev: Stored, extra: TransactItem[] = [], conds: Cond[] = []): Promise<void> {
  const [own, ...guards] = deleteItems(kind, prev);
  return commitOwn(kind, prev, [withConds(own!, conds), ...guards, ...extra], conds.length > 0);
}

/**
 * The record moved to the trash at `now`: a new version, status trash, the slug moved to a free `<slug>__trashed`
 * (read through the plan's reads) and the slug and status it had kept for a restore.
 */
export async function trashed<T extends Stored & Trashable & { modifiedUtc: string }>(kind: KindName, prev: T, now: string,
  reads: ReadSet, spread: number): Promise<T> {
  const moved = trashTransition(prev, { ...prev, v: prev.v + 1, status: 'trash', modifiedUtc: now })!;
  return withSlug(kind, moved.record, await reads.freeSlug(kind, moved.slugBase, prev.id, spread));
}
