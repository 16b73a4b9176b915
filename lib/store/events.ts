/**
 * The events meta item (the years and duration buckets events have) and the entries of the byStart index
 * (lib/store/README.md "Why these keys"); lib/store/event-sources.ts reads the index.
 */
import { utcWallOf } from '../time/wall.js';
import { table } from './client.js';
import { eventsMetaKey } from './keys.js';
import { getItem, type Item } from './records.js';
import { perRequest } from './scope.js';
import type { TransactItem } from './types.js';

export type { EventIndexEntry } from './entries.js';
import type { EventIndexEntry } from './entries.js';

export interface EventsMeta {
  years: number[];
  /** Duration buckets (⌈log2(hours)⌉) that stored events have had. */
  buckets: number[];
  /** Upper bound, in hours, of every event's duration (2^max bucket). */
  maxDurationHours: number;
}

/** Years and buckets this process has seen stored; the meta item never loses members. */
const seen = { years: new Set<number>(), durs: new Set<number>() };

/** The events meta item: years with events and duration buckets (one strongly consistent GetItem). */
export const readMeta = (): Promise<EventsMeta> => perRequest('events-meta', readMetaItem);

async function readMetaItem(): Promise<EventsMeta> {
  const item = await getItem(eventsMetaKey(), true);
  const years = [...((item?.years as Set<number> | undefined) ?? [])].sort((a, b) => a - b);
  const buckets = [...((item?.durs as Set<number> | undefined) ?? [])];
  years.forEach((y) => seen.years.add(y));
  buckets.forEach((d) => seen.durs.add(d));
  return { years, buckets, maxDurationHours: buckets.length ? 2 ** Math.max(...buckets) : 0 };
}

export const durationBucket = (startUtc: string, endUtc: string): number => {
  const hours = Math.ceil((toUtcMs(endUtc) - toUtcMs(startUtc)) / 3_600_000);
  return Math.ceil(Math.log2(Math.max(hours, 1)));
};

/**
 * The update of the events meta item (years with events, duration buckets) to join an event write's
 * transaction, or null when it already holds them (so most writes don't contend on this one item).
 * ADD of set members is idempotent, so concurrent writers cannot lose each other's values.
 */
export function eventsMetaUpdate(startUtc: string, endUtc: string): TransactItem[] {
  const year = Number(startUtc.slice(0, 4));
  const bucket = durationBucket(startUtc, endUtc);
  if (seen.years.has(year) && seen.durs.has(bucket)) return [];
  return [{
    Update: {
      TableName: table(),
      Key: eventsMetaKey(),
      UpdateExpression: 'ADD years :y, durs :d',
      ExpressionAttributeValues: { ':y': new Set([year]), ':d': new Set([bucket]) },
    },
  }];
}

/** Records that a write including eventsMetaUpdate succeeded. */
export function eventsMetaStored(startUtc: string, endUtc: string): void {
  seen.years.add(Number(startUtc.slice(0, 4)));
  seen.durs.add(durationBucket(startUtc, endUtc));
}

/** UTC walls ("yyyy-MM-dd HH:mm:ss") to epoch milliseconds and back. */
export const toUtcMs = (wall: string): number => Date.parse(`${wall.replace(' ', 'T')}Z`);
export const fromUtcMs = (ms: number): string => utcWallOf(new Date(ms));

export const toIndexEntry = (item: Item): EventIndexEntry => ({
  id: item.id as number,
  startUtc: String(item.GSI2SK).split('#')[0]!,
  endUtc: item.endUtc as string,
  status: item.status as string,
  author: item.author as number,
  featured: item.featured as boolean | undefined,
  venue: item.venue as number | undefined,
  organizers: item.organizers as number[] | undefined,
  categories: item.categories as number[] | undefined,
  tags: item.tags as number[] | undefined,
});
