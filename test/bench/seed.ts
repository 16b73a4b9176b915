/**
 * Seeds a realistic calendar (test/bench/README.md "What is seeded").
 *
 * Venues, organizers, categories and tags are created through the HTTP API (the product's own create paths).
 * Events are written in bulk: each event is a complete EventItem; every item the store writes for a new event comes
 * from the product's own functions — createItems(withSlug(…)) and eventCreateExtras(item) — and those
 * TransactItems are applied to an accumulator: Puts are batch-written (BatchWriteItem, 25 per call, several in
 * flight), ADD updates are folded per (key, attribute) and applied once at the end, ConditionChecks are dropped.
 * An Update that is not a pure ADD cannot be folded and stops the seeding with a message saying which.
 */
import { BatchWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eventCreateExtras } from '../../lib/events/operations.js';
import { indexState } from '../../lib/events/index-state.js';
import { INDEX_RULES } from '../../lib/events/words.js';
import { indexChanges } from '../../lib/search/changes.js';
import { materialise } from '../../lib/events/series.js';
import { SERIES_WORDS, seriesGoal } from '../../lib/events/series-words.js';
import { eventFacts } from '../../lib/events/record.js';
import { entryTransactItems } from '../../lib/store/links.js';
import { eventsMetaUpdate } from '../../lib/store/events.js';
import { seriesIndexPut } from '../../lib/store/series.js';
import { EMPTY_MANIFEST, inlineIndexItems } from '../../lib/store/words.js';
import { indexKeys, type EventItem } from '../../lib/events/item.js';
import { counterKey, postKey } from '../../lib/store/keys.js';
import { createItems, withSlug } from '../../lib/store/kit.js';
import { cellOf } from '../../lib/geo/cells.js';
import type { TransactItem } from '../../lib/store/types.js';
import { wallToUtc } from '../../lib/time/format.js';
import { zoneOf, type Zone } from '../../lib/time/zones.js';
import { pool, Rng, sleep, Zipf, type KeepAliveClient } from './common.js';

export type Item = Record<string, unknown>;
type Key = { PK: string; SK: string };

// ------------------------------------------------------------------------------------------------ update folding

export type UpdateAction = 'SET' | 'REMOVE' | 'ADD' | 'DELETE';

export interface UpdateClause {
  action: UpdateAction;
  /** Top-level attribute name (placeholders resolved). */
  attribute: string;
  /** The operand: the value of `:x` for ADD/DELETE and `SET a = :x`; undefined for REMOVE. */
  value?: unknown;
}

/** An update expression this benchmark cannot apply. */
export class UnsupportedUpdate extends Error {}

/** Splits on commas outside parentheses. */
const splitTop = (s: string): string[] => {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur);
  return out.map((x) => x.trim()).filter(Boolean);
};

/**
 * Parses an UpdateExpression into clauses, resolving `#name` and `:value` placeholders. Supported: `ADD a :x`,
 * `DELETE a :x`, `REMOVE a`, and `SET a = :x` on top-level attributes; anything else (functions, arithmetic,
 * nested paths) throws UnsupportedUpdate naming the expression.
 */
export function parseUpdateExpression(expression: string, names: Record<string, string> = {}, values: Record<string, unknown> = {}): UpdateClause[] {
  const fail = (why: string) => new UnsupportedUpdate(`cannot apply UpdateExpression "${expression}": ${why}`);
  const name = (token: string): string => {
    const t = token.trim();
    if (/[.[\]]/.test(t)) throw fail(`nested path "${t}"`);
    if (t.startsWith('#')) {
      const n = names[t];
      if (n === undefined) throw fail(`no ExpressionAttributeNames entry for ${t}`);
      return n;
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(t)) throw fail(`"${t}" is not an attribute name`);
    return t;
  };
  const value = (token: string): unknown => {
    const t = token.trim();
    if (!/^:[A-Za-z0-9_]+$/.test(t)) throw fail(`operand "${t}" is not a plain :value`);
    if (!(t in values)) throw fail(`no ExpressionAttributeValues entry for ${t}`);
    return values[t];
  };
  const clauses: UpdateClause[] = [];
  const parts = expression.trim().split(/\b(SET|REMOVE|ADD|DELETE)\b/i);
  if (parts[0]!.trim() !== '') throw fail(`unexpected "${parts[0]!.trim()}" before the first action`);
  for (let i = 1; i < parts.length; i += 2) {
    const action = parts[i]!.toUpperCase() as UpdateAction;
    for (const clause of splitTop(parts[i + 1] ?? '')) {
      if (action === 'REMOVE') {
        clauses.push({ action, attribute: name(clause) });
      } else if (action === 'SET') {
        const m = /^([^=]+)=(.+)$/.exec(clause);
        if (!m) throw fail(`SET clause "${clause}" has no "="`);
        clauses.push({ action, attribute: name(m[1]!), value: value(m[2]!) });
      } else {
        const m = /^(\S+)\s+(\S+)$/.exec(clause);
        if (!m) throw fail(`${action} clause "${clause}" is not "path :value"`);
        clauses.push({ action, attribute: name(m[1]!), value: value(m[2]!) });
      }
    }
  }
  if (!clauses.length) throw fail('no clauses');
  return clauses;
}

const keyId = (k: Key): string => `${k.PK}\u0000${k.SK}`;

/** ADD deltas folded per (item key, attribute): numbers are summed, sets are united. */
export class CounterFold {
  private readonly byKey = new Map<string, { key: Key; attrs: Map<string, number | Set<unknown>>; condition: string | null | undefined }>();

  add(key: Key, attribute: string, delta: unknown, condition?: string): void {
    let entry = this.byKey.get(keyId(key));
    if (!entry) this.byKey.set(keyId(key), (entry = { key: { PK: key.PK, SK: key.SK }, attrs: new Map(), condition: undefined }));
    // A condition is kept only when every folded update of the key had the same placeholder-free one.
    const c = condition && !/[#:]/.test(condition) ? condition : null;
    entry.condition = entry.condition === undefined ? c : entry.condition === c ? c : null;
    const seen = entry.attrs.get(attribute);
    if (typeof delta === 'number') {
      if (seen !== undefined && typeof seen !== 'number') throw new UnsupportedUpdate(`ADD of a number and a set to ${key.PK}/${attribute}`);
      entry.attrs.set(attribute, (seen ?? 0) + delta);
    } else if (delta instanceof Set) {
      if (seen !== undefined && !(seen instanceof Set)) throw new UnsupportedUpdate(`ADD of a set and a number to ${key.PK}/${attribute}`);
      const set = seen ?? new Set<unknown>();
      for (const v of delta) set.add(v);
      entry.attrs.set(attribute, set);
    } else {
      throw new UnsupportedUpdate(`ADD of ${typeof delta} to ${key.PK}/${attribute}: only numbers and sets can be added`);
    }
  }

  get size(): number {
    return this.byKey.size;
  }

  /** The folded updates; zero number deltas are left out (an item whose deltas are all zero is left out). */
  entries(): { key: Key; add: Record<string, number | Set<unknown>>; condition: string | null }[] {
    return [...this.byKey.values()]
      .map((e) => ({
        key: e.key,
        add: Object.fromEntries([...e.attrs].filter(([, v]) => v !== 0)),
        condition: e.condition ?? null,
      }))
      .filter((e) => Object.keys(e.add).length > 0);
  }

  /** The folded value of one attribute (tests, reports). */
  get(key: Key, attribute: string): number | Set<unknown> | undefined {
    return this.byKey.get(keyId(key))?.attrs.get(attribute);
  }
}

/**
 * Applies the TransactItems of one create to the accumulator: returns the items to Put and folds every ADD-only
 * Update into `fold`. ConditionChecks are dropped (the seeder writes consistent data). A Delete, or an Update with
 * SET/REMOVE/DELETE, cannot be folded into bulk writes and throws, naming the item and its expression.
 */
export function foldTransactItems(items: readonly TransactItem[], fold: CounterFold): Item[] {
  const puts: Item[] = [];
  for (const t of items) {
    if (t.Put) {
      puts.push(t.Put.Item as Item);
    } else if (t.Update) {
      const u = t.Update;
      const key = u.Key as Key;
      const expression = u.UpdateExpression ?? '';
      let clauses: UpdateClause[];
      try {
        clauses = parseUpdateExpression(expression, u.ExpressionAttributeNames, u.ExpressionAttributeValues as Record<string, unknown>);
      } catch (e) {
        throw new UnsupportedUpdate(`seed: the Update of ${key.PK}/${key.SK} cannot be folded: ${(e as Error).message}`);
      }
      const other = clauses.find((c) => c.action !== 'ADD');
      if (other) {
        throw new UnsupportedUpdate(
          `seed: the Update of ${key.PK}/${key.SK} ("${expression}") has a ${other.action} clause on "${other.attribute}"; ` +
            'only ADD updates can be folded into bulk writes — teach test/bench/seed.ts (foldTransactItems) how to apply it.',
        );
      }
      for (const c of clauses) fold.add(key, c.attribute, c.value, u.ConditionExpression);
    } else if (t.Delete) {
      const key = t.Delete.Key as Key;
      throw new UnsupportedUpdate(`seed: a create deletes ${key.PK}/${key.SK}; bulk seeding cannot apply deletes — teach test/bench/seed.ts how.`);
    } else if (!t.ConditionCheck) {
      throw new UnsupportedUpdate(`seed: unknown TransactItem ${JSON.stringify(Object.keys(t))}`);
    }
  }
  return puts;
}

// ------------------------------------------------------------------------------------------------ distribution

/** The shape of the seeded calendar; README "What is seeded" describes it. */
export const DISTRIBUTION = {
  status: [['publish', 85], ['draft', 5], ['pending', 3], ['private', 3], ['future', 2], ['trash', 2]] as const,
  /** Duration classes: more than a month (32–90 days), multi-day (2–14 days), else 30 min – 6 h on one day. */
  overMonth: 0.02,
  /** Every event that spans more than one day, including the over-a-month ones. */
  multiDay: 0.1,
  allDay: 0.03,
  hidden: 0.01,
  featured: 0.05,
  sticky: 0.01,
  /** Events with a second language (`de`). */
  translated: 0.1,
  timezones: [
    ['UTC', 20], ['Europe/Berlin', 20], ['America/New_York', 20], ['America/Los_Angeles', 10], ['Europe/London', 10],
    ['Asia/Tokyo', 8], ['Australia/Sydney', 5], ['UTC+5:30', 4], ['UTC-3', 3],
  ] as const,
  /** How many links of each kind an event has (weights), and the Zipf exponent over the records of that kind. */
  venue: { none: 0.1, zipf: 0.8 },
  organizers: { counts: [[0, 20], [1, 60], [2, 15], [3, 5]] as const, zipf: 0.8 },
  categories: { counts: [[0, 10], [1, 50], [2, 30], [3, 10]] as const, zipf: 1.0 },
  tags: { counts: [[0, 30], [1, 25], [2, 25], [3, 12], [4, 8]] as const, zipf: 0.7 },
  /** Starts are uniform over this many years before and after "now". */
  yearsBack: 2.5,
  yearsForward: 2.5,
} as const;

export interface LinkPools {
  venues: number[];
  organizers: number[];
  categories: number[];
  tags: number[];
  /** User ids events are written by. */
  authors: number[];
  /** Venue coordinates (contract §18), by venue id: its events are indexed in its geo cells. */
  coords?: Record<number, { lat: number; lng: number }>;
}

export const EVENT_SLUG_PREFIX = 'bench-event-';
export const eventSlug = (id: number): string => `${EVENT_SLUG_PREFIX}${id}`;

const WORDS = ('jazz night market open air workshop lecture festival tour tasting concert screening reading gala brunch ' +
  'dance theatre exhibition yoga run ride family kids science poetry comedy quiz choir organ piano strings brass ' +
  'garden harbour river old town museum library campus forest winter summer spring autumn late early grand little').split(' ');

const pad2 = (n: number) => String(n).padStart(2, '0');
/** A naive wall clock from epoch ms read in UTC fields: "YYYY-MM-DD HH:MM:SS". */
const wallOf = (ms: number): string => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
};
const utcWallNow = (now: Date) => wallOf(Math.floor(now.getTime() / 1000) * 1000);

const wallMs = (wall: string): number => Date.parse(`${wall.replace(' ', 'T')}Z`);

/**
 * wallToUtc (the product's conversion) made cheap for bulk use: the zone (lib/time/zones.ts zoneOf) is resolved
 * once per name, and its offset taken once per day at noon and applied to walls from 04:00 on (time-zone
 * transitions happen at night); earlier walls go through wallToUtc one by one.
 */
export function makeUtcConverter(): (wall: string, tz: string) => string {
  const zones = new Map<string, Zone>();
  const offsets = new Map<string, number>();
  return (wall, tz) => {
    if (Number(wall.slice(11, 13)) < 4) return wallToUtc(wall, tz);
    const key = `${wall.slice(0, 10)}|${tz}`;
    let offset = offsets.get(key);
    if (offset === undefined) {
      let zone = zones.get(tz);
      if (!zone) zones.set(tz, (zone = zoneOf(tz)));
      const noon = wallMs(`${wall.slice(0, 10)} 12:00:00`);
      const guess = noon - zone.offset(noon) * 60_000;
      offsets.set(key, (offset = zone.offset(guess) * 60_000));
    }
    return wallOf(wallMs(wall) - offset);
  };
}

const DAY = 86_400_000;

/** What kind of duration an event got (for the realised distribution). */
export type DurationClass = 'overMonth' | 'multiDay' | 'sameDay';

export interface GeneratedEvent {
  item: EventItem;
  slug: string;
  duration: DurationClass;
}

/** `count` words of the seeded vocabulary. */
export function words(rng: Rng, count: number): string {
  return Array.from({ length: count }, () => rng.pick(WORDS)).join(' ');
}

/** Paragraphs of the seeded vocabulary, between `minChars` and about `maxChars` characters. */
export function paragraphText(rng: Rng, minChars: number, maxChars: number): string {
  const target = rng.range(minChars, maxChars);
  const paras: string[] = [];
  let len = 0;
  while (len < target) {
    const p = `<p>${words(rng, rng.range(12, 40))}.</p>`;
    paras.push(p);
    len += p.length;
  }
  return paras.join('\n');
}

/**
 * Generates events one by one, deterministically for a seed: complete EventItems (every field of
 * lib/events/item.ts), slug `bench-event-<id>`, start uniformly in [now − 2.5 y, now + 2.5 y].
 */
export class EventGenerator {
  private readonly rng: Rng;
  private readonly zipf: { venue: Zipf; organizer: Zipf; category: Zipf; tag: Zipf };
  private readonly nowMs: number;
  private readonly nowWall: string;
  private readonly toUtc = makeUtcConverter();

  constructor(private readonly pools: LinkPools, seed: number, now: Date) {
    if (!pools.authors.length) throw new Error('EventGenerator needs at least one author id');
    this.rng = new Rng(seed);
    this.nowMs = now.getTime();
    this.nowWall = utcWallNow(now);
    const z = (n: number, s: number) => new Zipf(Math.max(1, n), s);
    this.zipf = {
      venue: z(pools.venues.length, DISTRIBUTION.venue.zipf),
      organizer: z(pools.organizers.length, DISTRIBUTION.organizers.zipf),
      category: z(pools.categories.length, DISTRIBUTION.categories.zipf),
      tag: z(pools.tags.length, DISTRIBUTION.tags.zipf),
    };
  }

  private links(pool: number[], zipf: Zipf, count: number): number[] {
    if (!pool.length || count === 0) return [];
    return zipf.distinct(this.rng, count).map((rank) => pool[rank]!);
  }

  event(id: number): GeneratedEvent {
    const r = this.rng;
    const D = DISTRIBUTION;
    const status = r.weighted(D.status);
    const tz = r.weighted(D.timezones);
    const allDay = r.chance(D.allDay);

    // Start: a day uniformly in the five years around now, at a quarter hour between 08:00 and 21:45.
    const span = (D.yearsBack + D.yearsForward) * 365.25 * DAY;
    const day = Math.floor((this.nowMs - D.yearsBack * 365.25 * DAY + r.next() * span) / DAY) * DAY;
    const roll = r.next();
    const duration: DurationClass = roll < D.overMonth ? 'overMonth' : roll < D.multiDay ? 'multiDay' : 'sameDay';
    let startMs: number;
    let endMs: number;
    if (allDay) {
      startMs = day;
      const days = duration === 'overMonth' ? r.range(32, 90) : duration === 'multiDay' ? r.range(2, 14) : 1;
      endMs = day + days * DAY - 1000; // 23:59:59 of the last day
    } else {
      startMs = day + r.range(32, 87) * 15 * 60_000;
      if (duration === 'sameDay') {
        const latest = day + DAY - 60_000 - startMs; // end by 23:59 the same day
        endMs = startMs + Math.min(r.range(2, 24) * 15 * 60_000, latest);
      } else {
        const days = duration === 'overMonth' ? r.range(32, 90) : r.range(1, 13);
        endMs = day + days * DAY + r.range(40, 88) * 15 * 60_000;
      }
    }
    const start = wallOf(startMs);
    const end = wallOf(endMs);
    const startUtc = this.toUtc(start, tz);
    const endUtc = this.toUtc(end, tz);

    // Publication date: up to four months before the start, never after now unless scheduled ("future").
    let dateMs = startMs - r.range(1, 120) * DAY - r.int(DAY);
    if (status === 'future') dateMs = this.nowMs + r.range(1, 60) * DAY;
    else if (dateMs > this.nowMs) dateMs = this.nowMs - r.int(30 * DAY);
    const dateUtc = wallOf(Math.floor(dateMs / 1000) * 1000);
    const modifiedUtc = dateMs < this.nowMs && r.chance(0.3) ? wallOf(Math.floor((dateMs + r.next() * (this.nowMs - dateMs)) / 1000) * 1000) : dateUtc;

    const title = `${words(r, r.range(2, 5))} ${id}`.replace(/^./, (c) => c.toUpperCase());
    const description = paragraphText(r, 200, 2000);
    const excerpt = r.chance(0.3) ? `<p>${words(r, r.range(10, 25))}.</p>` : undefined;
    const tr: EventItem['tr'] = { en: { title, description, ...(excerpt ? { excerpt } : {}) } };
    if (r.chance(D.translated)) tr.de = { title: `${title} (de)`, description: paragraphText(r, 200, 1500) };

    const venue = this.pools.venues.length && !r.chance(D.venue.none) ? this.links(this.pools.venues, this.zipf.venue, 1)[0] : undefined;
    const item: EventItem = {
      ...postKey(id),
      kind: 'event',
      id,
      v: 1,
      author: r.pick(this.pools.authors),
      status,
      slug: '',
      tr,
      lang0: 'en',
      dateUtc,
      modifiedUtc: modifiedUtc > this.nowWall ? dateUtc : modifiedUtc,
      start, end, startUtc, endUtc, tz, allDay,
      cost: r.chance(0.4) ? [] : r.chance(0.2) ? ['0'] : r.chance(0.2) ? [String(r.range(5, 20)), String(r.range(21, 60))] : [String(r.range(5, 80))],
      showMap: r.chance(0.7),
      showMapLink: r.chance(0.7),
      hidden: r.chance(D.hidden),
      sticky: r.chance(D.sticky),
      featured: r.chance(D.featured),
      organizers: this.links(this.pools.organizers, this.zipf.organizer, r.weighted(D.organizers.counts)),
      categories: this.links(this.pools.categories, this.zipf.category, r.weighted(D.categories.counts)),
      tags: this.links(this.pools.tags, this.zipf.tag, r.weighted(D.tags.counts)),
    };
    if (venue !== undefined) item.venue = venue;
    const at = venue !== undefined ? this.pools.coords?.[venue] : undefined;
    if (at) item.gh = cellOf(at);
    // Every tenth event has an rsvp ticket (contract §19: its ticketed fact; decided by id, so the random stream is unchanged).
    if (id % 10 === 3) Object.assign(item, { tk: ['rsvp'], tkc: ['0'] });
    if (r.chance(0.2)) item.website = `https://example.org/events/${id}`;
    if (r.chance(0.25)) item.image = `https://images.example.org/${id}.jpg`;
    let slug = eventSlug(id);
    if (status === 'trash') {
      item.slugBeforeTrash = slug;
      item.statusBeforeTrash = 'publish';
      slug = `${slug}__trashed`;
    }
    indexKeys(item);
    return { item, slug, duration };
  }
}

/** Every item the store writes for a new event, as the product builds them (record, slug guard, extras). */
export function eventTransactItems(item: EventItem, slug: string): TransactItem[] {
  const stored = withSlug('event', item, slug);
  return [...createItems('event', stored), ...eventCreateExtras(stored)];
}

// ------------------------------------------------------------------------------------------------ writing

export interface WriteStats {
  calls: number;
  items: number;
  /** Calls repeated for UnprocessedItems or a retryable error. */
  retries: number;
}

const RETRYABLE = /Throttl|ProvisionedThroughputExceeded|RequestLimitExceeded|InternalServerError|ServiceUnavailable|TimeoutError|ECONNRESET|socket hang up/i;

/** One BatchWriteItem of up to 25 puts, retrying UnprocessedItems and transient errors with exponential backoff. */
export async function writeBatch(client: DynamoDBDocumentClient, table: string, items: Item[], stats: WriteStats): Promise<void> {
  let requests = items.map((Item) => ({ PutRequest: { Item } }));
  for (let attempt = 0; requests.length; attempt++) {
    if (attempt > 12) throw new Error(`BatchWriteItem kept returning ${requests.length} unprocessed items`);
    if (attempt > 0) {
      stats.retries++;
      await sleep(Math.min(2000, 25 * 2 ** attempt) * (0.5 + Math.random()));
    }
    try {
      stats.calls++;
      const out = await client.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      requests = (out.UnprocessedItems?.[table] ?? []) as typeof requests;
    } catch (e) {
      if (!RETRYABLE.test(`${(e as Error).name} ${(e as Error).message}`)) throw e;
    }
  }
  stats.items += items.length;
}

/** Pulls batches from `batches` with `concurrency` BatchWriteItem calls in flight. */
export async function writeAll(client: DynamoDBDocumentClient, table: string, batches: Iterator<Item[]>, concurrency: number,
  stats: WriteStats = { calls: 0, items: 0, retries: 0 }): Promise<WriteStats> {
  const worker = async () => {
    for (;;) {
      const next = batches.next();
      if (next.done) return;
      await writeBatch(client, table, next.value, stats);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return stats;
}

/** Yields `items` in chunks of `size`. */
export function* chunks<T>(items: Iterable<T>, size = 25): Generator<T[]> {
  let buf: T[] = [];
  for (const x of items) {
    buf.push(x);
    if (buf.length === size) {
      yield buf;
      buf = [];
    }
  }
  if (buf.length) yield buf;
}

/** Applies the folded ADD updates (UpdateItem, `concurrency` in flight). */
export async function applyCounters(client: DynamoDBDocumentClient, table: string, fold: CounterFold, concurrency = 8): Promise<number> {
  const entries = fold.entries();
  await pool(entries, concurrency, async ({ key, add, condition }) => {
    const attrs = Object.entries(add);
    await client.send(new UpdateCommand({
      TableName: table,
      Key: key,
      UpdateExpression: `ADD ${attrs.map((_, i) => `#a${i} :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(attrs.map(([a], i) => [`#a${i}`, a])),
      ExpressionAttributeValues: Object.fromEntries(attrs.map(([, v], i) => [`:v${i}`, v])),
      ...(condition ? { ConditionExpression: condition } : {}),
    }));
  });
  return entries.length;
}

/** Moves the id counter to at least `value`, so ids the API allocates later never collide with seeded ones. */
export async function raiseCounter(client: DynamoDBDocumentClient, table: string, name: 'post' | 'term' | 'user', value: number): Promise<void> {
  try {
    await client.send(new UpdateCommand({
      TableName: table,
      Key: counterKey(name),
      UpdateExpression: 'SET #n = :v',
      ConditionExpression: 'attribute_not_exists(#n) OR #n < :v',
      ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: { ':v': value },
    }));
  } catch (e) {
    if ((e as Error).name !== 'ConditionalCheckFailedException') throw e;
  }
}

// ------------------------------------------------------------------------------------------------ events

/** What was seeded, as counted while generating (the realised distribution). */
export interface SeedTally {
  events: number;
  status: Record<string, number>;
  duration: Record<DurationClass, number>;
  allDay: number;
  hidden: number;
  featured: number;
  timezones: Record<string, number>;
  withVenue: number;
  /** Events linking each record, whatever their status. */
  perCategory: Record<number, number>;
  perVenue: Record<number, number>;
  perTag: Record<number, number>;
  perOrganizer: Record<number, number>;
}

export const emptyTally = (): SeedTally => ({
  events: 0, status: {}, duration: { overMonth: 0, multiDay: 0, sameDay: 0 }, allDay: 0, hidden: 0, featured: 0,
  timezones: {}, withVenue: 0, perCategory: {}, perVenue: {}, perTag: {}, perOrganizer: {},
});

export function tallyEvent(t: SeedTally, g: GeneratedEvent): void {
  const e = g.item;
  const inc = (o: Record<string | number, number>, k: string | number) => (o[k] = (o[k] ?? 0) + 1);
  t.events++;
  inc(t.status, e.status);
  t.duration[g.duration]++;
  if (e.allDay) t.allDay++;
  if (e.hidden) t.hidden++;
  if (e.featured) t.featured++;
  inc(t.timezones, e.tz);
  if (e.venue !== undefined) {
    t.withVenue++;
    inc(t.perVenue, e.venue);
  }
  e.categories.forEach((c) => inc(t.perCategory, c));
  e.tags.forEach((c) => inc(t.perTag, c));
  e.organizers.forEach((c) => inc(t.perOrganizer, c));
}

export interface SeedEventsOptions {
  client: DynamoDBDocumentClient;
  table: string;
  n: number;
  /** Ids firstId … firstId + n − 1. */
  firstId: number;
  seed: number;
  now: Date;
  pools: LinkPools;
  /** BatchWriteItem calls in flight (default 8). */
  concurrency?: number;
  onProgress?: (done: number, n: number) => void;
  /** Writes the search index too (default true; a few hundred items per day of events). */
  searchIndex?: boolean;
  /**
   * The share of the n events that are occurrences of weekly series of SERIES_LENGTH (contract §13), e.g. 0.2: their series
   * records (ids after the events', not listed) and the series' word index are written too.
   */
  recurring?: number;
}

/** Occurrences per seeded series (weekly). */
export const SERIES_LENGTH = 8;

/**
 * A seeded series and its occurrences, as the product writes them (lib/events/series.ts): the series record from a
 * generated event, SERIES_LENGTH weekly occurrences materialised from it, their index items, and its word-index entries.
 */
export function seriesItems(template: EventItem, seriesId: number, occurrenceIds: number[], words: Map<string, Item>): { puts: TransactItem[];
  occurrences: EventItem[] } {
  const series: EventItem = { ...template, ...postKey(seriesId), id: seriesId, rec: [`RRULE:FREQ=WEEKLY;COUNT=${occurrenceIds.length}`] };
  indexKeys(series);
  const slug = `bench-series-${seriesId}`;
  const puts: TransactItem[] = [...eventTransactItems(series, slug)];
  const stored = withSlug('event', series, slug);
  const occurrences = occurrenceIds.map((id, k) => {
    const orig = wallOf(Date.parse(`${series.start.replace(' ', 'T')}Z`) + k * 7 * DAY);
    const o = materialise(stored, orig, id, null, false);
    puts.push({ Put: { TableName: 'seed', Item: o } }, ...eventsMetaUpdate(o.startUtc, o.endUtc), ...entryTransactItems(null, eventFacts(o)));
    return o;
  });
  for (const t of inlineIndexItems(SERIES_WORDS, seriesId, EMPTY_MANIFEST, seriesGoal(stored).terms, Infinity)!.items) {
    if (t.Put) puts.push(t);
    else if (t.Update) {
      const key = t.Update.Key as { PK: string; SK: string };
      const bucket = words.get(key.PK) ?? { PK: key.PK, SK: key.SK };
      words.set(key.PK, bucket);
      bucket[t.Update.ExpressionAttributeNames!['#e']!] = t.Update.ExpressionAttributeValues![':v'];
    }
  }
  puts.push(seriesIndexPut(seriesId, occurrences.at(-1)!.start, false));
  return { puts, occurrences };
}

export interface SeedEventsResult {
  events: number;
  /** Items put (records, slug guards, relationship items…). */
  items: number;
  batchCalls: number;
  retries: number;
  /** Distinct items whose folded ADD counters were applied at the end. */
  counterUpdates: number;
  /** Items put per event, by item type (PK prefix). */
  itemTypes: Record<string, number>;
  ms: number;
  eventsPerSecond: number;
  itemsPerSecond: number;
  tally: SeedTally;
}

/**
 * The search index of the seeded events (lib/search/), as the product writes it: each event's index changes
 * (lib/search/changes.ts indexChanges, from its indexState) applied to items in memory — postings set, count items
 * added up, span entries put — and written whole once every event is known, since a posting item is shared by the
 * events of a letter and day and bulk writes cannot fold SETs. The records say that the index holds their words (`ws`).
 */
export class WordIndexBuilder {
  private readonly built = new Map<string, Item>();
  unindexed = 0;

  add(item: EventItem): void {
    item.ws = INDEX_RULES;
    const state = indexState(item);
    if (state.unindexed) throw new UnsupportedUpdate(`seed: event ${item.id} has too many words for the index; keep bench texts smaller`);
    if (!state.words) return;
    for (const t of indexChanges(item.id, null, state.words)) applyInMemory(this.built, t);
  }

  *items(): Generator<Item> {
    yield* this.built.values();
  }
}

/** One TransactItem applied to items kept in memory: Puts, and Updates of SET, REMOVE and ADD of numbers. */
export function applyInMemory(items: Map<string, Item>, t: TransactItem): void {
  if (t.Put) {
    const item = t.Put.Item as Item;
    items.set(`${item.PK}|${item.SK}`, { ...item });
    return;
  }
  const u = t.Update;
  if (!u) throw new UnsupportedUpdate(`seed: only Puts and Updates can be applied in memory: ${JSON.stringify(Object.keys(t))}`);
  const key = u.Key as Key;
  const id = `${key.PK}|${key.SK}`;
  const item = items.get(id) ?? { PK: key.PK, SK: key.SK };
  items.set(id, item);
  for (const c of parseUpdateExpression(u.UpdateExpression!, u.ExpressionAttributeNames, u.ExpressionAttributeValues as Record<string, unknown>)) {
    if (c.action === 'SET') item[c.attribute] = c.value;
    else if (c.action === 'REMOVE') delete item[c.attribute];
    else if (c.action === 'ADD' && typeof c.value === 'number') item[c.attribute] = ((item[c.attribute] as number | undefined) ?? 0) + c.value;
    else throw new UnsupportedUpdate(`seed: cannot apply ${c.action} of ${typeof c.value} in memory`);
  }
}

/** Seeds `n` events in bulk (see the file comment). */
export async function seedEvents(o: SeedEventsOptions): Promise<SeedEventsResult> {
  const t0 = performance.now();
  const gen = new EventGenerator(o.pools, o.seed, o.now);
  const fold = new CounterFold();
  const tally = emptyTally();
  const itemTypes: Record<string, number> = {};
  const words = o.searchIndex === false ? null : new WordIndexBuilder();
  const seriesWords = new Map<string, Item>();
  // Every block of SERIES_LENGTH / share events starts with one series of SERIES_LENGTH occurrences.
  const block = o.recurring ? Math.max(SERIES_LENGTH, Math.round(SERIES_LENGTH / o.recurring)) : 0;
  let nextSeriesId = o.firstId + o.n;
  let done = 0;
  const emit = function* (items: TransactItem[]): Generator<Item> {
    for (const put of foldTransactItems(items, fold)) {
      const type = String(put.PK).split('#')[0]!;
      itemTypes[type] = (itemTypes[type] ?? 0) + 1;
      yield put;
    }
  };
  function* puts(): Generator<Item> {
    for (let i = 0; i < o.n; i++) {
      if (block && i % block === 0 && i + SERIES_LENGTH <= o.n) {
        const g = gen.event(o.firstId + i);
        const ids = Array.from({ length: SERIES_LENGTH }, (_, k) => o.firstId + i + k);
        const { puts: items, occurrences } = seriesItems(g.item, nextSeriesId++, ids, seriesWords);
        for (const occ of occurrences) {
          tallyEvent(tally, { ...g, item: occ });
          words?.add(occ);
        }
        yield* emit(items);
        i += SERIES_LENGTH - 1;
        done += SERIES_LENGTH;
        continue;
      }
      const g = gen.event(o.firstId + i);
      tallyEvent(tally, g);
      words?.add(g.item);
      yield* emit(eventTransactItems(g.item, g.slug));
      done++;
      if (o.onProgress && done % 5000 < 1) o.onProgress(done, o.n);
    }
    yield* seriesWords.values();
  }
  const stats = await writeAll(o.client, o.table, chunks(puts(), 25), o.concurrency ?? 8);
  function* indexPuts(): Generator<Item> {
    for (const item of words?.items() ?? []) {
      const type = String(item.PK).split('#')[0]!;
      itemTypes[type] = (itemTypes[type] ?? 0) + 1;
      yield item;
    }
  }
  const indexStats = await writeAll(o.client, o.table, chunks(indexPuts(), 25), o.concurrency ?? 8);
  stats.items += indexStats.items;
  stats.calls += indexStats.calls;
  stats.retries += indexStats.retries;
  const counterUpdates = await applyCounters(o.client, o.table, fold, o.concurrency ?? 8);
  await raiseCounter(o.client, o.table, 'post', nextSeriesId);
  const ms = performance.now() - t0;
  return {
    events: o.n, items: stats.items, batchCalls: stats.calls, retries: stats.retries, counterUpdates, itemTypes, ms,
    eventsPerSecond: o.n / (ms / 1000), itemsPerSecond: stats.items / (ms / 1000), tally,
  };
}

// ------------------------------------------------------------------------------------------------ linked records

export interface LinkedCounts {
  venues: number;
  organizers: number;
  categories: number;
  tags: number;
}

const CITIES = [['Berlin', 'Germany', '10115'], ['Lisboa', 'Portugal', '1100-148'], ['New York', 'United States', '10001'],
  ['London', 'United Kingdom', 'EC1A 1BB'], ['Tokyo', 'Japan', '100-0001'], ['Sydney', 'Australia', '2000'],
  ['Porto', 'Portugal', '4000-322'], ['Hamburg', 'Germany', '20095']] as const;
/** City centres; venues lie within VENUE_SPREAD_KM of theirs. Most venues are in the first city (GEO_HOME_SHARE). */
export const CITY_CENTRES: Record<string, { lat: number; lng: number }> = {
  Berlin: { lat: 52.52, lng: 13.405 }, Lisboa: { lat: 38.7223, lng: -9.1393 }, 'New York': { lat: 40.7128, lng: -74.006 },
  London: { lat: 51.5072, lng: -0.1276 }, Tokyo: { lat: 35.6762, lng: 139.6503 }, Sydney: { lat: -33.8688, lng: 151.2093 },
  Porto: { lat: 41.1579, lng: -8.6291 }, Hamburg: { lat: 53.5511, lng: 9.9937 },
};
const GEO_HOME_SHARE = 0.85;
const VENUE_SPREAD_KM = 12;

/** A point within `km` of `centre` (uniform over the disc), to 6 decimals. */
function around(rng: Rng, centre: { lat: number; lng: number }, km: number): { lat: number; lng: number } {
  const r = km * Math.sqrt(rng.next());
  const a = 2 * Math.PI * rng.next();
  const lat = centre.lat + (r * Math.cos(a)) / 111.2;
  const lng = centre.lng + (r * Math.sin(a)) / (111.2 * Math.cos((centre.lat * Math.PI) / 180));
  return { lat: Math.round(lat * 1e6) / 1e6, lng: Math.round(lng * 1e6) / 1e6 };
}

const CATEGORY_NAMES = ['Music', 'Theatre', 'Film', 'Family', 'Sports', 'Talks', 'Workshops', 'Food', 'Art', 'Community'];

export interface LinkedResult {
  pools: LinkPools;
  ms: number;
  requests: number;
}

/**
 * Creates venues, organizers, categories and tags through the API (POST, `concurrency` in flight), as editors
 * (the tokens' users become the seeded events' authors). The first 10 categories are top level; a quarter of the
 * rest are their children.
 */
export async function createLinkedRecords(http: KeepAliveClient, apiPath: string, tokens: string[], counts: LinkedCounts,
  seed: number, concurrency = 8): Promise<LinkedResult> {
  const t0 = performance.now();
  const rng = new Rng(seed ^ 0x5eed);
  const authors = new Set<number>();
  let requests = 0;
  const post = async (path: string, body: Record<string, unknown>, i: number): Promise<number> => {
    const res = await http.request('POST', `${apiPath}${path}`, { body, headers: { authorization: `Bearer ${tokens[i % tokens.length]}` } });
    requests++;
    if (res.status !== 201) throw new Error(`seed: POST ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
    const json = JSON.parse(res.text) as { id: number; author?: number };
    if (typeof json.author === 'number') authors.add(json.author);
    return json.id;
  };
  const n3 = (i: number) => String(i + 1).padStart(3, '0');
  const range = (n: number, from = 0) => Array.from({ length: Math.max(0, n) }, (_, i) => i + from);
  // Bodies are drawn before anything is sent, so the content does not depend on response order.
  const send = (path: string, bodies: Record<string, unknown>[]) => pool(bodies, concurrency, (b, i) => post(path, b, i));
  // Coordinates from a generator of their own, so the other records' draws stay as they were before venues had them.
  const geo = new Rng(seed ^ 0x6e0);
  const places: { lat: number; lng: number }[] = [];
  const v = await send('/venues', range(counts.venues).map((i) => {
    const drawn = rng.pick(CITIES);
    const [city, country, zip] = geo.chance(GEO_HOME_SHARE) ? CITIES[0] : drawn;
    const at = around(geo, CITY_CENTRES[city]!, city === CITIES[0][0] ? VENUE_SPREAD_KM : 5);
    places.push(at);
    return {
      venue: `Bench Venue ${n3(i)} ${city}`, address: `${rng.range(1, 200)} ${rng.pick(WORDS)} street`, city, country, zip,
      phone: `+1 555 ${String(rng.range(1000, 9999))}`, website: `https://venue-${i + 1}.example.org`,
      description: `<p>${words(rng, 20)}</p>`, show_map: true, geo_lat: at.lat, geo_lng: at.lng,
    };
  }));
  const o = await send('/organizers', range(counts.organizers).map((i) => ({
    organizer: `Bench Organizer ${n3(i)}`, email: `organizer-${i + 1}@example.org`, website: `https://org-${i + 1}.example.org`,
    phone: `+1 555 ${String(rng.range(1000, 9999))}`, description: `<p>${words(rng, 15)}</p>`,
  })));
  const top = Math.min(10, counts.categories);
  const tops = await send('/categories', range(top).map((i) => (
    { name: `${CATEGORY_NAMES[i % CATEGORY_NAMES.length]} ${n3(i)}`, description: `<p>${words(rng, 8)}</p>` })));
  const rest = await send('/categories', range(counts.categories - top, top).map((i) => ({
    name: `${rng.pick(WORDS)} ${n3(i)}`.replace(/^./, (c) => c.toUpperCase()),
    ...(rng.chance(0.25) ? { parent: rng.pick(tops) } : {}),
  })));
  const t = await send('/tags', range(counts.tags).map((i) => ({ name: `${rng.pick(WORDS)}-${n3(i)}` })));
  return {
    pools: { venues: v, organizers: o, categories: [...tops, ...rest], tags: t, authors: [...authors].sort((a, b) => a - b),
      coords: Object.fromEntries(v.map((id, i) => [id, places[i]!])) },
    ms: performance.now() - t0,
    requests,
  };
}
