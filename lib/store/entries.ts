/**
 * Index entries of events: the small items, sorted by UTC start then id, that lists read instead of records
 * (relationship items, the featured partition, span items; lib/store/README.md "Links"). Each carries the facts
 * that list filters and visibility need.
 */
import { eventStartSortKey } from './keys.js';
import type { Item } from './records.js';
import type { LinkFacts } from './types.js';

/** What a list knows of an event before reading its record. */
export interface EventIndexEntry {
  id: number;
  startUtc: string;
  endUtc: string;
  status: string;
  author: number;
  featured?: boolean;
  venue?: number;
  organizers?: number[];
  categories?: number[];
  tags?: number[];
  /** Only relationship items carry hidden events; the byStart index never does. */
  hidden?: boolean;
  /** An occurrence's series (entry items only: the byStart index does not carry it). */
  series?: number;
  /** An occurrence whose text is its series' (entry items only). */
  inh?: boolean;
  /** An occurrence that set fields of its own (entry items only). */
  edited?: boolean;
  /** Its venue's geohash (entry items only: the byStart index does not carry it). */
  gh?: string;
  /** The event has tickets (entry items only: the byStart index does not carry it). */
  ticketed?: boolean;
}

/** An entry item of an event under `pk`, sorted by start, with the facts lists filter on. */
export function entryItem(pk: string, e: LinkFacts): Item {
  return {
    PK: pk,
    SK: eventStartSortKey(e.startUtc, e.id),
    id: e.id, endUtc: e.endUtc, status: e.status, author: e.author, featured: e.featured, hidden: e.hidden || undefined,
    venue: e.venue, organizers: e.organizers, categories: e.categories, tags: e.tags, pw: e.pw ? true : undefined,
    series: e.series, inh: e.inh || undefined, edited: e.edited || undefined, gh: e.gh, ticketed: e.ticketed || undefined,
  };
}

/** The entry an entry item holds. */
export const entryOfItem = (item: Item): EventIndexEntry => ({
  id: item.id as number, startUtc: String(item.SK).split('#')[0]!, endUtc: item.endUtc as string,
  status: item.status as string, author: item.author as number, featured: item.featured as boolean | undefined,
  venue: item.venue as number | undefined, organizers: (item.organizers as number[] | undefined) ?? [],
  categories: (item.categories as number[] | undefined) ?? [], tags: (item.tags as number[] | undefined) ?? [],
  hidden: item.hidden === true, series: item.series as number | undefined,
  inh: item.inh === true || undefined, edited: item.edited === true || undefined, ticketed: item.ticketed === true,
  ...(typeof item.gh === 'string' ? { gh: item.gh } : {}),
});

/** Start order, ties by id. */
export const byStart = (a: EventIndexEntry, b: EventIndexEntry): number =>
  (a.startUtc === b.startUtc ? a.id - b.id : a.startUtc < b.startUtc ? -1 : 1);
