/**
 * The word index engine of venues, organizers, terms and large recurring series (lib/store/README.md "Venues and
 * organizers" → "Search", "Terms" → "Search", "Recurring series"): for every index term (a word prefix,
 * lib/text/words.ts) one bucket item per day of a space's choosing, and count items, so a search page reads about its
 * matches and its total a few count items. Events have an index of their own, grouped by letter (lib/search/).
 *
 * - **manifest** (by default `PK = POST#<id>`, `SK = WORDS`): what the index holds for the record (`t`: term → value as
 *   in the bucket; `x`: its entry in the unindexed partition), and `mv`, its version.
 * - **marker**: put by the record's own transaction when its terms may change and the change does not fit in it,
 *   deleted once the index has caught up.
 *
 * The index is brought up to date after the record's transaction, by the same request (syncIndex), in transactions of
 * a few dozen terms, each conditioned on the manifest's version and updating it: exactly once, resumable, and safe
 * against concurrent syncs of the same record. A request that dies in between leaves the marker, and the next search
 * or write finishes the work (repairIndex). A WordSpace says where an index keeps its buckets, counts and markers.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from './client.js';
import { postKey } from './keys.js';
import { getItem, type Item } from './records.js';
import { optional, transact, type Optional } from './kit.js';
import { timeLeft } from './scope.js';
import type { Key, TransactItem } from './types.js';

/** Records with more distinct terms than this are not indexed term by term (their writes would be too large). */
export const MAX_TERMS = 2_000;
/** Terms per transaction: each moves at most two buckets and two count items, next to the manifest's update. */
const CHUNK = 16;

/**
 * Where a word index keeps its items. Bucket values start with the record's UTC date-time (its bucket day is the
 * value's first ten characters); the rest is the space's own.
 */
export interface WordSpace {
  /** Partition of a term's day buckets. */
  partition(term: string): string;
  /** The count-item changes of a term's bucket value going from `before` to `after` (undefined = absent). */
  counts(term: string, before: string | undefined, after: string | undefined): TransactItem[];
  /** The marker of a record whose index may be behind it. */
  marker(id: number): Key;
  /** The markers' partition and sort-key prefix (repair reads them). */
  markers: { pk: string; prefix: string };
  /** The bucket (sort key) of a value in its term's partition; by default the day its value starts with. */
  bucket?(value: string): string;
  /** The record's key (default: the post's, `POST#<id>`). */
  record?(id: number): Key;
  /** The key of the record's manifest (default: `POST#<id>` / `WORDS`). */
  manifest?(id: number): Key;
}

const manifestKey = (id: number) => ({ PK: postKey(id).PK, SK: 'WORDS' });
const manifestIn = (space: WordSpace | undefined, id: number): Key => space?.manifest?.(id) ?? manifestKey(id);
const bucketOf = (space: WordSpace, value: string): string => space.bucket?.(value) ?? dayOf(value);

/**
 * What an index should hold for a record, in any space: its terms with their bucket values, and the item that stands
 * for it when it is not indexed term by term (`tooLarge`, or a bucket of its was full); null: nothing at all.
 */
export type IndexGoal = { terms: Map<string, string>; unindexed: Item | null; tooLarge: boolean };

/** A bucket value: the event's list facts and the languages whose shown text (or hidden text) holds the term. */
export const wordValue = (e: { startUtc: string; endUtc: string; status: string; author: number }, langs: string, hidden: string): string =>
  `${e.startUtc}|${e.endUtc}|${e.status}|${e.author}|${langs}|${hidden}`;

/** The bucket day of a value: the date its value starts with. */
const dayOf = (value: string): string => value.slice(0, 10);

/** The transaction items of one term's move from `before` to `after` (bucket values; undefined = absent). */
function termItems(space: WordSpace, id: number, term: string, before: string | undefined, after: string | undefined): TransactItem[] {
  const pk = space.partition(term);
  const attr = { '#e': `e${id}` };
  const items: TransactItem[] = [];
  if (before !== undefined && (after === undefined || bucketOf(space, before) !== bucketOf(space, after))) {
    items.push({ Update: { TableName: table(), Key: { PK: pk, SK: bucketOf(space, before) }, UpdateExpression: 'REMOVE #e',
      ExpressionAttributeNames: attr } });
  }
  if (after !== undefined) {
    items.push({ Update: { TableName: table(), Key: { PK: pk, SK: bucketOf(space, after) }, UpdateExpression: 'SET #e = :v',
      ExpressionAttributeNames: attr, ExpressionAttributeValues: { ':v': after } } });
  }
  return [...items, ...space.counts(term, before, after)];
}

/** The marker that a record's own transaction puts when its index may change (`extra`: attributes of the space's). */
export const markerPut = (space: WordSpace, id: number, v: number, now: string, extra: Item = {}): TransactItem =>
  ({ Put: { TableName: table(), Item: { ...space.marker(id), v, at: now, ...extra } } });

/**
 * What the index holds for a record, as its manifest says. `o`: a bucket of one of its terms was full (over 6,000
 * records of a day sharing the term), so the record is kept unindexed.
 */
export interface Manifest { exists: boolean; mv: number; t: Map<string, string>; x: string | null; o: boolean }

/** The manifest of a record that has none. */
export const EMPTY_MANIFEST: Manifest = { exists: false, mv: 0, t: new Map(), x: null, o: false };

/** The key of a record's manifest (plans read it with their other reads). */
export const manifestKeyOf = manifestKey;

/** A manifest as read (null: none). */
export function manifestOf(item: Item | null): Manifest {
  return {
    exists: item !== null,
    mv: (item?.mv as number | undefined) ?? 0,
    t: new Map(Object.entries((item?.t as Record<string, string> | undefined) ?? {})),
    x: (item?.x as string | undefined) ?? null,
    o: item?.o === true,
  };
}

export async function readManifest(id: number, space?: WordSpace): Promise<Manifest> {
  return manifestOf(await getItem(manifestIn(space, id), true));
}

export async function syncIndex(space: WordSpace, id: number, target: (record: Item | null) => IndexGoal): Promise<boolean> {
  for (let round = 0; round < 20; round++) {
    const [record, m] = await Promise.all([getItem(space.record?.(id) ?? postKey(id), true), readManifest(id, space)]);
    const goal = target(record);
    const unindexed = goal.unindexed && (goal.tooLarge || m.o) ? goal.unindexed : null;
    const want = { terms: unindexed ? new Map<string, string>() : goal.terms };
    const unindexedValue = unindexed ? JSON.stringify(unindexed) : null;
    let conflict = false;
    for (;;) {
      const changed = changedTerms(m, want.terms);
      const last = changed.length <= CHUNK;
      const chunk = changed.slice(0, CHUNK);
      const wx = last && m.x !== unindexedValue;
      if (chunk.length === 0 && !wx) {
        if (m.exists && m.t.size === 0 && m.x === null) await transact([manifestDelete(manifestIn(space, id), m.mv)]);
        await transact([{ Delete: { TableName: table(), Key: space.marker(id), ConditionExpression: 'attribute_not_exists(v) OR v <= :v',
          ExpressionAttributeValues: { ':v': (record?.v as number | undefined) ?? Number.MAX_SAFE_INTEGER } } }]);
        return true;
      }
      if (timeLeft() < 1_000) return false;
      const items = indexItems(space, id, m, chunk, want.terms);
      if (wx) {
        if (m.x) items.push({ Delete: { TableName: table(), Key: keyOf(JSON.parse(m.x) as Item) } });
        if (unindexedValue) items.push({ Put: { TableName: table(), Item: JSON.parse(unindexedValue) as Item } });
      }
      const nextT = new Map(m.t);
      for (const term of chunk) {
        const v = want.terms.get(term);
        if (v === undefined) nextT.delete(term);
        else nextT.set(term, v);
      }
      const nextX = wx ? unindexedValue : m.x;
      items.unshift(manifestWrite(manifestIn(space, id), m, chunk, want.terms, nextX));
      const reasons = await transact(items).catch((e: Error) => {
        if (e.name === 'ValidationException' && /size/i.test(e.message)) return ['ValidationError'];
        throw e;
      });
      if (reasons?.includes('ValidationError') && !m.o) {
        await markOverflow(manifestIn(space, id));
        conflict = true;
        break;
      }
      if (reasons) {
        conflict = true;
        break;
      }
      Object.assign(m, { exists: true, mv: m.mv + 1, t: nextT, x: nextX });
    }
    if (!conflict) break;
  }
  return false;
}

/** Marks a record whose terms no longer fit a day's bucket: from now on it is kept unindexed. */
async function markOverflow(key: Key): Promise<void> {
  await db().send(new UpdateCommand({ TableName: table(), Key: key,
    UpdateExpression: 'SET o = :o, mv = if_not_exists(mv, :z), t = if_not_exists(t, :t)',
    ExpressionAttributeValues: { ':o': true, ':z': 0, ':t': {} } }));
}

/** termsItems in any space. */
export const indexItems = (space: WordSpace, id: number, m: Manifest, terms: string[], want: Map<string, string>): TransactItem[] =>
  terms.flatMap((term) => termItems(space, id, term, m.t.get(term), want.get(term)));

/** The terms whose bucket value differs between the manifest and `want`. */
export const changedTerms = (m: Manifest, want: Map<string, string>): string[] =>
  [...new Set([...m.t.keys(), ...want.keys()])].filter((term) => m.t.get(term) !== want.get(term));

export function inlineIndexItems(space: WordSpace, id: number, m: Manifest, want: Map<string, string> | null, room: number):
  { items: TransactItem[]; mv: number } | null {
  if (m.o || m.x !== null) return null;
  const terms = changedTerms(m, want ?? new Map());
  if (terms.length === 0) return { items: [], mv: m.mv };
  const items = indexItems(space, id, m, terms, want ?? new Map());
  const key = manifestIn(space, id);
  items.push(want === null && m.exists ? manifestDelete(key, m.mv) : manifestWrite(key, m, terms, want ?? new Map(), null));
  return items.length <= room ? { items, mv: m.mv + 1 } : null;
}

const keyOf = (item: Item) => ({ PK: item.PK as string, SK: item.SK as string });

function manifestDelete(key: Key, mv: number): TransactItem {
  return { Delete: { TableName: table(), Key: key, ConditionExpression: 'mv = :mv', ExpressionAttributeValues: { ':mv': mv } } };
}

/** The manifest's update for a chunk: a Put when it does not exist yet, else an Update at its read version. */
function manifestWrite(key: Key, m: Manifest, chunk: string[], want: Map<string, string>, x: string | null): TransactItem {
  if (!m.exists) {
    const t = Object.fromEntries(chunk.filter((term) => want.has(term)).map((term) => [term, want.get(term)!]));
    return { Put: { TableName: table(), Item: { ...key, mv: 1, t, ...(x ? { x } : {}) },
      ConditionExpression: 'attribute_not_exists(PK)' } };
  }
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':mv': m.mv, ':next': m.mv + 1 };
  const sets = ['mv = :next'];
  const removes: string[] = [];
  chunk.forEach((term, i) => {
    names['#t'] = 't';
    names[`#k${i}`] = term;
    if (want.has(term)) {
      sets.push(`#t.#k${i} = :k${i}`);
      values[`:k${i}`] = want.get(term);
    } else removes.push(`#t.#k${i}`);
  });
  if (x !== m.x) {
    if (x) {
      sets.push('x = :x');
      values[':x'] = x;
    } else removes.push('x');
  }
  return { Update: { TableName: table(), Key: key,
    UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
    ConditionExpression: 'mv = :mv', ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: values } };
}

/**
 * Finishes the index work of writes whose requests ended first: at most `limit` markers. A marker with `d` (deferred: no request is bringing that record's index up to date) is
 * due at once; any other after a minute, so that the write that put it can finish first.
 */
export async function repairIndex(space: WordSpace, target: (record: Item | null) => IndexGoal, limit = 2, now = Date.now(),
  found?: Item[]): Promise<number> {
  const markers = found ?? (await db().send(new QueryCommand({ TableName: table(),
    KeyConditionExpression: space.markers.prefix ? 'PK = :pk AND begins_with(SK, :p)' : 'PK = :pk',
    ExpressionAttributeValues: { ':pk': space.markers.pk, ...(space.markers.prefix ? { ':p': space.markers.prefix } : {}) },
    Limit: limit * 5 }))).Items ?? [];
  const stale = markers.filter((m) => m.d === true || Date.parse(String(m.at)) < now - 60_000).slice(0, limit);
  for (const m of stale) await syncIndex(space, Number(String(m.SK).slice(space.markers.prefix.length)), target);
  return stale.length;
}

/** How a record write keeps its index: items for its transaction, and the work after it commits. */
export interface IndexPlan {
  items: TransactItem[];
  after(): Promise<void>;
}

export const NO_INDEX_CHANGE: IndexPlan = { items: [], after: async () => {} };

/**
 * The index change of a record write (venues, organizers, terms) from what manifest `m` holds to `want` (null: the
 * record is gone; `tooLarge`: it is held whole): an optional group of the transaction that the kit takes when it fits
 * (lib/store/kit.ts), else the record's marker and `sync` after the commit. `deferred`: nothing will call `after` (an
 * event write creating or reusing the record), so the marker says so and a later search or write finishes the work.
 */
export function planIndexChange(space: WordSpace, id: number, version: number, m: Manifest, want: Map<string, string> | null,
  tooLarge: boolean, deferred: boolean, sync: () => Promise<void>): IndexPlan {
  const marker = markerPut(space, id, version, new Date().toISOString(), deferred ? { d: true } : {});
  const inline = tooLarge ? null : inlineIndexItems(space, id, m, want, 100);
  if (inline && inline.items.length === 0) return NO_INDEX_CHANGE;
  const group: Optional | null = inline ? optional(marker, inline.items) : null;
  return {
    items: [marker],
    after: async () => {
      if (deferred || group?.taken) return;
      await sync();
    },
  };
}
