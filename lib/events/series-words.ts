/**
 * The word index of recurring series (contract §13, §9; lib/store/README.md "Recurring series"), on the machinery of the
 * event index (lib/store/words.ts). An occurrence whose text is its series' is not indexed term by term — a daily series
 * would write a bucket per term and day — but found through its series: for every index term of a series' text, the
 * series has an entry in one bucket item of the term, and a search lists, besides the events its word's buckets hold,
 * the occurrences with that text of every series the term's bucket names (their series partitions, counted apart under
 * the prefix `i`: lib/store/event-counts.ts). Occurrences with text of their own are indexed as events.
 *
 * - **bucket** `PK = WR#<term>`, `SK = S`: `e<series id>` = the event index's value (start, end, status, author,
 *   languages, hidden-text languages) of the series record.
 * - **side partition** `PK = WX#series`: `P#<id>` markers of series whose index may be behind (their transaction could
 *   not take the change), `U#<id>` series indexed as a whole (over MAX_TERMS terms or a full bucket): every search
 *   checks those series on their records.
 * - **manifest** `POST#<id>` / `WORDS#R`.
 */
import { LANGUAGES, type Language } from '../model/language.js';
import { pad } from '../store/keys.js';
import { batchGet, queryAll, type Item } from '../store/records.js';
import { EMPTY_MANIFEST, NO_INDEX_CHANGE, planIndexChange, readManifest, repairIndex, syncIndex, wordValue, type IndexGoal, type IndexPlan,
  type WordSpace } from '../store/words.js';
import { isEvent, isSeries, type EventItem } from './record.js';
import { textTerms } from './index-state.js';
import { logger } from '../observability/logger.js';

const SIDE = 'WX#series';
const PENDING = 'P#';
const WHOLE = 'U#';

export const SERIES_WORDS: WordSpace = {
  partition: (term) => `WR#${term}`,
  counts: () => [],
  marker: (id) => ({ PK: SIDE, SK: `${PENDING}${pad(id)}` }),
  markers: { pk: SIDE, prefix: PENDING },
  bucket: () => 'S',
  manifest: (id) => ({ PK: `POST#${id}`, SK: 'WORDS#R' }),
};

const NOTHING: IndexGoal = { terms: new Map(), unindexed: null, tooLarge: false };

/** What the series index holds for a record: the terms of a series' text (nothing for any other record). */
export function seriesGoal(record: Item | null): IndexGoal {
  if (!isEvent(record) || !isSeries(record) || record.wx !== true) return NOTHING;
  const unindexed = { PK: SIDE, SK: `${WHOLE}${pad(record.id)}`, id: record.id };
  const text = textTerms(record);
  if (!text) return { terms: new Map(), unindexed, tooLarge: true };
  // The value spans the whole series (first start to last end), so a search skips series outside its window.
  const span = { ...record, endUtc: record.recEndUtc ?? record.endUtc };
  return { terms: new Map([...text.all].map((t) => [t, wordValue(span, text.shown.get(t) ?? '', text.hidden.get(t) ?? '')])), unindexed,
    tooLarge: false };
}

const key = (e: EventItem | null) => (e && isSeries(e) && e.wx ? JSON.stringify([e.tr, e.lang0, Boolean(e.pw), e.startUtc, e.recEndUtc, e.status, e.author]) : null);

/**
 * The series index change of a write of event `id` from `prev` to `next` (null: create / delete): items for its
 * transaction (taken when they fit, else a marker) and the work after it commits.
 */
export async function planSeriesWords(id: number, prev: EventItem | null, next: EventItem | null): Promise<IndexPlan> {
  if (key(prev) === key(next)) return NO_INDEX_CHANGE;
  const m = key(prev) !== null ? await readManifest(id, SERIES_WORDS) : EMPTY_MANIFEST;
  const goal = seriesGoal(next);
  return planIndexChange(SERIES_WORDS, id, next?.v ?? prev!.v + 1, m, key(next) !== null ? goal.terms : null, goal.tooLarge, false,
    () => indexSeries(id));
}

async function indexSeries(id: number): Promise<void> {
  try {
    await syncIndex(SERIES_WORDS, id, seriesGoal);
    await repairIndex(SERIES_WORDS, seriesGoal);
  } catch (e) {
    logger.warn('series search index not brought up to date; a later write finishes it', { id, error: e as Error });
  }
}

/**
 * The series whose text holds `term` in `lang` (with `hidden`, in their hidden text too), and those a search must check on
 * their records (index behind, or indexed whole): one bucket item and the side partition.
 */
export async function seriesWithTerm(term: string, lang: Language, hidden: boolean, starts: { from?: string; to?: string } = {}):
  Promise<{ indexed: number[]; check: number[] }> {
  const l = String(LANGUAGES.indexOf(lang));
  const [bucket, side] = await Promise.all([
    batchGet([{ PK: SERIES_WORDS.partition(term), SK: 'S' }]),
    queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': SIDE } }),
  ]);
  const indexed: number[] = [];
  for (const [attr, value] of Object.entries(bucket[0] ?? {})) {
    if (!attr.startsWith('e') || typeof value !== 'string') continue;
    const [first = '', lastEnd = '', , , langs = '', hiddenLangs = ''] = value.split('|');
    // Occurrences start from the series' first start and end by its last end: a series wholly outside the starts is skipped.
    if ((starts.to !== undefined && first > `${starts.to}~`) || (starts.from !== undefined && lastEnd < starts.from)) continue;
    if (langs.includes(l) || (hidden && hiddenLangs.includes(l))) indexed.push(Number(attr.slice(1)));
  }
  const check = side.map((i) => Number(String(i.SK).slice(2))).filter((id) => !indexed.includes(id));
  return { indexed, check };
}
