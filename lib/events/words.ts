/**
 * What the search index holds for an event (lib/store/words.ts): the index terms of its text as shown in each
 * language (contract §8 fallbacks applied), each with the languages that show it. A password-protected event shows
 * only its title to searchers who did not send the password: the rest of its text is indexed as hidden.
 */
import { LANGUAGES } from '../model/language.js';
import type { Item } from '../store/records.js';
import { StoreUnavailable } from '../store/errors.js';
import type { TransactItem } from '../store/types.js';
import { EMPTY_MANIFEST, inlineWordItems, MAX_TERMS, readManifest, repairWords, syncWords, wordMarker, wordValue, type Manifest,
  type WordTarget } from '../store/words.js';
import { htmlToText } from '../text/sanitize.js';
import { indexTerms } from '../text/words.js';
import { eventFacts, inheritsText, isEvent, isSeries, textOf, type EventItem } from './record.js';
import { logger } from '../observability/logger.js';

const NOTHING: WordTarget = { terms: new Map(), facts: null, tooLarge: false };

/**
 * The index terms of an event's text, each with the languages that show it and those whose hidden text (password)
 * alone holds it; null when there are more than MAX_TERMS.
 */
export function textTerms(record: EventItem): { shown: Map<string, string>; hidden: Map<string, string>; all: Set<string> } | null {
  const shown = new Map<string, string>();
  const hidden = new Map<string, string>();
  // Languages without a translation show the same text: their terms are computed once (with one language, the
  // usual case, every language shows the first one's text).
  const single = Object.keys(record.tr).length <= 1;
  const cache = new Map<string, { visible: Set<string>; rest: Set<string> }>();
  LANGUAGES.forEach((lang, i) => {
    const title = textOf(record, lang, 'title');
    const rest = [textOf(record, lang, 'excerpt'), textOf(record, lang, 'description')];
    const key = single ? '' : JSON.stringify([title, rest]);
    let terms = cache.get(key);
    if (!terms) {
      const restText = rest.map(htmlToText);
      const visible = indexTerms(record.pw ? [title] : [title, ...restText]);
      terms = { visible, rest: record.pw ? indexTerms(restText) : new Set() };
      cache.set(key, terms);
    }
    for (const t of terms.visible) shown.set(t, (shown.get(t) ?? '') + i);
    for (const t of terms.rest) if (!terms.visible.has(t)) hidden.set(t, (hidden.get(t) ?? '') + i);
  });
  const all = new Set([...shown.keys(), ...hidden.keys()]);
  return all.size > MAX_TERMS ? null : { shown, hidden, all };
}

/**
 * What the event index holds for a record: nothing for a series record and for occurrences whose text is their series'
 * (search finds those through the series' own index, lib/events/series-words.ts).
 */
export function wordTarget(record: Item | null): WordTarget {
  if (!isEvent(record) || record.hidden || isSeries(record) || inheritsText(record)) return NOTHING;
  const text = textTerms(record);
  if (!text) return { terms: new Map(), facts: eventFacts(record), tooLarge: true };
  const { shown, hidden, all } = text;
  // Terms share a few distinct values (they differ only in their languages).
  const values = new Map<string, string>();
  const valueOf = (langs: string, hiddenLangs: string): string => {
    const k = `${langs}|${hiddenLangs}`;
    let v = values.get(k);
    if (v === undefined) values.set(k, (v = wordValue(record, langs, hiddenLangs)));
    return v;
  };
  return {
    terms: new Map([...all].map((t) => [t, valueOf(shown.get(t) ?? '', hidden.get(t) ?? '')])),
    facts: eventFacts(record),
    tooLarge: false,
  };
}

/** Whether a write from `prev` to `next` can change what the index holds for the event. */
export function wordsMayChange(prev: EventItem | null, next: EventItem | null): boolean {
  const key = (e: EventItem | null) => e && JSON.stringify([e.tr, e.lang0, Boolean(e.pw), e.hidden || isSeries(e) || inheritsText(e), e.startUtc, e.endUtc, e.status, e.author]);
  return key(prev) !== key(next);
}

/** Bumped whenever indexTerms or wordTarget change what an event's terms are: records written before read their manifest. */
export const WORD_RULES = 1;

/** How an event write keeps the index: items for its transaction, the record's fields, and the work after it. */
export interface WordPlan {
  items: TransactItem[];
  record<T extends EventItem | null>(r: T): T;
  /** Runs the write's commit, then the index work; also when the commit's outcome is unknown (it may have landed). */
  commit(write: () => Promise<void>): Promise<void>;
}

function planOf(items: TransactItem[], record: WordPlan['record'], after: () => Promise<void>): WordPlan {
  return {
    items,
    record,
    commit: async (write) => {
      try {
        await write();
      } catch (e) {
        if (e instanceof StoreUnavailable && e.outcomeUnknown) await after();
        throw e;
      }
      await after();
    },
  };
}

const unchanged: WordPlan = planOf([], (r) => r, async () => {});

/**
 * Plans the index change of a write from `prev` to `next` (null: create / permanent delete). When it fits in the
 * `room` the rest of the transaction leaves, it joins the transaction and the record notes the manifest version it
 * left (`ws`, `wmv`), so the next write knows what the index holds without reading the manifest. Otherwise the
 * transaction carries the event's marker and the index is brought up to date after it (syncWords).
 */
export async function planWords(prev: EventItem | null, next: EventItem | null, room: number): Promise<WordPlan> {
  // A record without `ws` may have an index behind it (changed after its transaction, or written before the index
  // existed): any write of it compares with the manifest.
  if (!wordsMayChange(prev, next) && (prev === null || prev.ws === WORD_RULES)) return unchanged;
  const id = (next ?? prev)!.id;
  const goal = next ? wordTarget(next) : null;
  const manifest: Manifest = prev === null ? EMPTY_MANIFEST
    : prev.ws === WORD_RULES ? { ...EMPTY_MANIFEST, exists: (prev.wmv ?? 0) > 0, mv: prev.wmv ?? 0, t: wordTarget(prev).terms }
      : await readManifest(id);
  const inline = goal?.tooLarge ? null : inlineWordItems(id, manifest, goal ? goal.terms : null, room);
  if (inline) return planOf(inline.items, (r) => (r ? { ...r, ws: WORD_RULES, wmv: inline.mv } : r), async () => {});
  return planOf([wordMarker(id, next?.v ?? prev!.v + 1, new Date().toISOString())], (r) => {
    if (!r) return r;
    const { ws: _ws, wmv: _wmv, ...rest } = r;
    return rest as typeof r;
  }, () => indexWords(id));
}

/**
 * After the write has committed: brings the event's index up to date, then finishes one or two writes whose
 * requests ended before theirs. A failure here does not fail the write: its marker stays, and a later write finishes it.
 */
async function indexWords(id: number): Promise<void> {
  try {
    await syncWords(id, wordTarget);
    await repairWords(wordTarget);
  } catch (e) {
    logger.warn('search index not brought up to date; a later write finishes it', { id, error: e as Error });
  }
}
