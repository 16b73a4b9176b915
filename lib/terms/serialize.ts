/**
 * The two wire shapes of a term (reference §4.4): (b) from the /categories and /tags routes, and (a) embedded
 * in events. Both read the item as stored and return text in the request language, falling back to the
 * term's first language (contract §8).
 */
import type { RequestContext } from '../http/context.js';
import type { Item } from '../store/records.js';
import { TAXONOMIES, termText, type TermItem } from './item.js';

export type Json = Record<string, unknown>;

/** What the serializers need from the request (a RequestContext has it all). */
export type TermContext = Pick<RequestContext, 'lang' | 'apiUrl' | 'siteUrl'>;

const countOf = (t: TermItem): number => Math.max(0, Number(t.cnt ?? 0));
const parentOf = (t: TermItem): number => (t.taxonomy === 'category' ? Number(t.parent ?? 0) : 0);

/** `{self, collection[, up]}`: API links of the term, its collection and (when it has one) its parent. */
export function termUrls(t: Pick<TermItem, 'id' | 'taxonomy' | 'parent'>, ctx: Pick<RequestContext, 'apiUrl'>): Json {
  const collection = `${ctx.apiUrl}/${TAXONOMIES[t.taxonomy].plural}`;
  const parent = t.taxonomy === 'category' ? Number(t.parent ?? 0) : 0;
  return {
    self: `${collection}/${t.id}`,
    collection,
    ...(parent ? { up: `${collection}/${parent}` } : {}),
  };
}

/** Public archive page of a term: `{site}/events/category/<slug>/` or `{site}/tag/<slug>/` (contract §5). */
export const termPublicUrl = (t: Pick<TermItem, 'taxonomy' | 'slug'>, ctx: Pick<RequestContext, 'siteUrl'>): string =>
  `${ctx.siteUrl}/${TAXONOMIES[t.taxonomy].publicPath}/${encodeURIComponent(t.slug)}/`;

/**
 * Shape 4.4(b): `{id, count, description, name, slug, taxonomy, parent (categories only), meta: [], url, urls}`.
 * WordPress' `_links` (pointing at /wp/v2 routes this service does not have) are not emitted.
 */
export function serializeTerm(t: TermItem, ctx: TermContext): Json {
  return {
    id: t.id,
    count: countOf(t),
    description: termText(t, ctx.lang, 'description'),
    name: termText(t, ctx.lang, 'name'),
    slug: t.slug,
    taxonomy: TAXONOMIES[t.taxonomy].wp,
    ...(t.taxonomy === 'category' ? { parent: parentOf(t) } : {}),
    meta: [],
    url: termPublicUrl(t, ctx),
    urls: termUrls(t, ctx),
  };
}

/**
 * Shape 4.4(a), as embedded in events: the raw WordPress term row with `id` last and `urls` added
 * (`{name, slug, term_group: 0, term_taxonomy_id, taxonomy, description, parent, count, filter: 'raw', id, urls}`).
 */
export function serializeEventTerm(t: TermItem, ctx: TermContext): Json {
  return {
    name: termText(t, ctx.lang, 'name'),
    slug: t.slug,
    term_group: 0,
    term_taxonomy_id: t.id,
    taxonomy: TAXONOMIES[t.taxonomy].wp,
    description: termText(t, ctx.lang, 'description'),
    parent: parentOf(t),
    count: countOf(t),
    filter: 'raw',
    id: t.id,
    urls: termUrls(t, ctx),
  };
}
