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
import { OWN_FIELDS, textOf, type LinkedItem, type LinkedKind } from './item.js';

export type Json = Record<string, unknown>;

/** `{url, id: 0, extension}` of an image URL (contract §5). */
export const linkedImage = imageObject;

export const linkedUrl = (kind: LinkedKind, item: Pick<LinkedItem, 'slug'>, ctx: RequestContext): string =>
  `${ctx.siteUrl}/${kind}/${encodeURIComponent(item.slug)}/`;

/** Reference §11.3 blanking, name kept (see the file comment). Keys that are absent are not added. */
const BLANK: Record<string, unknown> = {
  description: '', excerpt: '', website: '', email: '', phone: '', stateprovince: '', zip: '', province: '', country: '',
  city: '', address: '', image: false, show_map: null, show_map_link: null,
};

const isEmpty = (v: unknown): boolean =>
  v === undefined || v === null || v === '' || v === '0' || v === 0 || v === false || (Array.isArray(v) && v.length === 0);

/**
 * The record as the API shows it. `blank`: replace the protected fields (the caller did not unlock a
 * password-protected record). `jsonLd`: add the schema.org description (single GETs and records embedded in
 * them).
 */
export function renderLinked(kind: LinkedKind, item: LinkedItem, ctx: RequestContext, opts: { jsonLd?: boolean; blank?: boolean } = {}): Json {
  const lang = ctx.lang;
  const wire: Json = {
    id: item.id,
    author: item.author,
    status: item.status,
    date: siteWall(item.dateUtc),
    date_utc: item.dateUtc,
    modified: siteWall(item.modifiedUtc),
    modified_utc: item.modifiedUtc,
    url: linkedUrl(kind, item, ctx),
    [kind]: textOf(item, lang, 'name'),
    description: textOf(item, lang, 'description'),
    excerpt: item.excerpt ?? '',
    slug: item.slug,
    image: linkedImage(item.image),
  };
  for (const field of OWN_FIELDS[kind]) wire[field] = item[field] ?? '';
  const out: Json = {};
  for (const [k, v] of Object.entries(wire)) if (!isEmpty(v)) out[k] = v;
  if (opts.jsonLd) out.json_ld = jsonLd(kind, item, ctx, out, opts.blank === true);
  if (kind === 'venue') {
    out.show_map = item.showMap ?? true;
    out.show_map_link = item.showMapLink ?? true;
  }
  const gid = `${ctx.host}?id=${item.id}`;
  out.global_id = gid;
  out.global_id_lineage = [gid];
  if (!opts.blank) return out;
  const blanked: Json = {};
  for (const [k, v] of Object.entries(out)) blanked[k] = k in BLANK ? structuredClone(BLANK[k]) : v;
  return blanked;
}

/**
 * schema.org Place (with a PostalAddress) or Organization, in the request language (reference §4.2–4.3
 * `json_ld`, from the origin's JSON_LD classes). A protected record that is not unlocked shows its name only.
 */
function jsonLd(kind: LinkedKind, item: LinkedItem, ctx: RequestContext, wire: Json, blank: boolean): Json {
  const ld: Json = {
    '@context': 'http://schema.org',
    '@type': kind === 'venue' ? 'Place' : 'Organization',
    name: textOf(item, ctx.lang, 'name'),
    inLanguage: ctx.lang,
    url: wire.url,
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
  } else if (item.email) {
    ld.email = item.email;
  }
  if (item.phone) ld.telephone = item.phone;
  if (item.website) ld.sameAs = item.website;
  return ld;
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
