/**
 * What the word index (lib/search/README.md) holds for an event, and how an event write keeps it: the index terms of
 * its text as shown in each language (contract §8 fallbacks applied), each with the languages that show it. A
 * password-protected event shows only its title to searchers who did not send the password: the rest of its text is
 * indexed as hidden.
 */
import { LANGUAGES } from '../model/language.js';
import { LinkConflict, StoreUnavailable, VersionConflict } from '../store/errors.js';
import { entryItem } from '../store/entries.js';
import type { Item } from '../store/records.js';
import { MAX_TERMS } from '../store/words.js';
import type { TransactItem } from '../store/types.js';
import { currentGroup, finishIndex, finishOwn, isSizeError, markerPut, noMarker, repairWordIndex, stateChanges, type IndexState } from '../search/commit.js';
import { UNINDEXED_PARTITION } from '../search/source.js';
import type { EventWords } from '../search/terms.js';
import { htmlToText } from '../text/sanitize.js';
import { indexTerms } from '../text/words.js';
import { eventFacts, inheritsText, isEvent, isSeries, textOf, type EventItem } from './record.js';
import { logger } from '../observability/logger.js';

/**
 * The index terms of an event's text, each with the languages that show it and those whose hidden text (password)
 * alone holds it (as LANGUAGES indexes); null when there are more than MAX_TERMS.
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

const mask = (langs: string | undefined): number => [...(langs ?? '')].reduce((m, i) => m | (1 << Number(i)), 0);

/** Whether the index holds an event at all: a listed event with text of its own (not a series, nor an occurrence with its series' text). */
const indexed = (record: EventItem): boolean => !record.hidden && !isSeries(record) && !inheritsText(record);

/**
 * What the index should hold for a record: its words, or — for an event of more than MAX_TERMS terms, or one held whole
 * (`wu`) — the entry that stands for it in the unindexed partition, which every search reads and checks on the records.
 */
export function indexState(record: Item | null): IndexState {
  if (!isEvent(record) || !indexed(record)) return { words: null, unindexed: null };
  const text = record.wu ? null : textTerms(record);
  if (!text) return { words: null, unindexed: entryItem(UNINDEXED_PARTITION, eventFacts(record)) };
  const terms = new Map<string, readonly [number, number]>();
  for (const t of text.all) terms.set(t, [mask(text.shown.get(t)), mask(text.hidden.get(t))]);
  const words: EventWords = { startUtc: record.startUtc, endUtc: record.endUtc, status: record.status, author: record.author, terms };
  return { words, unindexed: null };
}

const NOTHING: IndexState = { words: null, unindexed: null };

/** Whether a write from `prev` to `next` can change what the index holds for the event. */
export function wordsMayChange(prev: EventItem | null, next: EventItem | null): boolean {
  const key = (e: EventItem | null) => e && JSON.stringify([e.tr, e.lang0, Boolean(e.pw), !indexed(e), e.startUtc, e.endUtc, e.status, e.author, e.wu]);
  return key(prev) !== key(next);
}

/** Bumped whenever the index's layout or what it holds for an event changes: records written before are indexed anew. */
export const INDEX_RULES = 2;

/** How an event write keeps the index: items for its transaction, the record's fields, and the work after it. */
export interface WordPlan {
  items: TransactItem[];
  record<T extends EventItem | null>(r: T): T;
  /** Runs the write's commit, then the index work; also when the commit's outcome is unknown (it may have landed). */
  commit(write: () => Promise<void>): Promise<void>;
}

/** Events whose last write found an item of the index too large for them (this process): planned again, held whole. */
const overflowing = new Set<number>();

/**
 * Plans the index change of a write from `prev` to `next` (null: create / permanent delete). When it fits in the
 * `room` the rest of the transaction leaves, it joins the transaction (with a check that no earlier change of the event
 * is still being applied); otherwise the transaction puts the event's marker and the change is applied right after it,
 * in chunks side by side (lib/search/commit.ts). Either way the record notes `ws`: the index holds its words.
 */
export async function planWords(prev: EventItem | null, planned: EventItem | null, room: number): Promise<WordPlan> {
  const id = (planned ?? prev)!.id;
  // An event whose posting would pass the item size limit (thousands of events of one day) is held whole from then on.
  const whole = (overflowing.has(id) || prev?.wu === true) && planned !== null;
  const next = whole ? { ...planned!, wu: true } : planned;
  if (!wordsMayChange(prev, next) && (prev === null || prev.ws === INDEX_RULES)) {
    return { items: [], record: (r) => r, commit: (write) => write() };
  }
  // A record indexed by other rules (or never) has nothing in this layout: everything it should hold is written.
  const before = prev && prev.ws === INDEX_RULES ? indexState(prev) : NOTHING;
  const after = next ? indexState(next) : NOTHING;
  const items = stateChanges(id, before, after);
  const guard = prev ? [noMarker(id)] : [];
  const record = <T extends EventItem | null>(r: T): T => (r ? { ...r, ws: INDEX_RULES, ...(whole ? { wu: true } : {}) } : r);
  // A write of a batch (an import's) leaves its index change to the batch's group, folded with the others' (lib/search/commit.ts).
  const group = currentGroup();
  if (group && items.length) {
    return { items: [markerPut(id, next?.v ?? prev!.v + 1, before, group)], record, commit: (write) => committed(id, write, async () => {}) };
  }
  if (items.length + guard.length <= room) {
    return { items: [...guard, ...items], record, commit: (write) => committed(id, write, async () => {}) };
  }
  const v = next?.v ?? prev!.v + 1;
  const marker = markerPut(id, v, before);
  return { items: [marker], record, commit: (write) => committed(id, write, () => applyIndex(marker.Put!.Item as Item, next && record(next))) };
}

/**
 * Commits the write and then applies its index work. A write that lost a race may have met another write's marker:
 * that work is finished first, so the retry (lib/store/retry.ts) plans on an index that is whole.
 */
async function committed(id: number, write: () => Promise<void>, after: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (e) {
    // It may have landed: its marker, if it stands, says so.
    if (e instanceof StoreUnavailable && e.outcomeUnknown) await finishIndex(id, indexState).catch(() => false);
    if (isSizeError(e)) {
      overflowing.add(id);
      throw new LinkConflict();
    }
    if (e instanceof LinkConflict || e instanceof VersionConflict) await finishIndex(id, indexState);
    throw e;
  }
  await after();
}

/**
 * After the write has committed: applies its index change (from the marker it put and the record it wrote), and
 * meanwhile finishes one or two whose requests ended before theirs. A failure here does not fail the write: its marker
 * stays, and a later write or the sweeper finishes it.
 */
async function applyIndex(marker: Item, record: EventItem | null): Promise<void> {
  try {
    await Promise.all([finishOwn(marker, record, indexState), repairWordIndex(indexState)]);
  } catch (e) {
    logger.warn('search index not brought up to date; a later write finishes it', { id: marker.id, error: e as Error });
  }
}
