/**
 * The stored venue/organizer item (lib/store/README.md "Venues and organizers") and how the parameters of a
 * write turn into one. Venues and organizers differ only in their own fields, so one module serves both.
 */
import { hashPassword } from '../auth/password.js';
import { scaleStatus } from '../auth/access.js';
import { config } from '../config.js';
import type { RequestContext } from '../http/context.js';
import { forbidden, invalidParam } from '../http/errors.js';
import { ParamError } from '../model/errors.js';
import type { LinkedWriteParams } from '../routes/linked.js';
import { type Language, type Translated, translated } from '../model/language.js';
import { pad, postKey } from '../store/keys.js';
import type { PostRecord } from '../store/types.js';
import { sanitizeHtml } from '../text/sanitize.js';
import { nowUtcWall, type Wall } from '../time/format.js';
import { parseWriteDate } from '../time/parse.js';
import { cellOf } from '../geo/cells.js';

/** The byCell index partition of venues with coordinates. */
export const GEO_VENUES = 'GEOV';

export type LinkedKind = 'venue' | 'organizer';

export const PLURAL: Record<LinkedKind, 'venues' | 'organizers'> = { venue: 'venues', organizer: 'organizers' };

/** The kind's own plain-text fields, in wire order (reference §4.2 / §4.3). */
export const OWN_FIELDS = {
  venue: ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince'],
  organizer: ['phone', 'website', 'email'],
} as const satisfies Record<LinkedKind, readonly string[]>;

export type OwnField = (typeof OWN_FIELDS)[LinkedKind][number];

/** Translatable text of one language (contract §8): the record's name and description. */
export interface LinkedText {
  name?: string;
  description?: string;
}

/** A type alias (not an interface), so that it is assignable to the store's `Item`. */
export type LinkedItem = PostRecord<LinkedKind, LinkedText> & {
  /** Lower-case name per language that has one (de-duplication and list projections). */
  nm: Partial<Record<Language, string>>;
  /** Sanitised HTML; shared by all languages (contract §8 translates only the name and the description). */
  excerpt?: string;
  address?: string;
  city?: string;
  country?: string;
  province?: string;
  state?: string;
  zip?: string;
  phone?: string;
  website?: string;
  email?: string;
  /** The effective state/province: sent explicitly, or derived from state/province/country (spAuto). */
  stateprovince?: string;
  /** True while stateprovince is derived rather than sent (venues). */
  spAuto?: boolean;
  showMap?: boolean;
  showMapLink?: boolean;
  /** Coordinates (contract §18), both or neither. */
  lat?: number;
  lng?: number;
  /** Set when a client wrote or cleared the coordinates: geocoding leaves them alone from then on. */
  geoOwn?: boolean;
  /** The address text geocoding last placed (or failed to place): lib/geo/geocode.ts. */
  geoAddr?: string;
  /** The geohash of the coordinates (lib/geo/cells.ts) when the venue has coordinates; the byCell index keys. */
  gh?: string;
  GSI3PK?: string;
  GSI3SK?: string;
  image?: string;
  /** scrypt hash of the read password. */
  pw?: string;
  /** Published events linking here (has_events); maintained only by event writes (ADD). */
  linked?: number;
  GSI1PK?: string;
  GSI1SK?: string;
  GSI2PK?: string;
  GSI2SK?: string;
};

/** The text of one field in a language, falling back to the record's first language (contract §8). */
export const textOf = (item: Translated<LinkedText>, lang: Language, field: keyof LinkedText): string => translated(item, lang, field);

/** Lower-case, trimmed, NFC: the form names and descriptions are compared in (de-duplication). */
export const fold = (s: string): string => s.normalize('NFC').trim().toLowerCase();

/** byStart index partition of a kind's collection (newest first = ScanIndexForward false). */
export const collectionPartition = (kind: LinkedKind): string => (kind === 'venue' ? 'VENUES' : 'ORGANIZERS');
export const collectionSortKey = (dateUtc: Wall, id: number): string => `${dateUtc}#${pad(id)}`;

/**
 * The origin's derived state/province (reference §10.2): the state when the country is empty or the US,
 * else the province, else "".
 */
export function deriveStateProvince(state: string | undefined, province: string | undefined, country: string | undefined): string {
  const c = (country ?? '').trim().toLowerCase();
  if (state && (c === '' || c === 'us' || c === 'usa' || c === 'united states')) return state;
  return province || '';
}

function readDate(name: string, raw: unknown, tz: string): Wall {
  try {
    return parseWriteDate(raw, tz).utc;
  } catch (e) {
    if (e instanceof ParamError) throw invalidParam(name, `${name} ${e.message}`);
    throw e;
  }
}

/**
 * Applies validated write parameters (`p`: a route's or an inline object's) to a venue/organizer: a create
 * when `existing` is null, else a partial update in which every field that was not sent stays as it is
 * (contract §7; unlike the origin, omitted show_map/status/image are not reset). Text goes to the request
 * language only (contract §8). The result carries no slug changes and keeps `linked` as it was.
 */
export async function applyLinkedWrite(kind: LinkedKind, ctx: RequestContext, p: LinkedWriteParams,
  existing: LinkedItem | null, id: number): Promise<LinkedItem> {
  const caller = ctx.caller!;
  const userId = (await ctx.userId())!;
  const now = nowUtcWall();

  if (p.author !== undefined && p.author !== (existing?.author ?? userId) && caller.role !== 'editor') throw forbidden(true);
  const status = scaleStatus(caller, p.status, existing === null) ?? existing!.status;
  if (existing === null && status === 'trash') throw invalidParam('status', `status cannot be trash when creating a ${kind}`);

  let dateUtc = existing?.dateUtc ?? now;
  if (p.date_utc !== undefined) dateUtc = readDate('date_utc', p.date_utc, 'UTC');
  else if (p.date !== undefined) dateUtc = readDate('date', p.date, config().siteTimezone);

  const lang = ctx.lang;
  const text: LinkedText = { ...(existing?.tr[lang] ?? {}) };
  if (p[kind] !== undefined) text.name = p[kind].trim();
  if (p.description !== undefined) text.description = sanitizeHtml(p.description);
  const tr = { ...(existing?.tr ?? {}), [lang]: text };

  const item: LinkedItem = {
    ...(existing ?? ({} as LinkedItem)),
    ...postKey(id),
    kind,
    id,
    v: (existing?.v ?? 0) + 1,
    author: p.author ?? existing?.author ?? userId,
    status,
    slug: existing?.slug ?? '',
    tr,
    lang0: existing?.lang0 ?? lang,
    nm: {},
    dateUtc,
    modifiedUtc: now,
    GSI2PK: collectionPartition(kind),
    GSI2SK: collectionSortKey(dateUtc, id),
  };
  if (p.excerpt !== undefined) {
    const excerpt = sanitizeHtml(p.excerpt);
    if (excerpt) item.excerpt = excerpt;
    else delete item.excerpt;
  }
  for (const [l, t] of Object.entries(tr) as [Language, LinkedText][]) if (t.name) item.nm[l] = fold(t.name);

  for (const field of OWN_FIELDS[kind]) {
    if (field === 'stateprovince' || p[field] === undefined) continue;
    const value = String(p[field]).trim();
    if (value === '') delete item[field];
    else item[field] = value;
  }
  if (kind === 'venue') {
    if (p.stateprovince !== undefined) {
      // "" hands the value back to the derivation, as the origin derives it whenever it is empty.
      const sent = String(p.stateprovince).trim();
      item.spAuto = sent === '';
      if (sent !== '') item.stateprovince = sent;
    } else if (existing === null) {
      item.spAuto = true;
    }
    if (item.spAuto !== false) {
      const derived = deriveStateProvince(item.state, item.province, item.country);
      item.spAuto = true;
      if (derived) item.stateprovince = derived;
      else delete item.stateprovince;
    }
    applyCoordinates(item, p.geo_lat, p.geo_lng);
    item.showMap = p.show_map ?? existing?.showMap ?? true;
    item.showMapLink = p.show_map_link ?? existing?.showMapLink ?? true;
  }
  if (p.image !== undefined) {
    if (p.image === '') delete item.image;
    else item.image = p.image;
  }
  if (p.password !== undefined) {
    if (p.password === '') delete item.pw;
    else item.pw = hashPassword(p.password);
  }
  if (existing === null) item.linked = 0;
  return item;
}

/**
 * A venue's coordinates after a write (contract §18): each sent value replaces the stored one (null clears it); the
 * venue must end with both or neither. The geohash and its index keys follow, present only when the venue has
 * coordinates (both set and not both 0).
 */
export function applyCoordinates(item: LinkedItem, lat: number | null | undefined, lng: number | null | undefined): void {
  if (lat !== undefined || lng !== undefined) item.geoOwn = true;
  if (lat === null) delete item.lat;
  else if (lat !== undefined) item.lat = lat;
  if (lng === null) delete item.lng;
  else if (lng !== undefined) item.lng = lng;
  if ((item.lat === undefined) !== (item.lng === undefined)) {
    const missing = item.lat === undefined ? 'geo_lat' : 'geo_lng';
    throw invalidParam(missing, `${missing} is required with ${missing === 'geo_lat' ? 'geo_lng' : 'geo_lat'}: send both coordinates or neither`);
  }
  indexCoordinates(item);
}

/**
 * A venue's geohash and byCell index keys from its coordinates: present only when it has coordinates (both set and
 * not both 0).
 */
export function indexCoordinates(item: LinkedItem): void {
  const has = item.lat !== undefined && item.lng !== undefined && !(item.lat === 0 && item.lng === 0);
  if (has) {
    item.gh = cellOf({ lat: item.lat!, lng: item.lng! });
    item.GSI3PK = GEO_VENUES;
    item.GSI3SK = `${item.gh}#${pad(item.id)}`;
  } else {
    delete item.gh;
    delete item.GSI3PK;
    delete item.GSI3SK;
  }
}

/** Whether a write changed anything a reader can see (a no-op de-duplication keeps the record's version). */
export function sameContent(a: LinkedItem, b: LinkedItem): boolean {
  const strip = ({ v: _v, modifiedUtc: _m, linked: _l, ...rest }: LinkedItem) => rest;
  return JSON.stringify(sortKeys(strip(a))) === JSON.stringify(sortKeys(strip(b)));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value) || value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]));
}
