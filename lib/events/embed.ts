/**
 * Linked records embedded in events: the venue object, the organizer array and both term arrays
 * (reference §4.1, §4.4(a)). One BatchGetItem reads every linked record of a page of events.
 */
import type { RequestContext } from '../http/context.js';
import { serializeLinked } from '../linked/serialize.js';
import { postKey, termKey } from '../store/keys.js';
import { batchGet } from '../store/records.js';
import { serializeEventTerm } from '../terms/serialize.js';
import type { EventItem } from './record.js';
import { noEmbeds, type Embedded } from './serialize.js';

export async function loadEmbeds(items: EventItem[], ctx: RequestContext, opts: { jsonLd?: boolean } = {}): Promise<Embedded> {
  const posts = new Set<number>();
  const terms = new Set<number>();
  for (const e of items) {
    if (e.venue !== undefined) posts.add(e.venue);
    e.organizers.forEach((o) => posts.add(o));
    e.categories.forEach((c) => terms.add(c));
    e.tags.forEach((t) => terms.add(t));
  }
  const embedded = noEmbeds();
  if (posts.size + terms.size === 0) return embedded;
  const found = await batchGet([...[...posts].map(postKey), ...[...terms].map(termKey)]);
  for (const item of found) {
    const id = item.id as number;
    if (item.kind === 'venue') embedded.venues.set(id, serializeLinked('venue', item, ctx, { jsonLd: opts.jsonLd }));
    else if (item.kind === 'organizer') embedded.organizers.set(id, serializeLinked('organizer', item, ctx, { jsonLd: opts.jsonLd }));
    else if (item.taxonomy) embedded.terms.set(id, serializeEventTerm(item, ctx));
  }
  return embedded;
}
