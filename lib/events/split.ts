/**
 * `?scope=following` on an occurrence (contract §13): the series is cut there. The old series' rule ends before that
 * occurrence; a new series (new id, its own slug) continues the rule from it with the write's change applied, and takes
 * over that occurrence (which keeps its id as the new series' first) and every later one, with their own fields.
 */
import type { RequestContext } from '../http/context.js';
import { ApiError, invalidParam } from '../http/errors.js';
import { recordJson } from '../http/etag.js';
import type { HttpResult } from '../http/response.js';
import type { EventUpdateParams } from '../routes/events.js';
import { eventsMetaUpdate } from '../store/events.js';
import { IdPool } from '../store/ids.js';
import { postKey } from '../store/keys.js';
import { createItems, commit, rewriteItem, rewriteItems } from '../store/kit.js';
import { ReadSet } from '../store/reads.js';
import { getPost } from '../store/records.js';
import { slugify } from '../text/slug.js';
import { withSlug } from '../store/kit.js';
import { afterCommit } from '../store/retry.js';
import { markBusyMany } from '../store/series.js';
import { applyEventWrite } from './item.js';
import { isEvent, isSeries, type EventItem } from './record.js';
import { splitLines } from './recurrence.js';
import { finishSeries, hold, holding, ownFields, storedOccurrences } from './series.js';
import { serializeEvent } from './serialize.js';
import { planSeriesWords } from './series-words.js';
import { copyTickets, seriesTickets } from '../tickets/split.js';

export async function splitSeries(ctx: RequestContext<EventUpdateParams>, occurrence: EventItem): Promise<HttpResult> {
  const old = await getPost(occurrence.series!, true);
  if (!isEvent(old) || !isSeries(old)) throw new ApiError(404, 'rest-event-not-found', `The series of event ${occurrence.id} does not exist.`);
  if (occurrence.orig! <= old.start) {
    throw invalidParam('scope', 'scope=following on the first occurrence would leave nothing before it: write to the series instead');
  }
  const timing = { start: old.start, tz: old.tz, allDay: old.allDay };
  const lines = splitLines(old.rec!, timing, occurrence.orig!);
  const ids = new IdPool();
  const reads = new ReadSet(true);
  const [id] = await ids.take('post', 1);
  // The new series is the old one from this occurrence on, as if it had been created so, then changed by this write.
  const template: EventItem = { ...old, ...postKey(id!), id: id!, v: 0, start: occurrence.start, end: occurrence.end, startUtc: occurrence.startUtc,
    endUtc: occurrence.endUtc, rec: lines.after.length ? lines.after : [`RDATE:${occurrence.orig!.replace(/[-:]/g, '').replace(' ', 'T')}`] };
  delete template.busy;
  delete template.gone;
  delete template.ws;
  delete template.wu;
  const written = await applyEventWrite(ctx, template, { reads, ids, spread: 1 });
  const base = written.slugBase ?? slugify(old.slug.replace(/-\d+$/, '')) ?? 'event';
  const created = withSlug('event', written.item, await reads.freeSlug('event', base, id!, 1));
  const ended: EventItem = { ...old, v: old.v + 1, rec: lines.before, modifiedUtc: created.modifiedUtc };
  const h1 = hold(old.id);
  const h2 = hold(id!);
  const next = holding(created, h2);
  const words = await planSeriesWords(id!, null, next);
  const extras = [...eventsMetaUpdate(next.startUtc, next.endUtc), ...await written.links.transactItems(null, next), ...words.items];
  // The occurrence written to takes the change as the new series has it: the fields sent are no longer its own.
  const sent = ownFields([], ctx.params, ctx.lang);
  const own = (occurrence.own ?? []).filter((f) => !sent.includes(f));
  // The new series is the old one from here on, its tickets included (lib/tickets/split.ts).
  const tickets = await seriesTickets(old.id);
  const copies = copyTickets(tickets, await ids.take('ticket', tickets.length), next, created.modifiedUtc);
  const unowned = rewriteItem(postKey(occurrence.id), occurrence, { ...occurrence, v: occurrence.v + 1, own: own.length ? own : undefined }, occurrence.v);
  await commit([...createItems('event', next), ...rewriteItems('event', old, holding(ended, h1)),
    markBusyMany([{ id: old.id, value: h1.value }, { id: id!, value: h2.value }]), unowned, ...extras, ...copies],
    { ownFirst: true });
  await words.after();
  const later = async () => (await storedOccurrences(old.id)).filter((o) => o.orig! >= occurrence.orig!);
  await afterCommit('moving occurrences to the new series', async () => {
    await finishSeries(id!, h2, new IdPool(), later);
    await finishSeries(old.id, h1);
  });
  return recordJson(201, serializeEvent(next, ctx, written.links.embeds(null, next, ctx)), next.v, { Location: `${ctx.apiUrl}/events/${id}` });
}
