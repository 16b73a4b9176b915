/**
 * Moving a venue moves its events in the geo index (lib/store/README.md "Geolocation"), exactly once, through the
 * marker machinery of the search index (lib/store/words.ts): the transaction that changes a venue's cell also puts
 * its marker `GSYNC`/`<id>` (with the venue's version); after the commit the same request rewrites each event linked
 * to it (a consistent query of its relationship partition) whose stored cell differs from the venue's, each in its
 * own transaction conditioned on the event's version, with its geo entries and count items, as unlinking does; then
 * deletes the marker if no later move replaced it. A request that dies in between leaves the marker, and the next
 * venue write, the horizon job or the local server finishes the work (repairRelocations). Every step is idempotent.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { eventLinkItems } from '../events/series-counts.js';
import { isEvent, type EventItem } from '../events/record.js';
import { db, table } from '../store/client.js';
import { pad, postKey, relPartition } from '../store/keys.js';
import { rewriteRecord, transact } from '../store/kit.js';
import { getItem, getPost, queryAll } from '../store/records.js';
import { ReadSet } from '../store/reads.js';
import { retryConflicts } from '../store/retry.js';
import { timeLeft } from '../store/scope.js';
import type { Key, TransactItem } from '../store/types.js';
import { logger } from '../observability/logger.js';

const MARKERS = 'GSYNC';
const markerKey = (venueId: number): Key => ({ PK: MARKERS, SK: pad(venueId) });
/** A marker is due for repair once the request that put it has had this long to finish its work. */
const GRACE_MS = 60_000;
/** Time kept for one event's move (a consistent read and a transaction, with margin). */
const STEP_MS = 500;

/** The marker a venue's write puts in its transaction when the write changes the venue's cell (else nothing). */
export function relocationItems(prev: { gh?: string } | null, next: { id: number; v: number; gh?: string }): TransactItem[] {
  if (!prev || prev.gh === next.gh) return [];
  return [{ Put: { TableName: table(), Item: { ...markerKey(next.id), v: next.v, at: new Date().toISOString() } } }];
}

/**
 * Brings every event of the venue to the venue's current cell, then deletes its marker unless a later move (a
 * higher version) replaced it. Returns how many events moved; throws when the request runs out of time first (the
 * marker stays for a repair).
 */
export async function relocateEvents(venueId: number): Promise<number> {
  const venue = await getItem(postKey(venueId), true);
  const version = typeof venue?.v === 'number' ? venue.v : Number.MAX_SAFE_INTEGER;
  // Consistent: an event whose link committed before the venue's move is seen; one linking later is conditioned on
  // the venue's cell (lib/store/links.ts) and so plans with the new one.
  const linked = await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': relPartition('venue', venueId) },
    ProjectionExpression: 'id', ConsistentRead: true });
  let moved = 0;
  for (const { id } of linked) {
    if (timeLeft() < STEP_MS) throw new Error(`out of time moving the events of venue ${venueId}`);
    if (await moveEvent(Number(id), venueId)) moved++;
  }
  await transact([{ Delete: { TableName: table(), Key: markerKey(venueId), ConditionExpression: 'attribute_not_exists(v) OR v <= :v',
    ExpressionAttributeValues: { ':v': version } } }]);
  return moved;
}

/** One event to its venue's current cell (read consistently, with the event): whether it moved. */
function moveEvent(id: number, venueId: number): Promise<boolean> {
  return retryConflicts(async () => {
    const [item, venue] = await Promise.all([getPost(id, true), getItem(postKey(venueId), true)]);
    if (!isEvent(item) || item.venue !== venueId || venue?.kind !== 'venue') return false;
    const cell = typeof venue.gh === 'string' ? venue.gh : undefined;
    if (item.gh === cell) return false;
    const next: EventItem = { ...item, v: item.v + 1 };
    if (cell === undefined) delete next.gh;
    else next.gh = cell;
    await rewriteRecord('event', item, next, await eventLinkItems(item, next, new ReadSet(true)));
    return true;
  });
}

/**
 * Finishes the moves of requests that ended first: at most `limit` markers older than a minute (a minute lets the
 * write that put one finish its own work). Run after every venue write, by the horizon job and by the local server.
 */
export async function repairRelocations(limit = 2, now = Date.now()): Promise<number> {
  const markers = (await db().send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': MARKERS }, Limit: limit * 5 }))).Items ?? [];
  const due = markers.filter((m) => Date.parse(String(m.at)) < now - GRACE_MS).slice(0, limit);
  let done = 0;
  for (const m of due) {
    try {
      await relocateEvents(Number(m.SK));
      done++;
    } catch (e) {
      logger.warn('moving the events of a venue did not finish; a later run finishes it', { venue: Number(m.SK), error: e as Error });
    }
  }
  return done;
}
