/**
 * The stored event record (lib/store/README.md) and what is derived from it alone: its text in a language, the
 * facts its relationship items come from, its index keys, its dates in the site zone. Kept apart from the write
 * path (item.ts), which pulls in date parsing, HTML sanitising and the planning of linked records: the functions
 * that only rewrite events they unlink a record from (venues, organizers, categories, tags) import this module.
 */
import { type Language, type Translated, translated } from '../model/language.js';
import { eventStartSortKey, eventYearPartition } from '../store/keys.js';
import type { LinkFacts } from '../store/links.js';
import type { Item } from '../store/records.js';
import type { PostRecord } from '../store/types.js';
import type { Wall } from '../time/format.js';

export interface EventText {
  title?: string;
  description?: string;
  excerpt?: string;
}

export type EventItem = PostRecord<'event', EventText> & {
  start: Wall;
  end: Wall;
  startUtc: Wall;
  endUtc: Wall;
  tz: string;
  allDay: boolean;
  cost: string[];
  /** Absent when never set (reads as the permalink); "" when cleared. */
  website?: string;
  showMap: boolean;
  showMapLink: boolean;
  hidden: boolean;
  sticky: boolean;
  featured: boolean;
  image?: string;
  venue?: number;
  /** The venue's geohash as this event was last indexed with it (lib/geo/cells.ts). */
  gh?: string;
  organizers: number[];
  categories: number[];
  tags: number[];
  /** scrypt hash of the read password. */
  pw?: string;
  /** The word index holds this version's words, by these rules (lib/events/words.ts). */
  ws?: number;
  /** Held whole by the word index (its words would pass the size of one of its items): every search checks its record. */
  wu?: boolean;
  /** A series (contract §13): its RFC 5545 lines, canonical; absent on single events and occurrences. */
  rec?: string[];
  /** A series: the original dates ("YYYY-MM-DD#n") of occurrences deleted for good, which regeneration never brings back. */
  gone?: string[];
  /** A series whose occurrences are being rewritten: the writer's token (lib/store/series.ts). */
  busy?: string;
  /**
   * A series (and its occurrences, which copy it) whose occurrences are too many × its terms to index one by one: those
   * with the series' text are found through the series' own word entries (lib/events/series-words.ts).
   */
  wx?: boolean;
  /** A series: the UTC end of its last occurrence (`9999-12-31 23:59:59` while its rule runs on past the horizon). */
  recEndUtc?: string;
  /** An occurrence: its series' id, its scheduled wall-clock start, and the fields it set itself (record field names). */
  series?: number;
  orig?: Wall;
  own?: string[];
  /** An occurrence sharing its original day with another of its series (its page URL then names the time). */
  sameDay?: boolean;
  /**
   * Tickets (contract §19, lib/tickets/): the sorted providers and cost texts of the record's own tickets (`tk`, `tkc`) and,
   * on a series and the occurrences that copy it, of the series' tickets (`tks`, `tksc`).
   */
  tk?: string[];
  tkc?: string[];
  tks?: string[];
  tksc?: string[];
  GSI1PK?: string;
  GSI1SK?: string;
  GSI2PK?: string;
  GSI2SK?: string;
};

/** A series record: never listed itself; its occurrences are (contract §13). */
export const isSeries = (e: EventItem): boolean => (e.rec?.length ?? 0) > 0;
export const isOccurrence = (e: EventItem): boolean => e.series !== undefined;
/**
 * An occurrence that search finds through its series: the series is indexed as a whole (`wx`) and the occurrence's text
 * (title, description, excerpt in every language) is the series'.
 */
export const inheritsText = (e: EventItem): boolean => e.series !== undefined && e.wx === true && !(e.own ?? []).some((f) => f.startsWith('tr.'));

/** Whether a stored item is an event (items come from DynamoDB untyped). */
export const isEvent = (item: Item | null | undefined): item is Item & EventItem => item?.kind === 'event';


/** The text of one field in a language, falling back to the record's first language (contract §8). */
export const textOf = (item: Translated<EventText>, lang: Language, field: keyof EventText): string => translated(item, lang, field);

/** The providers of the tickets offered on an event (its own and its series'), sorted; [] when it has none. */
export const ticketProviders = (e: EventItem): string[] => [...new Set([...(e.tk ?? []), ...(e.tks ?? [])])].sort();

/** The facts relationship items and counters are derived from. */
export const eventFacts = (e: EventItem): LinkFacts => ({
  id: e.id, startUtc: e.startUtc, endUtc: e.endUtc, status: e.status, author: e.author, featured: e.featured,
  hidden: e.hidden || isSeries(e), venue: e.venue, organizers: e.organizers, categories: e.categories, tags: e.tags, pw: e.pw,
  ...(e.venue !== undefined && e.gh !== undefined ? { gh: e.gh } : {}),
  ...(ticketProviders(e).length ? { ticketed: true } : {}),
  ...(e.series !== undefined ? { series: e.series, ...(inheritsText(e) ? { inh: true } : {}), ...(e.own?.length ? { edited: true } : {}) } : {}),
});

/** The byStart index entry: absent for events hidden from listings, so lists never read them. */
export function indexKeys(item: EventItem): void {
  if (item.hidden || isSeries(item)) {
    delete item.GSI2PK;
    delete item.GSI2SK;
  } else {
    item.GSI2PK = eventYearPartition(Number(item.startUtc.slice(0, 4)));
    item.GSI2SK = eventStartSortKey(item.startUtc, item.id);
  }
}
