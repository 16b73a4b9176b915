/**
 * The single-event writes: create, update, delete (reference §10.1, §10.5; contract §5–§7). The read is ./read.ts: a
 * Lambda function loads this module only for a write (functions/events.ts).
 */
import { canEdit } from '../auth/access.js';
import type { RequestContext } from '../http/context.js';
import type { RecordDeleteParams as EventDeleteParams } from '../routes/common.js';
import type { EventUpdateParams, EventWriteParams } from '../routes/events.js';
import type { RecordRefParams } from '../routes/types.js';
import { ApiError, forbidden, invalidParam } from '../http/errors.js';
import { checkIfMatch, recordJson } from '../http/etag.js';
import { json, type HttpResult } from '../http/response.js';
import { IdPool } from '../store/ids.js';
import { ReadSet } from '../store/reads.js';
import { commit, createRecord, deleteRecord, rewriteItem, rewriteRecord, trashed, trashTransition, withSlug } from '../store/kit.js';
import { getPost } from '../store/records.js';
import type { TransactItem } from '../store/types.js';
import { afterCommit, retryConflicts } from '../store/retry.js';
import { createdBefore, onceItem, onceRef } from '../store/create-once.js';
import { CreatedBefore } from '../store/errors.js';
import { linkTransactItems, linkTransactItemsUncounted } from '../store/links.js';
import { eventsMetaStored, eventsMetaUpdate } from '../store/events.js';
import { applyEventWrite, eventFacts, isEvent, type EventItem } from './item.js';
import { isOccurrence, isSeries, ticketProviders } from './record.js';
import { eventLinkItems } from './series-counts.js';
import { finishSeries, hold, holding, occurrenceKey, ownFields, storedOccurrences, type Hold } from './series.js';
import { splitSeries } from './split.js';
import { planSeriesWords } from './series-words.js';
import { table } from '../store/client.js';
import { postKey } from '../store/keys.js';
import type { Embedded } from './serialize.js';
import { serializeEvent } from './serialize.js';
import { loadEvent } from './read.js';
import { loadEmbeds } from './embed.js';
import { planWords } from './words.js';
import { relocateEvents } from '../geo/relocate.js';
import { nowUtcWall } from '../time/format.js';
import { changeLogActions, changesIn, noted } from '../store/changes.js';
import { hasTicketsOrAttendees } from '../tickets/erase.js';

/**
 * What a new event writes besides its record, its slug guard and inline records: the events meta item and its
 * relationship items and counters, without reading the linked records, so without non-empty counts (which a bulk
 * writer rebuilds afterwards: lib/store/nonempty-rebuild.ts). The benchmark seeder builds its batches from this.
 */
export const eventCreateExtras = (item: EventItem): TransactItem[] =>
  [...eventsMetaUpdate(item.startUtc, item.endUtc), ...linkTransactItemsUncounted(null, eventFacts(item))];

/**
 * POST /events: one planning read (lib/events/links.ts), one block of ids, one transaction; the response is
 * built from what the plan read and wrote. A transaction that fails on anything but the event's own Put (a slug
 * or a name taken meanwhile, a linked record changed or deleted) plans again on consistent reads, so a deleted
 * category then answers the 400 the contract gives for an unknown one.
 */
export async function createEvent(ctx: RequestContext<EventWriteParams>): Promise<HttpResult> {
  const once = onceRef(ctx.caller);
  try {
    return await createOnce(ctx, once);
  } catch (e) {
    if (!(e instanceof CreatedBefore) || once === undefined) throw e;
    // Only an import's own in-process call creates once (lib/imports/write.ts reads the event this names).
    throw new ApiError(409, 'created_before', 'This create was made before.', { id: await createdBefore(once) });
  }
}

async function createOnce(ctx: RequestContext<EventWriteParams>, once: string | undefined): Promise<HttpResult> {
  const ids = new IdPool();
  return retryConflicts(async (attempt, contended) => {
    ids.restart();
    const plan = { reads: new ReadSet(attempt > 0), ids, spread: contended };
    const { item, slugBase, links } = await applyEventWrite(ctx, null, plan);
    const stored = withSlug('event', item, await plan.reads.freeSlug('event', slugBase!, item.id, contended));
    const extras = [...eventsMetaUpdate(stored.startUtc, stored.endUtc), ...await links.transactItems(null, stored)];
    if (once !== undefined) extras.push(onceItem(once, stored.id));
    const h = isSeries(stored) ? hold(stored.id) : null;
    const record = h ? holding(stored, h) : stored;
    if (h) extras.push(h.item);
    const series = await planSeriesWords(stored.id, null, record);
    extras.push(...series.items);
    const words = await planWords(null, record, roomLeft(extras));
    await words.commit(() => createRecord('event', words.record(record), [...extras, ...words.items]));
    await series.after();
    eventsMetaStored(stored.startUtc, stored.endUtc);
    if (h) await afterCommit('writing the occurrences of a new series', () => finishSeries(stored.id, h));
    await moveVenueEvents(links.movedVenues);
    const body = serializeEvent(stored, ctx, links.embeds(null, stored, ctx));
    return recordJson(201, body, stored.v, { Location: `${ctx.apiUrl}/events/${stored.id}` });
  });
}

/** After an event write that changed an inline venue's coordinates: that venue's other events move (lib/geo/relocate.ts). */
async function moveVenueEvents(venues: number[]): Promise<void> {
  for (const id of venues) await afterCommit(`moving the events of venue ${id}`, () => relocateEvents(id));
}

/** Loads the record for a write: 404 when missing, 403 when the caller may not change it, 412 on If-Match. */
async function loadForWrite(ctx: RequestContext<RecordRefParams>): Promise<EventItem> {
  const item = await loadEvent(ctx, true);
  if (!canEdit(ctx.caller, await ctx.userId(), item)) throw forbidden(true);
  checkIfMatch(ctx.headers['if-match'], item.v);
  return item;
}

/**
 * Actions a transaction can still take besides `extras`, the record's own (record, old and new slug guard) and the
 * change log's part (lib/store/changes.ts); counter updates of one item folded into one make it at most this many more.
 */
const roomLeft = (extras: TransactItem[]): number => 100 - extras.length - 3 - changeLogActions(changesIn(extras).length + 1);

const ifMatch = (ctx: RequestContext) => ({ ifMatch: ctx.headers['if-match'] !== undefined });

export async function updateEvent(ctx: RequestContext<EventUpdateParams>): Promise<HttpResult> {
  const ids = new IdPool();
  let h: Hold | null = null;
  const result = await retryConflicts<{ split: HttpResult } | { response: HttpResult; id: number; movedVenues: number[] }>(async (attempt, contended) => {
    const existing = await loadForWrite(ctx);
    checkSeriesParams(ctx, existing);
    if (ctx.params.scope === 'following') return { split: await splitSeries(ctx, existing) };
    ids.restart();
    const plan = { reads: new ReadSet(attempt > 0), ids, spread: contended };
    const written = await applyEventWrite(ctx, existing, plan);
    if (isOccurrence(existing)) written.item.own = ownFields(existing.own, ctx.params, ctx.lang);
    const moved = isOccurrence(existing) ? null : trashTransition(existing, written.item, written.slugBase);
    const item = moved?.record ?? written.item;
    const base = moved?.slugBase ?? written.slugBase;
    const slugged = base === undefined ? item : withSlug('event', item, await plan.reads.freeSlug('event', base, item.id, contended));
    const extras = [...eventsMetaUpdate(item.startUtc, item.endUtc), ...await written.links.transactItems(existing, slugged)];
    h = isSeries(existing) || isSeries(slugged) ? hold(slugged.id) : null;
    const held = h ? holding(slugged, h) : slugged;
    if (h) extras.push(h.item);
    const series = await planSeriesWords(existing.id, existing, held);
    extras.push(...series.items);
    const words = await planWords(existing, held, roomLeft(extras));
    const stored = words.record(held);
    await words.commit(() => rewriteRecord('event', existing, stored, [...extras, ...words.items]));
    await series.after();
    eventsMetaStored(item.startUtc, item.endUtc);
    const links = written.links;
    return { response: recordJson(200, serializeEvent(stored, ctx, links.embeds(existing, stored, ctx)), stored.v), id: stored.id,
      movedVenues: links.movedVenues };
  }, ifMatch(ctx));
  if ('split' in result) return result.split;
  await moveVenueEvents(result.movedVenues);
  const held = h as Hold | null;
  if (held) await afterCommit('regenerating the occurrences of a series', () => finishSeries(result.id, held));
  return result.response;
}

/**
 * DELETE: to the trash (200 + the trashed record; again → 410) or, for editors with force=true, permanently (200 +
 * the record as it was). The records the response embeds are read before the write: once it has committed, nothing
 * can turn the answer into an error (contract §3).
 */
export async function deleteEvent(ctx: RequestContext<EventDeleteParams>): Promise<HttpResult> {
  const force = ctx.params.force === true;
  if (force && ctx.caller?.role !== 'editor') throw forbidden(true);
  return retryConflicts(async (attempt, contended) => {
    const existing = await loadForWrite(ctx);
    if (!force && existing.status === 'trash') throw new ApiError(410, 'event-is-in-trash', 'The event is already trashed');
    const embeds = await loadEmbeds([existing], ctx);
    const reads = new ReadSet(attempt > 0);
    // A permanent delete of an event with tickets or attendees holds it until they are erased too (lib/tickets/erase.ts).
    const ticketed = ticketProviders(existing).length > 0;
    const h = isSeries(existing) || (force && ticketed && await hasTicketsOrAttendees(existing.id)) ? hold(existing.id) : null;
    const response = isOccurrence(existing) ? await deleteOccurrence(ctx, existing, force, embeds, reads, h)
      : await deleteOrTrash(ctx, existing, force, embeds, reads, contended, h);
    if (h) await afterCommit('removing the occurrences, tickets and attendees of a deleted event', () => finishSeries(existing.id, h));
    return response;
  }, ifMatch(ctx));
}

async function deleteOrTrash(ctx: RequestContext<EventDeleteParams>, existing: EventItem, force: boolean, embeds: Embedded, reads: ReadSet,
  spread: number, h: Hold | null): Promise<HttpResult> {
  const busy = h ? [h.item] : [];
  if (force) {
    const series = await planSeriesWords(existing.id, existing, null);
    const extras = [...await linkTransactItems(eventFacts(existing), null, reads), ...busy, ...series.items];
    const words = await planWords(existing, null, roomLeft(extras));
    await words.commit(() => deleteRecord('event', existing, [...extras, ...words.items]));
    await series.after();
    return json(200, serializeEvent(existing, ctx, embeds)); // the record as it was
  }
  const trashedRecord = await trashed('event', existing, nowUtcWall(), reads, spread);
  const moved = h ? holding(trashedRecord, h) : trashedRecord;
  const series = await planSeriesWords(existing.id, existing, moved);
  const extras = [...await linkTransactItems(eventFacts(existing), eventFacts(moved), reads), ...busy, ...series.items];
  const words = await planWords(existing, moved, roomLeft(extras));
  const stored = words.record(moved);
  await words.commit(() => rewriteRecord('event', existing, stored, [...extras, ...words.items]));
  await series.after();
  return recordJson(200, serializeEvent(stored, ctx, embeds), stored.v);
}

/**
 * DELETE of one occurrence: to the trash as its own status (the series' later changes leave it there), or for good,
 * which also notes its original date on the series so that no regeneration brings it back (contract §13).
 */
async function deleteOccurrence(ctx: RequestContext<EventDeleteParams>, existing: EventItem, force: boolean, embeds: Embedded,
  reads: ReadSet, h: Hold | null): Promise<HttpResult> {
  if (!force) {
    const moved: EventItem = { ...existing, v: existing.v + 1, status: 'trash', statusBeforeTrash: existing.status, modifiedUtc: nowUtcWall(),
      own: ownFields(existing.own, { status: 'trash' }, ctx.lang) };
    const extras = await eventLinkItems(existing, moved, reads);
    const words = await planWords(existing, moved, roomLeft(extras));
    const stored = words.record(moved);
    await words.commit(() => rewriteRecord('event', existing, stored, [...extras, ...words.items]));
    return recordJson(200, serializeEvent(stored, ctx, embeds), stored.v);
  }
  const series = await getPost(existing.series!, true);
  const siblings = await storedOccurrences(existing.series!);
  const gone = isEvent(series) ? [rewriteItem(postKey(series.id), series, { ...series, v: series.v + 1,
    gone: [...new Set([...(series.gone ?? []), occurrenceKey(existing, siblings)])] }, series.v)] : [];
  const extras = [...await eventLinkItems(existing, null, reads, { seriesWritten: gone.length > 0 }), ...gone, ...(h ? [h.item] : [])];
  const words = await planWords(existing, null, roomLeft(extras));
  await words.commit(() => commit([noted({ Delete: { TableName: table(), Key: postKey(existing.id), ConditionExpression: '#v = :v',
    ExpressionAttributeNames: { '#v': 'v' }, ExpressionAttributeValues: { ':v': existing.v } } }, existing, null), ...extras, ...words.items],
  { ownFirst: true }));
  return json(200, serializeEvent(existing, ctx, embeds)); // the record as it was
}

/** `scope` is for occurrences, `recurrence` for anything but them (contract §13). */
function checkSeriesParams(ctx: RequestContext<EventUpdateParams>, existing: EventItem): void {
  if (ctx.params.scope !== undefined && !isOccurrence(existing)) {
    throw invalidParam('scope', 'scope applies to occurrences of a recurring series only');
  }
  if (isOccurrence(existing) && ctx.params.recurrence !== undefined) {
    throw invalidParam('recurrence', 'recurrence belongs to the series: write it to the series, or split with ?scope=following');
  }
  if (isOccurrence(existing) && ctx.params.slug !== undefined) {
    throw invalidParam('slug', 'an occurrence has its series\' slug: change the slug on the series');
  }
}
