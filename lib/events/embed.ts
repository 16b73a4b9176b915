/**
 * Linked records embedded in events: the venue object, the organizer array and both term arrays
 * (reference §4.1, §4.4(a)). One BatchGetItem reads every linked record of a page of events; a write builds
 * them from the items its plan read or created (lib/events/links.ts).
 */
import type { RequestContext } from '../http/context.js';
import { serializeLinked } from '../linked/serialize.js';
import { postKey, termKey } from '../store/keys.js';
import { batchGet, type Item } from '../store/records.js';
import { isTerm } from '../terms/item.js';
import { serializeEventTerm } from '../terms/serialize.js';
import type { EventItem } from './record.js';
import { noEmbeds, type Embedded } from './serialize.js';

export interface EmbedOptions {
  jsonLd?: boolean;
}

/** The keys of every record the events link to. */
export function embedKeys(items: EventItem[]): { PK: string; SK: string }[] {
  const posts = new Set<number>();
  const terms = new Set<number>();
  for (const e of items) {
    if (e.venue !== undefined) posts.add(e.venue);
    e.organizers.forEach((o) => posts.add(o));
    e.categories.forEach((c) => terms.add(c));
    e.tags.forEach((t) => terms.add(t));
  }
  return [...[...posts].map(postKey), ...[...terms].map(termKey)];
}

/**
 * Serialises linked records (venues, organizers, terms; anything else is ignored) for embedding. A trashed venue or
 * organizer is left out: trashing unlinks it from its events (contract §7), and the unlinking follows the trash's
 * commit one event at a time, so until it reaches an event that event still names the record; readers see the
 * event as it will be, never a trashed record embedded in it. Records of any other status are embedded as they
 * are (reference §11.2).
 */
export function embedsFrom(found: Item[], ctx: RequestContext, opts: EmbedOptions = {}): Embedded {
  const embedded = noEmbeds();
  for (const item of found) {
    const id = item.id as number;
    if ((item.kind === 'venue' || item.kind === 'organizer') && item.status === 'trash') continue;
    if (item.kind === 'venue') embedded.venues.set(id, serializeLinked('venue', item, ctx, { jsonLd: opts.jsonLd }));
    else if (item.kind === 'organizer') embedded.organizers.set(id, serializeLinked('organizer', item, ctx, { jsonLd: opts.jsonLd }));
    else if (isTerm(item)) embedded.terms.set(id, serializeEventTerm(item, ctx));
  }
  return embedded;
}

export async function loadEmbeds(items: EventItem[], ctx: RequestContext, opts: EmbedOptions = {}): Promise<Embedded> {
  const keys = embedKeys(items);
  if (keys.length === 0) return noEmbeds();
  return embedsFrom(await batchGet(keys), ctx, opts);
}
