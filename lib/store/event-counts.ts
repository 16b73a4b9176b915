/**
 * Aggregates that keep event list totals exact without reading every event of a long window
 * (lib/store/README.md "Event counts"). Both are written in the event's own transaction, from its list facts:
 *
 * - **count items** `PK = EVCOUNT`, `SK = D#<utc day>` and `M#<utc month>`: one number per status, the events
 *   (not hidden from listings) whose UTC start falls on that day / in that month.
 * - **span items** `PK = SPAN#<t>`, `SK = <utc start>#<id>`: events longer than 2^SHORT_BUCKET hours, by tier
 *   t = ⌈b / 2⌉ of their duration bucket b = ⌈log2(hours)⌉ (at most 4^t hours long), so every event of tier t
 *   still running at an instant X started after X − 4^t hours: "events in the window that end after its end"
 *   reads only events that can.
 *
 * A window total is then: day and month counts for the whole days the window covers, exact index reads for
 * the partial days at its edges, minus the events that start inside but end after the window.
 */
import { UTCDateMini } from '@date-fns/utc/date/mini';
import { addDays, addMonths } from 'date-fns';
import { utcWallOf, within, type Bound } from '../time/wall.js';
import { table } from './client.js';
import { counterAdd } from './counters.js';
import { durationBucket, fromUtcMs, queryEventWindow, toIndexEntry, toUtcMs, type EventIndexEntry, type EventsMeta } from './events.js';
import { eventStartSortKey, eventYearPartition } from './keys.js';
import type { LinkFacts } from './types.js';
import type { TransactItem } from './types.js';
import { queryAll, queryUntil } from './records.js';

export const COUNT_PARTITION = 'EVCOUNT';
/** Events up to 2^5 = 32 hours long are found near an instant by the byStart index alone. */
export const SHORT_BUCKET = 5;

/** Span tiers pair duration buckets, so a window end reads a few span partitions (each at most twice as far back). */
export const spanTier = (bucket: number): number => Math.ceil(bucket / 2);
export const spanPartition = (tier: number): string => `SPAN#${tier}`;
const dayKey = (utc: string) => `D#${utc.slice(0, 10)}`;
const monthKey = (utc: string) => `M#${utc.slice(0, 7)}`;

const counted = (e: LinkFacts | null): e is LinkFacts => e !== null && !e.hidden;

/** The count-item updates and span-item puts/deletes that take an event from `prev` to `next` (null: none). */
export function eventCountItems(prev: LinkFacts | null, next: LinkFacts | null): TransactItem[] {
  const deltas = new Map<string, Map<string, number>>();
  const add = (e: LinkFacts | null, d: number) => {
    if (!counted(e)) return;
    for (const sk of [dayKey(e.startUtc), monthKey(e.startUtc)]) {
      const byStatus = deltas.get(sk) ?? new Map<string, number>();
      byStatus.set(e.status, (byStatus.get(e.status) ?? 0) + d);
      deltas.set(sk, byStatus);
    }
  };
  add(prev, -1);
  add(next, 1);
  const items: TransactItem[] = [];
  for (const [sk, byStatus] of deltas) {
    const moved = [...byStatus].filter(([, d]) => d !== 0);
    if (moved.length) items.push(counterAdd({ PK: COUNT_PARTITION, SK: sk }, Object.fromEntries(moved)));
  }
  return [...items, ...spanItems(prev, next)];
}

function spanOf(e: LinkFacts | null): { PK: string; SK: string; endUtc: string; status: string } | null {
  if (!counted(e)) return null;
  const bucket = durationBucket(e.startUtc, e.endUtc);
  if (bucket <= SHORT_BUCKET) return null;
  return { PK: spanPartition(spanTier(bucket)), SK: eventStartSortKey(e.startUtc, e.id), endUtc: e.endUtc, status: e.status };
}

function spanItems(prev: LinkFacts | null, next: LinkFacts | null): TransactItem[] {
  const before = spanOf(prev);
  const after = spanOf(next);
  const sameKey = before && after && before.PK === after.PK && before.SK === after.SK;
  const items: TransactItem[] = [];
  if (before && !sameKey) items.push({ Delete: { TableName: table(), Key: { PK: before.PK, SK: before.SK } } });
  if (after && !(sameKey && before!.endUtc === after.endUtc && before!.status === after.status)) {
    items.push({ Put: { TableName: table(), Item: { ...after, id: next!.id } } });
  }
  return items;
}

// ------------------------------------------------------------------------------------------------ reading


/** Calendar arithmetic on UTC days ("yyyy-mm-dd", or a wall starting with one) and months ("yyyy-mm"). */
const shiftDay = (day: string, n: number) => utcWallOf(addDays(new UTCDateMini(`${day.slice(0, 10)}T00:00:00Z`), n)).slice(0, 10);
const shiftMonth = (month: string, n: number) => utcWallOf(addMonths(new UTCDateMini(`${month}-01T00:00:00Z`), n)).slice(0, 7);

async function sumCounts(from: string, to: string, statuses: readonly string[]): Promise<number> {
  if (from > to) return 0;
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': COUNT_PARTITION, ':from': from, ':to': to },
  });
  return items.reduce((sum, item) => sum + statuses.reduce((s, st) => s + ((item[st] as number | undefined) ?? 0), 0), 0);
}

/** Events counted on the whole UTC days `firstDay`…`lastDay` ("yyyy-mm-dd"): month items where a month is whole. */
function sumDays(firstDay: string, lastDay: string, statuses: readonly string[]): Promise<number>[] {
  const firstMonth = firstDay.endsWith('-01') ? firstDay.slice(0, 7) : shiftMonth(firstDay.slice(0, 7), 1);
  const lastMonth = shiftDay(lastDay, 1).endsWith('-01') ? lastDay.slice(0, 7) : shiftMonth(lastDay.slice(0, 7), -1);
  if (firstMonth > lastMonth) return [sumCounts(`D#${firstDay}`, `D#${lastDay}`, statuses)];
  return [
    sumCounts(`D#${firstDay}`, `D#${shiftDay(`${firstMonth}-01`, -1)}`, statuses),
    sumCounts(`M#${firstMonth}`, `M#${lastMonth}`, statuses),
    sumCounts(`D#${shiftMonth(lastMonth, 1)}-01`, `D#${lastDay}`, statuses),
  ];
}

async function countExactly(lo: Bound, hi: Bound, accept: (e: EventIndexEntry) => boolean): Promise<number> {
  if (lo.utc > hi.utc || (lo.utc === hi.utc && !(lo.inclusive && hi.inclusive))) return 0;
  const entries = await queryEventWindow({ startFrom: lo.utc, startTo: hi.utc });
  return entries.filter((e) => within(e.startUtc, lo, hi) && accept(e)).length;
}

/**
 * The number of listed events (not hidden) with a status in `statuses` whose UTC start lies between `lo` and
 * `hi`: counts for whole days and months, exact reads for the partial days at either end.
 */
export async function countStarts(lo: Bound, hi: Bound, statuses: readonly string[]): Promise<number> {
  if (statuses.length === 0 || lo.utc > hi.utc) return 0;
  const accept = (e: EventIndexEntry) => statuses.includes(e.status);
  const firstDay = lo.inclusive && lo.utc.endsWith(' 00:00:00') ? lo.utc.slice(0, 10) : shiftDay(lo.utc, 1);
  const lastDay = hi.inclusive && hi.utc.endsWith(' 23:59:59') ? hi.utc.slice(0, 10) : shiftDay(hi.utc, -1);
  if (firstDay > lastDay) return countExactly(lo, hi, accept);
  const parts = await Promise.all([
    countExactly(lo, { utc: `${firstDay} 00:00:00`, inclusive: false }, accept),
    countExactly({ utc: `${lastDay} 23:59:59`, inclusive: false }, hi, accept),
    ...sumDays(firstDay, lastDay, statuses),
  ]);
  return parts.reduce((a, b) => a + b, 0);
}

/**
 * The listed events with a status in `statuses`, starting between `lo` and `hi`, that end after `end`
 * (or at it, when `end` is exclusive): the short ones from the byStart index near `end`, the long ones from
 * their span partitions, each read only as far back as an event of that length can start.
 */
export async function countRunningPast(meta: EventsMeta, end: Bound, lo: Bound, hi: Bound, statuses: readonly string[]):
  Promise<number> {
  if (statuses.length === 0) return 0;
  const endMs = toUtcMs(end.utc);
  const past = (endUtc: string) => (end.inclusive ? endUtc > end.utc : endUtc >= end.utc);
  const keep = (startUtc: string, endUtc: string, status: string) => within(startUtc, lo, hi) && past(endUtc) && statuses.includes(status);
  const tiers = [...new Set(meta.buckets.filter((b) => b > SHORT_BUCKET).map(spanTier))];
  const shortFrom = fromUtcMs(endMs - 2 ** SHORT_BUCKET * 3_600_000);
  const [short, ...spans] = await Promise.all([
    queryEventWindow({ startFrom: shortFrom, startTo: end.utc }),
    ...tiers.map((t) => queryAll({
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': spanPartition(t), ':from': fromUtcMs(endMs - 4 ** t * 3_600_000), ':to': `${end.utc}#~` },
    })),
  ]);
  return short.filter((e) => durationBucket(e.startUtc, e.endUtc) <= SHORT_BUCKET && keep(e.startUtc, e.endUtc, e.status)).length
    + spans.flat().filter((s) => keep(String(s.SK).split('#')[0]!, s.endUtc as string, s.status as string)).length;
}

/**
 * Index entries from `lo` on (UTC start order) that `accept` takes, until `need` are found or `hi` is passed;
 * reads in pages sized to what is still needed, so page n of a list reads about n × per_page entries.
 */
export async function readEventsFrom(meta: EventsMeta, lo: Bound, hi: Bound, need: number,
  accept: (e: EventIndexEntry) => boolean): Promise<EventIndexEntry[]> {
  const found: EventIndexEntry[] = [];
  if (need <= 0 || lo.utc > hi.utc) return found;
  const years = meta.years.filter((y) => y >= Number(lo.utc.slice(0, 4)) && y <= Number(hi.utc.slice(0, 4)));
  for (const year of years) {
    await queryUntil({
      IndexName: 'byStart',
      KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': eventYearPartition(year), ':from': lo.utc, ':to': `${hi.utc}#~` },
    }, need, toIndexEntry, (e) => within(e.startUtc, lo, hi) && accept(e), found);
    if (found.length >= need) break;
  }
  return found;
}
