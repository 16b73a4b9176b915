/**
 * GET /categories and GET /tags (reference §5.2, §8; contract §9). A list in name order with no filter but
 * hide_empty is counted from the taxonomy's count item and paged through the name-ordered index (ordered.ts); any other list
 * reads every term of the taxonomy from its byStart partition (small projected items) and filters, orders and
 * counts in memory. Only the page's records are fetched in full.
 */
import { canEdit, canRead } from '../auth/access.js';
import { isEvent } from '../events/record.js';
import { matchesWords, queryWords, termOf } from '../text/words.js';
import type { RequestContext } from '../http/context.js';
import type { TermListParams } from '../routes/terms.js';
import { listHeaders, serializePage, type PageLinks } from '../http/pagination.js';
import { json, type HttpResult } from '../http/response.js';
import { termKey, type Taxonomy } from '../store/keys.js';
import { batchGet, getPost } from '../store/records.js';
import { slugify } from '../text/slug.js';
import { indexName, isHierarchical, isTerm, TAXONOMIES, termText, type TermItem } from './item.js';
import { serializeTerm } from './serialize.js';
import { pageInNameOrder, termCounts } from './ordered.js';
import { compareUtf8, nameSortKey } from './order.js';
import { queryTermIndex, type TermEntry } from './store.js';
import { isFilled, readTermSide, searchTermWord } from './words.js';

export type TermOrderBy = 'id' | 'name' | 'slug' | 'count' | 'include' | 'description' | 'term_group';

/**
 * Case- and accent-insensitive order, like the origin's database collation. Built on first use: constructing the
 * first Intl.Collator loads ICU's collation data, about 5 ms that would otherwise be spent in every cold start of
 * the categories and tags functions, also for requests that never sort by text.
 */
let collator: Intl.Collator | undefined;
const compareText = (a: string, b: string): number => (collator ??= new Intl.Collator('en', { sensitivity: 'base' })).compare(a, b);

/**
 * The ids of the terms an event links to, as far as the caller may see them: the terms of an event the caller
 * cannot read (or of a password-protected one the caller cannot edit) are not shown, as in event lists.
 */
async function termsOfEvent(taxonomy: Taxonomy, eventId: number, ctx: RequestContext): Promise<Set<number>> {
  const event = await getPost(eventId);
  if (!isEvent(event)) return new Set();
  if (event.status !== 'publish' || event.pw) {
    const userId = await ctx.userId();
    if (!canRead(ctx.caller, userId, event) || (event.pw && !canEdit(ctx.caller, userId, event))) return new Set();
  }
  return new Set(taxonomy === 'category' ? event.categories ?? [] : event.tags ?? []);
}

/**
 * Terms that count as not empty: a published event links them, or (categories, as WordPress' hierarchical
 * get_terms) one of their descendants.
 */
export function nonEmpty(all: Pick<TermEntry, 'id' | 'parent' | 'cnt'>[], hierarchical: boolean): Set<number> {
  const out = new Set<number>();
  const parents = new Map(all.map((e) => [e.id, e.parent]));
  for (const e of all) {
    if (e.cnt <= 0) continue;
    out.add(e.id);
    if (!hierarchical) continue;
    for (let p = e.parent, depth = 0; p && !out.has(p) && depth < 100; p = parents.get(p) ?? 0, depth++) out.add(p);
  }
  return out;
}

/** Sorts entries in place: by the key asked for, ties by id; `desc` reverses the whole order. */
export function sortEntries<T extends TermEntry>(entries: T[], orderby: TermOrderBy, order: 'asc' | 'desc', opts: {
  name: (e: T) => string; description?: (e: T) => string; include?: number[];
}): T[] {
  const position = new Map((opts.include ?? []).map((id, i) => [id, i]));
  const by = orderby === 'include' && !opts.include ? 'name' : orderby;
  const primary = (a: T, b: T): number => {
    switch (by) {
      case 'id':
      case 'term_group':
        return 0;
      case 'count':
        return a.cnt - b.cnt;
      case 'slug':
        return compareText(a.slug, b.slug);
      case 'description':
        return compareText(opts.description?.(a) ?? '', opts.description?.(b) ?? '');
      case 'include':
        return (position.get(a.id) ?? Infinity) - (position.get(b.id) ?? Infinity);
      default:
        return compareUtf8(nameKeyOf(a), nameKeyOf(b));
    }
  };
  const nameKeys = new Map<number, string>();
  const nameKeyOf = (e: T): string => {
    let key = nameKeys.get(e.id);
    if (key === undefined) nameKeys.set(e.id, key = nameSortKey(opts.name(e), e.id));
    return key;
  };
  const sign = order === 'desc' ? -1 : 1;
  return entries.sort((a, b) => sign * (primary(a, b) || a.id - b.id));
}

/** next/previous by arithmetic, carrying only `page` (reference §5.2); page 1 has no `page` parameter. */
export function termPageLinks(base: string, page: number, totalPages: number, lang?: string): PageLinks {
  // Only `page` (reference §5.2), plus the language a translation_language request asked for (contract §8).
  const query = (n: number): string => [n > 1 ? `page=${n}` : '', lang ? `translation_language=${lang}` : ''].filter(Boolean).join('&');
  const at = (n: number): string => (query(n) ? `${base}?${query(n)}` : base);
  return {
    ...(page < totalPages ? { next: at(page + 1) } : {}),
    ...(page > 1 ? { previous: at(page - 1) } : {}),
  };
}

export async function listTerms(taxonomy: Taxonomy, ctx: RequestContext<TermListParams>): Promise<HttpResult> {
  const p = ctx.params;
  const { page, per_page: perPage } = p;
  const { total, ids, records, stillFilled } = inNameOrder(p)
    ? await namePage(taxonomy, ctx)
    : (wordSearch(p) ? await wordPage(taxonomy, ctx, wordSearch(p)!) : null) ?? await filteredPage(taxonomy, ctx);
  const totalPages = Math.ceil(total / perPage);
  const shown = ids.map((id) => records.get(id)).filter((t): t is TermItem => t !== undefined && (!stillFilled || stillFilled(t)));
  const terms = serializePage(shown, (t) => serializeTerm(t, ctx));

  const plural = TAXONOMIES[taxonomy].plural;
  const base = `${ctx.apiUrl}/${plural}/`;
  const links = termPageLinks(base, page, totalPages, p.translation_language);
  return json(200, {
    rest_url: base,
    total,
    total_pages: totalPages,
    [plural]: terms,
    ...(links.next ? { next_rest_url: links.next } : {}),
    ...(links.previous ? { previous_rest_url: links.previous } : {}),
  }, listHeaders(total, totalPages, links));
}

/** A page of a list: the total, the page's ids in order, their records, and which of them may still be shown. */
interface ListPage {
  total: number;
  ids: number[];
  records: Map<number, TermItem>;
  /** With hide_empty: false for a term whose count fell to 0 (with no non-empty descendant) since the count was read. */
  stillFilled: ((t: TermItem) => boolean) | null;
}

/** Lists in plain name order (no filter but hide_empty) are read from the name-ordered index, not the taxonomy. */
const inNameOrder = (p: TermListParams): boolean =>
  (p.orderby ?? 'name') === 'name' && p.event === undefined && p.post === undefined && p.include === undefined
  && p.exclude === undefined && p.parent === undefined && p.slug === undefined && p.search === undefined;

/**
 * A search for one word whose index term is the word itself, in name order with no other filter: counted and paged
 * from the word index (words.ts). Other searches read the taxonomy (filteredPage).
 */
function wordSearch(p: TermListParams): string | null {
  if (p.search === undefined || (p.orderby ?? 'name') !== 'name' || p.event !== undefined || p.post !== undefined
    || p.include !== undefined || p.exclude !== undefined || p.parent !== undefined || p.slug !== undefined) return null;
  const words = queryWords(p.search);
  return words.length === 1 && termOf(words[0]!).exact ? words[0]! : null;
}

/** Null on a table whose counts are not built (its emptiness flags are not kept yet): the caller reads the taxonomy. */
async function wordPage(taxonomy: Taxonomy, ctx: RequestContext<TermListParams>, word: string): Promise<ListPage | null> {
  const p = ctx.params;
  const side = await readTermSide(taxonomy);
  if (!side.built) return null;
  const hideEmpty = p.hide_empty !== false;
  const { total, ids } = await searchTermWord(taxonomy, word, ctx.lang, hideEmpty, p.order === 'desc', (p.page - 1) * p.per_page,
    p.per_page, side);
  const records = await fetchTerms(taxonomy, ids);
  return { total, ids, records, stillFilled: hideEmpty ? (t) => isFilled(taxonomy, t) : null };
}

async function namePage(taxonomy: Taxonomy, ctx: RequestContext<TermListParams>): Promise<ListPage> {
  const p = ctx.params;
  const counts = await termCounts(taxonomy);
  if (!counts) return filteredPage(taxonomy, ctx); // a table whose counts are not built yet: exact, at the old cost
  const hideEmpty = p.hide_empty !== false;
  const total = hideEmpty ? counts.filled : counts.all;
  // Categories count as not empty through a descendant too: their `linked` says so (lib/store/nonempty.ts).
  const filled = (t: { cnt?: number; linked?: number }): boolean =>
    (isHierarchical(taxonomy) ? Number(t.linked ?? 0) : Number(t.cnt ?? 0)) > 0;
  const skip = (p.page - 1) * p.per_page;
  const ids = skip >= total ? [] : await pageInNameOrder(taxonomy, ctx.lang, p.order === 'desc', skip, p.per_page,
    (e) => !hideEmpty || filled(e));
  const records = await fetchTerms(taxonomy, ids);
  return { total, ids, records, stillFilled: hideEmpty ? filled : null };
}

/** Any other list: every term of the taxonomy read from its index partition, filtered, ordered and counted here. */
async function filteredPage(taxonomy: Taxonomy, ctx: RequestContext<TermListParams>): Promise<ListPage> {
  const p = ctx.params;
  const { page, per_page: perPage } = p;
  const hierarchical = isHierarchical(taxonomy);

  const all = await queryTermIndex(taxonomy);
  let entries = all;

  const eventId = p.event ?? p.post;
  if (eventId !== undefined) {
    const linked = await termsOfEvent(taxonomy, eventId, ctx);
    entries = entries.filter((e) => linked.has(e.id));
  }
  const include = p.include;
  if (include) {
    const wanted = new Set(include);
    entries = entries.filter((e) => wanted.has(e.id));
  }
  const exclude = p.exclude;
  if (exclude) {
    const unwanted = new Set(exclude);
    entries = entries.filter((e) => !unwanted.has(e.id));
  }
  const parent = hierarchical ? p.parent : undefined;
  if (parent !== undefined) entries = entries.filter((e) => e.parent === parent);
  if (p.slug !== undefined) {
    const raw = p.slug.trim().toLowerCase();
    const slug = slugify(raw);
    entries = entries.filter((e) => e.slug === raw || e.slug === slug);
  }
  const name = (e: TermEntry): string => indexName(e.nm, ctx.lang);
  if (p.search !== undefined) {
    const words = queryWords(p.search);
    entries = entries.filter((e) => matchesWords(words, [name(e), e.slug]));
  }
  if (p.hide_empty !== false) {
    const filled = nonEmpty(all, hierarchical);
    entries = entries.filter((e) => filled.has(e.id));
  }

  const orderby: TermOrderBy = p.orderby ?? 'name';
  let full: Map<number, TermItem> | null = null;
  if (orderby === 'description') full = await fetchTerms(taxonomy, entries.map((e) => e.id));
  sortEntries(entries, orderby, p.order ?? 'asc', {
    name,
    description: (e) => (full?.get(e.id) ? termText(full.get(e.id)!, ctx.lang, 'description') : ''),
    include,
  });

  const ids = entries.slice((page - 1) * perPage, page * perPage).map((e) => e.id);
  const records = full ?? (await fetchTerms(taxonomy, ids));
  // Counts change between the index read and this one: with hide_empty, a term whose count just fell to 0 (and that
  // has no non-empty descendant) is left out rather than shown empty.
  const stillFilled = p.hide_empty !== false
    ? nonEmpty(all.map((e) => (records.has(e.id) ? { ...e, cnt: Number(records.get(e.id)!.cnt ?? 0) } : e)), hierarchical) : null;
  return { total: entries.length, ids, records, stillFilled: stillFilled ? (t) => stillFilled.has(t.id) : null };
}

async function fetchTerms(taxonomy: Taxonomy, ids: number[]): Promise<Map<number, TermItem>> {
  if (ids.length === 0) return new Map();
  const items = await batchGet(ids.map(termKey));
  return new Map(items.filter((t) => isTerm(t, taxonomy)).map((t) => [t.id, t]));
}
