/**
 * The two wire shapes of a term (reference §4.4): (b) from the /categories and /tags routes, and (a) embedded
 * in events. Both read the item as stored and return text in the request language, falling back to the
 * term's first language (contract §8).
 */
import type { RequestContext } from '../http/context.js';
import { always, apiLink, emptyArray, int, obj, sometimes, str, wireShape } from '../openapi/shape.js';
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

/** What a term's wire fields are computed from. */
interface TermView {
  t: TermItem;
  ctx: TermContext;
}

const termUrlsSchema = obj({
  self: apiLink('this term'),
  collection: apiLink('the term collection'),
  up: str('absolute API URL of the parent category (only when parent is not 0)', { format: 'uri' }),
}, ['self', 'collection'], 'API links of the term');
const taxonomySchema = str('tribe_events_cat for categories, post_tag for tags', { enum: ['tribe_events_cat', 'post_tag'] });
const countSchema = int('number of published events with this term', { minimum: 0 });
const name = (v: TermView) => termText(v.t, v.ctx.lang, 'name');
const description = (v: TermView) => termText(v.t, v.ctx.lang, 'description');

/**
 * Shape 4.4(b): `{id, count, description, name, slug, taxonomy, parent (categories only), meta: [], url, urls}`.
 * WordPress' `_links` (pointing at /wp/v2 routes this service does not have) are not emitted.
 */
export const TERM_SHAPE = wireShape<TermView>('A category or tag as returned by /categories and /tags (reference §4.4(b))', {
  id: always(int('the term ID', { minimum: 1 }), (v) => v.t.id),
  count: always(countSchema, (v) => countOf(v.t)),
  description: always(str('the term description (HTML), in the request language'), description),
  name: always(str('the term name, in the request language'), name),
  slug: always(str('the term slug'), (v) => v.t.slug),
  taxonomy: always(taxonomySchema, (v) => TAXONOMIES[v.t.taxonomy].wp),
  parent: sometimes(int('the parent category ID, 0 for top-level categories; categories only (tags have no parent key)', { minimum: 0 }),
    (v) => (v.t.taxonomy === 'category' ? parentOf(v.t) : undefined)),
  meta: always(emptyArray('always []'), () => []),
  url: always(str('public archive page of the term (/events/category/<slug>/ or /tag/<slug>/)', { format: 'uri' }),
    (v) => termPublicUrl(v.t, v.ctx)),
  urls: always(termUrlsSchema, (v) => termUrls(v.t, v.ctx)),
});

/**
 * Shape 4.4(a), as embedded in events: the raw WordPress term row with `id` last and `urls` added
 * (`{name, slug, term_group: 0, term_taxonomy_id, taxonomy, description, parent, count, filter: 'raw', id, urls}`).
 */
export const EVENT_TERM_SHAPE = wireShape<TermView>('A category or tag as embedded in an event (reference §4.4(a)): no public url', {
  name: always(str('the term name, in the request language'), name),
  slug: always(str('the term slug'), (v) => v.t.slug),
  term_group: always(int('always 0'), () => 0),
  term_taxonomy_id: always(int('the term ID again'), (v) => v.t.id),
  taxonomy: always(taxonomySchema, (v) => TAXONOMIES[v.t.taxonomy].wp),
  description: always(str('the term description (HTML), in the request language'), description),
  parent: always(int('the parent category ID, 0 for top-level categories and for every tag', { minimum: 0 }), (v) => parentOf(v.t)),
  count: always(countSchema, (v) => countOf(v.t)),
  filter: always(str('always "raw"', { enum: ['raw'] }), () => 'raw'),
  id: always(int('the term ID', { minimum: 1 }), (v) => v.t.id),
  urls: always(termUrlsSchema, (v) => termUrls(v.t, v.ctx)),
});

export const serializeTerm = (t: TermItem, ctx: TermContext): Json => TERM_SHAPE.render({ t, ctx });
export const serializeEventTerm = (t: TermItem, ctx: TermContext): Json => EVENT_TERM_SHAPE.render({ t, ctx });
