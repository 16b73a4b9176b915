/**
 * Committing an event's index change (./README.md "Writes"). A change that fits in the event's own transaction goes
 * there, with a check that no earlier change of the event is still being applied. A larger one leaves a marker in that
 * transaction — the event's index as it was (its posting values) and the record version it is brought to — and is then
 * applied in chunks sent side by side, each exactly once: with a single chunk the marker's deletion is the chunk's
 * guard; with several, each chunk puts a token of its own and the marker goes once all have landed. Whoever meets the
 * marker later (the next write of the event, a search that has waited long enough, the sweeper) finishes the work from
 * the marker and the record, so a request that dies between chunks loses nothing and applies nothing twice.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from '../store/client.js';
import { pad, postKey } from '../store/keys.js';
import { transact } from '../store/kit.js';
import { ItemTooLarge } from '../store/errors.js';
import { backoff } from '../store/retry.js';
import { getItem, type Item } from '../store/records.js';
import { timeLeft } from '../store/scope.js';
import type { Key, TransactItem } from '../store/types.js';
import { indexChanges } from './changes.js';
import { postingValues, wordsOfPostings, type EventWords } from './terms.js';

/** What the index holds (or should hold) for an event: its words, or the entry standing for it when it is held whole. */
export interface IndexState {
  words: EventWords | null;
  unindexed: Item | null;
}

export const MARKERS = 'WIDX';
export const markerKey = (id: number): Key => ({ PK: MARKERS, SK: pad(id) });
export const tokenKey = (id: number, v: number, chunk: number): Key => ({ PK: `WTOK#${id}`, SK: `${v}#${chunk}` });
/** Index items per chunk transaction (the rest of the 100 actions: its guard). */
export const CHUNK = 96;

const keyOf = (item: Item): Key => ({ PK: String(item.PK), SK: String(item.SK) });

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

/** The check, in an event's transaction, that no earlier index change of it is still being applied. */
export const noMarker = (id: number): TransactItem =>
  ({ ConditionCheck: { TableName: table(), Key: markerKey(id), ConditionExpression: 'attribute_not_exists(PK)' } });

/** The marker an event's transaction puts when its index change goes after it: the index as it was, and the version it is brought to. */
export function markerPut(id: number, v: number, before: IndexState): TransactItem {
  const b = before.words ? Object.fromEntries(postingValues(before.words)) : undefined;
  return { Put: { TableName: table(), ConditionExpression: 'attribute_not_exists(PK)',
    Item: { ...markerKey(id), id, v, at: new Date().toISOString(), ...(b ? { b } : {}),
      ...(before.unindexed ? { bx: JSON.stringify(before.unindexed) } : {}) } } };
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

/**
 * Applies what the marker of event `id` stands for, if there is one: the change from the index it records to what the
 * record now asks (`target`), chunk by chunk, then removes the marker. Idempotent and safe to run by several requests at
 * once. False when the request ran out of time first (the marker stays for the next finisher).
 */
export async function finishIndex(id: number, target: (record: Item | null) => IndexState): Promise<boolean> {
  const marker = await getItem(markerKey(id), true);
  if (!marker) return true;
  const v = Number(marker.v);
  const release: TransactItem = { Delete: { TableName: table(), Key: markerKey(id), ConditionExpression: 'v = :v',
    ExpressionAttributeValues: { ':v': v } } };
  const expires = Math.floor(Date.now() / 1000) + DAY_SECONDS;
  const token = (k: number): TransactItem => ({ Put: { TableName: table(), Item: { ...tokenKey(id, v, k), expires },
    ConditionExpression: 'attribute_not_exists(PK)' } });
  let chunks: TransactItem[][];
  try {
    chunks = chunksOf(stateChanges(id, beforeOf(marker), target(await getItem(postKey(id), true))));
    if (chunks.length <= 1) return await sendChunk(chunks[0] ?? [], release);
    // The postings come first in a change, so the first chunk is where an item can grow too large: it lands before the others.
    if (!await sendChunk(chunks[0]!, token(0))) return false;
  } catch (e) {
    if (!(e instanceof TooLarge)) throw e;
    // Nothing of the change has landed: it is planned again with the event held whole.
    await holdWhole(id);
    return finishIndex(id, target);
  }
  const landed = await Promise.all(chunks.slice(1).map((chunk, k) => sendChunk(chunk, token(k + 1))));
  if (landed.includes(false)) return false;
  // A failed condition here means another finisher released it first.
  await transact([release]);
  return true;
}

/**
 * Finishes the index work of writes whose requests ended first: up to `limit` markers older than `olderThanMs` (a
 * request still running finishes its own). Run by event writes, the daily job and the local server.
 */
export async function repairWordIndex(target: (record: Item | null) => IndexState, limit = 2, olderThanMs = 60_000): Promise<number> {
  const found = (await db().send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': MARKERS }, Limit: limit * 5 }))).Items ?? [];
  const due = found.filter((m) => Date.parse(String(m.at)) < Date.now() - olderThanMs).slice(0, limit);
  for (const m of due) await finishIndex(Number(m.id), target);
  return due.length;
}
