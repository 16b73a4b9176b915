/**
 * Where a list of events can be read from, in start order, and counted (lib/store/README.md "Event counts"): every
 * listed event (the byStart index, one partition per UTC year), the events of one venue, organizer, category or tag
 * (its relationship partition), the featured events, and the events holding a search word (lib/search/source.ts).
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Bound } from '../time/wall.js';
import { byStart, entryOfItem, type EventIndexEntry } from './entries.js';
import { readMeta, toIndexEntry, type EventsMeta } from './events.js';
import {
  authorPartition, eventYearPartition, FEATURED_PARTITION, geoPartition, NOGEO_PARTITION, relPartition, seriesSpanPartition, TICKETED_PARTITION,
} from './keys.js';
import { queryAll, type Item } from './records.js';
import { seriesPartition } from './series.js';

export type LinkKind = 'venue' | 'organizer' | 'category' | 'tag';

/** One Query of a source: items in start order, each holding one entry or (word buckets) several. */
export interface SourceQuery {
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>;
  entries: (item: Item) => EventIndexEntry[];
  /** How many items to ask for when `need` more entries are wanted. */
  limit: (need: number) => number;
}

export interface EventSource {
  /** Names its count items: `PK = C#<counts>`. */
  counts: string;
  /** Prefix of its count attributes ('' or, for words, '<language>:'). */
  prefix: string;
  /** The Queries, in start order, of its entries whose UTC start lies in [from, to]. */
  queries(meta: EventsMeta, from: string, to: string): SourceQuery[];
  /** Which of these entries (long events read from the span partitions) the source holds. */
  holds(entries: EventIndexEntry[]): Promise<EventIndexEntry[]>;
  /** When the source keeps its own span entries: its long events of a duration tier with start in [from, to]. */
  longFrom?(tier: number, from: string, to: string): Promise<EventIndexEntry[]>;
  /** Whether its entries carry every list fact (links, featured), so filters can be checked on them. */
  factual: boolean;
  /** A source with counts of its own layout: its events of `statuses` starting on the UTC days `firstDay`…`lastDay`. */
  sumDays?(firstDay: string, lastDay: string, statuses: readonly string[]): Promise<number>;
  /**
   * A source with a read of its own: its entries with start in [lo, hi] that `accept` takes, in start order, until `need`
   * (`statuses`: the only ones `accept` takes, when known).
   */
  readFrom?(lo: Bound, hi: Bound, need: number, accept: (e: EventIndexEntry) => boolean, statuses?: readonly string[]): Promise<EventIndexEntry[]>;
}

const perEntry = (need: number): number => Math.min(1000, Math.ceil(need * 1.25) + 5);

/** Every listed event: the byStart index, one partition per UTC year that has events. */
export const allEvents: EventSource = {
  counts: 'EVENTS',
  prefix: '',
  factual: true,
  queries: (meta, from, to) => meta.years
    .filter((y) => y >= Number(from.slice(0, 4)) && y <= Number(to.slice(0, 4)))
    .map((year) => ({
      input: {
        IndexName: 'byStart',
        KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': eventYearPartition(year), ':from': from, ':to': `${to}#~` },
      },
      entries: (item) => [toIndexEntry(item)],
      limit: perEntry,
    })),
  holds: async (entries) => entries,
};

/** The events of one partition of entry items (relationship items, featured entries). */
function entryPartition(pk: string, holds: (e: EventIndexEntry) => boolean, prefix = ''): EventSource {
  return {
    counts: pk,
    prefix,
    factual: true,
    queries: (_meta, from, to) => [{
      input: { KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to', ExpressionAttributeValues: { ':pk': pk, ':from': from, ':to': `${to}#~` } },
      entries: (item) => {
        const e = entryOfItem(item);
        return holds(e) ? [e] : [];
      },
      limit: perEntry,
    }],
    holds: async (entries) => entries.filter(holds),
  };
}

const ids = (v: number[] | number | undefined): number[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** The events linked to one venue, organizer, category or tag. */
export const linkSource = (kind: LinkKind, id: number): EventSource => entryPartition(relPartition(kind, id), (e) => ids(
  kind === 'venue' ? e.venue : kind === 'organizer' ? e.organizers : kind === 'category' ? e.categories : e.tags,
).includes(id));

/** The listed events of one author (what authors and contributors see of their own beyond published events). */
export const authorSource = (author: number): EventSource => entryPartition(authorPartition(author), (e) => e.author === author);

/** The occurrences of one series (contract §13). */
export const seriesSource = (id: number): EventSource => withSeriesSpans(entryPartition(seriesPartition(id), (e) => e.series === id), id,
  (e) => e.series === id);

/** The occurrences of one series that have its text (a search that the series' text matches lists these). */
export const inheritedSource = (id: number): EventSource =>
  withSeriesSpans(entryPartition(seriesPartition(id), (e) => e.series === id && e.inh === true, 'i'), id, (e) => e.series === id && e.inh === true);

/** A series' long occurrences come from its own span entries, not from the whole calendar's (lib/store/event-counts.ts). */
function withSeriesSpans(source: EventSource, id: number, holds: (e: EventIndexEntry) => boolean): EventSource {
  return {
    ...source,
    longFrom: async (tier, from, to) => (await queryAll({ KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': seriesSpanPartition(tier, id), ':from': from, ':to': `${to}#~` } })).map(entryOfItem).filter(holds),
  };
}

/** The featured events (listed ones only: hidden events have no entries). */
export const featuredSource: EventSource = entryPartition(FEATURED_PARTITION, (e) => e.featured === true);

/** The listed events whose venue's geohash starts with `cell` ('' : every event whose venue has coordinates). */
export const geoSource = (cell: string): EventSource => entryPartition(geoPartition(cell), (e) => e.gh?.startsWith(cell) === true);

/** The listed events whose venue has no coordinates, or that have no venue (`geoloc=false`). */
export const noGeoSource: EventSource = entryPartition(NOGEO_PARTITION, (e) => e.gh === undefined);
/** The events with tickets (contract §19; listed ones only). */
export const ticketedSource: EventSource = entryPartition(TICKETED_PARTITION, (e) => e.ticketed === true);

/** Every entry of a source with start in [from, to] (sort-key strings, either side open), in start order. */
export async function readSource(source: EventSource, range: { startFrom?: string; startTo?: string }): Promise<EventIndexEntry[]> {
  const from = range.startFrom ?? '0000';
  const to = range.startTo ?? '9999';
  if (from > to) return [];
  if (source.readFrom) {
    return source.readFrom({ utc: from, inclusive: true }, { utc: to.length === 4 ? '9999-12-31 23:59:59' : to, inclusive: true }, Infinity, () => true);
  }
  const meta = await readMeta();
  const parts = await Promise.all(source.queries(meta, from, to).map(async (q) => (await queryAll(q.input)).flatMap(q.entries)));
  return parts.flat().sort(byStart);
}
