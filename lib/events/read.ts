/** Reading one event (reference §9.1; contract §4): GET /events/{id} and the checks its feed shares (./feed.ts). */
import { canEdit, canRead } from '../auth/access.js';
import { checkPassword } from '../auth/password.js';
import type { RequestContext } from '../http/context.js';
import { ApiError } from '../http/errors.js';
import { recordJson } from '../http/etag.js';
import type { HttpResult } from '../http/response.js';
import type { RecordReadParams as EventReadParams } from '../routes/common.js';
import type { RecordRefParams } from '../routes/types.js';
import { getPost } from '../store/records.js';
import { findBySlug } from '../store/slugs.js';
import { loadEmbeds } from './embed.js';
import { isEvent, type EventItem } from './record.js';
import { eventJsonLd, serializeEvent } from './serialize.js';

const notFound = (ref: string): ApiError =>
  new ApiError(404, 'rest-event-not-found', /^\d+$/.test(ref) ? `Event with ID ${ref} does not exist.` : `No event has the slug "${ref}".`);

/** The event `ctx` addresses (404 when there is none); `consistent` for a write's read. */
export async function loadEvent(ctx: RequestContext<RecordRefParams>, consistent = false): Promise<EventItem> {
  const ref = ctx.params;
  const item = ref.id !== undefined ? await getPost(ref.id, consistent) : await findBySlug('event', ref.slug, consistent);
  if (!isEvent(item)) throw notFound(ref.id !== undefined ? String(ctx.raw.id) : ref.slug);
  return item;
}

/** The event a read addresses, when its caller may read it: else 404, or 403 when it is trashed or not theirs to see. */
export async function readableEvent(ctx: RequestContext<RecordRefParams>): Promise<{ item: EventItem; userId: number | null }> {
  const item = await loadEvent(ctx);
  if (item.status === 'trash') throw new ApiError(403, 'event-no-longer-available', 'This event is no longer available');
  const userId = await ctx.userId();
  if (!canRead(ctx.caller, userId, item)) throw new ApiError(403, 'event-not-accessible', 'The requested event is not accessible');
  return { item, userId };
}

export async function getEvent(ctx: RequestContext<EventReadParams>): Promise<HttpResult> {
  const { item, userId } = await readableEvent(ctx);
  if (item.pw) {
    const byEdit = ctx.params.context === 'edit' && canEdit(ctx.caller, userId, item);
    const byPassword = ctx.params.password !== undefined && checkPassword(ctx.params.password, item.pw);
    if (!byEdit && !byPassword) {
      throw new ApiError(403, 'event-password-protected', 'The requested event is not accessible without a password');
    }
  }
  const embedded = await loadEmbeds([item], ctx, { jsonLd: true });
  // Attendance is for whoever may edit the event (contract §19); its places are read only for them.
  if (canEdit(ctx.caller, userId, item)) embedded.attendance = new Map([[item.id, await (await import('../tickets/attendance.js')).attendanceOf(item)]]);
  const body = serializeEvent(item, ctx, embedded);
  body.json_ld = eventJsonLd(item, ctx, body);
  return recordJson(200, body, item.v);
}
