/**
 * Linked records embedded in events (venue object, organizer array, category and tag arrays).
 * Venues, organizers and terms cannot be created yet (their routes answer 501 until the linked-records
 * issue), and links are validated to exist, so no event can link to one: every map here stays empty until
 * that issue adds one batched read for all of a page's linked records.
 */
import type { RequestContext } from '../http/context.js';
import type { EventItem } from './item.js';
import { noEmbeds, type Embedded } from './serialize.js';

export async function loadEmbeds(_items: EventItem[], _ctx: RequestContext, _opts: { jsonLd?: boolean } = {}): Promise<Embedded> {
  return noEmbeds();
}
