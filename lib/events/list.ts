/**
 * GET /events (reference §5.1, §6; contract §6, §9): the date window is read from the byStart index, filtered
 * on the index items, counted exactly, and only the requested page is fetched in full.
 */
import { countableStatuses, listVisible, ownAndPublished } from '../auth/access.js';
import { checkPassword } from '../auth/password.js';
import { config } from '../config.js';
import type { RequestContext } from '../http/context.js';
import type { EventFilterParams, EventListParams } from '../routes/events.js';
import { ApiError } from '../http/errors.js';
import { echoQuery, listHeaders, pageLinks, serializePage } from '../http/pagination.js';
import { json, type HttpResult } from '../http/response.js';
import type { PostStatus } from '../model/status.js';
import { countStarts, readEventsFrom, runningPast } from '../store/event-counts.js';
import { geoFilterOf, isCircle, rememberCircle } from '../geo/params.js';
import { circleSources, venuesWithin } from '../geo/plan.js';
import {
  allEvents, authorSource, featuredSource, geoSource, inheritedSource, linkSource, noGeoSource, readSource, seriesSource, ticketedSource,
  type EventSource,
} from '../store/event-sources.js';
import { seriesWithTerm } from './series-words.js';
import { untilSeriesWhole } from '../store/series.js';
import { byStart } from '../store/entries.js';
import { countedTerm, unindexedEvents, wordSource } from '../search/source.js';
import { NONE_IN_FLIGHT, readInFlight, type InFlight } from '../search/in-flight.js';
import { indexState } from './index-state.js';
import { fromUtcMs, readMeta, toUtcMs, type EventIndexEntry, type EventsMeta } from '../store/events.js';
import type { LinkKind } from '../store/links.js';
import { linkCountOf } from '../store/refs.js';
import { postKey } from '../store/keys.js';
import { batchGet, getPost } from '../store/records.js';
import { htmlToText } from '../text/sanitize.js';
import { matchesWords, queryWords, termOf } from '../text/words.js';
import { listWindow, stricter, type DateFilterKey, type ListWindow } from '../time/list-bounds.js';
import { within, type Bound } from '../time/wall.js';
import { loadEmbeds } from './embed.js';
import { isEvent, isSeries, textOf, ticketProviders, type EventItem } from './record.js';
import { serializeEvent } from './serialize.js';

/**
 * The link filter to read a list from: the one whose records link the fewest events, as counted on the records the
 * request resolved (a term named by slug has no count read; without counts, venue, organizer, categories, tags).
 */
async function linkFilter(p: EventFilterParams): Promise<{ kind: LinkKind; ids: number[] } | null> {
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
const unlocked = (ctx: RequestContext<EventFilterParams>, item: EventItem): boolean =>
  typeof ctx.params.password === 'string' && item.pw !== undefined && checkPassword(ctx.params.password, item.pw);

/**
 * Whether an event matches the search words in the request's language. A password-protected event the caller has
 * not unlocked is matched on its title only: its hidden text must not be probed by searching (contract §4).
 */
export function matchesSearch(item: EventItem, ctx: RequestContext<EventFilterParams>, words: string[]): boolean {
  const shown = item.pw && !unlocked(ctx, item) ? (['title'] as const) : (['title', 'excerpt', 'description'] as const);
  return matchesWords(words, shown.map((f) => (f === 'title' ? textOf(item, ctx.lang, f) : htmlToText(textOf(item, ctx.lang, f)))));
}

/** The list facts of a stored event, as its index entry would carry them. */
const entryOf = (item: EventItem): EventIndexEntry => ({
  id: item.id, startUtc: item.startUtc, endUtc: item.endUtc, status: item.status, author: item.author, featured: item.featured,
  venue: item.venue, organizers: item.organizers, categories: item.categories, tags: item.tags, hidden: item.hidden, series: item.series,
  ticketed: ticketProviders(item).length > 0,
});

/** Everything a list asks of one event, except search: the window (none: any date), visibility to the caller and the filters. */
export function listTest(ctx: RequestContext<EventFilterParams>, window: ListWindow | null, userId: number | null,
  geo: (e: EventIndexEntry) => boolean = () => true): (e: EventIndexEntry) => boolean {
  const p = ctx.params;
  const statuses = p.status;
  const featured = p.featured;
  return (e) => !e.hidden && geo(e)
    && (!window || (within(e.startUtc, window.startMin, window.startMax) && within(e.endUtc, window.endMin, window.endMax)))
    && (p.post_parent === undefined || e.series === p.post_parent)
    && listVisible(ctx.caller, userId, statuses, e)
    && (featured === undefined || Boolean(e.featured) === featured)
    && (p.ticketed === undefined || Boolean(e.ticketed) === p.ticketed)
    && anyOf(p.venue, e.venue)
    && anyOf(p.organizer, e.organizers)
    && anyOf(p.categories, e.categories)
    && anyOf(p.tags, e.tags);
}

/**
 * The one source a list can be counted on (lib/store/event-sources.ts): no filter but the window and the status
 * (every listed event), or exactly one record of one link filter, or `featured=true`, or a search for one word
 * (lib/store/words.ts). Null for any other list.
 */
function countedSource(ctx: RequestContext<EventFilterParams>, flight: InFlight): EventSource | null {
  const p = ctx.params;
  if (p.featured === false) return null;
  const links = ([['venue', p.venue], ['organizer', p.organizer], ['category', p.categories], ['tag', p.tags]] as const)
    .filter(([, ids]) => ids !== undefined);
  const parent = p.post_parent !== undefined ? 1 : 0;
  if (links.length + parent + (p.featured === true ? 1 : 0) + (p.ticketed !== undefined ? 1 : 0) + (p.search !== undefined ? 1 : 0) > 1) return null;
  if (p.post_parent !== undefined) return seriesSource(p.post_parent);
  if (p.search !== undefined) {
    // One word whose index term is the word itself, and no password that would make hidden text searchable.
    const words = queryWords(p.search);
    const term = words.length === 1 ? termOf(words[0]!) : null;
    return term?.exact && countedTerm(term.term) && p.password === undefined ? wordSource(term.term, ctx.lang, false, flight) : null;
  }
  if (p.featured === true) return featuredSource;
  if (p.ticketed === true) return ticketedSource;
  // ticketed=false: every event less the ticketed ones, counted as the difference of the two sources (countedPage).
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
async function countedPage(ctx: RequestContext<EventFilterParams>, window: ListWindow, page: number, perPage: number,
  userId: number | null, geo: GeoRead, flight: InFlight): Promise<{ total: number; slice: EventIndexEntry[]; full: null } | null> {
  const p = ctx.params;
  const source = countedSource(ctx, flight);
  const minus = p.ticketed === false ? ticketedSource : null;
  // A geo filter alone is counted on the sources of its circle (lib/geo/plan.ts), or on every event with coordinates;
  // not with ticketed=false, whose subtracted source counts every ticketed event, not the circle's.
  const sources = geo.active ? (source === allEvents && !minus ? geo.sources : null) : source ? [source] : null;
  if (!sources || (!window.startMin && !window.endMin)) return null;
  const statuses = countableStatuses(ctx.caller, p.status);
  // Authors and contributors see everyone's published events and their own in other statuses: two counted parts.
  const split = statuses || source !== allEvents || geo.active || minus || userId === null ? null : ownAndPublished(ctx.caller, p.status);
  const parts: { source: EventSource; statuses: string[] }[] | null = statuses ? sources.map((s) => ({ source: s, statuses }))
    : split ? [{ source: allEvents, statuses: split.everyone }, { source: authorSource(userId!), statuses: split.own }].filter((x) => x.statuses.length)
      : null;
  if (!parts) return null;
  // An event that ends by the end bound starts by it too: the start range ends at the stricter of the two.
  const hi = (window.endMax ? stricter(window.startMax, window.endMax, 'startMax') : window.startMax)
    ?? { utc: '9999-12-31 23:59:59', inclusive: true };
  const endMin = window.endMin;
  const afterEndMin = endMin && (!window.startMin || endMin.utc >= window.startMin.utc);
  const lo = afterEndMin ? (window.startMin ? stricter(window.startMin, endMin, 'startMin') : endMin) : window.startMin!;
  // A search also lists the occurrences that have the text of a series holding its word (lib/events/series-words.ts).
  if (p.search !== undefined) {
    const ids = await seriesMatching(ctx, termOf(queryWords(p.search)[0]!).term, queryWords(p.search),
      { from: [lo.utc, endMin?.utc].filter((x): x is string => !!x).sort()[0], to: hi.utc });
    parts.push(...ids.map((id) => ({ source: inheritedSource(id), statuses: parts[0]!.statuses })));
  }
  const meta = await readMeta();
  const endsBy = (e: EventIndexEntry) => within(e.endUtc, undefined, window.endMax);
  // With `minus` (ticketed=false), each count is the source's less minus's, and each read leaves minus's events out.
  const countOf = async (source: EventSource, statuses: readonly string[]) => (await countStarts(source, meta, lo, hi, statuses))
    - (minus ? await countStarts(minus, meta, lo, hi, statuses) : 0);
  const pastOf = async (source: EventSource, end: Bound, from: Bound, to: Bound, statuses: readonly string[]) => {
    const [all, less] = await Promise.all([runningPast(source, meta, end, from, to, statuses), minus ? runningPast(minus, meta, end, from, to, statuses) : []]);
    return without(all, less);
  };
  const counted = await Promise.all(parts.map(async (part) => {
    const [starting, runningPastEnd, before] = await Promise.all([
      countOf(part.source, part.statuses),
      window.endMax ? pastOf(part.source, window.endMax, lo, hi, part.statuses) : [],
      afterEndMin ? pastOf(part.source, flip(endMin), window.startMin ?? OPEN_START, flip(endMin), part.statuses) : [],
    ]);
    const earlier = before.filter(endsBy);
    return { ...part, earlier, total: earlier.length + Math.max(0, starting - runningPastEnd.length) };
  }));
  // A search also finds the events too large for the word index, from their records.
  const words = p.search !== undefined ? queryWords(p.search) : null;
  const inWindow = (e: EventIndexEntry) => statuses!.includes(e.status as PostStatus) && !e.hidden
    && within(e.startUtc, window.startMin, hi) && within(e.endUtc, window.endMin, window.endMax);
  const extra = words ? (await checkedMatches(ctx, { startFrom: afterEndMin ? undefined : lo.utc, startTo: hi.utc }, inWindow, words, flight))
    .map(entryOf) : [];
  const total = extra.length + counted.reduce((sum, part) => sum + part.total, 0);
  if ((page - 1) * perPage >= total) return { total, slice: [], full: null };
  // Each part's first page × per_page entries in start order hold the merged list's first page × per_page.
  const listed = await Promise.all(counted.map(async (part) => [...part.earlier, ...await (minus ? readWithout : readEventsFrom)(part.source, meta, lo,
    hi, page * perPage - part.earlier.length, (e) => part.statuses.includes(e.status as PostStatus) && !e.hidden && endsBy(e), part.statuses)]));
  return { total, slice: [...listed.flat(), ...extra].sort(byStart).slice((page - 1) * perPage, page * perPage), full: null };
}

const without = (entries: EventIndexEntry[], less: EventIndexEntry[]): EventIndexEntry[] => {
  const out = new Set(less.map((e) => e.id));
  return entries.filter((e) => !out.has(e.id));
};

/**
 * The first `need` accepted entries of `source` from `lo` on that are not ticketed (ticketed=false): entries of the source
 * are read a page's worth at a time, and the ticketed entries of the same start range tell which to leave out, so both
 * reads follow the page (and the share of ticketed events), never the number of events in the window.
 */
async function readWithout(source: EventSource, meta: EventsMeta, lo: Bound, hi: Bound, need: number,
  accept: (e: EventIndexEntry) => boolean): Promise<EventIndexEntry[]> {
  if (need <= 0) return [];
  for (let want = need; ; want *= 2) {
    const read = await readEventsFrom(source, meta, lo, hi, want, accept);
    if (!read.length) return [];
    const last = { utc: read.at(-1)!.startUtc, inclusive: true };
    const kept = without(read, await readEventsFrom(ticketedSource, meta, lo, last, Infinity, accept));
    if (kept.length >= need || read.length < want) return kept.slice(0, need);
  }
}

/**
 * GET /events/{id}/occurrences (contract §13): the /events list of one series' occurrences — of an occurrence, its
 * series'; of a single event, that event alone.
 */
export async function listOccurrences(ctx: RequestContext<EventListParams & { id: number }>): Promise<HttpResult> {
  const item = await getPost(ctx.params.id);
  if (!isEvent(item)) throw new ApiError(404, 'rest-event-not-found', `Event with ID ${ctx.params.id} does not exist.`);
  ctx.params.post_parent = item.id;
  return listEvents(ctx, `${ctx.apiUrl}/events/${item.id}/occurrences`);
}

/** `post_parent` names a series; of an occurrence, its series; of a single event, the list is that event (null). */
async function seriesOf(id: number): Promise<number | null> {
  const item = await getPost(id);
  if (!isEvent(item)) return id; // (matches nothing)
  return item.series ?? (isSeries(item) ? item.id : null);
}

/** The date window of a list (null with `include`, which ignores dates); `defaultStart` replaces the list's default start. */
function eventsWindow(ctx: RequestContext<EventFilterParams>, defaultStart?: Date): ListWindow | null {
  if (ctx.params.include) return null;
  return listWindow({
    ...Object.fromEntries(DATE_KEYS.filter((k) => ctx.raw[k] !== undefined).map((k) => [k, ctx.raw[k]])),
    strict: ctx.params.strict_dates === true,
    defaultStart,
  }, config().siteTimezone);
}

/**
 * The events one page of a list shows its caller, in start order, with the list's total and date window: what GET
 * /events shows, and the first `limit` entries of a feed (lib/events/feed.ts), whose `defaultStart` differs. A page past
 * the last one is a 404.
 */
export async function listedEvents(ctx: RequestContext<EventFilterParams>, page: number, perPage: number, defaultStart?: Date):
  Promise<{ total: number; items: EventItem[]; window: ListWindow | null }> {
  // No list shows a series half rewritten (contract §13): it waits while one is (lib/store/series.ts).
  await untilSeriesWhole();
  if (ctx.params.post_parent !== undefined) {
    const series = await seriesOf(ctx.params.post_parent);
    if (series === null) ctx.params = { ...ctx.params, include: [ctx.params.post_parent], post_parent: undefined };
    else ctx.params.post_parent = series;
  }
  const p = ctx.params;
  const window = eventsWindow(ctx, defaultStart);
  const userId = ctx.caller && ctx.caller.role !== 'editor' ? await ctx.userId() : null;
  const geo = await geoRead(ctx);
  const accept = listTest(ctx, window, userId, geo.test);
  // A search in a window checks on their records the events whose index change is still being applied
  // (lib/search/in-flight.ts); read once for whichever way the list is read.
  const flight = p.search !== undefined && window ? await readInFlight(indexState) : NONE_IN_FLIGHT;
  const counted = window ? await countedPage(ctx, window, page, perPage, userId, geo, flight) : null;
  const { total, slice, full } = counted ?? await filteredList(ctx, window, accept, page, perPage, geo, flight);
  if (slice.length === 0 && page > 1) {
    throw new ApiError(404, 'event-archive-page-not-found', 'The requested event archive page does not exist');
  }
  const fetched = full ? slice.map((e) => full.get(e.id)!) : (await batchGet(slice.map((e) => postKey(e.id)))).filter(isEvent);
  // The index is eventually consistent and records change between the index read and this one: a record that no
  // longer passes the list's own tests (deleted, trashed, unpublished, hidden, moved…) is left out rather than shown
  // to a reader who may not see it (contract §4).
  const searched = p.search !== undefined ? queryWords(p.search) : null;
  return { total, window, items: fetched.filter((item) => accept(entryOf(item)) && (!searched || matchesSearch(item, ctx, searched))) };
}

export async function listEvents(ctx: RequestContext<EventListParams>, listBase?: string): Promise<HttpResult> {
  const feed = feedUrl(ctx);
  const page = ctx.params.page;
  const perPage = ctx.params.per_page;
  const { total, items, window } = await listedEvents(ctx, page, perPage);
  const totalPages = Math.ceil(total / perPage);
  const embeds = await loadEmbeds(items, ctx);
  const events = serializePage(items, (item) => {
    return serializeEvent(item, ctx, embeds, { blank: Boolean(item.pw) && !unlocked(ctx, item) });
  });

  const query = echoEvents(ctx, window);
  const base = listBase ?? `${ctx.apiUrl}/events/`;
  const restUrl = query.toString() ? `${base}?${query}` : base;
  const links = pageLinks(base, query, page, totalPages);
  return json(200, {
    events,
    rest_url: restUrl,
    ...(links.next ? { next_rest_url: links.next } : {}),
    ...(links.previous ? { previous_rest_url: links.previous } : {}),
    total,
    total_pages: totalPages,
  }, listHeaders(total, totalPages, links, feed));
}

/** Every status: counting a source with these measures how many candidates reading it would give. */
const EVERY_STATUS = ['publish', 'future', 'draft', 'pending', 'private', 'trash'];

/** The start range a list reads: its start bounds, and for "ends after" the earliest start of a still running event. */
async function startRange(window: ListWindow): Promise<{ startFrom?: string; startTo?: string }> {
  let startFrom = window.startMin?.utc;
  if (window.endMin) {
    const meta = await readMeta();
    const bound = fromUtcMs(toUtcMs(window.endMin.utc) - meta.maxDurationHours * 3_600_000);
    if (startFrom === undefined || bound > startFrom) startFrom = bound;
  }
  return { startFrom, startTo: [window.startMax?.utc, window.endMax?.utc].filter((x): x is string => !!x).sort()[0] };
}

/** The sources a search reads candidates from: each query word's term (the password-holder's also finds hidden text). */
const searchSources = (ctx: RequestContext<EventFilterParams>, words: string[], flight: InFlight): EventSource[] =>
  words.map((w) => wordSource(termOf(w).term, ctx.lang, typeof ctx.params.password === 'string', flight));

/**
 * The series whose text holds `term` (their index, and those whose index may be behind or that are indexed whole,
 * checked on their records against the search words): their occurrences with that text are found through them.
 */
async function seriesMatching(ctx: RequestContext<EventFilterParams>, term: string, words: string[], starts: { from?: string; to?: string }):
  Promise<number[]> {
  const { indexed, check } = await seriesWithTerm(term, ctx.lang, typeof ctx.params.password === 'string', starts);
  if (check.length === 0) return indexed;
  const records = (await batchGet(check.map(postKey))).filter(isEvent).filter((r) => isSeries(r) && matchesSearch(r, ctx, words));
  return [...indexed, ...records.map((r) => r.id)];
}

/** Of several candidate sources, the one with the fewest events in the range (from the count items). */
async function rarest(sources: EventSource[], range: { startFrom?: string; startTo?: string }): Promise<EventSource> {
  if (sources.length === 1) return sources[0]!;
  const meta = await readMeta();
  const lo: Bound = { utc: range.startFrom ?? OPEN_START.utc, inclusive: true };
  const hi: Bound = { utc: range.startTo ?? '9999-12-31 23:59:59', inclusive: true };
  const counts = await Promise.all(sources.map((src) => countStarts(src, meta, lo, hi, EVERY_STATUS)));
  return sources[counts.indexOf(Math.min(...counts))]!;
}

/**
 * Events too large for the word index that match the search in the window: every search reads them (few calendars
 * have any), from their records.
 */
async function unindexedMatches(ctx: RequestContext<EventFilterParams>, range: { startFrom?: string; startTo?: string },
  accept: (e: EventIndexEntry) => boolean, words: string[]): Promise<EventItem[]> {
  const entries = (await unindexedEvents(range.startFrom ?? '0000', range.startTo ?? '9999')).filter(accept);
  if (entries.length === 0) return [];
  const items = (await batchGet(entries.map((e) => postKey(e.id)))).filter(isEvent);
  return items.filter((item) => accept(entryOf(item)) && matchesSearch(item, ctx, words));
}

/**
 * The records a search checks itself: events held whole in the range, and events whose index change is in flight
 * (those the index holds at all: not series records, nor occurrences with their series' text).
 */
async function checkedMatches(ctx: RequestContext<EventFilterParams>, range: { startFrom?: string; startTo?: string },
  accept: (e: EventIndexEntry) => boolean, words: string[], flight: InFlight): Promise<EventItem[]> {
  const whole = await unindexedMatches(ctx, range, accept, words);
  const seen = new Set(whole.map((item) => item.id));
  const flying = flight.records.filter(isEvent).filter((item) => !seen.has(item.id) && searchable(item)
    && accept(entryOf(item)) && matchesSearch(item, ctx, words));
  return [...whole, ...flying];
}

const searchable = (item: EventItem): boolean => {
  const state = indexState(item);
  return state.words !== null || state.unindexed !== null;
};

/**
 * Any other list: the candidates of its most selective filter (the relationship items of a link filter, the featured
 * entries, the rarest search word's entries, or the window itself) are read, filtered and counted; with a search or
 * filters the candidates do not carry, their records are read too and kept for the page.
 */
async function filteredList(ctx: RequestContext<EventFilterParams>, window: ListWindow | null, accept: (e: EventIndexEntry) => boolean,
  page: number, perPage: number, geo: GeoRead, flight: InFlight):
  Promise<{ total: number; slice: EventIndexEntry[]; full: Map<number, EventItem> | null }> {
  const p = ctx.params;
  const words = p.search !== undefined ? queryWords(p.search) : null;
  let entries: EventIndexEntry[];
  const full = new Map<number, EventItem>();
  const keep = (items: EventItem[]) => { for (const i of items) full.set(i.id, i); return items; };
  if (!window) {
    // `include` ignores the date window (contract §6); a series in it means its occurrences, read from its partition
    // (at most MAX_OCCURRENCES each), never the series record itself (§13); hidden events stay out as everywhere in lists.
    const named = keep((await batchGet(p.include!.map(postKey))).filter(isEvent));
    const occurrences = await Promise.all(named.filter(isSeries).map((s) => readSource(seriesSource(s.id), {})));
    const singles = named.filter((item) => !isSeries(item)).map(entryOf);
    entries = [...new Map([...occurrences.flat(), ...singles].map((e) => [e.id, e])).values()].sort(byStart);
  } else {
    const range = await startRange(window);
    const link = await linkFilter(p);
    // A series has at most MAX_OCCURRENCES: its partition is the most selective read there is.
    const linkSources = p.post_parent !== undefined ? [seriesSource(p.post_parent)]
      : link ? link.ids.map((id) => linkSource(link.kind, id)) : p.featured === true ? [featuredSource]
        : p.ticketed === true ? [ticketedSource] : [];
    const wordSources = words ? searchSources(ctx, words, flight) : [];
    const candidates = wordSources.length === 0 || p.post_parent !== undefined ? null : await rarest(
      linkSources.length === 1 ? [...wordSources, linkSources[0]!] : wordSources, range);
    const reads = candidates && !(linkSources.length === 1 && candidates === linkSources[0]) ? [candidates]
      : linkSources.length ? linkSources : geo.sources ?? [allEvents];
    // A word's candidates include the occurrences that have the text of a series holding it.
    const wordIndex = candidates ? wordSources.indexOf(candidates) : -1;
    const series = wordIndex >= 0 ? await seriesMatching(ctx, termOf(words![wordIndex]!).term, words!, { from: range.startFrom, to: range.startTo }) : [];
    const parts = await Promise.all([...reads, ...series.map(inheritedSource)].map((src) => readSource(src, range)));
    entries = [...new Map(parts.flat().map((e) => [e.id, e])).values()].sort(byStart);
    // The byStart index does not carry whether an event has tickets: the ticketed entries of the range tell.
    if (p.ticketed !== undefined && reads.includes(allEvents)) {
      const ticketed = new Set((await readSource(ticketedSource, range)).map((e) => e.id));
      entries = entries.map((e) => ({ ...e, ticketed: ticketed.has(e.id) }));
    }
    if (!reads.every((src) => src.factual)) {
      // Word entries do not carry links or featured: the records decide.
      entries = keep((await batchGet(entries.map((e) => postKey(e.id)))).filter(isEvent)).map(entryOf);
    }
    if (words) {
      const extra = keep(await checkedMatches(ctx, range, accept, words, flight));
      if (extra.length) entries = [...new Map([...entries, ...extra.map(entryOf)].map((e) => [e.id, e])).values()].sort(byStart);
    }
  }
  entries = entries.filter(accept);

  if (words) {
    keep((await batchGet(entries.filter((e) => !full.has(e.id)).map((e) => postKey(e.id)))).filter(isEvent));
    entries = entries.filter((e) => full.has(e.id) && matchesSearch(full.get(e.id)!, ctx, words));
  }
  const slice = entries.slice((page - 1) * perPage, page * perPage);
  return { total: entries.length, slice, full: slice.every((e) => full.has(e.id)) ? full : null };
}

/** What a list's geo filter reads (contract §18): its test on entries, and the sources that hold exactly its events. */
interface GeoRead {
  /** Whether the request has a geo filter. */
  active: boolean;
  test: (e: EventIndexEntry) => boolean;
  /** Null without a geo filter; geoloc=true is GEO# (every event with coordinates), geoloc=false NOGEO. */
  sources: EventSource[] | null;
}

/**
 * The request's geo filter: with a point, the venues inside its circle (lib/geo/plan.ts) and the sources of their
 * events; geoloc=true|false, the venues with coordinates (the byCell index: its reads grow with the venues, not
 * the events).
 */
async function geoRead(ctx: RequestContext<EventFilterParams>): Promise<GeoRead> {
  const filter = geoFilterOf(ctx.params);
  rememberCircle(ctx, filter);
  if (filter === null) return { active: false, test: () => true, sources: null };
  if (isCircle(filter)) {
    const circle = await venuesWithin(filter.point, filter.radiusKm);
    const inside = new Set(circle.inside.map((v) => v.id));
    return { active: true, test: (e) => e.venue !== undefined && inside.has(e.venue), sources: circleSources(circle) };
  }
  const located = new Set((await venuesWithin({ lat: 0, lng: 0 }, Infinity)).around.map((v) => v.id));
  return { active: true, test: (e) => (e.venue !== undefined && located.has(e.venue)) === filter.has,
    sources: [filter.has ? geoSource('') : noGeoSource] };
}

/** The value a client sent for a parameter, as sent (contract §9): lists comma-joined, never re-serialised. */
const asSent = (raw: unknown): string | undefined =>
  raw === undefined ? undefined : Array.isArray(raw) ? raw.map(String).join(',') : typeof raw === 'object' && raw !== null
    ? Object.values(raw).map(String).join(',') : String(raw);

/**
 * The list as an iCalendar feed (contract §14), for its `Link: rel="alternate"`: GET /events.ics with the list's own
 * parameters as sent, paging left out (the feed applies its own date defaults), and the series of an occurrences list.
 */
function feedUrl(ctx: RequestContext<EventListParams>): string {
  const query = echoQuery(1, [
    ...[...DATE_KEYS, 'strict_dates', 'search', 'categories', 'tags', 'venue', 'organizer', 'featured', 'status', 'include', 'geoloc',
      'geoloc_lat', 'geoloc_lng', 'geoloc_radius', 'geoloc_unit', 'ticketed', 'translation_language'].map((k): [string, unknown] => [k, asSent(ctx.raw[k])]),
    ['post_parent', ctx.params.post_parent],
  ]).toString();
  return `${ctx.apiUrl}/events.ics${query ? `?${query}` : ''}`;
}

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
      'geoloc_lat', 'geoloc_lng', 'geoloc_radius', 'geoloc_unit', 'ticketed', 'translation_language'].map((k): [string, unknown] => [k, asSent(ctx.raw[k])]),
  ]);
}
