/**
 * The word index of categories and tags (lib/store/README.md "Terms", "Search"), on the machinery of the event index
 * (lib/store/words.ts): for every index term (lib/text/words.ts) of what a term search matches — the name as shown in
 * the request's language and the slug — one bucket per term *and name key*, so a Query of a word's partition returns
 * its terms in name order, and one count item per word, so a one-word search is counted and paged from the index.
 * Per taxonomy (`WT#category#…`, `WT#tag#…`):
 *
 * - **bucket** `PK = WT#<taxonomy>#<word>`, `SK = <name key in those languages>\u0001<id, 10 digits>` (lib/terms/order.ts):
 *   `e<id>` = `<f>|<languages>|<SK>`, `f` = 1 when the term is not empty (tags: `cnt` > 0, categories: `linked` > 0),
 *   languages (indexes into LANGUAGES) whose name or slug holds the word and whose name sorts at this key. A term whose
 *   translated name sorts elsewhere has one bucket per such place.
 * - **count item** `PK = C#WT#<taxonomy>#<word>`, `SK = all`: `<language>:<f>`, the terms showing the word in that
 *   language, empty (0) or not (1).
 * - **manifest** `TERM#<id>` / `WORDS`; manifest terms are `<word>\u0001<first language of the place>`.
 * - **markers** `PK = WX#<taxonomy>`, `SK = P#<id>`: terms whose index may be behind them (put by the term's own
 *   transaction when its index change did not fit in it; with `d` by an event write that created the term).
 * - **emptiness flags** `d<id>` on the taxonomy's count item `NONEMPTY/<taxonomy>`: an event write whose counter makes
 *   a term cross zero `ADD`s 1 to it in the `ADD` that already moves `filled` (no more actions); the term's `f` is then
 *   behind until a repair syncs the term and removes the flag (conditioned on it being unchanged).
 *
 * Searches read the markers and flags and check those terms on their records, so a search is exact while the index
 * catches up.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LANGUAGES, type Language } from '../model/language.js';
import { db, table } from '../store/client.js';
import { counterAdd } from '../store/counters.js';
import { countKey, pad, termKey, type Taxonomy } from '../store/keys.js';
import { nonEmptyKey } from '../store/nonempty.js';
import { batchGet, getItem, queryAll, queryEntries, type Item } from '../store/records.js';
import type { TransactItem } from '../store/types.js';
import { EMPTY_MANIFEST, inlineIndexItems, manifestOf, NO_INDEX_CHANGE, planIndexChange, readManifest, type IndexPlan, repairIndex, syncIndex, type IndexGoal,
  type Manifest, type WordSpace } from '../store/words.js';
import { indexTerms, matchesWords } from '../text/words.js';
import { indexName, isHierarchical, isTerm, type TermItem } from './item.js';
import { compareUtf8, nameSortKey } from './order.js';
import { logger } from '../observability/logger.js';

const SEP = '\u0001';
const wordPartition = (taxonomy: Taxonomy, word: string): string => `WT#${taxonomy}#${word}`;
const wordOf = (term: string): string => term.slice(0, term.lastIndexOf(SEP));
const sidePartition = (taxonomy: Taxonomy): string => `WX#${taxonomy}`;
const PENDING = 'P#';
/** Emptiness flags on NONEMPTY/<taxonomy>: `d<id>`. */
const FLAG = /^d(\d+)$/;
export const emptinessFlag = (id: number): string => `d${id}`;
const countItemKey = (taxonomy: Taxonomy, word: string) => countKey(wordPartition(taxonomy, word), 'all');
const manifestKey = (id: number) => ({ PK: termKey(id).PK, SK: 'WORDS' });

/** What a bucket value says of a term. */
export interface TermWordEntry {
  id: number;
  filled: boolean;
  langs: string;
  sk: string;
}

export function parseTermValue(id: number, value: string): TermWordEntry {
  const a = value.indexOf('|');
  const b = value.indexOf('|', a + 1);
  return { id, filled: value.slice(0, a) === '1', langs: value.slice(a + 1, b), sk: value.slice(b + 1) };
}

const langIndex = (lang: Language): string => String(LANGUAGES.indexOf(lang));

function countItems(taxonomy: Taxonomy, term: string, before: string | undefined, after: string | undefined): TransactItem[] {
  const deltas: Record<string, number> = {};
  const move = (value: string | undefined, delta: number) => {
    if (value === undefined) return;
    const e = parseTermValue(0, value);
    for (const l of e.langs) {
      const attr = `${LANGUAGES[Number(l)]}:${e.filled ? 1 : 0}`;
      deltas[attr] = (deltas[attr] ?? 0) + delta;
    }
  };
  move(before, -1);
  move(after, 1);
  const moved = Object.entries(deltas).filter(([, d]) => d !== 0);
  return moved.length ? [counterAdd(countItemKey(taxonomy, wordOf(term)), Object.fromEntries(moved))] : [];
}

function space(taxonomy: Taxonomy): WordSpace {
  return {
    partition: (term) => wordPartition(taxonomy, wordOf(term)),
    counts: (term, before, after) => countItems(taxonomy, term, before, after),
    marker: (id) => ({ PK: sidePartition(taxonomy), SK: `${PENDING}${pad(id)}` }),
    markers: { pk: sidePartition(taxonomy), prefix: PENDING },
    bucket: (value) => parseTermValue(0, value).sk,
    record: termKey,
    manifest: manifestKey,
  };
}

const SPACES: Record<Taxonomy, WordSpace> = { category: space('category'), tag: space('tag') };

/** Whether a term counts as not empty (the hide_empty rule, lib/store/README.md "Non-empty counts"). */
export const isFilled = (taxonomy: Taxonomy, t: { cnt?: number; linked?: number }): boolean =>
  (isHierarchical(taxonomy) ? Number(t.linked ?? 0) : Number(t.cnt ?? 0)) > 0;

const NOTHING: IndexGoal = { terms: new Map(), unindexed: null, tooLarge: false };

/** The texts a term search looks in, in a language: the name shown there and the slug (lib/terms/list.ts). */
const searchedTexts = (t: Pick<TermItem, 'nm' | 'slug'>, lang: Language): string[] => [indexName(t.nm, lang), t.slug ?? ''];

/** What the index should hold for a term: per word and name-order place, the languages that show it there. */
export const termGoal = (taxonomy: Taxonomy) => (record: Item | null): IndexGoal => {
  if (!isTerm(record, taxonomy)) return NOTHING;
  const t = record as TermItem;
  const f = isFilled(taxonomy, t) ? '1' : '0';
  const places = new Map<string, { first: number; langs: string; sk: string; word: string }>();
  const cache = new Map<string, Set<string>>();
  LANGUAGES.forEach((lang, i) => {
    const texts = searchedTexts(t, lang);
    const sk = nameSortKey(texts[0]!, t.id);
    const key = JSON.stringify(texts);
    let words = cache.get(key);
    if (!words) cache.set(key, (words = indexTerms(texts)));
    for (const word of words) {
      const at = `${word}${SEP}${sk}`;
      const place = places.get(at);
      if (place) place.langs += i;
      else places.set(at, { first: i, langs: String(i), sk, word });
    }
  });
  return { terms: new Map([...places.values()].map((p) => [`${p.word}${SEP}${p.first}`, `${f}|${p.langs}|${p.sk}`])),
    unindexed: null, tooLarge: false };
};

/** Whether a write from `prev` to `next` can change what the index holds for the term. */
export function termWordsMayChange(taxonomy: Taxonomy, prev: TermItem | null, next: TermItem | null): boolean {
  const key = (t: TermItem | null) => t && JSON.stringify([t.nm, t.slug, isFilled(taxonomy, t)]);
  return key(prev) !== key(next);
}

export type TermWordPlan = IndexPlan;

/** The manifest of a term, read consistently (writes plan from it). */
export const readTermManifest = (taxonomy: Taxonomy, id: number): Promise<Manifest> => readManifest(id, SPACES[taxonomy]);

/**
 * The index change of a write of term `id` from `prev` to `next` (null: create / delete), from the manifest `m` as
 * read: an optional group of the transaction (lib/store/kit.ts), else the term's marker and a sync after the commit.
 * `deferred`: nothing will call `after` (an event write creating the term): the marker says so, and the next search
 * or term write of the taxonomy finishes the work.
 */
export function planTermWords(taxonomy: Taxonomy, id: number, prev: TermItem | null, next: TermItem | null, m: Manifest,
  deferred = false): TermWordPlan {
  if (!termWordsMayChange(taxonomy, prev, next)) return NO_INDEX_CHANGE;
  const goal = next ? termGoal(taxonomy)(next) : null;
  return planIndexChange(SPACES[taxonomy], id, next?.v ?? prev!.v + 1, m, goal ? goal.terms : null, false, deferred,
    () => keepIndex(taxonomy, () => syncIndex(SPACES[taxonomy], id, termGoal(taxonomy)).then(() => repairTerms(taxonomy))));
}

/** A failure here does not fail the request: the marker or flag stays, and a later search or write finishes it. */
async function keepIndex(taxonomy: Taxonomy, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (e) {
    logger.warn('term search index not brought up to date; a later search or write finishes it', { taxonomy, error: e as Error });
  }
}

/** Syncs a term whose emptiness flag was read as `flag`, then removes the flag if no crossing moved it since. */
async function settleFlag(taxonomy: Taxonomy, id: number, flag: number): Promise<void> {
  if (!(await syncIndex(SPACES[taxonomy], id, termGoal(taxonomy)))) return;
  await db().send(new UpdateCommand({ TableName: table(), Key: nonEmptyKey(taxonomy), UpdateExpression: 'REMOVE #d',
    ConditionExpression: '#d = :d', ExpressionAttributeNames: { '#d': emptinessFlag(id) }, ExpressionAttributeValues: { ':d': flag } }))
    .catch((e: Error) => { if (e.name !== 'ConditionalCheckFailedException') throw e; });
}

/** Finishes up to `limit` due markers and `limit` emptiness flags of a taxonomy (what a search read, or read now). */
export async function repairTerms(taxonomy: Taxonomy, side?: TermSide, limit = 2): Promise<void> {
  const s = side ?? (await readTermSide(taxonomy, true));
  await repairIndex(SPACES[taxonomy], termGoal(taxonomy), limit, Date.now(), s.markers);
  for (const [id, flag] of [...s.flags].slice(0, limit)) await settleFlag(taxonomy, id, flag);
}

/** repairTerms that never fails the request. */
const repairQuietly = (taxonomy: Taxonomy, side: TermSide): Promise<void> => keepIndex(taxonomy, () => repairTerms(taxonomy, side));

// ------------------------------------------------------------------------------------------------ reading

/** Terms a search checks on their records: markers (index behind) and emptiness flags (`f` behind). */
export interface TermSide {
  markers: Item[];
  flags: Map<number, number>;
  /** The taxonomy's count item was built (lib/store/nonempty-rebuild.ts): flags are kept. */
  built: boolean;
}

export async function readTermSide(taxonomy: Taxonomy, consistent = false): Promise<TermSide> {
  const [markers, counts] = await Promise.all([
    queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': sidePartition(taxonomy) } }),
    getItem(nonEmptyKey(taxonomy), consistent),
  ]);
  const flags = new Map<number, number>();
  for (const [attr, n] of Object.entries(counts ?? {})) {
    const m = FLAG.exec(attr);
    if (m && typeof n === 'number') flags.set(Number(m[1]), n);
  }
  return { markers: markers.filter((i) => String(i.SK).startsWith(PENDING)), flags, built: counts?.built === true };
}

/** A one-word search's page: its total and the page's ids in name order. */
export interface TermSearchPage {
  total: number;
  ids: number[];
}

/**
 * GET /categories?search=<word> and /tags?search=<word> (one word whose index term is the word itself), in name order
 * (`desc`: reversed): the total from the word's count item, less what it still holds for terms checked on their
 * records (markers and flags), plus those of them that match; the page from the word's partition read in order, in
 * `Limit`ed pages, merged with those terms. `query`: the folded word, `word`: its index term (the same).
 */
export async function searchTermWord(taxonomy: Taxonomy, word: string, lang: Language, hideEmpty: boolean, desc: boolean,
  skip: number, take: number, side: TermSide): Promise<TermSearchPage> {
  const l = langIndex(lang);
  const pendingIds = [...new Set([...side.markers.map((m) => Number(String(m.SK).slice(PENDING.length))), ...side.flags.keys()])];
  const pending = new Set(pendingIds);
  const wanted = (e: TermWordEntry) => e.langs.includes(l) && (!hideEmpty || e.filled) && !pending.has(e.id);
  const [counted, records, manifests, entries] = await Promise.all([
    getItem(countItemKey(taxonomy, word)),
    pendingIds.length ? batchGet(pendingIds.map(termKey)) : Promise.resolve([] as Item[]),
    pendingIds.length ? batchGet(pendingIds.map(manifestKey)) : Promise.resolve([] as Item[]),
    readWord(taxonomy, word, desc, skip + take, wanted),
  ]);
  let total = 0;
  for (const [attr, n] of Object.entries(counted ?? {})) {
    if (typeof n !== 'number' || !attr.startsWith(`${lang}:`)) continue;
    if (!hideEmpty || attr === `${lang}:1`) total += n;
  }
  // What the count item still holds for terms checked on their records.
  for (const item of manifests) {
    for (const [term, value] of manifestOf(item).t) {
      if (wordOf(term) !== word) continue;
      const e = parseTermValue(0, value);
      if (e.langs.includes(l) && (!hideEmpty || e.filled)) total--;
    }
  }
  const extra: { id: number; sk: string }[] = [];
  for (const r of records) {
    if (!isTerm(r, taxonomy)) continue;
    const t = r as TermItem;
    if (hideEmpty && !isFilled(taxonomy, t)) continue;
    const texts = searchedTexts(t, lang);
    if (!matchesWords([word], texts)) continue;
    extra.push({ id: t.id, sk: nameSortKey(texts[0]!, t.id) });
  }
  total += extra.length;
  const sign = desc ? -1 : 1;
  const listed = [...entries, ...extra].sort((a, b) => sign * compareUtf8(a.sk, b.sk));
  if (side.markers.length || side.flags.size) await repairQuietly(taxonomy, side);
  return { total, ids: listed.slice(skip, skip + take).map((e) => e.id) };
}

/** The first `need` entries of a word's partition in name order (`desc`: reversed) that `accept` takes. */
async function readWord(taxonomy: Taxonomy, word: string, desc: boolean, need: number,
  accept: (e: TermWordEntry) => boolean): Promise<TermWordEntry[]> {
  return queryEntries({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': wordPartition(taxonomy, word) },
    ScanIndexForward: !desc }, need, (remaining) => Math.min(1000, Math.ceil(remaining * 1.25) + 5),
  (item) => Object.entries(item).filter(([attr, value]) => attr.startsWith('e') && typeof value === 'string')
    .map(([attr, value]) => parseTermValue(Number(attr.slice(1)), value as string)), accept);
}

// ------------------------------------------------------------------------------------------------ bulk

/** The transaction items that index a new term (its create's), for bulk writers (the benchmark's seeder). */
export function createdTermIndexItems(taxonomy: Taxonomy, term: TermItem): TransactItem[] {
  return inlineIndexItems(SPACES[taxonomy], term.id, EMPTY_MANIFEST, termGoal(taxonomy)(term).terms, Infinity)!.items;
}
