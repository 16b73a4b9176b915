/**
 * GET /events (reference §5.1, §6; contract §6, §9): the date window is read from the byStart index, filtered
 * on the index items, counted exactly, and only the requested page is fetched in full.
 */
import { countableStatuses, listVisible } from '../auth/access.js';
import { checkPassword } from '../auth/password.js';
import { config } from '../config.js';
import type { RequestContext } from '../http/context.js';
import type { EventListParams } from '../routes/events.js';
import { ApiError } from '../http/errors.js';
import { echoQuery, listHeaders, pageLinks, serializePage } from '../http/pagination.js';
import { json, type HttpResult } from '../http/response.js';
import type { PostStatus } from '../model/status.js';
import { countStarts, readEventsFrom, runningPast } from '../store/event-counts.js';
import { allEvents, featuredSource, linkSource, type EventSource } from '../store/event-sources.js';
import { queryEventWindow, readMeta, type EventIndexEntry } from '../store/events.js';
import { queryFeaturedEvents, queryLinkedEvents, type LinkKind } from '../store/links.js';
import { linkCountOf } from '../store/refs.js';
import { postKey } from '../store/keys.js';
import { batchGet } from '../store/records.js';
import { htmlToText } from '../text/sanitize.js';
import { matchesWords, queryWords } from '../text/words.js';
import { listWindow, stricter, type DateFilterKey, type ListWindow } from '../time/list-bounds.js';
import { within, type Bound } from '../time/wall.js';
import { loadEmbeds } from './embed.js';
import { isEvent, textOf, type EventItem } from './record.js';
import { serializeEvent } from './serialize.js';

/**
 * The link filter to read a list from: the one whose records link the fewest events, as counted on the records the
 * request resolved (a term named by slug has no count read; without counts, venue, organizer, categories, tags).
 */
async function linkFilter(p: EventListParams): Promise<{ kind: LinkKind; ids: number[] } | null> {
  const present = ([['venue', p.venue], ['organizer', p.organizer], ['category', p.categories], ['tag', p.tags]] as const)
    .filter((f): f is readonly [LinkKind, number[]] => f[1] !== undefined)
    .map(([kind, ids]) => ({ kind, ids }));
  if (present.length <= 1) return present[0] ?? null;
  const totals = await Promise.all(present.map(async (f) => {
    const counts = await Promise.all(f.ids.map((id) => linkCountOf(f.kind, id)));
    return counts.some((c) => c === undefined) ? Infinity : counts.reduce((a, c) => a! + c!, 0)!;
  }));
  let best = 0;
  totals.forEach((t, i) => { if (t < totals[best]!) best = i; });
  return present[best]!;
}

const DATE_KEYS: DateFilterKey[] = ['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after'];

const anyOf = (wanted: number[] | undefined, have: number[] | number | undefined): boolean =>
  !wanted || (Array.isArray(have) ? have : have === undefined ? [] : [have]).some((id) => wanted.includes(id));

/** Whether the caller may see a password-protected event's content: they sent its password. */
const unlocked = (ctx: RequestContext<EventListParams>, item: EventItem): boolean =>
  typeof ctx.params.password === 'string' && item.pw !== undefined && checkPassword(ctx.params.password, item.pw);

/**
 * Whether an event matches the search words in the request's language. A password-protected event the caller has
 * not unlocked is matched on its title only: its hidden text must not be probed by searching (contract §4).
 */
function matchesSearch(item: EventItem, ctx: RequestContext<EventListParams>, words: string[]): boolean {
  const shown = item.pw && !unlocked(ctx, item) ? (['title'] as const) : (['title', 'excerpt', 'description'] as const);
  return matchesWords(words, shown.map((f) => (f === 'title' ? textOf(item, ctx.lang, f) : htmlToText(textOf(item, ctx.lang, f)))));
}

/** The list facts of a stored event, as its index entry would carry them. */
const entryOf = (item: EventItem): EventIndexEntry => ({
  id: item.id, startUtc: item.startUtc, endUtc: item.endUtc, status: item.status, author: item.author, featured: item.featured,
  venue: item.venue, organizers: item.organizers, categories: item.categories, tags: item.tags, hidden: item.hidden,
});

/** Everything a list asks of one event, except search: the window, visibility to the caller and the filters. */
function listTest(ctx: RequestContext<EventListParams>, window: ListWindow | null, userId: number | null): (e: EventIndexEntry) => boolean {
  const p = ctx.params;
  const statuses = p.status;
  const featured = p.featured;
  return (e) => !e.hidden
    && (!window || (within(e.startUtc, window.startMin, window.startMax) && within(e.endUtc, window.endMin, window.endMax)))
    && p.post_parent === undefined // events have no parent records (no recurring series), so a parent filter matches none
    && listVisible(ctx.caller, userId, statuses, e)
    && (featured === undefined || Boolean(e.featured) === featured)
    && anyOf(p.venue, e.venue)
    && anyOf(p.organizer, e.organizers)
    && anyOf(p.categories, e.categories)
    && anyOf(p.tags, e.tags);
}

/**
 * The one source a list can be counted on (lib/store/event-sources.ts): no filter but the window and the status
 * (every listed event), or exactly one record of one link filter, or `featured=true`. Null for any other list.
 */
function countedSource(p: EventListParams): EventSource | null {
  if (p.search !== undefined || p.post_parent !== undefined || p.featured === false) return null;
  const links = ([['venue', p.venue], ['organizer', p.organizer], ['category', p.categories], ['tag', p.tags]] as const)
    .filter(([, ids]) => ids !== undefined);
  if (links.length + (p.featured === true ? 1 : 0) > 1) return null;
  if (p.featured === true) return featuredSource;
  if (links.length === 0) return allEvents;
  const [kind, ids] = links[0]!;
  return ids!.length === 1 ? linkSource(kind, ids![0]!) : null;
}

const OPEN_START: Bound = { utc: '0000-01-01 00:00:00', inclusive: true };
/** The complement of a bound on the other side of the same instant ("ends after X" ↔ "does not end by X"). */
const flip = (b: Bound): Bound => ({ utc: b.utc, inclusive: !b.inclusive });

/**
 * A counted list (one source, a caller whose visible set depends only on status, a start or ends-after bound): the
 * total comes from the source's count items (lib/store/event-counts.ts) and the page is read from the window's start
 * only as far as it reaches, so neither grows with the number of events in the window. Null when not countable.
 *
 * With "ends after A", the events starting from A on are counted like any window, and those that start before A but
 * are still running at A come from runningPast, which reads only events that can be (they precede the others).
 */
async function countedPage(ctx: RequestContext<EventListParams>, window: ListWindow, page: number, perPage: number):
  Promise<{ total: number; slice: EventIndexEntry[]; full: null } | null> {
  const p = ctx.params;
  const statuses = countableStatuses(ctx.caller, p.status);
  const source = countedSource(p);
  if (!statuses || !source || (!window.startMin && !window.endMin)) return null;
  // An event that ends by the end bound starts by it too: the start range ends at the stricter of the two.
  const hi = (window.endMax ? stricter(window.startMax, window.endMax, 'startMax') : window.startMax)
    ?? { utc: '9999-12-31 23:59:59', inclusive: true };
  const endMin = window.endMin;
  const afterEndMin = endMin && (!window.startMin || endMin.utc >= window.startMin.utc);
  const lo = afterEndMin ? (window.startMin ? stricter(window.startMin, endMin, 'startMin') : endMin) : window.startMin!;
  const meta = await readMeta();
  const endsBy = (e: EventIndexEntry) => within(e.endUtc, undefined, window.endMax);
  const [starting, runningPastEnd, before] = await Promise.all([
    countStarts(source, meta, lo, hi, statuses),
    window.endMax ? runningPast(source, meta, window.endMax, lo, hi, statuses) : [],
    afterEndMin ? runningPast(source, meta, flip(endMin), window.startMin ?? OPEN_START, flip(endMin), statuses) : [],
  ]);
  const earlier = before.filter(endsBy);
  const total = earlier.length + Math.max(0, starting - runningPastEnd.length);
  if ((page - 1) * perPage >= total) return { total, slice: [], full: null };
  const listed = [...earlier, ...await readEventsFrom(source, meta, lo, hi, page * perPage - earlier.length,
    (e) => statuses.includes(e.status as PostStatus) && !e.hidden && endsBy(e))];
  return { total, slice: listed.slice((page - 1) * perPage, page * perPage), full: null };
}

export async function listEvents(ctx: RequestContext<EventListParams>): Promise<HttpResult> {
  const p = ctx.params;
  const page = p.page;
  const perPage = p.per_page;
  const include = p.include;
  const window = include ? null : listWindow({
    ...Object.fromEntries(DATE_KEYS.filter((k) => ctx.raw[k] !== undefined).map((k) => [k, ctx.raw[k]])),
    strict: p.strict_dates === true,
  }, config().siteTimezone);
  const userId = ctx.caller && ctx.caller.role !== 'editor' ? await ctx.userId() : null;
  const accept = listTest(ctx, window, userId);
  const counted = window ? await countedPage(ctx, window, page, perPage) : null;
  const { total, slice, full } = counted ?? await filteredList(ctx, window, accept);
  const totalPages = Math.ceil(total / perPage);
  if (slice.length === 0 && page > 1) {
    throw new ApiError(404, 'event-archive-page-not-found', 'The requested event archive page does not exist');
  }
  const fetched = full ? slice.map((e) => full.get(e.id)!) : (await batchGet(slice.map((e) => postKey(e.id)))).filter(isEvent);
  // The index is eventually consistent and records change between the index read and this one: a record that no
  // longer passes the list's own tests (deleted, trashed, unpublished, hidden, moved…) is left out rather than shown
  // to a reader who may not see it (contract §4).
  const items = fetched.filter((item) => accept(entryOf(item)));
  const embeds = await loadEmbeds(items, ctx);
  const events = serializePage(items, (item) => {
    return serializeEvent(item, ctx, embeds, { blank: Boolean(item.pw) && !unlocked(ctx, item) });
  });

  const query = echoEvents(ctx, window);
  const base = `${ctx.apiUrl}/events/`;
  const restUrl = query.toString() ? `${base}?${query}` : base;
  const links = pageLinks(base, query, page, totalPages);
  return json(200, {
    events,
    rest_url: restUrl,
    ...(links.next ? { next_rest_url: links.next } : {}),
    ...(links.previous ? { previous_rest_url: links.previous } : {}),
    total,
    total_pages: totalPages,
  }, listHeaders(total, totalPages, links));
}

/**
 * Any other list: every index entry of the window (or the relationship items of the most selective link
 * filter) is read, filtered and counted; records read for `include` or `search` are kept for the page.
 */
async function filteredList(ctx: RequestContext<EventListParams>, window: ListWindow | null, accept: (e: EventIndexEntry) => boolean):
  Promise<{ total: number; slice: EventIndexEntry[]; full: Map<number, EventItem> | null }> {
  const p = ctx.params;
  const page = p.page;
  const perPage = p.per_page;
  let entries: EventIndexEntry[];
  let full: Map<number, EventItem> | null = null;
  if (!window) {
    // `include` ignores the date window (contract §6); hidden events stay out as everywhere in lists.
    const items = (await batchGet(p.include!.map(postKey))).filter(isEvent);
    full = new Map(items.map((i) => [i.id, i]));
    entries = items.map(entryOf).sort((a, b) => (a.startUtc === b.startUtc ? a.id - b.id : a.startUtc < b.startUtc ? -1 : 1));
  } else {
    const range = {
      startFrom: window.startMin?.utc,
      startTo: [window.startMax?.utc, window.endMax?.utc].filter((x): x is string => !!x).sort()[0],
    };
    const link = await linkFilter(p);
    // A link filter reads that record's relationship items in the window, featured=true the featured index, instead
    // of every event in it.
    entries = link ? await queryLinkedEvents(link.kind, link.ids, range)
      : p.featured === true ? await queryFeaturedEvents(range)
        : await queryEventWindow({ ...range, endFrom: window.endMin?.utc });
  }
  entries = entries.filter(accept);

  if (p.search !== undefined) {
    const words = queryWords(p.search);
    if (!full) {
      const items = (await batchGet(entries.map((e) => postKey(e.id)))).filter(isEvent);
      full = new Map(items.map((i) => [i.id, i]));
    }
    entries = entries.filter((e) => full!.has(e.id) && matchesSearch(full!.get(e.id)!, ctx, words));
  }
  return { total: entries.length, slice: entries.slice((page - 1) * perPage, page * perPage), full };
}

/** The value a client sent for a parameter, as sent (contract §9): lists comma-joined, never re-serialised. */
const asSent = (raw: unknown): string | undefined =>
  raw === undefined ? undefined : Array.isArray(raw) ? raw.map(String).join(',') : typeof raw === 'object' && raw !== null
    ? Object.values(raw).map(String).join(',') : String(raw);

/**
 * The normalised query that rest_url echoes (reference §5.1): dates after default-filling and rounding, every other
 * parameter the client sent as it sent it, filters included so next/previous keep them.
 */
function echoEvents(ctx: RequestContext<EventListParams>, window: ListWindow | null): URLSearchParams {
  const p = ctx.params;
  return echoQuery(p.page, [
    ['per_page', p.per_page],
    ...DATE_KEYS.map((k): [string, unknown] => [k, window?.echo[k]]),
    ['strict_dates', asSent(ctx.raw.strict_dates)],
    ...['search', 'categories', 'tags', 'venue', 'organizer', 'featured', 'status', 'include', 'post_parent', 'geoloc',
      'geoloc_lat', 'geoloc_lng', 'ticketed', 'translation_language'].map((k): [string, unknown] => [k, asSent(ctx.raw[k])]),
  ]);
}
