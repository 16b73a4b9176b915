/**
 * GET /venues and GET /organizers (reference §5.1, §7; contract §4, §9): the kind's collection is read from
 * the byStart index newest first (small projected items), filtered there (visibility, status, event,
 * has_events), then by upcoming events (one relationship Query per remaining candidate), counted exactly, and only
 * the page is fetched in full. A search reads the word index instead of the collection (search-list.ts); with
 * `event`, it checks that event's few records themselves.
 */
import { canEdit, countableStatuses, listVisible } from '../auth/access.js';
import type { RequestContext } from '../http/context.js';
import { ApiError } from '../http/errors.js';
import { echoQuery, listHeaders, pageLinks, serializePage } from '../http/pagination.js';
import { json, type HttpResult } from '../http/response.js';
import type { LinkedListParams } from '../routes/linked.js';
import type { PostStatus } from '../model/status.js';
import { postKey } from '../store/keys.js';
import { hasLinkedEventFrom } from '../store/links.js';
import { batchGet, getPost, queryAll, queryUntil, type Item } from '../store/records.js';
import { countByEvents, countByStatus } from './counts.js';
import { nowUtcWall } from '../time/format.js';
import { collectionPartition, PLURAL, type LinkedItem, type LinkedKind } from './item.js';
import { matchesSearch } from './search.js';
import { filterAsync, searchLinked } from './search-list.js';
import { queryWords } from '../text/words.js';
import { isLocked, renderLinked } from './serialize.js';
import { geoFilterOf, isCircle, rememberCircle, type GeoFilter } from '../geo/params.js';
import { venuesWithin } from '../geo/plan.js';

/** A value as the client sent it (echoed in rest_url). */
const asSent = (raw: unknown): string | undefined => (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : undefined);

/** A byStart index item of a venue/organizer (projection: id, status, author, nm, linked, slug, pw). */
export interface LinkedIndexEntry {
  id: number;
  status: PostStatus;
  author: number;
  linked: number;
  slug: string;
  protected: boolean;
}

/** Every index entry of the kind, newest publication date first (then higher id first). */
export async function queryCollection(kind: LinkedKind): Promise<LinkedIndexEntry[]> {
  const items = await queryAll({
    IndexName: 'byStart',
    KeyConditionExpression: 'GSI2PK = :pk',
    ExpressionAttributeValues: { ':pk': collectionPartition(kind) },
    ScanIndexForward: false,
  });
  return items.map(toEntry);
}

const toEntry = (item: Item): LinkedIndexEntry => ({
  id: item.id as number, status: item.status as PostStatus, author: item.author as number,
  linked: (item.linked as number | undefined) ?? 0, slug: item.slug as string, protected: Boolean(item.pw),
});

/**
 * The first `need` index entries of the kind (newest first) with a status in `statuses` (and, when given, with or
 * without events), read in pages sized to what is still needed.
 */
async function readCollection(kind: LinkedKind, statuses: readonly string[], need: number, hasEvents?: boolean): Promise<LinkedIndexEntry[]> {
  return queryUntil({
    IndexName: 'byStart',
    KeyConditionExpression: 'GSI2PK = :pk',
    ExpressionAttributeValues: { ':pk': collectionPartition(kind) },
    ScanIndexForward: false,
  }, need, toEntry, (e) => statuses.includes(e.status) && (hasEvents === undefined || (e.linked > 0) === hasEvents));
}

/** The total of a plain list; with has_events null while the kind's non-empty counts are not built (lib/linked/counts.ts). */
const countPlain = (kind: LinkedKind, statuses: readonly string[], hasEvents: boolean | undefined): Promise<number | null> =>
  (hasEvents === undefined ? countByStatus(kind, statuses) : countByEvents(kind, statuses, hasEvents));

/** The venue or the organizers an event links to, as collection entries in collection order (newest first). */
async function linkedOf(kind: LinkedKind, eventId: number): Promise<LinkedIndexEntry[]> {
  const event = await getPost(eventId);
  if (event?.kind !== 'event') return [];
  const ids = kind === 'venue' ? (event.venue !== undefined ? [event.venue as number] : []) : ((event.organizers as number[] | undefined) ?? []);
  const items = (await batchGet(ids.map(postKey))).filter((i) => i.kind === kind);
  const order = (i: Item) => String(i.GSI2SK);
  return items.sort((a, b) => (order(a) < order(b) ? 1 : -1)).map(toEntry);
}

export const listLinked = (kind: LinkedKind) => async (ctx: RequestContext<LinkedListParams>): Promise<HttpResult> => {
  const p = ctx.params;
  const { page, per_page: perPage, status: statuses } = p;
  const userId = ctx.caller ? await ctx.userId() : null;

  // A plain list (no event, upcoming or search filter) is counted from the kind's status counts (and with has_events
  // from its non-empty counts) and reads only as many index items as its page needs.
  const countable = countableStatuses(ctx.caller, statuses);
  // Venues take the geo filters of contract §18: with a point, the venues inside its circle, nearest first.
  const geo = kind === 'venue' ? geoFilterOf(p) : null;
  rememberCircle(ctx, geo);
  const plain = countable && p.event === undefined && p.only_with_upcoming !== true && p.search === undefined && geo === null;
  const password = p.password;
  const locked = (item: LinkedItem) => isLocked(item, password) && !(p.context === 'edit' && canEdit(ctx.caller, userId, item));
  const fragments = p.search !== undefined ? queryWords(p.search) : null;

  let total: number | null = null;
  let slice: number[] = [];
  let full: Map<number, LinkedItem> = new Map();
  if (plain) {
    // A table whose non-empty counts are not built yet has no count for has_events: then it is read below.
    const [counted, entries] = await Promise.all([countPlain(kind, countable, p.has_events),
      readCollection(kind, countable, page * perPage, p.has_events)]);
    if (counted !== null) {
      total = counted;
      slice = entries.slice((page - 1) * perPage, page * perPage).map((e) => e.id);
    }
  }
  if (total === null && (p.search === undefined || p.event !== undefined || geo !== null)) {
    let entries = await filteredCollection(kind, ctx, userId, geo ? await geoCandidates(kind, geo) : undefined);
    if (fragments) {
      const items = (await batchGet(entries.map((e) => postKey(e.id)))) as LinkedItem[];
      full = new Map(items.map((i) => [i.id, i]));
      entries = entries.filter((e) => {
        const item = full.get(e.id);
        return item !== undefined && matchesSearch(kind, item, ctx.lang, fragments, locked(item));
      });
    }
    total = entries.length;
    slice = entries.slice((page - 1) * perPage, page * perPage).map((e) => e.id);
  } else if (total === null) {
    ({ total, ids: slice, full } = await searchLinked(kind, ctx, userId, page, perPage));
  }

  const totalPages = Math.ceil(total! / perPage);
  if (slice.length === 0 && page > 1) {
    throw new ApiError(404, `${kind}-archive-page-not-found`, `The requested ${kind} archive page does not exist`);
  }
  const unread = slice.filter((id) => !full.has(id));
  const read = new Map(((await batchGet(unread.map(postKey))) as LinkedItem[]).map((i) => [i.id, i]));
  const fetched = slice.map((id) => full.get(id) ?? read.get(id)).filter((i): i is LinkedItem => i !== undefined && i.kind === kind);
  // The index is eventually consistent and records change between the index read and this one: a record the caller
  // may no longer list (trashed, unpublished, deleted meanwhile, no longer matching) is left out rather than shown
  // (contract §4), as the events list does.
  const items = fetched.filter((i) => listVisible(ctx.caller, userId, statuses, i)
    && (!fragments || matchesSearch(kind, i, ctx.lang, fragments, locked(i))));
  const records = serializePage(items, (item) => renderLinked(kind, item, ctx, { blank: locked(item) }));

  const query = echoLinked(ctx);
  const base = `${ctx.apiUrl}/${PLURAL[kind]}/`;
  const links = pageLinks(base, query, page, totalPages);
  return json(200, {
    [PLURAL[kind]]: records,
    rest_url: query.toString() ? `${base}?${query}` : base,
    ...(links.next ? { next_rest_url: links.next } : {}),
    ...(links.previous ? { previous_rest_url: links.previous } : {}),
    total,
    total_pages: totalPages,
  }, listHeaders(total, totalPages, links));
};

/**
 * The venues a geo filter keeps, in its order: inside the circle nearest first (then by id), or those with (without)
 * coordinates in collection order. Reads grow with the venues around the circle, never with events.
 */
async function geoCandidates(kind: LinkedKind, geo: GeoFilter): Promise<LinkedIndexEntry[]> {
  if (isCircle(geo)) {
    return (await venuesWithin(geo.point, geo.radiusKm)).inside.map((v) => ({
      id: v.id, status: v.status as PostStatus, author: v.author, linked: v.linked, slug: '', protected: v.pw,
    }));
  }
  const [located, all] = await Promise.all([venuesWithin({ lat: 0, lng: 0 }, Infinity), queryCollection(kind)]);
  const ids = new Set(located.around.map((v) => v.id));
  return all.filter((e) => ids.has(e.id) === geo.has);
}

/**
 * Every index entry of the kind (or of `base`, in its order) that the caller sees and the event, has_events and
 * upcoming filters keep.
 */
async function filteredCollection(kind: LinkedKind, ctx: RequestContext<LinkedListParams>, userId: number | null,
  base?: LinkedIndexEntry[]): Promise<LinkedIndexEntry[]> {
  const p = ctx.params;
  const statuses = p.status;
  // With `event`, only that event's venue or organizers (at most 10) are read, not the collection.
  const linked = p.event !== undefined ? await linkedOf(kind, p.event) : null;
  const ids = linked && new Set(linked.map((e) => e.id));
  const all = base ? base.filter((e) => !ids || ids.has(e.id)) : linked ?? await queryCollection(kind);
  let entries = all.filter((e) => listVisible(ctx.caller, userId, statuses, e));

  if (typeof p.has_events === 'boolean') entries = entries.filter((e) => (e.linked > 0) === p.has_events);
  if (p.only_with_upcoming === true) {
    const now = nowUtcWall();
    const visible = (e: { status: string; author: number }) => listVisible(ctx.caller, userId, undefined, e);
    entries = await filterAsync(entries, 16, (e) => hasLinkedEventFrom(kind, e.id, now, visible));
  }

  return entries;
}

/**
 * The normalised query rest_url echoes (reference §5.1: page, per_page, event, has_events, status). We also
 * echo only_with_upcoming and search, so that next_rest_url pages through the same list.
 */
function echoLinked(ctx: RequestContext<LinkedListParams>): URLSearchParams {
  const p = ctx.params;
  return echoQuery(p.page, [
    ['per_page', p.per_page], ['event', p.event], ['has_events', p.has_events],
    ['only_with_upcoming', p.only_with_upcoming === true ? 'true' : undefined], ['status', p.status], ['search', p.search],
    ['geoloc', asSent(ctx.raw.geoloc)], ['geoloc_lat', asSent(ctx.raw.geoloc_lat)], ['geoloc_lng', asSent(ctx.raw.geoloc_lng)],
    ['geoloc_radius', asSent(ctx.raw.geoloc_radius)], ['geoloc_unit', asSent(ctx.raw.geoloc_unit)],
    ['translation_language', p.translation_language],
  ]);
}
