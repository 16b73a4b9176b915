/** How a write request turns into a stored event item (the record itself: record.ts). */
import { hashPassword } from '../auth/password.js';
import { scaleStatus } from '../auth/access.js';
import { config } from '../config.js';
import type { RequestContext } from '../http/context.js';
import type { EventWriteParams } from '../routes/events.js';
import { forbidden, invalidParam, invalidParams } from '../http/errors.js';
import { ParamError } from '../model/errors.js';
import { postKey } from '../store/keys.js';
import { sanitizeHtml } from '../text/sanitize.js';
import { slugify } from '../text/slug.js';
import { nowUtcWall, wallToUtc, type Wall } from '../time/format.js';
import { parseWriteDate } from '../time/parse.js';
import { planLinks, type PlannedLinks, type WritePlan } from './links.js';
import { indexKeys, isSeries, type EventItem, type EventText } from './record.js';
import { applyRecurrence } from './series.js';

export { eventFacts, indexKeys, isEvent, textOf, type EventItem, type EventText } from './record.js';

function readDate(name: string, raw: unknown, tz: string): { local: Wall; utc: Wall } {
  try {
    return parseWriteDate(raw, tz);
  } catch (e) {
    if (e instanceof ParamError) throw invalidParam(name, `${name} ${e.message}`);
    throw e;
  }
}

/** The sent dates read in tz; every unreadable one is named in one 400. */
function readDates<K extends string>(values: Record<K, unknown>, tz: string): Partial<Record<K, { local: Wall; utc: Wall }>> {
  const out: Partial<Record<K, { local: Wall; utc: Wall }>> = {};
  const invalid: Record<string, string> = {};
  for (const [name, raw] of Object.entries(values) as [K, unknown][]) {
    if (raw === undefined) continue;
    try {
      out[name] = parseWriteDate(raw, tz);
    } catch (e) {
      if (!(e instanceof ParamError)) throw e;
      invalid[name] = `${name} ${e.message}`;
    }
  }
  if (Object.keys(invalid).length) throw invalidParams(invalid);
  return out;
}

const snapDay = (wall: Wall, time: string): Wall => `${wall.slice(0, 10)} ${time}`;

/**
 * Applies the parameters of a create (existing = null) or a partial update to an event. Fields that were not
 * sent stay as they are (contract §7). Returns the new item (without slug changes applied), the planned links
 * (their transaction items and the records the response embeds) and, when the slug must change, the base to
 * derive it from. On create the item gets the first id of the plan's block (`plan.ids`).
 */
export async function applyEventWrite(ctx: RequestContext<EventWriteParams>, existing: EventItem | null, plan: WritePlan):
  Promise<{ item: EventItem; slugBase?: string; links: PlannedLinks }> {
  const p = ctx.params;
  const caller = ctx.caller!;
  const userId = (await ctx.userId())!;
  const siteTz = config().siteTimezone;
  const now = nowUtcWall();

  if (p.author !== undefined && p.author !== (existing?.author ?? userId) && caller.role !== 'editor') {
    throw forbidden(true);
  }
  const status = scaleStatus(caller, p.status, existing === null) ?? existing!.status;
  if (existing === null && status === 'trash') throw invalidParam('status', 'status cannot be trash when creating an event');

  const tz = p.timezone ?? existing?.tz ?? siteTz;
  const allDay = p.all_day ?? existing?.allDay ?? false;
  const dates = readDates({ start_date: p.start_date, end_date: p.end_date }, tz);
  let start = dates.start_date?.local ?? existing!.start;
  let end = dates.end_date?.local ?? existing!.end;
  if (allDay) {
    start = snapDay(start, '00:00:00');
    end = snapDay(end, '23:59:59');
  }
  const startUtc = wallToUtc(start, tz);
  const endUtc = wallToUtc(end, tz);
  // All-day snapping or a time-zone change can move a date across year 9999 or 0001 in UTC (contract §6: 400).
  for (const [name, utc] of [['start_date', startUtc], ['end_date', endUtc]] as const) {
    if (!/^\d{4}-/.test(utc) || utc < '0001-01-01') {
      throw invalidParam(p[name] !== undefined ? name : 'timezone', `${p[name] !== undefined ? name : 'timezone'} must keep the event between the years 0001 and 9999 in UTC and in its time zone`);
    }
  }
  if (endUtc < startUtc) {
    throw invalidParam(p.end_date !== undefined ? 'end_date' : 'start_date', 'end_date must not be before start_date');
  }

  let dateUtc = existing?.dateUtc ?? now;
  if (p.date_utc !== undefined) dateUtc = readDate('date_utc', p.date_utc, 'UTC').utc;
  else if (p.date !== undefined) dateUtc = readDate('date', p.date, siteTz).utc;

  const lang = ctx.lang;
  const text: EventText = { ...(existing?.tr[lang] ?? {}) };
  if (p.title !== undefined) text.title = p.title;
  if (p.description !== undefined) text.description = sanitizeHtml(p.description);
  if (p.excerpt !== undefined) text.excerpt = sanitizeHtml(p.excerpt);

  let slugBase: string | undefined;
  if (p.slug !== undefined) {
    slugBase = slugify(p.slug);
    if (!slugBase) throw invalidParam('slug', 'slug must contain letters or digits');
  } else if (existing === null) {
    slugBase = slugify(text.title ?? '') || 'event';
  }
  // A new event's slug candidates are read with its links; on create the event's id comes in the same block as
  // the ids of the records it creates.
  if (existing === null) plan.reads.wantSlugs('event', slugBase!);
  const links = await planLinks(ctx, existing, status, plan, existing === null ? 1 : 0);
  const id = existing?.id ?? links.leadingIds[0]!;

  const item: EventItem = {
    ...(existing ?? ({} as EventItem)),
    ...postKey(id),
    kind: 'event',
    id,
    v: (existing?.v ?? 0) + 1,
    author: p.author ?? existing?.author ?? userId,
    status,
    slug: existing?.slug ?? '',
    tr: { ...(existing?.tr ?? {}), [lang]: text },
    lang0: existing?.lang0 ?? lang,
    dateUtc,
    modifiedUtc: now,
    start, end, startUtc, endUtc, tz, allDay,
    cost: p.cost ?? existing?.cost ?? [],
    showMap: p.show_map ?? existing?.showMap ?? false,
    showMapLink: p.show_map_link ?? existing?.showMapLink ?? false,
    hidden: p.hide_from_listings ?? existing?.hidden ?? false,
    sticky: p.sticky ?? existing?.sticky ?? false,
    featured: p.featured ?? existing?.featured ?? false,
    organizers: links.organizers ?? existing?.organizers ?? [],
    categories: links.categories ?? existing?.categories ?? [],
    tags: links.tags ?? existing?.tags ?? [],
  };
  if (p.website !== undefined) item.website = p.website;
  if (p.image !== undefined) {
    if (p.image === '') delete item.image;
    else item.image = p.image;
  }
  if (links.venue !== undefined) {
    if (links.venue === null) delete item.venue;
    else item.venue = links.venue;
  }
  // The event is indexed in its venue's geo cells (lib/geo/cells.ts), as its venue is when read.
  const cell = item.venue === undefined ? null : links.venueCell(item.venue);
  if (cell === null) delete item.gh;
  else if (cell !== undefined) item.gh = cell;
  if (p.password !== undefined) {
    if (p.password === '') delete item.pw;
    else item.pw = hashPassword(p.password);
  }
  if (p.recurrence !== undefined || isSeries(item)) applyRecurrence(item, p.recurrence);
  indexKeys(item);
  return { item, slugBase, links };
}
