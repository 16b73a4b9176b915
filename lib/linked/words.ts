/**
 * The word index of venues and organizers (lib/store/README.md "Venues and organizers", "Search"), on the machinery
 * of the event index (lib/store/words.ts): for every index term (lib/text/words.ts) of the fields a list searches,
 * one bucket item per UTC publication day, and count items per month, so a one-word search is counted and paged
 * from the index. Per kind (`WV` venues, `WO` organizers):
 *
 * - **bucket** `PK = WV#<term>`, `SK = <utc publication day>`: `e<id>` = `<dateUtc>|<status>|<author>|<languages>|
 *   <languages, hidden text only>` (languages as indexes into LANGUAGES; the hidden text of a password-protected
 *   record is what only a caller with its password, or who may edit it, may search: everything but the name and a
 *   venue's state).
 * - **count items** `PK = C#WV#<term>`, `SK = <utc month>`: `<language>:<status>`, the records whose shown text in
 *   that language holds the term (no per-day attributes: a list of venues has no date window).
 * - **side partition** `PK = WX#venue`: `P#<id>` markers of records whose index may be behind them (put by the
 *   record's transaction when the index change did not fit in it; `d` when no request is bringing it up to date, as
 *   after an event write that created or reused the record), and `U#<id>` entries of records indexed as a whole
 *   (more than MAX_TERMS terms, or a full bucket). Every search reads this one partition and checks these records on
 *   themselves, so a search is exact while an index is catching up.
 * - **manifest** `POST#<id>` / `WORDS`, as for events.
 */
import { LANGUAGES, type Language } from '../model/language.js';
import { table } from '../store/client.js';
import { counterAdd } from '../store/counters.js';
import { countKey, pad } from '../store/keys.js';
import { batchGet, queryAll, queryEntries, type Item } from '../store/records.js';
import type { TransactItem } from '../store/types.js';
import { EMPTY_MANIFEST, inlineIndexItems, manifestKeyOf, manifestOf, MAX_TERMS, NO_INDEX_CHANGE, planIndexChange, type IndexPlan, repairIndex, syncIndex,
  type IndexGoal, type Manifest, type WordSpace } from '../store/words.js';
import { indexTerms } from '../text/words.js';
import { OWN_FIELDS, type LinkedItem, type LinkedKind } from './item.js';
import { searchFields } from './search.js';
import { logger } from '../observability/logger.js';

const CODE: Record<LinkedKind, string> = { venue: 'WV', organizer: 'WO' };

const wordPartitionOf = (kind: LinkedKind, term: string): string => `${CODE[kind]}#${term}`;
/** Pending markers (`P#<id>`) and records indexed as a whole (`U#<id>`) of a kind. */
const sidePartition = (kind: LinkedKind): string => `WX#${kind}`;
const PENDING = 'P#';
const WHOLE = 'U#';

/** What a bucket value says of a record. */
export interface WordEntry {
  id: number;
  dateUtc: string;
  status: string;
  author: number;
  /** Languages (indexes into LANGUAGES) whose shown text holds the term. */
  langs: string;
  /** Languages whose hidden text only holds it. */
  hidden: string;
}

const valueOf = (r: { dateUtc: string; status: string; author: number }, langs: string, hidden: string): string =>
  `${r.dateUtc}|${r.status}|${r.author}|${langs}|${hidden}`;

export function parseValue(id: number, value: string): WordEntry {
  const [dateUtc, status, author, langs, hidden] = value.split('|');
  return { id, dateUtc: dateUtc!, status: status!, author: Number(author), langs: langs ?? '', hidden: hidden ?? '' };
}

export const langIndex = (lang: Language): string => String(LANGUAGES.indexOf(lang));

/** Count-item changes: `<language>:<status>` of the publication month, for each language that shows the term. */
function countItems(kind: LinkedKind, term: string, before: string | undefined, after: string | undefined): TransactItem[] {
  const byMonth = new Map<string, Record<string, number>>();
  const move = (value: string | undefined, delta: number) => {
    if (value === undefined) return;
    const e = parseValue(0, value);
    const month = e.dateUtc.slice(0, 7);
    const deltas = byMonth.get(month) ?? {};
    byMonth.set(month, deltas);
    for (const l of e.langs) {
      const attr = `${LANGUAGES[Number(l)]}:${e.status}`;
      deltas[attr] = (deltas[attr] ?? 0) + delta;
    }
  };
  move(before, -1);
  move(after, 1);
  return [...byMonth].flatMap(([month, deltas]) => {
    const moved = Object.entries(deltas).filter(([, d]) => d !== 0);
    return moved.length ? [counterAdd(countKey(wordPartitionOf(kind, term), month), Object.fromEntries(moved))] : [];
  });
}

const SPACES: Record<LinkedKind, WordSpace> = {
  venue: space('venue'),
  organizer: space('organizer'),
};

function space(kind: LinkedKind): WordSpace {
  return {
    partition: (term) => wordPartitionOf(kind, term),
    counts: (term, before, after) => countItems(kind, term, before, after),
    marker: (id) => ({ PK: sidePartition(kind), SK: `${PENDING}${pad(id)}` }),
    markers: { pk: sidePartition(kind), prefix: PENDING },
  };
}

const NOTHING: IndexGoal = { terms: new Map(), unindexed: null, tooLarge: false };

/**
 * What the index should hold for a record of `kind` (every status: editors search the trash too): the terms of the
 * fields searchFields (lib/linked/search.ts) names, as shown in each language, each with the languages that show it.
 */
export const linkedGoal = (kind: LinkedKind) => (record: Item | null): IndexGoal => {
  if (!record || record.kind !== kind) return NOTHING;
  const item = record as LinkedItem;
  const shown = new Map<string, string>();
  const hidden = new Map<string, string>();
  // Languages without a translation show the same text: their terms are computed once.
  const cache = new Map<string, { visible: Set<string>; rest: Set<string> }>();
  LANGUAGES.forEach((lang, i) => {
    const open = searchFields(kind, item, lang, false);
    const locked = item.pw ? searchFields(kind, item, lang, true) : open;
    const key = JSON.stringify([open, locked]);
    let terms = cache.get(key);
    if (!terms) {
      const visible = indexTerms(locked);
      terms = { visible, rest: item.pw ? indexTerms(open) : new Set() };
      cache.set(key, terms);
    }
    for (const t of terms.visible) shown.set(t, (shown.get(t) ?? '') + i);
    for (const t of terms.rest) if (!terms.visible.has(t)) hidden.set(t, (hidden.get(t) ?? '') + i);
  });
  const all = new Set([...shown.keys(), ...hidden.keys()]);
  const unindexed = { PK: sidePartition(kind), SK: `${WHOLE}${pad(item.id)}`, id: item.id, dateUtc: item.dateUtc, status: item.status,
    author: item.author };
  if (all.size > MAX_TERMS) return { terms: new Map(), unindexed, tooLarge: true };
  return { terms: new Map([...all].map((t) => [t, valueOf(item, shown.get(t) ?? '', hidden.get(t) ?? '')])), unindexed, tooLarge: false };
};

/** Whether a write from `prev` to `next` can change what the index holds for the record. */
export function wordsMayChange(prev: LinkedItem | null, next: LinkedItem | null): boolean {
  const key = (r: LinkedItem | null) => r && JSON.stringify([r.tr, r.lang0, Boolean(r.pw), r.status, r.author, r.dateUtc, r.excerpt,
    ...OWN_FIELDS[r.kind].map((f) => r[f])]);
  return key(prev) !== key(next);
}

export type LinkedWordPlan = IndexPlan;

/**
 * The index change of a write of record `id` from `prev` to `next` (null: create / permanent delete), from the
 * manifest `m` as read. The change joins the transaction when it fits (an optional group: the rest of the write goes
 * first, lib/store/kit.ts); otherwise the transaction puts the record's marker and `after` brings the index up to date
 * once it committed. `deferred`: nothing will call `after` (an event write that creates or reuses the record), so the
 * marker says so and the next search or write of the kind finishes the work.
 */
export function planLinkedWords(kind: LinkedKind, id: number, prev: LinkedItem | null, next: LinkedItem | null, m: Manifest,
  deferred = false): LinkedWordPlan {
  if (!wordsMayChange(prev, next)) return NO_INDEX_CHANGE;
  const goal = next ? linkedGoal(kind)(next) : null;
  return planIndexChange(SPACES[kind], id, next?.v ?? prev!.v + 1, m, goal ? goal.terms : null, goal?.tooLarge === true, deferred,
    () => indexLinked(kind, id));
}

/**
 * After the write committed: brings the record's index up to date, then finishes one or two others whose writes did
 * not. A failure here does not fail the write: the marker stays, and a later search or write finishes it.
 */
async function indexLinked(kind: LinkedKind, id: number): Promise<void> {
  try {
    await syncIndex(SPACES[kind], id, linkedGoal(kind));
    await repairIndex(SPACES[kind], linkedGoal(kind));
  } catch (e) {
    logger.warn('search index not brought up to date; a later search or write finishes it', { kind, id, error: e as Error });
  }
}

/** Finishes (at most two of) the markers a search read that are due (lib/store/words.ts repairIndex). */
export async function repairLinked(kind: LinkedKind, markers: Item[]): Promise<void> {
  try {
    await repairIndex(SPACES[kind], linkedGoal(kind), 2, Date.now(), markers);
  } catch (e) {
    logger.warn('search index repair did not finish; a later search or write finishes it', { kind, error: e as Error });
  }
}

// ------------------------------------------------------------------------------------------------ reading

/** The records a search checks on themselves: those whose index may be behind (`pending`) and those indexed whole. */
export interface Side {
  markers: Item[];
  pending: number[];
  whole: number[];
}

export async function readSide(kind: LinkedKind): Promise<Side> {
  const items = await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': sidePartition(kind) } });
  const markers = items.filter((i) => String(i.SK).startsWith(PENDING));
  return {
    markers,
    pending: markers.map((i) => Number(String(i.SK).slice(PENDING.length))),
    whole: items.filter((i) => String(i.SK).startsWith(WHOLE)).map((i) => i.id as number),
  };
}

/** The manifests of pending records: what the index holds for them while they are checked on their records. */
export async function pendingManifests(ids: number[]): Promise<Map<number, Manifest>> {
  const items = await batchGet(ids.map(manifestKeyOf));
  return new Map(items.map((i) => [Number(String(i.PK).slice('POST#'.length)), manifestOf(i)]));
}

/** The entries of a bucket for a language (shown text; with `hidden`, hidden text too), newest first. */
function bucketEntries(item: Item, lang: Language, hidden: boolean): WordEntry[] {
  const l = langIndex(lang);
  const out: WordEntry[] = [];
  for (const [attr, value] of Object.entries(item)) {
    if (!attr.startsWith('e') || typeof value !== 'string') continue;
    const e = parseValue(Number(attr.slice(1)), value);
    if (e.langs.includes(l) || (hidden && e.hidden.includes(l))) out.push(e);
  }
  return out.sort(newestFirst);
}

/** List order: newest publication first, then higher id (the byStart index read backwards). */
export const newestFirst = (a: { dateUtc: string; id: number }, b: { dateUtc: string; id: number }): number =>
  (a.dateUtc === b.dateUtc ? b.id - a.id : a.dateUtc < b.dateUtc ? 1 : -1);

/** How many records show `term` in `lang` with one of `statuses` (every status when null), from the count items. */
export async function countTerm(kind: LinkedKind, term: string, lang: Language, statuses: readonly string[] | null): Promise<number> {
  const items = await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': countKey(wordPartitionOf(kind, term), '').PK } });
  let sum = 0;
  for (const item of items) {
    for (const [attr, n] of Object.entries(item)) {
      if (!attr.startsWith(`${lang}:`) || typeof n !== 'number') continue;
      if (statuses === null || statuses.includes(attr.slice(lang.length + 1))) sum += n;
    }
  }
  return sum;
}

/**
 * The first `need` entries of `term`'s buckets (newest first) that `accept` takes, reading day buckets in pages sized
 * to what is still needed; every entry when `need` is Infinity.
 */
export async function readTerm(kind: LinkedKind, term: string, lang: Language, hidden: boolean, need: number,
  accept: (e: WordEntry) => boolean): Promise<WordEntry[]> {
  return queryEntries({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': wordPartitionOf(kind, term) },
    ScanIndexForward: false }, need, (remaining) => Math.min(100, Math.max(2, Math.ceil(remaining / 4))),
  (item) => bucketEntries(item, lang, hidden), accept);
}

// ------------------------------------------------------------------------------------------------ bulk

/**
 * The transaction items that index a new record (its create's, as planLinkedWords gives them when they fit), for
 * bulk writers that build items themselves (the benchmark's seeder).
 */
export function createdIndexItems(kind: LinkedKind, record: LinkedItem): TransactItem[] {
  const goal = linkedGoal(kind)(record);
  if (goal.tooLarge) {
    return [{ Put: { TableName: table(), Item: goal.unindexed! } },
      { Put: { TableName: table(), Item: { ...manifestKeyOf(record.id), mv: 1, t: {}, x: JSON.stringify(goal.unindexed) } } }];
  }
  return inlineIndexItems(SPACES[kind], record.id, EMPTY_MANIFEST, goal.terms, Infinity)!.items;
}
