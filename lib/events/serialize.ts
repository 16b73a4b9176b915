/** The event wire shape of reference §4.1, key for key and in order, with contract §5 decisions. */
import type { RequestContext } from '../http/context.js';
import { htmlToText } from '../text/sanitize.js';
import { imageObject } from '../text/image.js';
import { dateDetails, isoWithOffset, siteWall } from '../time/format.js';
import { timezoneAbbr } from '../time/zones.js';
import { costDetails, formatCost } from './cost.js';
import { textOf, type EventItem } from './record.js';

export type Json = Record<string, unknown>;

/** Linked records already serialised, by id (lib/events/embed.ts). */
export interface Embedded {
  venues: Map<number, Json>;
  organizers: Map<number, Json>;
  terms: Map<number, Json>;
}

export const noEmbeds = (): Embedded => ({ venues: new Map(), organizers: new Map(), terms: new Map() });

const escapeHtmlAttr = (s: string): string => s.replace(/&(?!amp;)/g, '&amp;');

export const imageOf = (url: string | undefined): Json | false => imageObject(url) ?? false;

export function globalId(ctx: RequestContext, id: number): string {
  return `${ctx.host}?id=${id}`;
}

/** Embedded terms in WordPress' wp_get_post_terms order: by name. */
const termList = (ids: number[], embedded: Embedded): Json[] =>
  ids.map((id) => embedded.terms.get(id)).filter((t): t is Json => t !== undefined)
    .sort((a, b) => String(a.name).localeCompare(String(b.name)) || (a.id as number) - (b.id as number));

export function serializeEvent(item: EventItem, ctx: RequestContext, embedded: Embedded = noEmbeds()): Json {
  const lang = ctx.lang;
  const url = `${ctx.siteUrl}/event/${encodeURIComponent(item.slug)}/`;
  const gid = globalId(ctx, item.id);
  const details = costDetails(item.cost);
  const venue = item.venue !== undefined ? embedded.venues.get(item.venue) : undefined;
  return {
    id: item.id,
    global_id: gid,
    global_id_lineage: [gid],
    author: item.author,
    status: item.status,
    date: siteWall(item.dateUtc),
    date_utc: item.dateUtc,
    modified: siteWall(item.modifiedUtc),
    modified_utc: item.modifiedUtc,
    url,
    rest_url: `${ctx.apiUrl}/events/${item.id}`,
    title: textOf(item, lang, 'title'),
    description: textOf(item, lang, 'description'),
    excerpt: textOf(item, lang, 'excerpt'),
    slug: item.slug,
    image: imageOf(item.image),
    all_day: item.allDay,
    start_date: item.start,
    start_date_details: dateDetails(item.start),
    end_date: item.end,
    end_date_details: dateDetails(item.end),
    utc_start_date: item.startUtc,
    utc_start_date_details: dateDetails(item.startUtc),
    utc_end_date: item.endUtc,
    utc_end_date_details: dateDetails(item.endUtc),
    timezone: item.tz,
    timezone_abbr: timezoneAbbr(item.tz, item.startUtc),
    cost: item.cost.length ? formatCost(item.cost, details) : '',
    cost_details: details,
    website: item.website === undefined ? url : escapeHtmlAttr(item.website),
    show_map: item.showMap,
    show_map_link: item.showMapLink,
    hide_from_listings: item.hidden,
    sticky: item.sticky,
    featured: item.featured,
    categories: termList(item.categories, embedded),
    tags: termList(item.tags, embedded),
    venue: venue ?? [],
    organizer: item.organizers.map((id) => embedded.organizers.get(id)).filter(Boolean),
    custom_fields: [],
  };
}

/** schema.org Event for single GETs (reference §4.1 `json_ld`). */
export function eventJsonLd(item: EventItem, ctx: RequestContext, wire: Json): Json {
  const ld: Json = {
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: textOf(item, ctx.lang, 'title'),
    description: htmlToText(textOf(item, ctx.lang, 'excerpt') || textOf(item, ctx.lang, 'description')),
    inLanguage: ctx.lang,
    url: wire.url,
    eventStatus: 'https://schema.org/EventScheduled',
    startDate: isoWithOffset(item.start, item.tz),
    endDate: isoWithOffset(item.end, item.tz),
  };
  if (item.image) ld.image = item.image;
  const venue = wire.venue as Json | [];
  if (!Array.isArray(venue) && venue.json_ld) ld.location = venue.json_ld;
  const organizers = (wire.organizer as Json[]).map((o) => o.json_ld).filter(Boolean);
  if (organizers.length) ld.organizer = organizers.length === 1 ? organizers[0] : organizers;
  const details = wire.cost_details as { values: string[] };
  const prices = details.values.filter((v) => /^\d+(\.\d+)?$/.test(v));
  if (prices.length) {
    ld.offers = prices.map((price) => ({ '@type': 'Offer', price, url: wire.url, category: 'primary' }));
  }
  return ld;
}

/** Field blanking of password-protected records (reference §11.3). */
const BLANK: Record<string, unknown> = {
  description: '', excerpt: '', cost: '', website: '', email: '', phone: '', stateprovince: '', zip: '', province: '',
  country: '', city: '', address: '', image: false, all_day: null, show_map: null, show_map_link: null,
  hide_from_listings: null, sticky: null, featured: null, categories: [], tags: [], venue: [], organizer: [],
  custom_fields: [], geo_lat: 0, geo_lng: 0,
  cost_details: { currency_symbol: '', currency_position: '', currency_code: '', values: [] },
};

export function blankProtected(record: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(record)) out[k] = k in BLANK ? structuredClone(BLANK[k]) : v;
  return out;
}
