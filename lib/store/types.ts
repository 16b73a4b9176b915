/** Types shared by the store's modules (kept apart so that no two modules import each other). */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Language } from '../model/language.js';
import type { PostStatus } from '../model/status.js';
import type { PostKind } from './keys.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export type Key = { PK: string; SK: string };

/** The facts of an event that lists filter on and its relationship items, counters and index entries carry. */
export interface LinkFacts {
  id: number;
  startUtc: string;
  endUtc: string;
  status: string;
  author: number;
  featured: boolean;
  hidden: boolean;
  venue?: number;
  organizers: number[];
  categories: number[];
  tags: number[];
  pw?: string;
  /** The geohash of its venue's coordinates when the venue has some (lib/geo/cells.ts): the event's geo cells. */
  gh?: string;
  /** An occurrence's series (contract §13): it is listed in the series' partition and counts towards no counter. */
  series?: number;
  /** An occurrence whose text is its series': searches find it through the series (lib/events/series-words.ts). */
  inh?: boolean;
  /** An occurrence that set fields of its own: a feed shows it apart from its series' rule (lib/events/feed.ts). */
  edited?: boolean;
  /** The event has tickets (its own or, for an occurrence, its series'; contract §19): it is in the TICKETED source. */
  ticketed?: boolean;
}

/** What every post record (event, venue, organizer) stores; the kinds add their own fields. */
export type PostRecord<Kind extends PostKind, Text> = {
  PK: string;
  SK: string;
  kind: Kind;
  id: number;
  /** Version for optimistic locking (lib/http/etag.ts builds the ETag from it). */
  v: number;
  author: number;
  status: PostStatus;
  slug: string;
  /** Slug and status to restore when a trashed record comes back. */
  slugBeforeTrash?: string;
  statusBeforeTrash?: PostStatus;
  /** Translatable text per language (contract §8). */
  tr: Partial<Record<Language, Text>>;
  /** The first language written: the fallback of every other language. */
  lang0: Language;
  dateUtc: string;
  modifiedUtc: string;
};
