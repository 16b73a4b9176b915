/** The single-event operations: read, create, update, delete (reference §9.1, §10.1, §10.5; contract §4–§7). */
import { canEdit, canRead } from '../auth/access.js';
import { checkPassword } from '../auth/password.js';
import type { RequestContext } from '../http/context.js';
import type { RecordDeleteParams as EventDeleteParams, RecordReadParams as EventReadParams } from '../routes/common.js';
import type { EventUpdateParams, EventWriteParams } from '../routes/events.js';
import type { RecordRefParams } from '../routes/types.js';
import { ApiError, forbidden } from '../http/errors.js';
import { checkIfMatch, recordJson } from '../http/etag.js';
import { json, type HttpResult } from '../http/response.js';
import { IdPool } from '../store/ids.js';
import { ReadSet } from '../store/reads.js';
import { createRecord, deleteRecord, rewriteRecord, trashed, trashTransition, withSlug } from '../store/kit.js';
import { getPost } from '../store/records.js';
import type { TransactItem } from '../store/types.js';
import { retryConflicts } from '../store/retry.js';
import { linkTransactItems, linkTransactItemsUncounted } from '../store/links.js';
import { eventsMetaStored, eventsMetaUpdate } from '../store/events.js';
import { findBySlug } from '../store/slugs.js';
import { applyEventWrite, eventFacts, isEvent, type EventItem } from './item.js';
import { eventJsonLd, serializeEvent } from './serialize.js';
import { loadEmbeds } from './embed.js';
import { planWords } from './words.js';
import { nowUtcWall } from '../time/format.js';

const notFound = (ref: string): ApiError =>
  new ApiError(404, 'rest-event-not-found', /^\d+$/.test(ref) ? `Event with ID ${ref} does not exist.` : `No event has the slug "${ref}".`);

async function load(ctx: RequestContext<RecordRefParams>, consistent = false): Promise<EventItem> {
  const ref = ctx.params;
  const item = ref.id !== undefined ? await getPost(ref.id, consistent) : await findBySlug('event', ref.slug, consistent);
  if (!isEvent(item)) throw notFound(ref.id !== undefined ? String(ctx.raw.id) : ref.slug);
  return item;
}

export async function getEvent(ctx: RequestContext<EventReadParams>): Promise<HttpResult> {
  const item = await load(ctx);
  if (item.status === 'trash') throw new ApiError(403, 'event-no-longer-available', 'This event is no longer available');
  const userId = await ctx.userId();
  if (!canRead(ctx.caller, userId, item)) throw new ApiError(403, 'event-not-accessible', 'The requested event is not accessible');
  if (item.pw) {
    const byEdit = ctx.params.context === 'edit' && canEdit(ctx.caller, userId, item);
    const byPassword = ctx.params.password !== undefined && checkPassword(ctx.params.password, item.pw);
    if (!byEdit && !byPassword) {
      throw new ApiError(403, 'event-password-protected', 'The requested event is not accessible without a password');
    }
  }
  const body = serializeEvent(item, ctx, await loadEmbeds([item], ctx, { jsonLd: true }));
  body.json_ld = eventJsonLd(item, ctx, body);
  return recordJson(200, body, item.v);
}

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
  const ids = new IdPool();
  return retryConflicts(async (attempt) => {
    ids.restart();
    const plan = { reads: new ReadSet(attempt > 0), ids, attempt };
    const { item, slugBase, links } = await applyEventWrite(ctx, null, plan);
    const stored = withSlug('event', item, await plan.reads.freeSlug('event', slugBase!, item.id, attempt));
    const extras = [...eventsMetaUpdate(stored.startUtc, stored.endUtc), ...await links.transactItems(null, stored)];
    const words = await planWords(null, stored, roomLeft(extras));
    await words.commit(() => createRecord('event', words.record(stored), [...extras, ...words.items]));
    eventsMetaStored(stored.startUtc, stored.endUtc);
    const body = serializeEvent(stored, ctx, links.embeds(null, stored, ctx));
    return recordJson(201, body, stored.v, { Location: `${ctx.apiUrl}/events/${stored.id}` });
  });
}

/** Loads the record for a write: 404 when missing, 403 when the caller may not change it, 412 on If-Match. */
async function loadForWrite(ctx: RequestContext<RecordRefParams>): Promise<EventItem> {
  const item = await load(ctx, true);
  if (!canEdit(ctx.caller, await ctx.userId(), item)) throw forbidden(true);
  checkIfMatch(ctx.headers['if-match'], item.v);
  return item;
}

/**
 * Actions a transaction can still take besides `extras` and the record's own (record, old and new slug guard); counter
 * updates of one item folded into one make it at most this many more.
 */
const roomLeft = (extras: TransactItem[]): number => 100 - extras.length - 3;

const ifMatch = (ctx: RequestContext) => ({ ifMatch: ctx.headers['if-match'] !== undefined });

export async function updateEvent(ctx: RequestContext<EventUpdateParams>): Promise<HttpResult> {
  const ids = new IdPool();
  return retryConflicts(async (attempt) => {
    const existing = await loadForWrite(ctx);
    ids.restart();
    const plan = { reads: new ReadSet(attempt > 0), ids, attempt };
    const written = await applyEventWrite(ctx, existing, plan);
    const moved = trashTransition(existing, written.item, written.slugBase);
    const item = moved?.record ?? written.item;
    const base = moved?.slugBase ?? written.slugBase;
    const slugged = base === undefined ? item : withSlug('event', item, await plan.reads.freeSlug('event', base, item.id, attempt));
    const extras = [...eventsMetaUpdate(item.startUtc, item.endUtc), ...await written.links.transactItems(existing, slugged)];
    const words = await planWords(existing, slugged, roomLeft(extras));
    const stored = words.record(slugged);
    await words.commit(() => rewriteRecord('event', existing, stored, [...extras, ...words.items]));
    eventsMetaStored(item.startUtc, item.endUtc);
    const links = written.links;
    return recordJson(200, serializeEvent(stored, ctx, links.embeds(existing, stored, ctx)), stored.v);
  }, ifMatch(ctx));
}

/**
 * DELETE: to the trash (200 + the trashed record; again → 410) or, for editors with force=true, permanently (200 +
 * the record as it was). The records the response embeds are read before the write: once it has committed, nothing
 * can turn the answer into an error (contract §3).
 */
export async function deleteEvent(ctx: RequestContext<EventDeleteParams>): Promise<HttpResult> {
  const force = ctx.params.force === true;
  if (force && ctx.caller?.role !== 'editor') throw forbidden(true);
  return retryConflicts(async (attempt) => {
    const existing = await loadForWrite(ctx);
    if (!force && existing.status === 'trash') throw new ApiError(410, 'event-is-in-trash', 'The event is already trashed');
    const embeds = await loadEmbeds([existing], ctx);
    const reads = new ReadSet(attempt > 0);
    if (force) {
      const extras = await linkTransactItems(eventFacts(existing), null, reads);
      const words = await planWords(existing, null, roomLeft(extras));
      await words.commit(() => deleteRecord('event', existing, [...extras, ...words.items]));
      return json(200, serializeEvent(existing, ctx, embeds)); // the record as it was
    }
    const moved = await trashed('event', existing, nowUtcWall(), reads, attempt);
    const extras = await linkTransactItems(eventFacts(existing), eventFacts(moved), reads);
    const words = await planWords(existing, moved, roomLeft(extras));
    const stored = words.record(moved);
    await words.commit(() => rewriteRecord('event', existing, stored, [...extras, ...words.items]));
    return recordJson(200, serializeEvent(stored, ctx, embeds), stored.v);
  }, ifMatch(ctx));
}
