/**
 * The reader of `tec` import sources (contract §20): a site that runs the origin's API, read through its events
 * archive (`GET {api}/events`, reference §5.1 and §6) page by page, each listed event mapped to a source event.
 *
 * Recurring series: each listed occurrence is imported as a single event keyed by its own id. The origin's API shows
 * a series only as its occurrences (the origin's recurrence add-on puts no rules in REST v1; this service adds
 * `series_id` but lists occurrences, never the series), and an occurrence's id is stable (this service matches
 * occurrences by original date when it regenerates). So an edited occurrence brings its edits, a deleted one stops
 * being listed and is removed, and the window applies occurrence by occurrence, without expanding rules here. The
 * series' structure is not rebuilt at the target; occurrences drop the slug, which names their series.
 */
import { createHash } from 'node:crypto';
import { decodeHTML } from 'entities';
import { sanitizeHtml } from '../text/sanitize.js';
import { fixedZone, normalizeTimezone } from '../time/zones.js';
import type { SourceEvent, SourceFields, SourceOrganizer, SourceRead, SourceVenue } from './source.js';

/** What the fetcher answers (lib/imports/fetch.ts): the body whatever the status, and the URL after redirects. */
export interface FetchedSource {
  status: number;
  body: Buffer;
  contentType: string;
  url: string;
}

export interface SourceCredentials {
  username: string;
  password: string;
}

/** Fetches a URL; `credentials` go as HTTP Basic, and only where the fetcher allows (https, the source's origin). */
export type SourceFetcher = (url: string, init: { headers: Record<string, string>; credentials?: SourceCredentials }) => Promise<FetchedSource>;

export interface TecSource {
  /** The source's API root, `<site>/wp-json/tribe/events/v1`. */
  url: string;
  /** An application password of the source (both or neither). */
  username?: string;
  password?: string;
}

export interface TecReadOptions {
  /** UTC `YYYY-MM-DD HH:MM:SS`: events that start at or after `startUtc` and end at or before `endUtc`. */
  window: { startUtc: string; endUtc: string };
  /** At most this many source events are read; beyond it, an error names the limit. */
  limit: number;
  fetch: SourceFetcher;
}

const API_PATH = '/wp-json/tribe/events/v1';
const PER_PAGE = 50;
/** What a reader who may edit events can list (reference §11.2); anonymous readers may ask only for `publish`. */
const STATUSES_WITH_CREDENTIALS = 'publish,future,draft,pending,private';
const WALL = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The source's API root without trailing slash; throws when `url` is not one. */
export function tecApiRoot(url: string): string {
  const parsed = URL.parse(url);
  if (!parsed || !/^https?:$/.test(parsed.protocol)) throw new Error('the source url must be an http or https URL');
  if (parsed.username || parsed.password) throw new Error('the source url must not carry credentials: give username and password instead');
  const path = parsed.pathname.replace(/\/+$/, '');
  if (!path.endsWith(API_PATH) || parsed.search || parsed.hash) {
    throw new Error(`the source url must be the API root of a site that runs The Events Calendar: <site>${API_PATH}`);
  }
  return `${parsed.origin}${path}`;
}

function credentialsOf(source: TecSource): SourceCredentials | undefined {
  if (!source.username && !source.password) return undefined;
  if (!source.username || !source.password) throw new Error('the source needs both username and password, or neither');
  return { username: source.username, password: source.password };
}

function firstPage(root: string, window: TecReadOptions['window'], withCredentials: boolean): string {
  const iso = (wall: string): string => {
    if (!WALL.test(wall)) throw new Error(`the import window must be UTC YYYY-MM-DD HH:MM:SS, not ${JSON.stringify(wall)}`);
    return `${wall.replace(' ', 'T')}Z`;
  };
  // strict_dates: the exact instants, not whole days of the source's time zone (reference §6.1).
  const query = new URLSearchParams({ start_date: iso(window.startUtc), end_date: iso(window.endUtc), strict_dates: 'true',
    per_page: String(PER_PAGE) });
  if (withCredentials) query.set('status', STATUSES_WITH_CREDENTIALS);
  return `${root}/events?${query}`;
}

export async function readTecSource(source: TecSource, options: TecReadOptions): Promise<SourceRead> {
  const root = tecApiRoot(source.url);
  const credentials = credentialsOf(source);
  const read: SourceRead = { events: [], errors: [] };
  let taken = 0;
  for await (const record of listedRecords(root, firstPage(root, options.window, credentials !== undefined), options.fetch, credentials)) {
    if (taken === options.limit) {
      read.truncated = true;
      read.errors.push({ uid: '', message: `the source lists more than ${options.limit} events in the window (the limit of a run): `
        + `the first ${options.limit} in start order are imported` });
      break;
    }
    taken++;
    try {
      read.events.push(mapEvent(record));
    } catch (error) {
      const uid = isObject(record) && isId(record.id) ? String(record.id) : '';
      read.errors.push({ uid, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return read;
}

const isId = (v: unknown): v is number => Number.isSafeInteger(v) && Number(v) > 0;

/**
 * The records of every page in the source's order (start ascending), each id once. Paging follows `next_rest_url`
 * on the source's origin only, and a page must bring an event not seen before: a source whose pages loop fails.
 */
async function* listedRecords(root: string, first: string, fetch: SourceFetcher, credentials?: SourceCredentials): AsyncGenerator<unknown> {
  const origin = new URL(root).origin;
  const visited = new Set<string>();
  const seen = new Set<number>();
  for (let url: string | undefined = first, pageNumber = 1; url; pageNumber++) {
    if (visited.has(url)) throw new Error(`the source's pages loop: ${url} was already read`);
    visited.add(url);
    const page = await readPage(url, pageNumber, fetch, credentials);
    if (!page) return;
    let fresh = 0;
    for (const record of page.events) {
      const id = isObject(record) && isId(record.id) ? record.id : undefined;
      if (id !== undefined && seen.has(id)) continue;
      if (id !== undefined) seen.add(id);
      fresh++;
      yield record;
    }
    if (page.next === undefined) return;
    if (fresh === 0) throw new Error(`the source's pages loop: page ${pageNumber} lists no event not listed before`);
    const next = URL.parse(page.next, page.url);
    if (next?.origin !== origin) throw new Error(`the source's next page is not on its origin ${origin}: refused ${page.next}`);
    url = next.href;
  }
}

const NOT_THE_API = "the source is not the origin's API (The Events Calendar REST API v1)";

/** One archive page; null for the 404 past the last page (events deleted while paging). */
async function readPage(url: string, pageNumber: number, fetch: SourceFetcher, credentials?: SourceCredentials):
  Promise<{ events: unknown[]; next?: string; url: string } | null> {
  const answer = await fetch(url, { headers: { accept: 'application/json' }, credentials });
  let body: unknown;
  try {
    body = /\bjson\b/i.test(answer.contentType) ? JSON.parse(answer.body.toString('utf8')) : undefined;
  } catch {
    body = undefined;
  }
  const said = isObject(body) && typeof body.message === 'string' ? `: ${body.message.slice(0, 200)}` : '';
  if (answer.status === 404 && pageNumber > 1 && isObject(body) && body.code === 'event-archive-page-not-found') return null;
  if (answer.status === 401 || answer.status === 403) {
    const hint = credentials ? ': check the username and application password' : '';
    throw new Error(`the source refused to list its events (HTTP ${answer.status}${said})${hint}`);
  }
  if (answer.status < 200 || answer.status > 299) throw new Error(`the source answered HTTP ${answer.status} to ${url}${said}`);
  if (body === undefined) throw new Error(`${NOT_THE_API}: its answer is not JSON (${answer.contentType || 'no content type'})`);
  if (!isObject(body) || !Array.isArray(body.events)) throw new Error(`${NOT_THE_API}: its answer has no events list`);
  const next = typeof body.next_rest_url === 'string' && body.next_rest_url !== '' ? body.next_rest_url : undefined;
  return { events: body.events, next, url: answer.url };
}

/** Plain text as the origin shows it (titles, names, cost, escaped URLs: reference §4): entities decoded once. */
function text(v: unknown): string | undefined {
  const s = typeof v === 'string' ? decodeHTML(v).trim() : '';
  return s === '' ? undefined : s;
}

function httpUrl(v: unknown): string | undefined {
  const s = text(v);
  return s && /^https?:$/.test(URL.parse(s)?.protocol ?? '') ? s : undefined;
}

function wall(record: Json, key: string): string {
  const v = record[key];
  if (typeof v !== 'string' || !WALL.test(v)) throw new Error(`${key} is not a date YYYY-MM-DD HH:MM:SS`);
  return v;
}

/** The event's zone; when the source has none this service knows (origin: "" for the site's), the offset its dates show. */
function zoneOf(raw: unknown, start: string, startUtc: string): string {
  try {
    return normalizeTimezone(raw);
  } catch {
    const minutes = (Date.parse(`${start.replace(' ', 'T')}Z`) - Date.parse(`${startUtc.replace(' ', 'T')}Z`)) / 60_000;
    if (!Number.isInteger(minutes) || minutes < -12 * 60 || minutes > 14 * 60) throw new Error('timezone is unknown and the dates give no offset');
    return fixedZone(minutes).name;
  }
}

function venueOf(v: unknown): SourceVenue | undefined {
  const record = Array.isArray(v) ? v[0] : v; // several venues only with add-ons: the first
  const name = isObject(record) ? text(record.venue) : undefined;
  if (!isObject(record) || !name) return undefined;
  const venue: SourceVenue = { venue: name };
  for (const key of ['address', 'city', 'country', 'province', 'state', 'zip', 'phone'] as const) {
    const value = text(record[key]);
    if (value) venue[key] = value;
  }
  const website = httpUrl(record.website);
  if (website) venue.website = website;
  const { geo_lat: lat, geo_lng: lng } = record;
  // The origin leaves zero coordinates out; this service shows 0 for none.
  if (typeof lat === 'number' && typeof lng === 'number' && Number.isFinite(lat) && Number.isFinite(lng) && (lat !== 0 || lng !== 0)) {
    venue.geo_lat = lat;
    venue.geo_lng = lng;
  }
  return venue;
}

function organizerOf(v: unknown): SourceOrganizer | undefined {
  const name = isObject(v) ? text(v.organizer) : undefined;
  if (!isObject(v) || !name) return undefined;
  const organizer: SourceOrganizer = { organizer: name };
  const email = text(v.email);
  const phone = text(v.phone);
  const website = httpUrl(v.website);
  if (email) organizer.email = email;
  if (phone) organizer.phone = phone;
  if (website) organizer.website = website;
  return organizer;
}

const termNames = (v: unknown): string[] =>
  (Array.isArray(v) ? v : []).map((term) => (isObject(term) ? text(term.name) : undefined)).filter((name) => name !== undefined);

/**
 * A listed event as a source event; throws what is wrong with a malformed one. Fields the source leaves empty are
 * absent. A password-protected event shows null where its booleans are (reference §11.3): it is `removed`.
 */
function mapEvent(record: unknown): SourceEvent {
  if (!isObject(record) || !isId(record.id)) throw new Error('a listed event without a positive integer id');
  const title = text(record.title);
  if (!title) throw new Error('the event has no title');
  const start = wall(record, 'start_date');
  const end = wall(record, 'end_date');
  const startUtc = wall(record, 'utc_start_date');
  const endUtc = wall(record, 'utc_end_date');
  const occurrence = isId(record.series_id);
  const fields: SourceFields = { title, description: '', start_date: start, end_date: end, all_day: record.all_day === true,
    timezone: zoneOf(record.timezone, start, startUtc) };
  const status = text(record.status);
  const slug = occurrence ? undefined : text(record.slug);
  if (status) fields.status = status;
  if (slug) fields.slug = slug;
  if (record.all_day === null && record.featured === null) return sourceEvent(`tec:${record.id}`, fields, startUtc, endUtc, 'protected');
  if (typeof record.all_day !== 'boolean') throw new Error('all_day is not a boolean');

  fields.description = sanitizeHtml(typeof record.description === 'string' ? record.description : '');
  const excerpt = sanitizeHtml(typeof record.excerpt === 'string' ? record.excerpt : '');
  if (excerpt) fields.excerpt = excerpt;
  // The origin shows the event's own page as its website when none was set.
  const website = httpUrl(record.website);
  if (website && website !== record.url) fields.website = website;
  const cost = text(record.cost);
  if (cost) fields.cost = cost;
  fields.featured = record.featured === true;
  const venue = venueOf(record.venue);
  if (venue) fields.venue = venue;
  const organizers = (Array.isArray(record.organizer) ? record.organizer : []).map(organizerOf).filter((o) => o !== undefined);
  if (organizers.length) fields.organizer = organizers;
  const categories = termNames(record.categories);
  const tags = termNames(record.tags);
  if (categories.length) fields.categories = categories;
  if (tags.length) fields.tags = tags;
  return sourceEvent(`tec:${record.id}`, fields, startUtc, endUtc);
}

function sourceEvent(key: string, fields: SourceFields, startUtc: string, endUtc: string, removed?: 'protected'): SourceEvent {
  const hashed = { removed: removed ?? null, fields, startUtc, endUtc };
  // Keys sorted at every level, so the hash depends on the content only.
  const canonical = JSON.stringify(hashed, (_key, v: unknown) =>
    (isObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));
  const hash = createHash('sha256').update(canonical).digest('hex');
  return { key, ...(removed ? { removed } : {}), hash, fields, overrides: [], startUtc, endUtc };
}
