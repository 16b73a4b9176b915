/**
 * Moving a venue moves its events in the geo index (lib/store/README.md "Geolocation"): after the venue's own
 * transaction, each event linked to it (its relationship partition) whose stored geohash differs from the venue's is
 * rewritten in its own conditional transaction with its geo entries and count items, as unlinking does. Idempotent:
 * a retry, or the next move, finishes an interrupted run.
 */
import { eventLinkItems } from '../events/series-counts.js';
import { isEvent, type EventItem } from '../events/record.js';
import { postKey } from '../store/keys.js';
import { queryLinkedEvents } from '../store/links.js';
import { rewriteRecord } from '../store/kit.js';
import { getItem, getPost } from '../store/records.js';
import { ReadSet } from '../store/reads.js';
import { retryConflicts } from '../store/retry.js';

export async function relocateEvents(venueId: number): Promise<number> {
  const linked = await queryLinkedEvents('venue', [venueId]);
  let moved = 0;
  for (const { id } of linked) {
    await retryConflicts(async () => {
      const [item, venue] = await Promise.all([getPost(id, true), getItem(postKey(venueId), true)]);
      if (!isEvent(item) || item.venue !== venueId || venue?.kind !== 'venue') return;
      const cell = typeof venue.gh === 'string' ? venue.gh : undefined;
      if (item.gh === cell) return;
      const next: EventItem = { ...item, v: item.v + 1 };
      if (cell === undefined) delete next.gh;
      else next.gh = cell;
      await rewriteRecord('event', item, next, await eventLinkItems(item, next, new ReadSet(true)));
      moved++;
    });
  }
  return moved;
}
