/**
 * The venue and organizer wire shapes of reference §4.2 / §4.3 with the decisions of contract §5: built in
 * the origin's key order, every empty value dropped, then (venues) show_map/show_map_link and the global ids
 * appended. Password blanking of reference §11.3, except that the name stays a string (the origin blanks it
 * to [] and so loses the one field a reader needs to tell records apart).
 */
import { checkPassword } from '../auth/password.js';
import type { RequestContext } from '../http/context.js';
import type { Item } from '../store/records.js';
import { htmlToText } from '../text/sanitize.js';
import { imageObject } from '../text/image.js';
import { siteWall } from '../time/format.js';
import {
  always, dateTime, num, globalIdLineageSchema, globalIdSchema, imageOrFalse, int, jsonLd as jsonLdSchema, lockedBool, postStatus, sometimes, str,
  unlessEmpty, wireShape, type OpenApiSchema, type WireField,
} from '../openapi/shape.js';
import { circleOf } from '../geo/params.js';
import { distanceKm, shownDistance } from '../geo/distance.js';
import { OWN_FIELDS, textOf, type LinkedItem, type LinkedKind, type OwnField } from './item.js';

export type Json = Record<string, unknown>;

/** `{url, id: 0, extension}` of an image URL (contract §5). */
export const linkedImage = imageObject;

export const linkedUrl = (kind: LinkedKind, item: Pick<LinkedItem, 'slug'>, ctx: RequestContext): string =>
  `${ctx.siteUrl}/${kind}/${encodeURIComponent(item.slug)}/`;

/** What a venue's or organizer's wire fields are computed from. */
interface LinkedView {
  kind: LinkedKind;
  item: LinkedItem;
  ctx: RequestContext;
  /** Add json_ld (single GETs and the records embedded in them). */
  jsonLd: boolean;
  /** A password-protected record the caller has not unlocked (reference §11.3, name kept). */
  blank: boolean;
}

const OWN_FIELD_SCHEMAS: Record<OwnField, OpenApiSchema> = {
  address: str('street address'), city: str('city'), country: str('country'), province: str('province'), state: str('state'),
  zip: str('postal code'), phone: str('phone number'), website: str('website URL'), stateprovince: str('state or province'),
  email: str('e-mail address'),
};
/** What a locked record shows of its own fields (none but the name, reference §11.3). */
const OWN_FIELD_BLANK: Partial<Record<OwnField, unknown>> = {
  address: '', city: '', country: '', province: '', zip: '', phone: '', website: '', stateprovince: '', email: '',
};

const JSON_LD_TYPE = { venue: 'Place', organizer: 'Organization' } as const;

/**
 * The venue or organizer JSON (reference §4.2 / §4.3, in the origin's key order, empty values left out) and its
 * OpenAPI schema, from one declaration per kind.
 */
function linkedShape(kind: LinkedKind) {
  const gid = (v: LinkedView) => `${v.ctx.host}?id=${v.item.id}`;
  const fields: Record<string, WireField<LinkedView>> = {
    id: unlessEmpty(int(`the ${kind} ID`, { minimum: 1 }), (v) => v.item.id),
    author: unlessEmpty(int('the author\'s user id (an integer, unlike the origin\'s numeric string)'), (v) => v.item.author),
    status: unlessEmpty(postStatus(kind), (v) => v.item.status),
    date: unlessEmpty(dateTime('publication date in the site time zone'), (v) => siteWall(v.item.dateUtc)),
    date_utc: unlessEmpty(dateTime('publication date in UTC'), (v) => v.item.dateUtc),
    modified: unlessEmpty(dateTime('last modification in the site time zone'), (v) => siteWall(v.item.modifiedUtc)),
    modified_utc: unlessEmpty(dateTime('last modification in UTC'), (v) => v.item.modifiedUtc),
    url: unlessEmpty(str(`public page of the ${kind}`, { format: 'uri' }), (v) => linkedUrl(kind, v.item, v.ctx)),
    [kind]: unlessEmpty(str(`the ${kind} name, in the request language`), (v) => textOf(v.item, v.ctx.lang, 'name')),
    description: unlessEmpty(str(`the ${kind} description (sanitised HTML), in the request language`),
      (v) => textOf(v.item, v.ctx.lang, 'description'), ''),
    excerpt: unlessEmpty(str(`the ${kind} excerpt (sanitised HTML)`), (v) => v.item.excerpt ?? '', ''),
    slug: unlessEmpty(str(`the ${kind} slug`), (v) => v.item.slug),
    image: unlessEmpty(imageOrFalse(`the ${kind} image; absent when there is none, false on a protected record whose password was not given`),
      (v) => linkedImage(v.item.image), false),
    ...Object.fromEntries(OWN_FIELDS[kind].map((f): [string, WireField<LinkedView>] =>
      [f, unlessEmpty(OWN_FIELD_SCHEMAS[f], (v) => v.item[f] ?? '', OWN_FIELD_BLANK[f])])),
    ...(kind === 'venue' ? {
      geo_lat: always(num('latitude in decimal degrees; 0 when the venue has no coordinates'), (v) => v.item.lat ?? 0, 0),
      geo_lng: always(num('longitude in decimal degrees; 0 when the venue has no coordinates'), (v) => v.item.lng ?? 0, 0),
      distance: sometimes(num('great-circle distance from the request\'s geoloc_lat/geoloc_lng, in its geoloc_unit, rounded to 2 '
        + 'decimals; only on lists filtered by a point'), (v) => venueDistance(v.item, v.ctx)),
    } : {}),
    json_ld: sometimes(jsonLdSchema(JSON_LD_TYPE[kind]), (v) => (v.jsonLd ? jsonLd(kind, v.item, v.ctx, v.blank) : undefined)),
    ...(kind === 'venue' ? {
      show_map: always(lockedBool('whether to show a map (true unless turned off)'), (v) => v.item.showMap ?? true, null),
      show_map_link: always(lockedBool('whether to show a map link (true unless turned off)'), (v) => v.item.showMapLink ?? true, null),
    } : {}),
    global_id: always(globalIdSchema(kind), gid),
    global_id_lineage: always(globalIdLineageSchema(), (v) => [gid(v)]),
  };
  const empties = kind === 'venue' ? 'name, address parts, image…' : 'phone, e-mail, website, image…';
  const shape = wireShape<LinkedView>(`A${kind === 'organizer' ? 'n' : ''} ${kind} (reference §4.${kind === 'venue' ? 2 : 3}): empty values `
    + `(${empties}) are left out instead of sent as ""`, fields);
  // The head is always there in practice (an id, a status, dates and a url are never empty).
  const required = ['id', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url',
    ...(kind === 'venue' ? ['show_map', 'show_map_link'] : []), 'global_id', 'global_id_lineage'];
  return { ...shape, schema: { ...shape.schema, required } };
}

export const VENUE_SHAPE = linkedShape('venue');
export const ORGANIZER_SHAPE = linkedShape('organizer');

/**
 * The record as the API shows it. `blank`: replace the protected fields (the caller did not unlock a
 * password-protected record). `jsonLd`: add the schema.org description (single GETs and records embedded in
 * them).
 */
export function renderLinked(kind: LinkedKind, item: LinkedItem, ctx: RequestContext, opts: { jsonLd?: boolean; blank?: boolean } = {}): Json {
  const view = { kind, item, ctx, jsonLd: opts.jsonLd === true, blank: opts.blank === true };
  return (kind === 'venue' ? VENUE_SHAPE : ORGANIZER_SHAPE).render(view, { blank: view.blank });
}

/**
 * schema.org Place (with a PostalAddress) or Organization, in the request language (reference §4.2–4.3
 * `json_ld`, from the origin's JSON_LD classes). A protected record that is not unlocked shows its name only.
 */
function jsonLd(kind: LinkedKind, item: LinkedItem, ctx: RequestContext, blank: boolean): Json {
  const ld: Json = {
    '@context': 'http://schema.org',
    '@type': kind === 'venue' ? 'Place' : 'Organization',
    name: textOf(item, ctx.lang, 'name'),
    inLanguage: ctx.lang,
    url: linkedUrl(kind, item, ctx),
  };
  if (blank) return ld;
  const description = htmlToText(item.excerpt || textOf(item, ctx.lang, 'description'));
  if (description) ld.description = description;
  if (item.image) ld.image = item.image;
  if (kind === 'venue') {
    const address: Json = { '@type': 'PostalAddress' };
    const parts: [string, string | undefined][] = [['streetAddress', item.address], ['addressLocality', item.city],
      ['addressRegion', item.stateprovince], ['postalCode', item.zip], ['addressCountry', item.country]];
    for (const [k, v] of parts) if (v) address[k] = v;
    if (Object.keys(address).length > 1) ld.address = address;
    const geo = geoCoordinates(item);
    if (geo) ld.geo = geo;
  } else if (item.email) {
    ld.email = item.email;
  }
  if (item.phone) ld.telephone = item.phone;
  if (item.website) ld.sameAs = item.website;
  return ld;
}

/** schema.org GeoCoordinates of a venue that has coordinates (contract §18), else undefined. */
export function geoCoordinates(item: Pick<LinkedItem, 'gh' | 'lat' | 'lng'>): Json | undefined {
  return item.gh !== undefined ? { '@type': 'GeoCoordinates', latitude: item.lat, longitude: item.lng } : undefined;
}

/** A venue's distance from the request's point, in its unit (lists filtered by a point only). */
function venueDistance(item: LinkedItem, ctx: RequestContext): number | undefined {
  const circle = circleOf(ctx);
  if (!circle || item.gh === undefined) return undefined;
  return shownDistance(distanceKm(circle.point, { lat: item.lat!, lng: item.lng! }), circle.unit);
}

/** Whether a password-protected record stays blanked for this password (undefined: none was sent). */
export function isLocked(item: Pick<LinkedItem, 'pw'>, password: string | undefined): boolean {
  return Boolean(item.pw) && !(password !== undefined && checkPassword(password, item.pw!));
}

/**
 * The reference §4.2/§4.3 shape of a venue or organizer for embedding in events: `json_ld` when
 * `opts.jsonLd`; a password-protected record is blanked unless `opts.password` is its password (an embedded
 * record is unlocked by its own password only, so leave `password` undefined unless that is meant).
 */
export function serializeLinked(kind: LinkedKind, item: LinkedItem | Item, ctx: RequestContext,
  opts: { jsonLd?: boolean; password?: string } = {}): Record<string, unknown> {
  const record = item as LinkedItem;
  return renderLinked(kind, record, ctx, { jsonLd: opts.jsonLd, blank: isLocked(record, opts.password) });
}
