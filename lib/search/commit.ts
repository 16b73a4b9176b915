/**
 * Committing index changes (./README.md "Writes"). A change that fits in the event's own transaction goes there, with a
 * check that no earlier change of the event is still being applied. A larger one — or the changes of a batch of events
 * written together, folded into one (a *group*: an import's events) — leaves a marker per event in the event's own
 * transaction, the event's index as it was and the record version it is brought to, and is then applied in chunks,
 * each exactly once: with a single event in a single chunk, the marker's deletion is the chunk's guard; otherwise each
 * chunk puts a token of its own and the markers go once every chunk has landed. Whoever meets a marker later (the next
 * write of the event, the sweeper) finishes the work from the markers and the records, so a request that dies between
 * chunks loses nothing and applies nothing twice.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from '../store/client.js';
import { postKey } from '../store/keys.js';
import { transact } from '../store/kit.js';
import { ItemTooLarge } from '../store/errors.js';
import { backoff } from '../store/retry.js';
import { batchGet, getItem, queryAll, type Item } from '../store/records.js';
import { timeLeft } from '../store/scope.js';
import type { TransactItem } from '../store/types.js';
import { postingValues } from './terms.js';
import { chunksOf, flightChunks, groupKey, markerKey, MARKERS, singleGuard, tokenPartition, type Flight, type IndexState } from './flight.js';

/** A group's writer seals it within this long; after it, a finisher seals it with the members it finds. */
const GROUP_SEAL_MS = 60_000;

/** The check, in an event's transaction, that no earlier index change of it is still being applied. */
export const noMarker = (id: number): TransactItem =>
  ({ ConditionCheck: { TableName: table(), Key: markerKey(id), ConditionExpression: 'attribute_not_exists(PK)' } });

/**
 * The marker an event's transaction puts when its index change goes after it: the index as it was, the version it is
 * brought to, and the group it is applied with (if any). In a group, an event written again before the group is
 * applied (an occurrence of a series the batch created, then edited) keeps its marker's first `before` — what the index
 * still holds — and only the version moves on.
 */
export function markerPut(id: number, v: number, before: IndexState, group?: string): TransactItem {
  const b = before.words ? Object.fromEntries(postingValues(before.words)) : undefined;
  const was = { ...(b ? { b } : {}), ...(before.unindexed ? { bx: JSON.stringify(before.unindexed) } : {}) };
  if (group) {
    return { Update: { TableName: table(), Key: markerKey(id), ConditionExpression: 'attribute_not_exists(PK) OR g = :g',
      UpdateExpression: 'SET id = :id, v = :v, g = :g, #at = if_not_exists(#at, :at), bs = if_not_exists(bs, :bs)',
      ExpressionAttributeNames: { '#at': 'at' }, ExpressionAttributeValues: { ':id': id, ':v': v, ':g': group, ':at': new Date().toISOString(), ':bs': was } } };
  }
  return { Put: { TableName: table(), ConditionExpression: 'attribute_not_exists(PK)',
    Item: { ...markerKey(id), id, v, at: new Date().toISOString(), ...was } } };
}

/** Opens a group: its item goes before any of its events is written (their markers name it), unsealed. */
export async function openGroup(gid: string): Promise<void> {
  await transact([{ Put: { TableName: table(), Item: { ...groupKey(gid), at: new Date().toISOString() }, ConditionExpression: 'attribute_not_exists(PK)' } }]);
}

/** The group whose events this async context writes (lib/events/words.ts defers their index changes to it). */
const groups = new AsyncLocalStorage<string>();
export const currentGroup = (): string | undefined => groups.getStore();
/** Runs `fn` with every event write inside it deferring its index change to group `gid`. */
export const inGroup = <T>(gid: string, fn: () => Promise<T>): Promise<T> => groups.run(gid, fn);

/** Seals a group once its events are written (`members`: those whose transactions landed): from then on it can be finished. */
export async function sealGroup(gid: string, members: number[]): Promise<void> {
  await db().send(new UpdateCommand({ TableName: table(), Key: groupKey(gid), UpdateExpression: 'SET sealed = :t, members = :m',
    ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(sealed)', ExpressionAttributeValues: { ':t': true, ':m': members } }))
    .catch((e: Error) => {
      if (e.name !== 'ConditionalCheckFailedException') throw e;
    });
}

/** The flight of an event's marker: its own, or its group's (read consistently). Null: none now. */
export async function flightOf(marker: Item): Promise<Flight | null> {
  if (marker.g === undefined) {
    const record = await getItem(postKey(Number(marker.id)), true);
    return { name: `E${marker.id}@${marker.v}`, markers: [marker], records: new Map([[Number(marker.id), record]]), sealed: true };
  }
  const gid = String(marker.g);
  const group = await getItem(groupKey(gid), true);
  if (!group) return null; // finished: its markers are gone (the group item goes last)
  const sealed = group.sealed === true;
  if (!sealed && Date.parse(String(group.at)) > Date.now() - GROUP_SEAL_MS) return { name: `G${gid}`, markers: [], records: new Map(), sealed: false };
  if (!sealed) {
    // Its writer died before sealing it: sealed with the members whose markers stand.
    await sealGroup(gid, (await standingMembers(gid)).map((m) => Number(m.id)));
    return flightOf(marker);
  }
  const ids = (group.members as number[] | undefined) ?? [];
  const markers = (await batchGet(ids.map(markerKey), undefined, true)).filter((m) => String(m.g) === gid);
  const records = new Map((await batchGet(markers.map((m) => postKey(Number(m.id))), undefined, true)).map((r) => [Number(r.id), r]));
  return { name: `G${gid}`, markers, records: new Map(markers.map((m) => [Number(m.id), records.get(Number(m.id)) ?? null])), sealed: true };
}

const DAY_SECONDS = 86_400;

/** Whether a write failed because an item would pass DynamoDB's item size limit (a posting of very many events of one day). */
export const isSizeError = (e: unknown): boolean =>
  e instanceof ItemTooLarge || ((e as Error).name === 'ValidationException' && /size/i.test((e as Error).message));

/** A chunk that would make an item pass the size limit: nothing of it was applied (its transaction failed whole). */
class TooLarge extends Error {}

/** One chunk, sent until it has landed exactly once (true), or the request runs out of time (false). */
async function sendChunk(items: TransactItem[], guard: TransactItem): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    const reasons = await transact([guard, ...items]).catch((e: unknown) => {
      if (isSizeError(e)) throw new TooLarge();
      throw e;
    });
    if (!reasons) return true;
    if (reasons.includes('ValidationError')) throw new TooLarge();
    // The guard failed: the chunk landed before (another finisher, or this request's earlier try).
    if (reasons[0] === 'ConditionalCheckFailed') return true;
    if (timeLeft() < 500) return false;
    await backoff(attempt);
  }
}

/** From now on the event is held whole (lib/events/words.ts `wu`): its words no longer fit a posting item. */
async function holdWhole(id: number): Promise<void> {
  await transact([{ Update: { TableName: table(), Key: postKey(id), UpdateExpression: 'SET wu = :t', ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':t': true } } }]);
}

/** The releases of a flight: each marker's deletion on its version, and its group's item last. */
function releases(f: Flight): TransactItem[][] {
  const deletes: TransactItem[] = f.markers.map((m) => ({ Delete: { TableName: table(), Key: markerKey(Number(m.id)),
    ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': Number(m.v) } } }));
  const batches = chunksOf(deletes);
  if (f.name.startsWith('G')) batches.push([{ Delete: { TableName: table(), Key: groupKey(f.name.slice(1)) } }]);
  return batches;
}

/**
 * Applies the change a flight stands for, chunk by chunk, then removes its markers. Idempotent and safe to run by
 * several requests at once. False when the request ran out of time first (the markers stay for the next finisher).
 */
async function finishFlight(f: Flight, target: (record: Item | null) => IndexState): Promise<boolean> {
  const expires = Math.floor(Date.now() / 1000) + DAY_SECONDS;
  const token = (k: number): TransactItem => ({ Put: { TableName: table(), Item: { PK: tokenPartition(f.name), SK: String(k), expires },
    ConditionExpression: 'attribute_not_exists(PK)' } });
  const chunks = flightChunks(f, target);
  try {
    if (singleGuard(f, chunks)) return await sendChunk(chunks[0] ?? [], releases(f)[0]![0]!);
    // The postings come first in a change, so the first chunk is where an item can grow too large: it lands before the others.
    if (chunks.length && !await sendChunk(chunks[0]!, token(0))) return false;
  } catch (e) {
    if (!(e instanceof TooLarge)) throw e;
    // Nothing of the change has landed: it is planned again with its events held whole.
    for (const m of f.markers) await holdWhole(Number(m.id));
    const records = new Map((await batchGet(f.markers.map((m) => postKey(Number(m.id))), undefined, true)).map((r) => [Number(r.id), r]));
    return finishFlight({ ...f, records: new Map(f.markers.map((m) => [Number(m.id), records.get(Number(m.id)) ?? null])) }, target);
  }
  const landed = await Promise.all(chunks.slice(1).map((chunk, k) => sendChunk(chunk, token(k + 1))));
  if (landed.includes(false)) return false;
  // A failed condition here means another finisher released it first.
  for (const batch of releases(f)) await transact(batch);
  return true;
}

/**
 * The writer's own finish of its event's change: it knows the marker it put and the record it wrote, so nothing is read
 * back first (another finisher may have done the work meanwhile: the chunks' guards make that harmless).
 */
export const finishOwn = (marker: Item, record: Item | null, target: (record: Item | null) => IndexState): Promise<boolean> =>
  finishFlight({ name: `E${marker.id}@${marker.v}`, markers: [marker], records: new Map([[Number(marker.id), record]]), sealed: true }, target);

/**
 * Applies what the marker of event `id` stands for, if there is one: its own change, or its group's. False when the
 * request ran out of time first, or the group is still being written (its writer finishes it).
 */
export async function finishIndex(id: number, target: (record: Item | null) => IndexState): Promise<boolean> {
  const marker = await getItem(markerKey(id), true);
  if (!marker) return true;
  const flight = await flightOf(marker);
  if (!flight) return true;
  if (!flight.sealed) return false;
  return finishFlight(flight, target);
}

/** The events whose markers name group `gid` now (read consistently). */
const standingMembers = async (gid: string): Promise<Item[]> => (await queryAll({ KeyConditionExpression: 'PK = :pk AND SK < :g',
  ExpressionAttributeValues: { ':pk': MARKERS, ':g': 'G' }, ConsistentRead: true })).filter((m) => String(m.g) === gid);

/**
 * Seals a group once its writer has written every event of it (each left its marker, occurrences of new series too)
 * and applies it: the writer's own finish.
 */
export async function finishGroup(gid: string, target: (record: Item | null) => IndexState): Promise<boolean> {
  const members = await standingMembers(gid);
  await sealGroup(gid, members.map((m) => Number(m.id)));
  if (members.length === 0) {
    await transact([{ Delete: { TableName: table(), Key: groupKey(gid) } }]);
    return true;
  }
  return finishIndex(Number(members[0]!.id), target);
}

/**
 * Finishes the index work of writes whose requests ended first: up to `limit` markers older than `olderThanMs` (a
 * request still running finishes its own). Run by event writes, the daily job and the local server.
 */
export async function repairWordIndex(target: (record: Item | null) => IndexState, limit = 2, olderThanMs = 60_000): Promise<number> {
  const found = (await db().send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'PK = :pk AND SK < :g',
    ExpressionAttributeValues: { ':pk': MARKERS, ':g': 'G' }, Limit: limit * 5 }))).Items ?? [];
  const due = found.filter((m) => Date.parse(String(m.at)) < Date.now() - olderThanMs).slice(0, limit);
  for (const m of due) await finishIndex(Number(m.id), target);
  return due.length;
}
