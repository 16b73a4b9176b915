/**
 * Recurring series (contract §13; lib/store/README.md "Recurring series"). A series is one event record holding RFC 5545
 * lines (`rec`); its occurrences are event records of their own (`series`, `orig`), materialised up to the horizon, so
 * every list, filter, search and count reads them as it reads any event. An occurrence holds a copy of its series'
 * fields, except those it set itself (`own`), which every series write keeps: `materialise` is the one place that
 * decides what an occurrence is, and `regenerate` brings a series' occurrences to what its record says, idempotently,
 * in batches of transactions, so a crashed regeneration is finished by running it again.
 */
import { randomUUID } from 'node:crypto';
import { config } from '../config.js';
import { invalidParam } from '../http/errors.js';
import { ParamError } from '../model/errors.js';
import { table } from '../store/client.js';
import { foldCounters } from '../store/counters.js';
import { eventsMetaUpdate, eventsMetaStored, toUtcMs } from '../store/events.js';
import { IdPool } from '../store/ids.js';
import { postKey } from '../store/keys.js';
import { mergeOneAttributeWrites, rewriteItem, transact } from '../store/kit.js';
import { entryTransactItems } from '../store/links.js';
import { batchGet, getPost, queryAll } from '../store/records.js';
import { BUSY_MS, busyValue, clearBusy, markBusy, seriesIndexDelete, seriesIndexPut, seriesPartition } from '../store/series.js';
import type { TransactItem } from '../store/types.js';
import { timeLeft } from '../store/scope.js';
import { utcToWall, wallToUtc, type Wall } from '../time/format.js';
import { utcWallOf } from '../time/wall.js';
import { eventFacts, indexKeys, isEvent, isSeries, type EventItem } from './record.js';
import { expand, parseRecurrenceParam, recurrenceLines, storedLines } from './recurrence.js';
import { textTerms } from './index-state.js';
import { planWords, type WordPlan } from './words.js';
import { isOwner, settleSeriesCounts } from './series-counts.js';
import { eraseEventTickets, occurrencesWithTickets } from '../tickets/erase.js';
import { moveSplitReservations } from '../tickets/split.js';
import { MAX_TERMS } from '../store/words.js';
import { changeLogActions, changesIn, noted } from '../store/changes.js';

// ------------------------------------------------------------------------------------------------ what an occurrence is

/**
 * The most occurrence × search-term pairs a series is indexed with occurrence by occurrence (a bucket write per pair,
 * about 40 transactions); larger series are found through their own word entries instead.
 */
export const WORDS_PER_OCCURRENCE_LIMIT = 4000;

/** Fields of a series record that its occurrences never take from it. */
const NOT_INHERITED = new Set(['PK', 'SK', 'id', 'v', 'slug', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'rec', 'gone', 'busy', 'recEndUtc',
  'ws', 'wu', 'slugBeforeTrash', 'statusBeforeTrash', 'series', 'orig', 'own', 'sameDay', 'cnt', 'linked', 'kids',
  'tk', 'tkc']);
/** Record fields that move together when an occurrence sets its own dates. */
const DATE_FIELDS = ['start', 'end', 'startUtc', 'endUtc', 'tz', 'allDay'] as const;

/** The record fields a write parameter sets ("tr" fields per language: `tr.<lang>.<field>`; "dates" for the date set). */
const OWN_FIELDS: Record<string, string> = {
  status: 'status', author: 'author', date: 'dateUtc', date_utc: 'dateUtc', start_date: 'dates', end_date: 'dates', timezone: 'dates',
  all_day: 'dates', image: 'image', cost: 'cost', website: 'website', show_map: 'showMap', show_map_link: 'showMapLink',
  hide_from_listings: 'hidden', sticky: 'sticky', featured: 'featured', categories: 'categories', tags: 'tags', venue: 'venue',
  organizer: 'organizers', password: 'pw',
};

/** The fields a write to an occurrence sets, added to those it had set before (contract §13). */
export function ownFields(before: string[] | undefined, sent: Record<string, unknown>, lang: string): string[] {
  const own = new Set(before ?? []);
  for (const [name, value] of Object.entries(sent)) {
    if (value === undefined) continue;
    if (name === 'title' || name === 'description' || name === 'excerpt') own.add(`tr.${lang}.${name}`);
    else if (OWN_FIELDS[name]) own.add(OWN_FIELDS[name]!);
  }
  return [...own].sort();
}

const wallMs = (wall: Wall): number => toUtcMs(wall);

/**
 * The occurrence of `series` scheduled at `orig` (a wall in the series' zone), with id `id`, keeping what `prev` (the
 * stored occurrence, if any) set itself. Its version is the next of `prev`'s.
 */
export function materialise(series: EventItem, orig: Wall, id: number, prev: EventItem | null, sameDay: boolean): EventItem {
  const own = prev?.own ?? [];
  const occurrence: EventItem = { ...series };
  // The same object, written field by field: the series' fields less those an occurrence does not inherit.
  const item: Record<string, unknown> = occurrence;
  for (const k of Object.keys(item)) if (NOT_INHERITED.has(k)) delete item[k];
  const before: Record<string, unknown> = prev ?? {};
  const tr = JSON.parse(JSON.stringify(series.tr)) as Record<string, Record<string, string | undefined>>;
  for (const key of own) {
    if (key.startsWith('tr.')) {
      const [, lang, field] = key.split('.') as [string, string, string];
      const value = (prev!.tr as Record<string, Record<string, string | undefined>>)[lang]?.[field];
      tr[lang] = { ...(tr[lang] ?? {}) };
      if (value === undefined) delete tr[lang]![field];
      else tr[lang]![field] = value;
    } else if (key === 'dates') {
      for (const f of DATE_FIELDS) item[f] = prev![f];
    } else if (before[key] === undefined) delete item[key];
    else item[key] = before[key];
  }
  item.tr = tr;
  if (!own.includes('dates')) {
    const start = orig;
    const end = utcWallOf(new Date(wallMs(orig) + wallMs(series.end) - wallMs(series.start)));
    Object.assign(item, { start, end, startUtc: wallToUtc(start, series.tz), endUtc: wallToUtc(end, series.tz) });
  }
  Object.assign(item, postKey(id), { kind: 'event', id, v: (prev?.v ?? 0) + 1, slug: series.slug, series: series.id, orig });
  if (own.length) item.own = own;
  if (sameDay) item.sameDay = true;
  if (prev?.ws !== undefined) Object.assign(item, { ws: prev.ws, ...(prev.wu ? { wu: true } : {}) });
  // An occurrence's own tickets (contract §19) are its own, not its series'.
  if (prev?.tk !== undefined) Object.assign(item, { tk: prev.tk, tkc: prev.tkc });
  indexKeys(occurrence);
  return occurrence;
}

/** Whether two versions of an occurrence differ in anything but their version, modification time and index notes. */
const same = (a: EventItem, b: EventItem): boolean => {
  const strip = ({ v: _v, modifiedUtc: _m, ws: _w, wu: _x, ...rest }: EventItem) => rest;
  return canonical(strip(a)) === canonical(strip(b));
};

/** JSON with object keys sorted at every level (stored items come back in any key order). */
const canonical = (value: unknown): string => JSON.stringify(value, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v)
  && !(v instanceof Set) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));

// ------------------------------------------------------------------------------------------------ the schedule

/** The last wall (in `tz`) occurrences are written up to: the horizon's days ahead of today. */
export function horizonEnd(tz: string, now = new Date()): Wall {
  const days = config().recurrenceHorizonDays;
  return `${utcToWall(utcWallOf(new Date(now.getTime() + days * 86_400_000)), tz).slice(0, 10)} 23:59:59`;
}

/** The original starts of a series, each with its matching key "YYYY-MM-DD#n" (the n-th start of that day). */
function schedule(series: EventItem, now = new Date()): { starts: { orig: Wall; key: string; sameDay: boolean }[]; through: Wall; open: boolean } {
  const through = horizonEnd(series.tz, now);
  const { starts, open } = expand(storedLines(series.rec), { start: series.start, tz: series.tz, allDay: series.allDay }, through);
  const gone = new Set(series.gone ?? []);
  return { starts: keyed(starts).filter((s) => !gone.has(s.key)), through, open };
}

function keyed(origs: Wall[]): { orig: Wall; key: string; sameDay: boolean }[] {
  const perDay = new Map<string, number>();
  for (const o of origs) perDay.set(o.slice(0, 10), (perDay.get(o.slice(0, 10)) ?? 0) + 1);
  const seen = new Map<string, number>();
  return [...origs].sort().map((orig) => {
    const day = orig.slice(0, 10);
    const n = (seen.get(day) ?? 0) + 1;
    seen.set(day, n);
    return { orig, key: `${day}#${n}`, sameDay: perDay.get(day)! > 1 };
  });
}

/**
 * The original starts of the occurrences of a series deleted for good (`gone`, never brought back), as walls in its zone.
 * None when its rule no longer expands within the horizon (as a regeneration would refuse it).
 */
export function goneStarts(series: EventItem): Wall[] {
  if (!series.gone?.length) return [];
  const gone = new Set(series.gone);
  try {
    const { starts } = expand(storedLines(series.rec), { start: series.start, tz: series.tz, allDay: series.allDay }, horizonEnd(series.tz));
    return keyed(starts).filter((s) => gone.has(s.key)).map((s) => s.orig);
  } catch (e) {
    if (e instanceof ParamError) return [];
    throw e;
  }
}

/** The matching key of a stored occurrence among its series' stored occurrences. */
export const occurrenceKey = (o: EventItem, all: EventItem[]): string => {
  const day = o.orig!.slice(0, 10);
  const sameDay = all.filter((x) => x.orig!.slice(0, 10) === day).map((x) => x.orig!).sort();
  return `${day}#${sameDay.indexOf(o.orig!) + 1}`;
};

/**
 * Checks a series record before its write commits (a rejected write stores nothing): its lines from what the write
 * sent (the add-on's object form translated), and that they yield at most MAX_OCCURRENCES within the horizon.
 */
export function applyRecurrence(item: EventItem, raw: unknown): void {
  try {
    if (raw !== undefined) {
      const lines = recurrenceLines(parseRecurrenceParam(raw), { start: item.start, tz: item.tz, allDay: item.allDay });
      if (lines.length) item.rec = lines.map((l) => l.text);
      else delete item.rec;
      if (lines.length && !lines.some((l) => l.kind === 'RRULE' || l.kind === 'RDATE')) {
        throw new ParamError('recurrence needs an RRULE or RDATE line (EXDATE alone repeats nothing)');
      }
    }
    if (isSeries(item)) {
      const plan = schedule(item);
      const occurrences = plan.starts.length;
      const last = plan.starts.at(-1)!.orig;
      item.recEndUtc = plan.open ? '9999-12-31 23:59:59'
        : wallToUtc(utcWallOf(new Date(wallMs(last) + wallMs(item.end) - wallMs(item.start))), item.tz);
      // Indexed occurrence by occurrence while that stays small; else through the series (lib/events/series-words.ts).
      const terms = textTerms(item)?.all.size ?? MAX_TERMS;
      if (occurrences * terms > WORDS_PER_OCCURRENCE_LIMIT) item.wx = true;
      else delete item.wx;
    } else {
      delete item.wx;
      delete item.recEndUtc;
    }
  } catch (e) {
    if (e instanceof ParamError) throw invalidParam('recurrence', e.message);
    throw e;
  }
  indexKeys(item);
}

// ------------------------------------------------------------------------------------------------ writing occurrences

/** The stored occurrences of a series (strongly consistent: a regeneration must see every earlier one's work). */
export async function storedOccurrences(seriesId: number): Promise<EventItem[]> {
  const entries = await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': seriesPartition(seriesId) },
    ConsistentRead: true, ProjectionExpression: 'id' });
  const items = await batchGet(entries.map((e) => postKey(Number(e.id))), undefined, true);
  return items.filter(isEvent).filter((e) => e.series === seriesId);
}

/** One occurrence's change: its record's own action with its index items, and its search-index plan. */
interface Change {
  items: TransactItem[];
  words: WordPlan;
  /** The UTC months ("yyyy-mm") of the occurrence before and after. */
  months: string[];
}

async function changeOf(prev: EventItem | null, next: EventItem | null): Promise<Change> {
  const index = entryTransactItems(prev && eventFacts(prev), next && eventFacts(next));
  const words = await planWords(prev, next, 90 - index.length);
  const record = words.record(next);
  const own: TransactItem = !prev
    ? noted({ Put: { TableName: table(), Item: record!, ConditionExpression: 'attribute_not_exists(PK)' } }, null, record!)
    : !record ? noted({ Delete: { TableName: table(), Key: postKey(prev.id), ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'v' },
      ExpressionAttributeValues: { ':v': prev.v } } }, prev, null)
      : rewriteItem(postKey(prev.id), prev, record, prev.v);
  const months = [...new Set([prev, next].flatMap((e) => (e ? [e.startUtc.slice(0, 7)] : [])))];
  return { items: [own, ...index, ...words.items], words, months };
}

/** A transaction's items, with counter updates and index-bucket writes of one item merged; null when they cannot be. */
const packed = (items: TransactItem[]): TransactItem[] | null => mergeOneAttributeWrites(foldCounters(items));

/** An occurrence changed elsewhere while a regeneration ran: it reads everything again. */
class Moved extends Error {}

/** How many transactions of one regeneration run at once. */
const PARALLEL = 4;

/**
 * Commits changes in as few transactions as they fit in. Changes are grouped by the UTC month they leave and enter:
 * count items are per month and index buckets per day, so groups of different months share no item and run side by
 * side (PARALLEL at a time); changes that move across months go last, one transaction after another. A failed
 * condition throws Moved.
 */
async function commitChanges(changes: Change[]): Promise<void> {
  const groups = new Map<string, Change[]>();
  const crossing: Change[] = [];
  for (const c of changes) {
    if (c.months.length > 1) crossing.push(c);
    else groups.set(c.months[0]!, [...(groups.get(c.months[0]!) ?? []), c]);
  }
  const queue = [...groups.values()];
  await Promise.all(Array.from({ length: Math.min(PARALLEL, queue.length) }, async () => {
    for (let g = queue.shift(); g; g = queue.shift()) await commitInOrder(g);
  }));
  await commitInOrder(crossing);
}

async function commitInOrder(changes: Change[]): Promise<void> {
  const run = async (batch: Change[], items: TransactItem[]) => {
    const write = async () => {
      const reasons = await transact(items);
      if (reasons) throw new Moved();
    };
    // Each change's search-index plan wraps the commit (its follow-up work, when the terms did not fit).
    await batch.reduce<() => Promise<void>>((inner, c) => () => c.words.commit(inner), write)();
  };
  let batch: Change[] = [];
  let items: TransactItem[] = [];
  for (const c of changes) {
    const next = packed([...items, ...c.items]);
    if (next && next.length + changeLogActions(changesIn(next).length) <= 100) {
      batch.push(c);
      items = next;
      continue;
    }
    if (batch.length) await run(batch, items);
    batch = [c];
    items = packed(c.items) ?? c.items;
  }
  if (batch.length) await run(batch, items);
}

/** The events meta item must know every year and duration an occurrence has (one update, idempotent). */
async function noteYears(occurrences: EventItem[]): Promise<void> {
  const pending = occurrences.flatMap((o) => eventsMetaUpdate(o.startUtc, o.endUtc).length ? [o] : []);
  if (!pending.length) return;
  const years = new Set(pending.map((o) => Number(o.startUtc.slice(0, 4))));
  const updates = pending.map((o) => eventsMetaUpdate(o.startUtc, o.endUtc)[0]!);
  const durs = new Set(updates.flatMap((u) => [...(u.Update!.ExpressionAttributeValues![':d'] as Set<number>)]));
  const first = updates[0]!;
  const reasons = await transact([{ Update: { ...first.Update!, ExpressionAttributeValues: { ':y': years, ':d': durs } } }]);
  if (reasons) throw new Moved();
  for (const o of pending) eventsMetaStored(o.startUtc, o.endUtc);
}

/**
 * Brings the stored occurrences of a series to what its record says: those whose original date (day and rank in the day)
 * survives keep their id and own fields and take the record's new values; new dates get new occurrences; the rest are
 * deleted. A series record that is gone or no longer a series keeps none. Idempotent; with
 * `adopt`, occurrences of another series (a split's later part) are matched too and move over.
 */
export async function regenerate(seriesId: number, ids: IdPool, adopt: Adopt = async () => []): Promise<Regenerated | null> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await regenerateOnce(seriesId, ids, adopt);
    } catch (e) {
      if (!(e instanceof Moved) || attempt >= 8) throw e;
    }
  }
}

/** Occurrences of another series that a regeneration takes over (read afresh on each attempt). */
type Adopt = () => Promise<EventItem[]>;

/** How far a regeneration wrote a series, and the occurrences it left. */
interface Regenerated {
  through: Wall;
  open: boolean;
  /** The occurrences it left that set their own status or links (lib/events/series-counts.ts). */
  owners: number[];
}

async function regenerateOnce(seriesId: number, ids: IdPool, adopt: Adopt): Promise<Regenerated | null> {
  const record = await getPost(seriesId, true);
  const series = isEvent(record) && isSeries(record) ? record : null;
  const stored = [...await storedOccurrences(seriesId), ...await adopt()];
  const plan = series ? schedule(series) : null;
  const byKey = new Map(stored.map((o) => [occurrenceKey(o, stored), o]));
  const wanted = plan?.starts ?? [];
  ids.restart();
  const fresh = await ids.take('post', wanted.filter((s) => !byKey.has(s.key)).length);
  const next: EventItem[] = [];
  const changes: Promise<Change>[] = [];
  for (const s of wanted) {
    const prev = byKey.get(s.key) ?? null;
    byKey.delete(s.key);
    const occurrence = materialise(series!, s.orig, prev?.id ?? fresh.shift()!, prev, s.sameDay);
    next.push(occurrence);
    if (!prev || !same(prev, occurrence)) changes.push(changeOf(prev, { ...occurrence, modifiedUtc: series!.modifiedUtc }));
  }
  // Contract §19: an occurrence with attendees that the change would delete stays, an exception, while the series is one;
  // those deleted take their tickets and attendees with them (erased first, so that a retry finds them still to do).
  const left = [...byKey.values()];
  const { attended, ticketed } = await occurrencesWithTickets(seriesId, left);
  const kept = series ? left.filter((o) => attended.has(o.id)) : [];
  for (const o of left) {
    if (kept.includes(o)) continue;
    if (ticketed.has(o.id)) await eraseEventTickets(o.id);
    changes.push(changeOf(o, null));
  }
  await noteYears(next);
  await commitChanges(await Promise.all(changes));
  return plan ? { through: plan.through, open: plan.open, owners: [...next, ...kept].filter(isOwner).map((o) => o.id) } : null;
}

// ------------------------------------------------------------------------------------------------ a series write

/** A series write's hold on its series: set in the record's own transaction, released when its occurrences are done. */
export interface Hold {
  token: string;
  value: string;
  /** The registry item for the record's transaction. */
  item: TransactItem;
}

export function hold(id: number): Hold {
  const token = randomUUID();
  // Held until the request's own end at most: once it is gone, readers stop waiting and the work can be taken over.
  const value = busyValue(token, Date.now() + Math.min(BUSY_MS, timeLeft()));
  return { token, value, item: markBusy(id, value) };
}

/**
 * After a series record's write committed (with `hold`): regenerates its occurrences, then releases the hold and keeps
 * the series index in the same transaction. A series deleted for good loses every occurrence so.
 */
export async function finishSeries(id: number, h: Hold, ids = new IdPool(), adopt?: Adopt): Promise<void> {
  // An event deleted for good (a series, a single event or an occurrence that had tickets or attendees): its tickets and
  // attendees go before the hold is released (contract §19); its occurrences' go as the regeneration deletes them.
  if (!isEvent(await getPost(id, true))) await eraseEventTickets(id);
  const done = await regenerate(id, ids, adopt);
  const record = await getPost(id, true);
  // A split series' copies of its tickets: its occurrences' reservations follow them (contract §19).
  if (isEvent(record) && record.tks?.length) await moveSplitReservations(id, async () => (await storedOccurrences(id)).map((o) => o.id));
  // What the series counts through its occurrences' own links (unless a later writer holds it now: it settles them).
  if (!isEvent(record)) await settleSeriesCounts(id, [], null);
  else if (record.busy === h.token) await settleSeriesCounts(id, done?.owners ?? [], h.token);
  const release: TransactItem[] = [clearBusy(id, h.value)];
  if (isEvent(record) && record.busy === h.token) {
    release.unshift({ Update: { TableName: table(), Key: postKey(id), UpdateExpression: 'REMOVE busy', ConditionExpression: 'busy = :t',
      ExpressionAttributeValues: { ':t': h.token } } });
  }
  release.push(done ? seriesIndexPut(id, done.through, done.open) : seriesIndexDelete(id));
  // A later writer took the series over (its own hold replaced this one): it finishes and releases.
  await transact(release);
}

/** The series record's fields that start a regeneration's hold. */
export const holding = (item: EventItem, h: Hold): EventItem => ({ ...item, busy: h.token });

