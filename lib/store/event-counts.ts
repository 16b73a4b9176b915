/**
 * Aggregates that keep event list totals exact without reading every event of a long window
 * (lib/store/README.md "Event counts"). Both are written in the event's own transaction, from its list facts:
 *
 * - **count items** `PK = C#<source>`, `SK = <utc month>` for every source an event is in (all listed events, each
 *   record it links to, the featured events; lib/store/event-sources.ts): per status (one letter, countAttribute),
 *   the events (not hidden from listings) whose UTC start falls in that month (`p`) and on each of its days (`p07`).
 * - **span items** `PK = SPAN#<t>`, `SK = <utc start>#<id>`: events longer than 2^SHORT_BUCKET hours, by tier
 *   t = ⌈b / 2⌉ of their duration bucket b = ⌈log2(hours)⌉ (at most 4^t hours long), so every event of tier t
 *   still running at an instant X started after X − 4^t hours: "events in the window that end after its end"
 *   reads only events that can. They carry the event's list facts, so each source picks its own.
 *
 * A window total is then: the count items of the months the window covers (whole months by their totals, the
 * edge months by their days), exact reads for the partial days at its edges, minus the events that start inside
 * but end after the window.
 */
import { UTCDateMini } from '@date-fns/utc/date/mini';
import { addDays } from 'date-fns';
import { utcWallOf, within, type Bound } from '../time/wall.js';
import { table } from './client.js';
import { counterAdd } from './counters.js';
import { byStart, entryItem, entryOfItem, type EventIndexEntry } from './entries.js';
import type { EventSource } from './event-sources.js';
import { durationBucket, fromUtcMs, toUtcMs, type EventsMeta } from './events.js';
import { cellsOf } from '../geo/cells.js';
import {
  authorPartition, countKey, FEATURED_PARTITION, geoPartition, NOGEO_PARTITION, relPartition, seriesSpanPartition, TICKETED_PARTITION,
} from './keys.js';
import type { LinkFacts } from './types.js';
import type { TransactItem } from './types.js';
import { queryAll, queryEntries } from './records.js';
import { perRequest } from './scope.js';
import { seriesPartition } from './series.js';

/** Events up to 2^5 = 32 hours long are found near an instant by the byStart index alone. */
export const SHORT_BUCKET = 5;

/** Span tiers pair duration buckets, so a window end reads a few span partitions (each at most twice as far back). */
export const spanTier = (bucket: number): number => Math.ceil(bucket / 2);
export const spanPartition = (tier: number): string => `SPAN#${tier}`;

const counted = (e: LinkFacts | null): e is LinkFacts => e !== null && !e.hidden;

/** The count-attribute prefix of a series' occurrences that have its text. */
export const INHERITED = 'i';

/** One letter per status, so that a month item of a busy source (up to 31 days × 6 statuses) stays small to read. */
const STATUS_CODES: Record<string, string> = { publish: 'p', future: 'f', draft: 'd', pending: 'n', private: 'v', trash: 't' };
/** The one-letter code of a status in count attributes. */
export const statusCode = (status: string): string => STATUS_CODES[status] ?? `(${status})`;
/** The count attribute of a status in a month (`p`), or on one of its days (`p07`), after the source's prefix. */
export const countAttribute = (prefix: string, status: string, day?: string): string =>
  `${prefix}${statusCode(status)}${day ?? ''}`;

/** The geo partitions a listed event is in: its venue's cells, or the events without coordinates (lib/geo/cells.ts). */
export const geoPartitionsOf = (e: LinkFacts): string[] => (e.gh !== undefined ? cellsOf(e.gh).map(geoPartition) : [NOGEO_PARTITION]);

/**
 * The sources (count partitions) a listed event is in: every event, its links, the featured and the ticketed events,
 * its venue's geo cells or the events without coordinates.
 */
function sourcesOf(e: LinkFacts): string[] {
  return [
    'EVENTS',
    ...(e.venue !== undefined ? [relPartition('venue', e.venue)] : []),
    ...e.organizers.map((id) => relPartition('organizer', id)),
    ...e.categories.map((id) => relPartition('category', id)),
    ...e.tags.map((id) => relPartition('tag', id)),
    ...(e.featured ? [FEATURED_PARTITION] : []),
    ...geoPartitionsOf(e),
    ...(e.ticketed ? [TICKETED_PARTITION] : []),
    authorPartition(e.author),
    ...(e.series !== undefined ? [seriesPartition(e.series)] : []),
  ];
}

/**
 * The count-item `ADD`s that move `deltas` (source → start → +1/−1) of one status each: one update per source and
 * month, zero sums dropped. `prefix` names the attributes (words count per language).
 */
export function countUpdates(moves: { source: string; startUtc: string; status: string; delta: number; prefix?: string }[]): TransactItem[] {
  const byItem = new Map<string, { source: string; month: string; deltas: Map<string, number> }>();
  for (const m of moves) {
    const month = m.startUtc.slice(0, 7);
    const key = `${m.source}\u0000${month}`;
    const entry = byItem.get(key) ?? { source: m.source, month, deltas: new Map<string, number>() };
    byItem.set(key, entry);
    for (const attr of [countAttribute(m.prefix ?? '', m.status), countAttribute(m.prefix ?? '', m.status, m.startUtc.slice(8, 10))]) {
      entry.deltas.set(attr, (entry.deltas.get(attr) ?? 0) + m.delta);
    }
  }
  return [...byItem.values()].flatMap(({ source, month, deltas }) => {
    const moved = [...deltas].filter(([, d]) => d !== 0);
    return moved.length ? [counterAdd(countKey(source, month), Object.fromEntries(moved))] : [];
  });
}

/** The count-item updates and span-item puts/deletes that take an event from `prev` to `next` (null: none). */
export function eventCountItems(prev: LinkFacts | null, next: LinkFacts | null): TransactItem[] {
  const moves = [
    ...(counted(prev) ? sourcesOf(prev).map((source) => ({ source, startUtc: prev.startUtc, status: prev.status, delta: -1 })) : []),
    ...(counted(next) ? sourcesOf(next).map((source) => ({ source, startUtc: next.startUtc, status: next.status, delta: 1 })) : []),
    // Occurrences with their series' text are also counted apart (prefix i): a search counts them through the series.
    ...(counted(prev) && prev.inh ? [{ source: seriesPartition(prev.series!), prefix: INHERITED, startUtc: prev.startUtc, status: prev.status, delta: -1 }] : []),
    ...(counted(next) && next.inh ? [{ source: seriesPartition(next.series!), prefix: INHERITED, startUtc: next.startUtc, status: next.status, delta: 1 }] : []),
  ];
  return [...countUpdates(moves), ...spanItems(prev, next)];
}

/** A long event's span entries: its tier's, and an occurrence's also in its series' own (so a series list reads only its own). */
function spansOf(e: LinkFacts | null): ReturnType<typeof entryItem>[] {
  if (!counted(e)) return [];
  const bucket = durationBucket(e.startUtc, e.endUtc);
  if (bucket <= SHORT_BUCKET) return [];
  const tier = spanTier(bucket);
  return [entryItem(spanPartition(tier), e), ...(e.series !== undefined ? [entryItem(seriesSpanPartition(tier, e.series), e)] : [])];
}

function spanItems(prev: LinkFacts | null, next: LinkFacts | null): TransactItem[] {
  const keyOf = (i: Record<string, unknown>) => `${String(i.PK)}|${String(i.SK)}`;
  const before = new Map(spansOf(prev).map((i) => [keyOf(i), i]));
  const after = spansOf(next);
  const kept = new Set(after.map(keyOf));
  const items: TransactItem[] = [];
  for (const [key, b] of before) if (!kept.has(key)) items.push({ Delete: { TableName: table(), Key: { PK: String(b.PK), SK: String(b.SK) } } });
  for (const a of after) {
    if (JSON.stringify(before.get(keyOf(a))) !== JSON.stringify(a)) items.push({ Put: { TableName: table(), Item: a } });
  }
  return items;
}

// ------------------------------------------------------------------------------------------------ reading

/** Calendar arithmetic on UTC days ("yyyy-mm-dd", or a wall starting with one). */
const shiftDay = (day: string, n: number) => utcWallOf(addDays(new UTCDateMini(`${day.slice(0, 10)}T00:00:00Z`), n)).slice(0, 10);

/** Events of `source` counted on the whole UTC days `firstDay`…`lastDay`: one Query of its month items. */
async function sumDays(source: EventSource, firstDay: string, lastDay: string, statuses: readonly string[]): Promise<number> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': countKey(source.counts, '').PK, ':from': firstDay.slice(0, 7), ':to': lastDay.slice(0, 7) },
  });
  let sum = 0;
  for (const item of items) {
    const month = String(item.SK);
    const whole = firstDay <= `${month}-01` && shiftDay(lastDay, 1).slice(0, 7) > month;
    for (const status of statuses) {
      const name = countAttribute(source.prefix, status);
      if (whole) {
        sum += (item[name] as number | undefined) ?? 0;
        continue;
      }
      for (const [attr, n] of Object.entries(item)) {
        if (attr.length !== name.length + 2 || !attr.startsWith(name)) continue;
        const day = `${month}-${attr.slice(name.length)}`;
        if (day >= firstDay && day <= lastDay) sum += n as number;
      }
    }
  }
  return sum;
}

/**
 * Entries of `source` from `lo` on (start order) that `accept` takes, until `need` are found or `hi` is passed;
 * reads in pages sized to what is still needed, so page n of a list reads about n × per_page entries.
 */
export async function readEventsFrom(source: EventSource, meta: EventsMeta, lo: Bound, hi: Bound, need: number,
  accept: (e: EventIndexEntry) => boolean, statuses?: readonly string[]): Promise<EventIndexEntry[]> {
  const found: EventIndexEntry[] = [];
  if (need <= 0 || lo.utc > hi.utc) return found;
  if (source.readFrom) return source.readFrom(lo, hi, need, accept, statuses);
  for (const q of source.queries(meta, lo.utc, hi.utc)) {
    await queryEntries(q.input, need, q.limit, q.entries, (e) => within(e.startUtc, lo, hi) && accept(e), found);
    if (found.length >= need) break;
  }
  return found;
}

async function countExactly(source: EventSource, meta: EventsMeta, lo: Bound, hi: Bound, accept: (e: EventIndexEntry) => boolean,
  statuses: readonly string[]): Promise<number> {
  if (lo.utc > hi.utc || (lo.utc === hi.utc && !(lo.inclusive && hi.inclusive))) return 0;
  return (await readEventsFrom(source, meta, lo, hi, Infinity, accept, statuses)).length;
}

/**
 * The number of `source`'s listed events (not hidden) with a status in `statuses` whose UTC start lies between
 * `lo` and `hi`: month items for the whole days, exact reads for the partial days at either end.
 */
export async function countStarts(source: EventSource, meta: EventsMeta, lo: Bound, hi: Bound, statuses: readonly string[]): Promise<number> {
  if (statuses.length === 0 || lo.utc > hi.utc) return 0;
  const accept = (e: EventIndexEntry) => statuses.includes(e.status) && !e.hidden;
  const firstDay = lo.inclusive && lo.utc.endsWith(' 00:00:00') ? lo.utc.slice(0, 10) : shiftDay(lo.utc, 1);
  const lastDay = hi.inclusive && hi.utc.endsWith(' 23:59:59') ? hi.utc.slice(0, 10) : shiftDay(hi.utc, -1);
  if (firstDay > lastDay) return countExactly(source, meta, lo, hi, accept, statuses);
  const parts = await Promise.all([
    countExactly(source, meta, lo, { utc: `${firstDay} 00:00:00`, inclusive: false }, accept, statuses),
    countExactly(source, meta, { utc: `${lastDay} 23:59:59`, inclusive: false }, hi, accept, statuses),
    source.sumDays ? source.sumDays(firstDay, lastDay, statuses) : sumDays(source, firstDay, lastDay, statuses),
  ]);
  return parts.reduce((a, b) => a + b, 0);
}

/**
 * `source`'s listed events with a status in `statuses`, starting between `lo` and `hi`, that end after `end`
 * (or at it, when `end` is exclusive): the short ones from the source near `end`, the long ones from the span
 * partitions, each read only as far back as an event of that length can start.
 */
export async function runningPast(source: EventSource, meta: EventsMeta, end: Bound, lo: Bound, hi: Bound,
  statuses: readonly string[]): Promise<EventIndexEntry[]> {
  if (statuses.length === 0) return [];
  const endMs = toUtcMs(end.utc);
  const past = (endUtc: string) => (end.inclusive ? endUtc > end.utc : endUtc >= end.utc);
  const keep = (e: EventIndexEntry) => within(e.startUtc, lo, hi) && past(e.endUtc) && statuses.includes(e.status) && !e.hidden;
  const tiers = [...new Set(meta.buckets.filter((b) => b > SHORT_BUCKET).map(spanTier))];
  const shortFrom = { utc: fromUtcMs(endMs - 2 ** SHORT_BUCKET * 3_600_000), inclusive: true };
  const [short, ...spans] = await Promise.all([
    readEventsFrom(source, meta, shortFrom, { utc: end.utc, inclusive: true }, Infinity,
      (e) => durationBucket(e.startUtc, e.endUtc) <= SHORT_BUCKET && keep(e), statuses),
    ...tiers.map(async (t) => {
      const from = fromUtcMs(endMs - 4 ** t * 3_600_000);
      if (source.longFrom) return source.longFrom(t, from, end.utc);
      // Every source of one list reads the same span entries near the end (ticketed=false: all events and the ticketed ones).
      const items = await perRequest(`span:${t}:${from}:${end.utc}`, () => queryAll({
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': spanPartition(t), ':from': from, ':to': `${end.utc}#~` },
      }));
      return items.map(entryOfItem);
    }),
  ]);
  const candidates = spans.flat().filter(keep);
  const long = source.longFrom ? candidates : await source.holds(candidates);
  return [...short, ...long].sort(byStart);
}
