/**
 * Removing a venue, organizer or term from every event that links to it (trashing or deleting the record,
 * reference §10.5). Each event is rewritten in its own conditional transaction together with its
 * relationship items and counters; the whole operation is idempotent, so a retry after a failure finishes it.
 */
import { nowUtcWall } from '../time/format.js';
import { queryLinkedEvents, type LinkKind, type LinkFacts } from '../store/links.js';
import { getPost } from '../store/records.js';
import { rewriteRecord } from '../store/kit.js';
import { ReadSet } from '../store/reads.js';
import { retryConflicts } from '../store/retry.js';
import { indexKeys, isEvent, type EventItem } from './record.js';
import { eventLinkItems } from './series-counts.js';

function without(item: EventItem, kind: LinkKind, id: number): EventItem {
  const next: EventItem = { ...item, v: item.v + 1, modifiedUtc: nowUtcWall() };
  if (kind === 'venue' && next.venue === id) {
    delete next.venue;
    delete next.gh;
  }
  if (kind === 'organizer') next.organizers = next.organizers.filter((o) => o !== id);
  if (kind === 'category') next.categories = next.categories.filter((c) => c !== id);
  if (kind === 'tag') next.tags = next.tags.filter((t) => t !== id);
  indexKeys(next);
  return next;
}

export async function unlinkEverywhere(kind: LinkKind, id: number): Promise<number> {
  const linked = await queryLinkedEvents(kind, [id]);
  let changed = 0;
  for (const { id: eventId } of linked) {
    await retryConflicts(async () => {
      const item = await getPost(eventId, true);
      if (!isEvent(item)) return;
      const next = without(item, kind, id);
      // Consistent: the record being unlinked has just been trashed or emptied, and its counter crossings are counted
      // on what is read here.
      await rewriteRecord('event', item, next, await eventLinkItems(item, next, new ReadSet(true)));
      changed++;
    });
  }
  return changed;
}

export type { LinkFacts };
