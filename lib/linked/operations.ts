/**
 * The single venue/organizer operations: read, create, update, delete (reference §9.2, §10.2, §10.3, §10.5,
 * §11; contract §3–§8). One implementation for both kinds.
 */
import { canEdit, canRead } from '../auth/access.js';
import { checkPassword } from '../auth/password.js';
import type { RequestContext } from '../http/context.js';
import type { RecordDeleteParams as LinkedDeleteParams, RecordReadParams as LinkedReadParams } from '../routes/common.js';
import type { LinkedUpdateParams, LinkedWriteParams } from '../routes/linked.js';
import type { RecordRefParams } from '../routes/types.js';
import { ApiError, forbidden } from '../http/errors.js';
import { checkIfMatch, recordJson } from '../http/etag.js';
import { json, type HttpResult } from '../http/response.js';
import { IdPool } from '../store/ids.js';
import { getPost } from '../store/records.js';
import { commit, deleteRecord, rewriteRecord, trashed, trashTransition, withSlug } from '../store/kit.js';
import { ReadSet } from '../store/reads.js';
import { afterCommit, retryConflicts } from '../store/retry.js';
import { VersionConflict } from '../store/errors.js';
import { findBySlug } from '../store/slugs.js';
import { unlinkEverywhere } from '../events/unlink.js';
import { relocateEvents, relocationItems, repairRelocations } from '../geo/relocate.js';
import { nowUtcWall } from '../time/format.js';
import { planLinked } from './inline.js';
import { applyLinkedWrite, PLURAL, type LinkedItem, type LinkedKind } from './item.js';
import { recordTransactItems } from './counts.js';
import { renderLinked } from './serialize.js';
import { EMPTY_MANIFEST, readManifest } from '../store/words.js';
import { planLinkedWords, wordsMayChange, type LinkedWordPlan } from './words.js';

const notFound = (kind: LinkedKind, ref: string): ApiError => {
  const title = kind === 'venue' ? 'Venue' : 'Organizer';
  return new ApiError(404, `rest-${kind}-not-found`, /^\d+$/.test(ref) ? `${title} with ID ${ref} does not exist.`
    : `No ${kind} has the slug "${ref}".`);
};

/** The record the path names (by id or slug), of this kind; 404 otherwise (contract §3). */
async function load(kind: LinkedKind, ctx: RequestContext<RecordRefParams>, consistent = false): Promise<LinkedItem> {
  const ref = ctx.params;
  const item = ref.id !== undefined ? await getPost(ref.id, consistent) : await findBySlug(kind, ref.slug, consistent);
  if (!item || item.kind !== kind) throw notFound(kind, ref.id !== undefined ? String(ctx.raw.id) : ref.slug);
  return item as LinkedItem;
}

/** Write responses: the record without json_ld; blanked only for a caller who may not edit it (reference §10). */
async function respond(kind: LinkedKind, ctx: RequestContext, item: LinkedItem, status: number,
  extra: Record<string, string> = {}): Promise<HttpResult> {
  const blank = Boolean(item.pw) && !canEdit(ctx.caller, await ctx.userId(), item);
  return recordJson(status, renderLinked(kind, item, ctx, { blank }), item.v, extra);
}

/** GET /{kind}s/{id} and /by-slug/{slug}. */
export const getLinked = (kind: LinkedKind) => async (ctx: RequestContext<LinkedReadParams>): Promise<HttpResult> => {
  const item = await load(kind, ctx);
  const userId = await ctx.userId();
  if (!canRead(ctx.caller, userId, item)) {
    throw new ApiError(403, `${kind}-not-accessible`, `The requested ${kind} is not accessible`);
  }
  const password = ctx.params.password;
  const unlocked = !item.pw || (ctx.params.context === 'edit' && canEdit(ctx.caller, userId, item))
    || (password !== undefined && checkPassword(password, item.pw));
  const body = renderLinked(kind, item, ctx, { jsonLd: true, blank: !unlocked });
  return recordJson(200, body, item.v);
};

/** POST /{kind}s: creates, or de-duplicates onto an existing record (201 either way, reference §10.2). */
export const createLinked = (kind: LinkedKind) => async (ctx: RequestContext<LinkedWriteParams>): Promise<HttpResult> => {
  const ids = new IdPool();
  return retryConflicts(async (attempt) => {
    ids.restart();
    const { plan, items } = await planLinked(kind, ctx.params, ctx, ids, attempt);
    // A slug taken, a match changed or a record of that name created between planning and writing: plan again.
    await commit(items);
    await plan.afterCommit();
    // A venue reused with new coordinates moves its events (lib/geo/relocate.ts).
    if (plan.moved) await afterCommit(`moving the events of ${kind} ${plan.id}`, () => relocateEvents(plan.id));
    if (kind === 'venue') await afterCommit('finishing the moves of earlier venue writes', () => repairRelocations());
    return respond(kind, ctx, plan.item, 201, { Location: `${ctx.apiUrl}/${PLURAL[kind]}/${plan.id}` });
  });
};

/** Loads the record for a write: 404 when missing, 403 when the caller may not change it, 412 on If-Match. */
async function loadForWrite(kind: LinkedKind, ctx: RequestContext<RecordRefParams>): Promise<LinkedItem> {
  const item = await load(kind, ctx, true);
  if (!canEdit(ctx.caller, await ctx.userId(), item)) throw forbidden(true);
  checkIfMatch(ctx.headers['if-match'], item.v);
  return item;
}

/** The search index change of a write of an existing record (its manifest is read only when the index may change). */
async function wordsFor(kind: LinkedKind, prev: LinkedItem, next: LinkedItem | null): Promise<LinkedWordPlan> {
  const m = wordsMayChange(prev, next) ? await readManifest(prev.id) : EMPTY_MANIFEST;
  return planLinkedWords(kind, prev.id, prev, next, m);
}

/** Re-applies a read-modify-write when another writer got in between; with If-Match that is a 412. */
const withRetry = <T>(ctx: RequestContext, fn: (attempt: number) => Promise<T>): Promise<T> =>
  retryConflicts(fn, { ifMatch: ctx.headers['if-match'] !== undefined });


/** POST/PUT/PATCH /{kind}s/{id} and by-slug: a partial update; setting status trash trashes, another restores. */
export const updateLinked = (kind: LinkedKind) => async (ctx: RequestContext<LinkedUpdateParams>): Promise<HttpResult> => {
  let toTrash = false;
  let relocate = false;
  let words: LinkedWordPlan | null = null;
  const result = await withRetry(ctx, async (attempt) => {
    const existing = await loadForWrite(kind, ctx);
    const written = await applyLinkedWrite(kind, ctx, ctx.params, existing, existing.id);
    const moved = trashTransition(existing, written);
    const item = moved?.record ?? written;
    const stored = moved ? withSlug(kind, item, await new ReadSet(attempt > 0).freeSlug(kind, moved.slugBase, item.id, attempt)) : item;
    const counted = recordTransactItems(kind, existing.id, existing, stored);
    words = await wordsFor(kind, existing, stored);
    const markers = relocationItems(existing, stored);
    await rewriteRecord(kind, existing, stored, [...counted.items, ...words.items, ...markers], counted.conds);
    toTrash = stored.status === 'trash' && existing.status !== 'trash';
    relocate = markers.length > 0;
    return stored;
  });
  await words!.after();
  if (toTrash) await afterCommit(`unlinking ${kind} ${result.id}`, () => unlinkEverywhere(kind, result.id));
  if (relocate) await afterCommit(`moving the events of ${kind} ${result.id}`, () => relocateEvents(result.id));
  if (kind === 'venue') await afterCommit('finishing the moves of earlier venue writes', () => repairRelocations());
  return respond(kind, ctx, result, 200);
};

/**
 * DELETE /{kind}s/{id} and by-slug: to the trash (200 + the trashed record; again → 410), or with
 * `force=true` (editors only) permanently (200 + the record as it was). Either unlinks it from every event.
 */
export const deleteLinked = (kind: LinkedKind) => async (ctx: RequestContext<LinkedDeleteParams>): Promise<HttpResult> => {
  const force = ctx.params.force === true;
  if (force && ctx.caller?.role !== 'editor') throw forbidden(true);
  let words: LinkedWordPlan | null = null;
  if (force) {
    const gone = await withRetry(ctx, async () => {
      const existing = await loadForWrite(kind, ctx);
      // Unlink first: an event rewrite adjusts this record's counter, which needs the record to exist.
      await unlinkEverywhere(kind, existing.id);
      // Its `linked` as the unlinking left it (event writes do not change its version).
      const now = await getPost(existing.id, true) as LinkedItem | null;
      if (!now || now.v !== existing.v) throw new VersionConflict();
      const removal = recordTransactItems(kind, now.id, now, null);
      words = await wordsFor(kind, now, null);
      await deleteRecord(kind, now, [...removal.items, ...words.items], removal.conds);
      return existing;
    });
    await words!.after();
    // The record as it was; no ETag, as it no longer exists.
    return json(200, renderLinked(kind, gone, ctx, { blank: Boolean(gone.pw) && !canEdit(ctx.caller, await ctx.userId(), gone) }));
  }
  const stored = await withRetry(ctx, async (attempt) => {
    const existing = await loadForWrite(kind, ctx);
    if (existing.status === 'trash') {
      await unlinkEverywhere(kind, existing.id); // finishes an unlinking that an earlier failure interrupted
      throw new ApiError(410, `${kind}-is-in-trash`, `The ${kind} is already trashed`);
    }
    const next = await trashed(kind, existing, nowUtcWall(), new ReadSet(attempt > 0), attempt);
    const moved = recordTransactItems(kind, existing.id, existing, next);
    words = await wordsFor(kind, existing, next);
    await rewriteRecord(kind, existing, next, [...moved.items, ...words.items], moved.conds);
    return next;
  });
  await words!.after();
  await afterCommit(`unlinking ${kind} ${stored.id}`, () => unlinkEverywhere(kind, stored.id));
  return respond(kind, ctx, stored, 200);
};
