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
import { pad, postKey } from '../store/keys.js';
import { mergeOneAttributeWrites, transact } from '../store/kit.js';
import { ItemTooLarge } from '../store/errors.js';
import { backoff } from '../store/retry.js';
import { batchGet, getItem, queryAll, type Item } from '../store/records.js';
import { timeLeft } from '../store/scope.js';
import type { Key, TransactItem } from '../store/types.js';
import { countAdd, indexChanges } from './changes.js';
import { postingValues, wordsOfPostings, type EventWords } from './terms.js';

/** What the index holds (or should hold) for an event: its words, or the entry standing for it when it is held whole. */
export interface IndexState {
  words: EventWords | null;
  unindexed: Item | null;
}

export const MARKERS = 'WIDX';
export const markerKey = (id: number): Key => ({ PK: MARKERS, SK: pad(id) });
export const groupKey = (gid: string): Key => ({ PK: MARKERS, SK: `G#${gid}` });
/** The tokens of one flight (an event's change at a version, or a group's): one per chunk that landed. */
export const tokenPartition = (flight: string): string => `WTOK#${flight}`;
/** Index items per chunk transaction (the rest of the 100 actions: its guard). */
export const CHUNK = 96;
/** A group's writer seals it within this long; after it, a finisher seals it with the members it finds. */
const GROUP_SEAL_MS = 60_000;

const keyOf = (item: Item): Key => ({ PK: String(item.PK), SK: String(item.SK) });
const keyText = (k: Key): string => `${k.PK}\u0000${k.SK}`;
export const itemKeyOf = (t: TransactItem): Key => (t.Update?.Key ?? t.Put?.Item ?? t.Delete?.Key ?? t.ConditionCheck?.Key) as Key;

/** Every item taking the index of event `id` from `before` to `after`. */
export function stateChanges(id: number, before: IndexState, after: IndexState): TransactItem[] {
  const items = indexChanges(id, before.words, after.words);
  const was = before.unindexed ? JSON.stringify(before.unindexed) : null;
  const now = after.unindexed ? JSON.stringify(after.unindexed) : null;
  if (was !== now) {
    if (before.unindexed && (!after.unindexed || keyOf(before.unindexed).SK !== keyOf(after.unindexed).SK)) {
      items.push({ Delete: { TableName: table(), Key: keyOf(before.unindexed) } });
    }
    if (after.unindexed) items.push({ Put: { TableName: table(), Item: after.unindexed } });
  }
  return items;
}

/** The rank of an index item in a change's order: postings first (only they can grow too large), then the rest, by key. */
const rank = (k: Key): number => (k.PK.startsWith('W1#') ? 0 : k.PK.startsWith('C#') ? 2 : 1);

/**
 * The changes of several events as one: the postings of one letter and day set and removed in one Update, the count
 * increments of one item summed into one `ADD`, in a stable order — so whoever computes it from the same states gets
 * the same chunks.
 */
export function foldChanges(items: TransactItem[]): TransactItem[] {
  const counts = new Map<string, { key: Key; deltas: Map<string, number> }>();
  const rest: TransactItem[] = [];
  for (const t of items) {
    const u = t.Update;
    if (u && String((u.Key as Key).PK).startsWith('C#')) {
      const key = u.Key as Key;
      const entry = counts.get(keyText(key)) ?? { key, deltas: new Map<string, number>() };
      counts.set(keyText(key), entry);
      for (const [placeholder, name] of Object.entries(u.ExpressionAttributeNames ?? {})) {
        entry.deltas.set(name, (entry.deltas.get(name) ?? 0) + Number(u.ExpressionAttributeValues![placeholder.replace('#', ':')]));
      }
    } else rest.push(t);
  }
  const merged = mergeOneAttributeWrites(rest) ?? rest;
  const folded = [...merged, ...[...counts.values()].flatMap(({ key, deltas }) => {
    const moved = new Map([...deltas].filter(([, d]) => d !== 0));
    return moved.size ? [countAdd(key, moved)] : [];
  })];
  return folded.sort((a, b) => {
    const ka = itemKeyOf(a);
    const kb = itemKeyOf(b);
    return rank(ka) - rank(kb) || (keyText(ka) < keyText(kb) ? -1 : keyText(ka) > keyText(kb) ? 1 : 0);
  });
}

/** The check, in an event's transaction, that no earlier index change of it is still being applied. */
export const noMarker = (id: number): TransactItem =>
  ({ ConditionCheck: { TableName: table(), Key: markerKey(id), ConditionExpression: 'attribute_not_exists(PK)' } });

/**
 * The marker an event's transaction puts when its index change goes after it: the index as it was, the version it is
 * brought to, and the group it is applied with (if any).
 */
export function markerPut(id: number, v: number, before: IndexState, group?: string): TransactItem {
  const b = before.words ? Object.fromEntries(postingValues(before.words)) : undefined;
  return { Put: { TableName: table(), ConditionExpression: 'attribute_not_exists(PK)',
    Item: { ...markerKey(id), id, v, at: new Date().toISOString(), ...(b ? { b } : {}),
      ...(before.unindexed ? { bx: JSON.stringify(before.unindexed) } : {}), ...(group ? { g: group } : {}) } } };
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

/** The index before the write a marker stands for. */
export function beforeOf(marker: Item): IndexState {
  const b = marker.b as Record<string, string> | undefined;
  return { words: b ? wordsOfPostings(new Map(Object.entries(b))) : null, unindexed: marker.bx ? JSON.parse(String(marker.bx)) as Item : null };
}

/** The chunks of a change, in its stable order. */
export function chunksOf(items: TransactItem[]): TransactItem[][] {
  const chunks: TransactItem[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) chunks.push(items.slice(i, i + CHUNK));
  return chunks;
}

/**
 * A change in flight: the markers it applies (with the records they bring the index to), its tokens' partition, and
 * whether its chunks may have started landing (a group not sealed yet has sent none).
 */
export interface Flight {
  name: string;
  markers: Item[];
  records: Map<number, Item | null>;
  sealed: boolean;
}

/** The chunks a flight applies (the same for whoever computes them from the same markers and records). */
export const flightChunks = (f: Flight, target: (record: Item | null) => IndexState): TransactItem[][] =>
  chunksOf(foldChanges(f.markers.flatMap((m) => stateChanges(Number(m.id), beforeOf(m), target(f.records.get(Number(m.id)) ?? null)))));

/** Whether a flight's guard is its marker's deletion (one event, one chunk) rather than tokens. */
export const singleGuard = (f: Flight, chunks: TransactItem[][]): boolean => f.name.startsWith('E') && chunks.length <= 1;

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
