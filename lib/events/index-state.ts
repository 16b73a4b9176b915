/**
 * What the word index (lib/search/README.md) should hold for an event record: the index terms of its text as shown in
 * each language (contract §8 fallbacks applied), each with the languages that show it. A password-protected event
 * shows only its title to searchers who did not send the password: the rest of its text is indexed as hidden. Searches
 * need this as much as writes do (lib/search/in-flight.ts); how a write keeps the index is ./words.ts.
 */
import { LANGUAGES } from '../model/language.js';
import { entryItem } from '../store/entries.js';
import type { Item } from '../store/records.js';
import { MAX_TERMS } from '../store/words.js';
import type { IndexState } from '../search/flight.js';
import { UNINDEXED_PARTITION } from '../search/source.js';
import type { EventWords } from '../search/terms.js';
import { htmlToText } from '../text/sanitize.js';
import { indexTerms } from '../text/words.js';
import { eventFacts, inheritsText, isEvent, isSeries, textOf, type EventItem } from './record.js';

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
export const indexed = (record: EventItem): boolean => !record.hidden && !isSeries(record) && !inheritsText(record);

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
