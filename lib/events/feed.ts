/**
 * The iCalendar feeds (contract §14). GET /events.ics shows what the /events list with the same parameters shows its
 * caller, its first `limit` entries; GET /events/{id}.ics one event or a whole series. A series is one VEVENT with its
 * rules: the occurrences its reader does not see become EXDATEs, and each visible occurrence that set fields of its own is
 * a VEVENT of its own with the series' UID and a RECURRENCE-ID. Which occurrences those are comes from the series'
 * partition of entries (lib/store/event-sources.ts `seriesSource`), which flags edited ones, so a feed costs its list's
 * reads, one Query per series it shows, and the records of those series and of their edited occurrences.
 */
import { canEdit, canRead, listVisible } from '../auth/access.js';
import { checkPassword } from '../auth/password.js';
import type { RequestContext } from '../http/context.js';
import { invalidParam } from '../http/errors.js';
import { PAGE_BYTES } from '../http/pagination.js';
import { calendarText, type HttpResult } from '../http/response.js';
import type { EventFeedParams, EventItemFeedParams } from '../routes/events.js';
import type { EventIndexEntry } from '../store/entries.js';
import { readSource, seriesSource } from '../store/event-sources.js';
import { postKey } from '../store/keys.js';
import { batchGet, getPost } from '../store/records.js';
import { untilSeriesWhole } from '../store/series.js';
import { queryWords } from '../text/words.js';
import type { Wall } from '../time/format.js';
import { loadEmbeds } from './embed.js';
import { calendarName, feedCalendar, type FeedEvent } from './feed-calendar.js';
import { originalStart } from './feed-rules.js';
import { listedEvents, listTest, matchesSearch } from './list.js';
import { readableEvent } from './read.js';
import { isEvent, isSeries, textOf, type EventItem } from './record.js';
import { goneStarts } from './series.js';

/** Without date parameters a feed starts this many days ago (where a list would start today). */
const FEED_START_DAYS = 30;

/** Which occurrences of a series its reader sees: by their entries, and (a search) by the text they show. */
interface Visibility {
  entry(e: EventIndexEntry): boolean;
  text(record: EventItem): boolean;
}

/** GET /events.ics */
export async function listFeed(ctx: RequestContext<EventFeedParams>): Promise<HttpResult> {
  const { items } = await listedEvents(ctx, 1, ctx.params.limit, new Date(Date.now() - FEED_START_DAYS * 86_400_000));
  // (read after the list, which turns post_parent into the series, or into `include` for a single event)
  const p = ctx.params;
  const userId = ctx.caller && ctx.caller.role !== 'editor' ? await ctx.userId() : null;
  const listed = listTest(ctx, null, userId);
  const words = p.search !== undefined ? queryWords(p.search) : null;
  const visible: Visibility = {
    entry: (e) => listed(e) && (!p.include || p.include.includes(e.id) || (e.series !== undefined && p.include.includes(e.series))),
    text: (record) => !words || matchesSearch(record, ctx, words),
  };
  const events = await feedEventsOf(items, visible, ctx, userId);
  return feedResponse(events, ctx, calendarName(ctx.lang), items.length);
}

/** GET /events/{id}.ics: an event, a whole series, or one occurrence (with its series' UID and a RECURRENCE-ID). */
export async function getFeed(ctx: RequestContext<EventItemFeedParams>): Promise<HttpResult> {
  const { item, userId } = await readableEvent(ctx);
  const locked = lockCheck(ctx, userId);
  let events: FeedEvent[];
  if (isSeries(item)) {
    await untilSeriesWhole();
    // The series' occurrences that the caller may read, whatever lists would filter out.
    const visible: Visibility = { entry: (e) => listVisible(ctx.caller, userId, undefined, e), text: () => true };
    events = await seriesEvents(item, item, visible, new Map(), locked);
  } else {
    const series = item.series !== undefined ? await getPost(item.series) : null;
    events = [isEvent(series) ? { shows: item, record: item, series, recurrenceId: item.orig, locked: locked(item) }
      : { shows: item, record: item, locked: locked(item) }];
  }
  return feedResponse(events, ctx, textOf(item, ctx.lang, 'title'), 1);
}

/** The VEVENTs of a feed's listed records, in list order: single events as they are, each series once. */
async function feedEventsOf(listed: EventItem[], visible: Visibility, ctx: RequestContext<EventFeedParams>, userId: number | null):
  Promise<FeedEvent[]> {
  const locked = lockCheck(ctx, userId);
  // A series is in the feed through its first listed occurrence (or itself, listed through `include`).
  const firstListed = new Map<number, EventItem>();
  const order: (EventItem | number)[] = [];
  for (const item of listed) {
    const seriesId = item.series ?? (isSeries(item) ? item.id : undefined);
    if (seriesId === undefined) order.push(item);
    else if (!firstListed.has(seriesId)) {
      firstListed.set(seriesId, item);
      order.push(seriesId);
    }
  }
  const series = (await batchGet([...firstListed.keys()].map(postKey))).filter(isEvent).filter(isSeries);
  const known = new Map(listed.map((item) => [item.id, item]));
  const parts = new Map(await Promise.all(series.map(async (s): Promise<[number, FeedEvent[]]> => {
    // A reader who may not read the series itself sees the series' VEVENT with the text of the occurrence listed.
    const shows = s.status !== 'trash' && canRead(ctx.caller, userId, s) ? s : firstListed.get(s.id)!;
    return [s.id, await seriesEvents(s, shows, visible, known, locked)];
  })));
  return order.flatMap((entry) => (typeof entry === 'number' ? parts.get(entry) ?? [] : [{ shows: entry, record: entry, locked: locked(entry) }]));
}

/**
 * A series' VEVENT, which `shows` the text of the series (or of an occurrence), with an EXDATE for each occurrence the
 * reader does not see, and a VEVENT for each visible occurrence that set fields of its own. `known` are records already
 * read.
 */
async function seriesEvents(series: EventItem, shows: EventItem, visible: Visibility, known: Map<number, EventItem>,
  locked: (item: EventItem) => boolean): Promise<FeedEvent[]> {
  const entries = await readSource(seriesSource(series.id), {});
  const unread = entries.filter((e) => e.edited && !known.has(e.id)).map((e) => postKey(e.id));
  const read = new Map((await batchGet(unread)).filter(isEvent).map((r) => [r.id, r]));
  const seriesText = visible.text(series);
  const hidden: Wall[] = goneStarts(series);
  const edited: FeedEvent[] = [];
  for (const entry of entries) {
    // An occurrence that set nothing of its own has its series' dates, text and password.
    const record = entry.edited ? known.get(entry.id) ?? read.get(entry.id) : undefined;
    if (entry.edited && record?.series !== series.id) continue; // (deleted or moved since the entry was read)
    const orig = record?.orig ?? originalStart(entry.startUtc, series);
    if (!visible.entry(entry) || !(record ? visible.text(record) : seriesText)) hidden.push(orig);
    else if (record) edited.push({ shows: record, record, series, recurrenceId: orig, locked: locked(record) });
  }
  return [{ shows, record: series, series, hidden, locked: locked(shows) }, ...edited];
}

/**
 * Whether an event's content is closed to the caller: password-protected, the caller may not edit it, and the request's
 * `password` is not its. A feed has no `context`: to a caller who may edit the event it is the edit view, whole
 * (contract §14). One password check per stored hash (a series' occurrences share their series').
 */
function lockCheck(ctx: RequestContext<{ password?: string }>, userId: number | null): (item: EventItem) => boolean {
  const password = ctx.params.password;
  const opens = new Map<string, boolean>();
  return (item) => {
    if (item.pw === undefined || canEdit(ctx.caller, userId, item)) return false;
    if (password === undefined) return true;
    let open = opens.get(item.pw);
    if (open === undefined) opens.set(item.pw, (open = checkPassword(password, item.pw)));
    return !open;
  };
}

/**
 * The feed's text, or a 400 naming a `limit` whose feed would fit when it would pass the most a response may hold
 * (a Lambda response is at most 6 MB; lib/http/pagination.ts PAGE_BYTES).
 */
async function feedResponse(events: FeedEvent[], ctx: RequestContext, name: string, entries: number): Promise<HttpResult> {
  const embeds = await loadEmbeds(events.filter((e) => !e.locked).map((e) => e.shows), ctx);
  const text = feedCalendar(events, embeds, ctx, name);
  const bytes = Buffer.byteLength(text);
  if (bytes > PAGE_BYTES) {
    const fits = Math.max(1, Math.floor((entries * PAGE_BYTES) / bytes));
    throw invalidParam('limit', `limit: these events are too large to return ${entries} at once; send limit=${fits} or less`);
  }
  return calendarText(text);
}
