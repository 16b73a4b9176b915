/**
 * Reading the event word index (./README.md "Reading"): the events holding a term, as a list source
 * (lib/store/event-sources.ts). Its total comes from the packed day counts of the term's count group, and a page reads
 * only the postings of the days those counts name, so a rare word costs about its page and a common one a day or two.
 */
import type { Language } from '../model/language.js';
import type { EventIndexEntry } from '../store/entries.js';
import { entryOfItem } from '../store/entries.js';
import { statusCode } from '../store/event-counts.js';
import { readMeta } from '../store/events.js';
import type { EventSource } from '../store/event-sources.js';
import { batchGet, queryAll, type Item } from '../store/records.js';
import { within, type Bound } from '../time/wall.js';
import { countPartition, postingPartition, spanPartitionOf } from './changes.js';
import { NONE_IN_FLIGHT, type InFlight } from './in-flight.js';
import { attributeCounts, countGroupOf, countSortKey, DAYS_PER_NUMBER, langBit, letterOf, masksOf, parseCountAttribute, parsePosting, unpack } from './terms.js';

/** Events held whole (more than MAX_TERMS terms, or too many events of a day for a posting item): searches read them from their records. */
export const UNINDEXED_PARTITION = 'WX';

/** Events held whole with start in [from, to]: every search checks them on their records. */
export async function unindexedEvents(from: string, to: string): Promise<EventIndexEntry[]> {
  if (from > to) return [];
  const items = await queryAll({ KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': UNINDEXED_PARTITION, ':from': from, ':to': `${to}#~` } });
  return items.map(entryOfItem);
}

/** Whether a term's events are counted (a word source for it can give exact totals from its count items). */
export const countedTerm = (term: string): boolean => countGroupOf(term) !== null;

const ALL_STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'];

const monthsBetween = (from: string, to: string): string[] => {
  const out: string[] = [];
  for (let y = Number(from.slice(0, 4)), m = Number(from.slice(5, 7)); `${y}-${String(m).padStart(2, '0')}` <= to.slice(0, 7);) {
    out.push(`${y}-${String(m).padStart(2, '0')}`);
    if (++m > 12) {
      m = 1;
      y++;
    }
  }
  return out;
};

/**
 * The events holding `term` in the text `lang` shows (with `hidden`, also in the text only a password shows: those are
 * not counted, so such a source is read, not counted).
 */
export function wordSource(term: string, lang: Language, hidden = false, flight: InFlight = NONE_IN_FLIGHT): EventSource {
  const letter = letterOf(term);
  const group = countGroupOf(term);
  const bit = langBit(lang);
  const pk = postingPartition(letter);
  const countsPk = countPartition(group ?? '');
  // The count items this request has read, by sort key (`p#<month>`, `x#<month>`; null: none stored): totals and page
  // reads share them.
  const read = new Map<string, Item | null>();

  const entriesOf = (item: Item): EventIndexEntry[] => {
    const out: EventIndexEntry[] = [];
    for (const [attr, value] of Object.entries(item)) {
      if (attr[0] !== 'e' || typeof value !== 'string') continue;
      const p = parsePosting(value);
      const [shown, hid] = masksOf(p.tokens, term);
      if ((!(shown & bit) && !(hidden && hid & bit)) || flight.ids.has(Number(attr.slice(1)))) continue;
      out.push({ id: Number(attr.slice(1)), startUtc: p.startUtc, endUtc: p.endUtc, status: p.status, author: p.author });
    }
    return out.sort((a, b) => (a.startUtc === b.startUtc ? a.id - b.id : a.startUtc < b.startUtc ? -1 : 1));
  };

  /** The count items of the months from `from` to `to` for statuses of the classes asked, each read once per request. */
  async function countItems(from: string, to: string, classes: string[]): Promise<Map<string, Item[]>> {
    const wanted = monthsBetween(from, to);
    await Promise.all(classes.map(async (c) => {
      const missing = wanted.map((m) => `${c}#${m}`).filter((sk) => !read.has(sk));
      if (!missing.length) return;
      const items = await queryAll({ KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': countsPk, ':from': missing[0]!, ':to': missing.at(-1)! } });
      for (const sk of missing) read.set(sk, null);
      for (const item of items) read.set(String(item.SK), item);
    }));
    return new Map(wanted.map((m) => [m, classes.flatMap((c): Item[] => { const item = read.get(`${c}#${m}`); return item ? [item] : []; })]));
  }

  /** Events of the statuses (codes) per day of a month, from its count items (index 0: the 1st). */
  const perDay = (items: Item[], codes: Set<string>): number[] => {
    const days = new Array<number>(32).fill(0);
    for (const item of items) {
      for (const [attr, value] of Object.entries(item)) {
        const a = parseCountAttribute(attr);
        if (!a || !(a.shown & bit) || !codes.has(a.status) || typeof value !== 'number' || !attributeCounts(a, group!, term)) continue;
        unpack(value).forEach((n, i) => { days[a.n * DAYS_PER_NUMBER + i] += n; });
      }
    }
    return days;
  };

  /**
   * The days from `from` to `to` (UTC days) with events of the statuses, each with their number, in order; the months
   * read are those of the years that have events (an open bound reads no more).
   */
  async function daysWith(from: string, to: string, statuses: readonly string[]): Promise<[string, number][]> {
    const years = (await readMeta()).years;
    if (years.length === 0) return [];
    const first = `${Math.max(Number(from.slice(0, 4)), years[0]!)}`;
    const last = `${Math.min(Number(to.slice(0, 4)), years.at(-1)!)}`;
    const lo = first === from.slice(0, 4) ? from : `${first}-01-01`;
    const hi = last === to.slice(0, 4) ? to : `${last}-12-31`;
    if (lo > hi) return [];
    const codes = new Set(statuses.map(statusCode));
    const classes = [...new Set(statuses.map((s) => countSortKey(s, '').slice(0, 1)))];
    const out: [string, number][] = [];
    for (const [month, items] of await countItems(lo, hi, classes)) {
      perDay(items, codes).forEach((n, i) => {
        const day = `${month}-${String(i + 1).padStart(2, '0')}`;
        if (n > 0 && day >= from.slice(0, 10) && day <= to.slice(0, 10)) out.push([day, n]);
      });
    }
    return out;
  }

  const queries: EventSource['queries'] = (_meta, from, to) => [{
    input: { KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': pk, ':from': from.slice(0, 10), ':to': to.slice(0, 10) } },
    entries: entriesOf,
    limit: (need) => Math.min(100, Math.max(2, Math.ceil(need / 4))),
  }];

  return {
    counts: countsPk,
    prefix: '',
    factual: false,
    queries,
    // Events whose index change is in flight are counted from their records instead (./in-flight.ts).
    sumDays: group === null || hidden ? undefined : async (firstDay, lastDay, statuses) =>
      (await daysWith(firstDay, lastDay, statuses)).reduce((sum, [, n]) => sum + n, 0) - flight.counted(term, lang, statuses, firstDay, lastDay),
    // Pages read the postings of the days the counts name, a page's worth at a time.
    readFrom: group === null || hidden ? undefined : async (lo: Bound, hi: Bound, need: number, accept: (e: EventIndexEntry) => boolean,
      statuses: readonly string[] = ALL_STATUSES) => {
      const found: EventIndexEntry[] = [];
      const days = await daysWith(lo.utc, hi.utc, statuses);
      for (let i = 0; i < days.length && found.length < need;) {
        const batch: string[] = [];
        for (let counted = 0; i < days.length && batch.length < 100 && (counted < need - found.length || batch.length === 0); i++) {
          batch.push(days[i]![0]);
          counted += days[i]![1];
        }
        const items = await batchGet(batch.map((day) => ({ PK: pk, SK: day })));
        for (const item of items) {
          for (const e of entriesOf(item)) {
            if (found.length < need && within(e.startUtc, lo, hi) && accept(e)) found.push(e);
          }
        }
      }
      return found;
    },
    holds: async (entries) => {
      const items = await batchGet([...new Set(entries.map((e) => e.startUtc.slice(0, 10)))].map((day) => ({ PK: pk, SK: day })));
      const held = new Set(items.flatMap((b) => entriesOf(b).map((e) => e.id)));
      return entries.filter((e) => held.has(e.id));
    },
    // Long events: the letter's own span entries, checked for the term.
    longFrom: async (tier, from, to) => (await queryAll({ KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': spanPartitionOf(tier, letter), ':from': from, ':to': `${to}#~` } }))
      .flatMap((item) => {
        const p = parsePosting(String(item.v));
        const [shown, hid] = masksOf(p.tokens, term);
        return (shown & bit || (hidden && hid & bit)) && !flight.ids.has(Number(item.id))
          ? [{ id: Number(item.id), startUtc: p.startUtc, endUtc: p.endUtc, status: p.status, author: p.author }] : [];
      }),
  };
}
