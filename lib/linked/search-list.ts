/**
 * GET /venues?search= and /organizers?search= through the word index (lib/linked/words.ts; contract §9): a one-word
 * search by a caller whose visible set depends only on status is counted from the term's count items and paged from
 * its day buckets, newest first, so it reads about its page; any other search (several words, a word longer than the
 * index's terms, hidden text searchable with a password or context=edit, authors' own drafts, has_events,
 * only_with_upcoming) reads the entries of its rarest word and checks what they cannot tell on the records, so it
 * reads about that word's matches. Records the index may be behind on, or holds whole, are read and checked on
 * themselves by every search.
 */
import { canEdit, countableStatuses, listVisible } from '../auth/access.js';
import type { RequestContext } from '../http/context.js';
import type { LinkedListParams } from '../routes/linked.js';
import type { PostStatus } from '../model/status.js';
import { postKey } from '../store/keys.js';
import { hasLinkedEventFrom } from '../store/links.js';
import { batchGet } from '../store/records.js';
import { queryWords, termOf } from '../text/words.js';
import { nowUtcWall } from '../time/format.js';
import type { LinkedItem, LinkedKind } from './item.js';
import { matchesSearch } from './search.js';
import { isLocked } from './serialize.js';
import { countTerm, langIndex, newestFirst, parseValue, pendingManifests, readSide, readTerm, repairLinked } from './words.js';

/** A page of a search: its total, the ids of the page in list order, and the records already read. */
export interface SearchPage {
  total: number;
  ids: number[];
  full: Map<number, LinkedItem>;
}

interface Listed { id: number; dateUtc: string }

/** filter() with an async predicate, `width` at a time, order kept. */
export async function filterAsync<T>(list: T[], width: number, keep: (t: T) => Promise<boolean>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < list.length; i += width) {
    const chunk = list.slice(i, i + width);
    const verdicts = await Promise.all(chunk.map(keep));
    chunk.forEach((t, j) => verdicts[j] && out.push(t));
  }
  return out;
}

export async function searchLinked(kind: LinkedKind, ctx: RequestContext<LinkedListParams>, userId: number | null,
  page: number, perPage: number): Promise<SearchPage> {
  const p = ctx.params;
  const lang = ctx.lang;
  const words = queryWords(p.search!);
  const terms = words.map(termOf);
  // With a password or context=edit, hidden text may be searchable: such entries are candidates, checked on records.
  const hidden = p.password !== undefined || p.context === 'edit';
  const statuses = countableStatuses(ctx.caller, p.status);
  const hasEvents = typeof p.has_events === 'boolean' ? p.has_events : undefined;
  const exact = words.length === 1 && terms[0]!.exact;
  const locked = (item: LinkedItem) => isLocked(item, p.password) && !(p.context === 'edit' && canEdit(ctx.caller, userId, item));
  const visible = (e: { status: string; author: number }) => listVisible(ctx.caller, userId, p.status, e);
  const matches = (item: LinkedItem) => item.kind === kind && visible(item) && matchesSearch(kind, item, lang, words, locked(item))
    && (hasEvents === undefined || ((item.linked ?? 0) > 0) === hasEvents);

  const side = await readSide(kind);
  const aside = new Set([...side.pending, ...side.whole]);
  const full = new Map<number, LinkedItem>();
  const keep = (items: LinkedItem[]) => items.filter((i) => {
    full.set(i.id, i);
    return matches(i);
  });

  let listed: Listed[];
  let total: number;
  if (exact && !hidden && statuses && hasEvents === undefined && p.only_with_upcoming !== true) {
    const term = terms[0]!.term;
    const l = langIndex(lang);
    const [counted, asideRecords, manifests, entries] = await Promise.all([
      countTerm(kind, term, lang, statuses),
      batchGet([...aside].map(postKey)) as Promise<LinkedItem[]>,
      pendingManifests(side.pending),
      readTerm(kind, term, lang, false, page * perPage, (e) => !aside.has(e.id) && statuses.includes(e.status as PostStatus)),
    ]);
    // What the counts still hold for records whose index is behind: they are counted from their records instead.
    const stale = [...manifests.values()].filter((m) => {
      const value = m.t.get(term);
      if (value === undefined) return false;
      const e = parseValue(0, value);
      return e.langs.includes(l) && statuses.includes(e.status as PostStatus);
    }).length;
    const extra = keep(asideRecords);
    total = counted - stale + extra.length;
    listed = [...entries, ...extra].sort(newestFirst);
  } else {
    const term = await rarest(kind, [...new Set(terms.map((t) => t.term))], lang);
    const [asideRecords, entries] = await Promise.all([
      batchGet([...aside].map(postKey)) as Promise<LinkedItem[]>,
      readTerm(kind, term, lang, hidden, Infinity, (e) => !aside.has(e.id) && visible(e)),
    ]);
    // The entries of one exact word say everything but has_events and the records' own locks; otherwise, records.
    const checked: Listed[] = exact && !hidden && hasEvents === undefined ? entries
      : keep((await batchGet(entries.map((e) => postKey(e.id)))) as LinkedItem[]);
    let found: Listed[] = [...checked, ...keep(asideRecords)];
    if (p.only_with_upcoming === true) {
      const now = nowUtcWall();
      const listable = (e: { status: string; author: number }) => listVisible(ctx.caller, userId, undefined, e);
      found = await filterAsync(found, 16, (e) => hasLinkedEventFrom(kind, e.id, now, listable));
    }
    listed = found.sort(newestFirst);
    total = listed.length;
  }
  await repairLinked(kind, side.markers);
  return { total, ids: listed.slice((page - 1) * perPage, page * perPage).map((e) => e.id), full };
}

/** Of several index terms, the one with the fewest records showing it in `lang` (from the count items). */
async function rarest(kind: LinkedKind, terms: string[], lang: RequestContext['lang']): Promise<string> {
  if (terms.length === 1) return terms[0]!;
  const counts = await Promise.all(terms.map((t) => countTerm(kind, t, lang, null)));
  return terms[counts.indexOf(Math.min(...counts))]!;
}
