/** The single-event operations: read, create, update, delete (reference §9.1, §10.1, §10.5; contract §4–§7). */
import { canEdit, canRead } from '../auth/access.js';
import { checkPassword } from '../auth/password.js';
import type { RequestContext } from '../http/context.js';
import { ApiError, forbidden } from '../http/errors.js';
import { checkIfMatch, etagOf } from '../http/etag.js';
import { json, type HttpResult } from '../http/response.js';
import { IdPool } from '../store/ids.js';
import { ReadSet } from '../store/reads.js';
import { getPost } from '../store/records.js';
import { createPlanned, deletePost, LinkConflict, replacePost, VersionConflict, withSlug, type TransactItem } from '../store/posts.js';
import { linkTransactItems } from '../store/links.js';
import { eventsMetaStored, eventsMetaUpdate } from '../store/events.js';
import { findBySlug } from '../store/slugs.js';
import { applyEventWrite, eventFacts, type EventItem } from './item.js';
import { eventJsonLd, serializeEvent } from './serialize.js';
import { loadEmbeds } from './embed.js';

const notFound = (ref: number | string): ApiError =>
  new ApiError(404, 'rest-event-not-found', typeof ref === 'number' ? `Event with ID ${ref} does not exist.`
    : `No event has the slug "${ref}".`);

async function load(ctx: RequestContext, consistent = false): Promise<EventItem> {
  const ref = ctx.params.id !== undefined ? (ctx.params.id as number) : (ctx.params.slug as string);
  const item = typeof ref === 'number' ? await getPost(ref, consistent) : await findBySlug('event', ref, consistent);
  if (!item || item.kind !== 'event') throw notFound(ref);
  return item as unknown as EventItem;
}

async function respond(ctx: RequestContext, item: EventItem, status: number, extra: Record<string, string> = {}): Promise<HttpResult> {
  const body = serializeEvent(item, ctx, await loadEmbeds([item], ctx));
  return json(status, body, { ETag: etagOf(item.id, item.v), ...extra });
}

export async function getEvent(ctx: RequestContext): Promise<HttpResult> {
  const item = await load(ctx);
  if (item.status === 'trash') throw new ApiError(403, 'event-no-longer-available', 'This event is no longer available');
  const userId = await ctx.userId();
  if (!canRead(ctx.caller, userId, item)) throw new ApiError(403, 'event-not-accessible', 'The requested event is not accessible');
  if (item.pw) {
    const byEdit = ctx.params.context === 'edit' && canEdit(ctx.caller, userId, item);
    const byPassword = typeof ctx.params.password === 'string' && checkPassword(ctx.params.password, item.pw);
    if (!byEdit && !byPassword) {
      throw new ApiError(403, 'event-password-protected', 'The requested event is not accessible without a password');
    }
  }
  const body = serializeEvent(item, ctx, await loadEmbeds([item], ctx, { jsonLd: true }));
  body.json_ld = eventJsonLd(item, ctx, body);
  return json(200, body, { ETag: etagOf(item.id, item.v) });
}

/**
 * What a new event writes besides its record, its slug guard and inline records: the events meta item and
 * its relationship items and counters. The benchmark seeder builds its batches from this too.
 */
export const eventCreateExtras = (item: EventItem): TransactItem[] =>
  [...eventsMetaUpdate(item.startUtc, item.endUtc), ...linkTransactItems(null, eventFacts(item))];

/** How many times a write plans again after a lost race before it answers 409. */
const PLAN_ATTEMPTS = 5;

/**
 * POST /events: one planning read (lib/events/links.ts), one block of ids, one transaction; the response is
 * built from what the plan read and wrote. A transaction that fails on anything but the event's own Put (a slug
 * or a name taken meanwhile, a linked record changed or deleted) plans again on consistent reads, so a deleted
 * category then answers the 400 the contract gives for an unknown one.
 */
export async function createEvent(ctx: RequestContext): Promise<HttpResult> {
  const ids = new IdPool();
  for (let attempt = 0; attempt < PLAN_ATTEMPTS; attempt++) {
    ids.restart();
    const plan = { reads: new ReadSet(attempt > 0), ids, attempt };
    const { item, slugBase, links } = await applyEventWrite(ctx, null, plan);
    const stored = withSlug('event', item, await plan.reads.freeSlug('event', slugBase!, item.id, attempt));
    const meta = eventsMetaUpdate(stored.startUtc, stored.endUtc);
    if (!(await createPlanned('event', stored as never, [...meta, ...links.transactItems(null, stored)]))) continue;
    eventsMetaStored(stored.startUtc, stored.endUtc);
    const body = serializeEvent(stored, ctx, links.embeds(null, stored, ctx));
    return json(201, body, { ETag: etagOf(stored.id, stored.v), Location: `${ctx.apiUrl}/events/${stored.id}` });
  }
  throw new ApiError(409, 'rest_conflict', 'The event could not be created because of concurrent changes; retry.');
}

/** A linked venue, organizer or term vanished or changed while the write was prepared. */
async function linkGuard<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (!(e instanceof LinkConflict)) throw e;
    throw new ApiError(409, 'rest_conflict', 'A linked venue, organizer or term changed or was deleted meanwhile; retry.');
  }
}

/** Loads the record for a write: 404 when missing, 403 when the caller may not change it. */
async function loadForWrite(ctx: RequestContext): Promise<EventItem> {
  const item = await load(ctx, true);
  if (!canEdit(ctx.caller, await ctx.userId(), item)) throw forbidden(true);
  checkIfMatch(ctx.headers['if-match'], item.id, item.v);
  return item;
}

/**
 * Retries a read-modify-write when another writer got in between (without If-Match the partial update re-applies)
 * or a linked record changed or vanished meanwhile (planned again: a deleted one is then a 400).
 */
async function withRetry<T>(ctx: RequestContext, fn: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (!(e instanceof VersionConflict) && !(e instanceof LinkConflict)) throw e;
      if (e instanceof VersionConflict && ctx.headers['if-match'] !== undefined) throw new ApiError(412, 'rest_precondition_failed',
        'The record changed since you read it; fetch it again and retry with its new ETag.');
      if (attempt >= 3) {
        throw new ApiError(409, 'rest_conflict', e instanceof LinkConflict
          ? 'A linked venue, organizer or term changed or was deleted meanwhile; retry.'
          : 'The event is being changed by someone else; retry.');
      }
    }
  }
}

export async function updateEvent(ctx: RequestContext): Promise<HttpResult> {
  const ids = new IdPool();
  return withRetry(ctx, async (attempt) => {
    const existing = await loadForWrite(ctx);
    ids.restart();
    const { item, slugBase, links } = await applyEventWrite(ctx, existing, { reads: new ReadSet(attempt > 0), ids, attempt });
    let base = slugBase;
    if (existing.status === 'trash' && item.status !== 'trash') {
      base ??= existing.slugBeforeTrash ?? existing.slug.replace(/__trashed(-\d+)?$/, '');
      delete item.slugBeforeTrash;
      delete item.statusBeforeTrash;
    } else if (existing.status !== 'trash' && item.status === 'trash') {
      item.slugBeforeTrash = slugBase ?? existing.slug;
      item.statusBeforeTrash = existing.status;
      base = `${item.slugBeforeTrash}__trashed`;
    }
    const meta = eventsMetaUpdate(item.startUtc, item.endUtc);
    const stored = (await replacePost('event', item as never, existing as never, base,
      (s) => [...meta, ...links.transactItems(existing, s as unknown as EventItem)])) as unknown as EventItem;
    eventsMetaStored(item.startUtc, item.endUtc);
    return json(200, serializeEvent(stored, ctx, links.embeds(existing, stored, ctx)), { ETag: etagOf(stored.id, stored.v) });
  });
}

export async function deleteEvent(ctx: RequestContext): Promise<HttpResult> {
  const force = ctx.params.force === true;
  if (force && ctx.caller?.role !== 'editor') throw forbidden(true);
  return withRetry(ctx, async () => {
    const existing = await loadForWrite(ctx);
    if (force) {
      await linkGuard(() => deletePost('event', existing as never, existing.v, linkTransactItems(eventFacts(existing), null)));
      return json(200, serializeEvent(existing, ctx, await loadEmbeds([existing], ctx))); // the record as it was
    }
    if (existing.status === 'trash') throw new ApiError(410, 'event-is-in-trash', 'The event is already trashed');
    const trashed: EventItem = {
      ...existing, v: existing.v + 1, status: 'trash', slugBeforeTrash: existing.slug, statusBeforeTrash: existing.status,
      modifiedUtc: new Date().toISOString().slice(0, 19).replace('T', ' '),
    };
    const stored = (await linkGuard(() => replacePost('event', trashed as never, existing as never, `${existing.slug}__trashed`,
      linkTransactItems(eventFacts(existing), eventFacts(trashed))))) as unknown as EventItem;
    return respond(ctx, stored, 200);
  });
}
