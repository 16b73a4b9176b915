/** Key builders for every item type; lib/store/README.md documents them. */
import { createHash } from 'node:crypto';
export type PostKind = 'event' | 'venue' | 'organizer';
export type Taxonomy = 'category' | 'tag';

export const pad = (id: number): string => String(id).padStart(10, '0');

export const postKey = (id: number) => ({ PK: `POST#${id}`, SK: 'POST' });
export const termKey = (id: number) => ({ PK: `TERM#${id}`, SK: 'TERM' });
export const counterKey = (name: 'post' | 'term' | 'user' | 'change' | 'ticket' | 'attendee' | 'import') => ({ PK: 'COUNTER', SK: name });
export const slugKey = (kind: PostKind | Taxonomy, slug: string) => ({ PK: `SLUG#${kind}#${slug}`, SK: 'SLUG' });
/** A token subject can be longer than a key may be (2,048 bytes): long ones are keyed by their SHA-256. */
export const userKey = (sub: string) => ({
  PK: Buffer.byteLength(sub) <= 512 ? `USER#${sub}` : `USERH#${createHash('sha256').update(sub).digest('hex')}`, SK: 'USER',
});
/** The once-item of a create sent with `ref` (lib/store/create-once.ts). */
export const onceKey = (ref: string) => ({ PK: `ONCE#${ref}`, SK: 'ONCE' });
export const userIdKey = (id: number) => ({ PK: `USERID#${id}`, SK: 'USERID' });
export const eventsMetaKey = () => ({ PK: 'META', SK: 'EVENTS' });

/** Change log entries (lib/store/changes.ts): blocks of CHANGE_BLOCK sequence numbers, sorted by number. */
export const CHANGE_BLOCK = 100_000;
export const changeKey = (seq: number) => ({ PK: `CHG#${Math.floor(seq / CHANGE_BLOCK)}`, SK: String(seq).padStart(12, '0') });

/** bySlug index partition of a record. */
export const slugIndexKey = (kind: PostKind | Taxonomy, slug: string) => `${kind}#${slug}`;
/** byStart index: yearly partitions of events by UTC start. */
export const eventYearPartition = (year: number) => `EVENTS#${year}`;
export const eventStartSortKey = (startUtc: string, id: number) => `${startUtc}#${pad(id)}`;

/** Relationship partition of a record's events (lib/store/README.md "Links"). */
export const relPartition = (kind: 'venue' | 'organizer' | 'category' | 'tag', id: number): string => `REL#${kind}#${id}`;
/** The span entries of one series' long occurrences, by tier (lib/store/event-counts.ts). */
export const seriesSpanPartition = (tier: number, series: number): string => `SS#${tier}#${series}`;
/** The listed events of one author, sorted by start like a relationship partition. */
export const authorPartition = (author: number): string => `AUTHOR#${author}`;
/** The featured events, sorted by start like a relationship partition: `featured=true` lists read only these. */
export const FEATURED_PARTITION = 'FEATURED';
/** The listed events whose venue lies in a geohash cell (lib/geo/cells.ts); `GEO#` alone: every event with coordinates. */
export const geoPartition = (cell: string): string => `GEO#${cell}`;
/** The listed events whose venue has no coordinates, or that have no venue (`geoloc=false`). */
export const NOGEO_PARTITION = 'NOGEO';
/** The events with tickets (contract §19), sorted by start like a relationship partition: `ticketed=true` lists read only these. */
export const TICKETED_PARTITION = 'TICKETED';
/** Count items of an event source (lib/store/event-counts.ts): one per UTC month of the start. */
export const countKey = (source: string, month: string) => ({ PK: `C#${source}`, SK: month });
