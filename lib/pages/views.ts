/**
 * What each page shows (contract §21), from the API's own answers (./api.ts): the list and its filters, the month, a
 * category, tag, venue or organizer with its events, an event with its series, tickets and calendar links. Each view
 * returns the page's parts; ./handler.ts wraps them in the layout and answers.
 */
import { htmlToText } from '../text/sanitize.js';
import { jsonText } from '../http/response.js';
import type { Language } from '../model/language.js';
import type { ApiAnswer, ApiClient } from './api.js';
import { dateFormats, type DateFormats, type Translate } from './i18n.js';
import { render } from './templates.js';

type Json = Record<string, unknown>;

/** Everything a view needs about the request. */
export interface View {
  lang: Language;
  t: Translate;
  fmt: DateFormats;
  api: ApiClient;
  /** The visitor's query values (first value of each name). */
  query: Record<string, string>;
  /** Path of the pages under the visitor's language prefix, e.g. "/prod/de" ("" at the root). */
  base: string;
  /** Absolute URL of `base` for canonical links and Open Graph. */
  absolute: string;
  embed: boolean;
  site: string;
}

/** A page's parts before the layout. */
export interface PageParts {
  status: number;
  title: string;
  description: string;
  /** The page's path under `base` ("/events/"), for its canonical URL and its language links. */
  path: string;
  body: string;
  view?: 'list' | 'month';
  ogType?: 'website' | 'event';
  image?: string;
  feed?: string;
  jsonLd?: string;
  /** Answers that hold a reservation or a password's answer are never stored (contract §21). */
  private?: boolean;
  /** The canonical URL's query (a month, a list page), when it is part of what the page shows. */
  canonicalQuery?: string;
  retryAfter?: string;
  allow?: string;
}

export class PageError extends Error {
  constructor(readonly status: number, readonly heading: 'notFound' | 'badRequest' | 'forbidden' | 'methodNotAllowed' | 'error' | 'tooMany',
    readonly text?: string, readonly headers: Record<string, string> = {}) {
    super(heading);
  }
}

/** An API answer that is not a success becomes the page's error (drafts, private and trashed events read as 404). */
export function failed(answer: ApiAnswer): PageError {
  const status = answer.status;
  const message = typeof answer.body.message === 'string' ? answer.body.message : undefined;
  if (status === 400) return new PageError(400, 'badRequest', message);
  if (status === 401 && answer.body.code === 'rest_invalid_token') return new PageError(401, 'badRequest', message, pick(answer, 'WWW-Authenticate'));
  if (status === 429) return new PageError(429, 'tooMany', undefined, pick(answer, 'Retry-After'));
  if (status >= 500) return new PageError(status, 'error', undefined, pick(answer, 'Retry-After'));
  return new PageError(404, 'notFound');
}

const pick = (answer: ApiAnswer, name: string): Record<string, string> => (answer.headers[name] ? { [name]: answer.headers[name]! } : {});

async function ok(answer: Promise<ApiAnswer>): Promise<Json> {
  const a = await answer;
  if (a.status !== 200) throw failed(a);
  return a.body;
}

// ------------------------------------------------------------------------------------------------ links

const SEGMENT = { event: '/event/', venue: '/venue/', organizer: '/organizer/', category: '/events/category/', tag: '/tag/' } as const;

/** A record's page under the visitor's language prefix, from the record's own `url` (its slug and, for an occurrence, its date). */
export function pageHref(v: View, kind: keyof typeof SEGMENT, url: unknown): string {
  const text = typeof url === 'string' ? url : '';
  const at = text.lastIndexOf(SEGMENT[kind]);
  return at === -1 ? `${v.base}/events/` : `${v.base}${text.slice(at)}`;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const arr = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : []);
const obj = (v: unknown): Json | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null);

/** Plain text cut at a word boundary to at most `max` characters (list excerpts: 300). */
export function cut(text: string, max = 300): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const head = clean.slice(0, max - 1);
  const space = head.lastIndexOf(' ');
  return `${(space > max * 0.6 ? head.slice(0, space) : head).trimEnd()}…`;
}

/** Images in stored descriptions load lazily and send no referrer (contract §21); the description is sanitised HTML. */
const lazyImages = (html: string): string => html.replace(/<img\b/gi, '<img loading="lazy" referrerpolicy="no-referrer" decoding="async"');

const qs = (values: Record<string, string | undefined>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
};

// ------------------------------------------------------------------------------------------------ filters

/** The list filters a page takes, with the values the API takes (contract §21, §18). */
export const FILTERS = ['search', 'categories', 'tags', 'venue', 'organizer', 'featured', 'geoloc', 'geoloc_lat', 'geoloc_lng',
  'geoloc_radius', 'geoloc_unit', 'start_date', 'end_date'] as const;

function filterValues(v: View, fixed: Record<string, string> = {}): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const name of FILTERS) if (v.query[name] !== undefined && v.query[name] !== '') out[name] = v.query[name];
  return { ...out, ...fixed };
}

async function filterForm(v: View, action: string, fixed: Record<string, string>): Promise<string> {
  const terms = async (kind: 'categories' | 'tags') => fixed[kind] !== undefined ? []
    : arr((await ok(v.api.call('GET', `/${kind}`, { per_page: '50', orderby: 'name' })))[kind]).map((c) => ({
      slug: str(c.slug), name: str(c.name), selected: v.query[kind] === str(c.slug) || v.query[kind] === str(c.id),
    }));
  const [categories, tags] = await Promise.all([terms('categories'), terms('tags')]);
  const shown = new Set(['search', 'featured', ...(categories.length ? ['categories'] : []), ...(tags.length ? ['tags'] : [])]);
  const hidden = Object.entries(filterValues(v)).filter(([k, val]) => !shown.has(k) && val !== undefined && fixed[k] === undefined)
    .map(([name, value]) => ({ name, value }));
  return render('filters', {
    t: v.t, action, embed: v.embed, categories, tags, hidden, radius: v.query.geoloc_radius ?? '',
    f: { search: v.query.search ?? '', featured: ['1', 'true', 'yes', 'on'].includes((v.query.featured ?? '').toLowerCase()) },
  });
}

// ------------------------------------------------------------------------------------------------ events as shown

interface Shown {
  href: string;
  title: string;
  when: string;
  iso: string;
  zone: string;
  venue: string;
  distance: string;
  excerpt: string;
  image: string;
  featured: boolean;
  cost: string;
  website: string;
}

function shown(v: View, e: Json): Shown {
  const venue = obj(e.venue);
  const image = obj(e.image);
  const start = str(e.start_date);
  const end = str(e.end_date);
  const excerpt = htmlToText(str(e.excerpt)) || htmlToText(str(e.description));
  const distance = venue && typeof venue.distance === 'number' ? `${venue.distance} ${v.query.geoloc_unit?.toLowerCase() === 'km' ? 'km' : 'mi'}` : '';
  return {
    href: pageHref(v, 'event', e.url),
    title: htmlToText(str(e.title)),
    when: start ? v.fmt.range(start, end || start, e.all_day === true, v.t('allDay')) : '',
    iso: start ? `${start.slice(0, 10)}T${start.slice(11, 16)}` : '',
    zone: v.t('timezone', { zone: str(e.timezone_abbr) || str(e.timezone) }),
    venue: venue ? htmlToText(str(venue.venue)) : '',
    distance,
    excerpt: cut(excerpt),
    image: image ? str(image.url) : '',
    featured: e.featured === true,
    cost: str(e.cost),
    website: /^https?:\/\//i.test(str(e.website)) && str(e.website) !== str(e.url) ? str(e.website) : '',
  };
}

// ------------------------------------------------------------------------------------------------ list pages

const PER_PAGE = 20;

async function listPage(v: View, path: string, opts: { heading: string; description: string; fixed?: Record<string, string>; intro?: string;
  image?: string }): Promise<PageParts> {
  const fixed = opts.fixed ?? {};
  const page = /^[1-9]\d{0,5}$/.test(v.query.page ?? '') ? v.query.page! : '1';
  const filters = filterValues(v, fixed);
  const [body, form] = await Promise.all([
    ok(v.api.call('GET', '/events', { ...filters, per_page: String(PER_PAGE), page })),
    filterForm(v, `${v.base}${path}`, fixed),
  ]);
  const events = arr(body.events).map((e) => shown(v, e));
  const pages = Number(body.total_pages ?? 1) || 1;
  const visible = filterValues(v);
  const at = (n: number) => `${v.base}${path}${qs({ ...visible, ...(v.embed ? { embed: '1' } : {}), page: n > 1 ? String(n) : undefined })}`;
  const n = Number(page);
  const feed = `${v.api.apiUrl}/events.ics${qs(filters)}`;
  return {
    status: 200, path, view: 'list', title: opts.heading, description: opts.description, feed, image: opts.image,
    canonicalQuery: n > 1 ? `?page=${n}` : '',
    body: render('list', {
      t: v.t, heading: opts.heading, intro: opts.intro, filters: form, events, feed,
      pager: pages > 1 ? { prev: n > 1 ? at(n - 1) : null, next: n < pages ? at(n + 1) : null, label: v.t('pageOf', { page: n, pages }) } : null,
    }),
  };
}

export const upcomingPage = (v: View): Promise<PageParts> =>
  listPage(v, '/events/', { heading: v.t('upcoming'), description: v.t('upcomingDescription', { site: v.site }) });

/** A category or tag page: the term by its slug through the term list's `slug` filter, then its events. */
export async function termPage(v: View, kind: 'category' | 'tag', slug: string): Promise<PageParts> {
  const plural = kind === 'category' ? 'categories' : 'tags';
  const found = arr((await ok(v.api.call('GET', `/${plural}`, { slug, hide_empty: 'false' })))[plural])[0];
  if (!found) throw new PageError(404, 'notFound');
  const name = htmlToText(str(found.name));
  const path = kind === 'category' ? `/events/category/${encodeURIComponent(str(found.slug))}/` : `/tag/${encodeURIComponent(str(found.slug))}/`;
  const intro = str(found.description);
  return listPage(v, path, {
    heading: v.t(kind === 'category' ? 'categoryTitle' : 'tagTitle', { name }),
    description: cut(htmlToText(intro), 160) || v.t(kind === 'category' ? 'categoryTitle' : 'tagTitle', { name }),
    fixed: { [plural]: String(found.id) }, intro: intro ? lazyImages(intro) : undefined,
  });
}

/** A venue or organizer page: the record by slug, then its events. */
export async function linkedPage(v: View, kind: 'venue' | 'organizer', slug: string): Promise<PageParts> {
  const record = await ok(v.api.call('GET', `/${kind}s/by-slug/${encodeURIComponent(slug)}`));
  const name = htmlToText(str(record[kind]));
  const intro = str(record.description);
  const address = kind === 'venue' ? addressOf(record) : '';
  const osm = kind === 'venue' ? osmLink(record) : '';
  const facts = [address && `<p>${escapeHtml(address)}</p>`, osm && `<p><a href="${escapeHtml(osm)}">${escapeHtml(v.t('map'))}</a></p>`]
    .filter(Boolean).join('');
  const image = obj(record.image);
  return listPage(v, `/${kind}/${encodeURIComponent(str(record.slug))}/`, {
    heading: v.t(kind === 'venue' ? 'venueTitle' : 'organizerTitle', { name }),
    description: cut(htmlToText(intro), 160) || v.t(kind === 'venue' ? 'venueTitle' : 'organizerTitle', { name }),
    fixed: { [kind]: String(record.id) }, intro: (facts + (intro ? lazyImages(intro) : '')) || undefined,
    image: image ? str(image.url) : undefined,
  });
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function addressOf(venue: Json): string {
  return [venue.address, venue.city, venue.stateprovince ?? venue.province ?? venue.state, venue.zip, venue.country]
    .map((x) => htmlToText(str(x))).filter(Boolean).join(', ');
}

/** The venue's OpenStreetMap link when it has coordinates (§18: both set and not both 0). */
function osmLink(venue: Json): string {
  const lat = Number(venue.geo_lat);
  const lng = Number(venue.geo_lng);
  if (!Number.isFinite(lat) || !Number.isFinite(lng) || (lat === 0 && lng === 0) || venue.geo_lat === undefined) return '';
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lng}#map=16/${lat}/${lng}`;
}

// ------------------------------------------------------------------------------------------------ month

/** The month page (contract §21): every event of the month placed on the days it covers in the site time zone. */
export async function monthPage(v: View, month: string | null, now: Date = new Date()): Promise<PageParts> {
  const today = v.fmt.siteDayOf(now.toISOString().replace('T', ' ').slice(0, 19));
  const ym = month ?? today.slice(0, 7);
  const [y, m] = ym.split('-').map(Number) as [number, number];
  const daysIn = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const first = `${ym}-01`;
  const last = `${ym}-${String(daysIn).padStart(2, '0')}`;
  const filters = filterValues(v);
  delete filters.start_date;
  delete filters.end_date;
  const window = { ends_after: `${first} 00:00:00`, starts_before: `${last} 23:59:59` };
  const events: Json[] = [];
  // Every page of the month's list (at most 20 pages of 50: a month with more shows its first 1,000 and "more" links).
  for (let page = 1, pages = 1; page <= pages && page <= 20; page++) {
    const body = await ok(v.api.call('GET', '/events', { ...filters, ...window, per_page: '50', page: String(page) }));
    events.push(...arr(body.events));
    pages = Number(body.total_pages ?? 1) || 1;
  }
  const byDay = new Map<string, { e: Json; time: string }[]>();
  for (const e of events) {
    const startDay = v.fmt.siteDayOf(str(e.utc_start_date));
    const endDay = v.fmt.siteDayOf(str(e.utc_end_date) || str(e.utc_start_date));
    const from = startDay < first ? first : startDay;
    const to = endDay > last ? last : endDay;
    for (let d = from; d <= to; d = nextDay(d)) {
      const list = byDay.get(d) ?? [];
      list.push({ e, time: d === startDay && e.all_day !== true ? v.fmt.time(str(e.start_date)) : '' });
      byDay.set(d, list);
    }
  }
  const weekdays = v.fmt.weekdays();
  const days = Array.from({ length: daysIn }, (_, i) => {
    const date = `${ym}-${String(i + 1).padStart(2, '0')}`;
    const on = byDay.get(date) ?? [];
    const label = v.fmt.day(`${date} 00:00:00`);
    return {
      date, number: i + 1, label, today: date === today,
      events: on.slice(0, 5).map(({ e, time }) => ({ href: pageHref(v, 'event', e.url), title: htmlToText(str(e.title)), time })),
      more: on.length > 5 ? {
        href: `${v.base}/events/${qs({ ...filters, start_date: date, end_date: date, ...(v.embed ? { embed: '1' } : {}) })}`,
        text: v.t('more', { count: on.length - 5 }), label: v.t('moreLabel', { count: on.length - 5, day: label }),
      } : null,
    };
  });
  const lead = (new Date(Date.UTC(y, m - 1, 1)).getUTCDay() + 6) % 7;
  const shift = (delta: number) => {
    const d = new Date(Date.UTC(y, m - 1 + delta, 1));
    return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
  };
  const keep = qs({ ...filters, ...(v.embed ? { embed: '1' } : {}) });
  const name = v.fmt.monthYear(ym);
  const feed = `${v.api.apiUrl}/events.ics${qs({ ...filters, start_date: first, end_date: last })}`;
  return {
    status: 200, path: `/events/month/${ym}/`, view: 'month', feed,
    title: v.t('monthTitle', { month: name }), description: v.t('monthDescription', { site: v.site, month: name }),
    body: render('month', {
      t: v.t, heading: v.t('monthTitle', { month: name }), filters: await filterForm(v, `${v.base}/events/month/${ym}/`, {}),
      weekdays, lead, days, feed,
      prev: `${v.base}/events/month/${shift(-1)}/${keep}`, next: `${v.base}/events/month/${shift(1)}/${keep}`,
      current: `${v.base}/events/month/${keep}`,
    }),
  };
}

const nextDay = (d: string): string => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

// ------------------------------------------------------------------------------------------------ event

/** The event a page names: by slug, or an occurrence of that series by its date (its `url` names it). */
async function findEvent(v: View, slug: string, occurrence: string | null, password: string | undefined): Promise<ApiAnswer> {
  const pw = password === undefined ? {} : { password };
  const series = await v.api.call('GET', `/events/by-slug/${encodeURIComponent(slug)}`, pw);
  if (occurrence === null || series.status !== 200) return series;
  const day = occurrence.slice(0, 10);
  const list = await ok(v.api.call('GET', `/events/${str(series.body.id)}/occurrences`, { start_date: day, end_date: day, per_page: '50', ...pw }));
  const hit = arr(list.events).find((e) => str(e.url).endsWith(`/${occurrence}/`));
  if (!hit) throw new PageError(404, 'notFound');
  return v.api.call('GET', `/events/${str(hit.id)}`, pw);
}

export interface EventOutcome {
  parts: PageParts;
  /** The event's id once known (the password limit counts by it). */
  id: number | null;
  /** Whether the page asks for a password (the event is protected and none, or a wrong one, was given). */
  locked: boolean;
}

/** The event page, or its password form. `password` is a posted password (never taken from the query). */
export async function eventPage(v: View, slug: string, occurrence: string | null, opts: { password?: string; error?: string;
  lookupId: (slug: string) => Promise<number | null> }): Promise<EventOutcome> {
  const answer = await findEvent(v, slug, occurrence, opts.password);
  const self = `${v.base}/event/${encodeURIComponent(slug)}/${occurrence ? `${occurrence}/` : ''}`;
  const path = self.slice(v.base.length);
  if (answer.status === 403 && answer.body.code === 'event-password-protected') {
    // The title and dates of a protected event are public (lists show them): read them as a list shows them.
    const id = await opts.lookupId(slug);
    const listed = id === null ? null : arr((await ok(v.api.call('GET', '/events', { include: String(id) }))).events)[0];
    const e = listed ? shown(v, listed) : null;
    const title = e?.title || v.t('protected');
    return {
      id, locked: true,
      parts: {
        status: opts.error ? 403 : 200, path, title, description: v.t('protected'), ogType: 'event', private: opts.password !== undefined,
        body: render('password', { t: v.t, home: `${v.base}/events/`, title, when: e?.when, iso: e?.iso, self, error: opts.error }),
      },
    };
  }
  if (answer.status !== 200) throw failed(answer);
  const e = answer.body;
  const id = Number(e.id);
  const view = shown(v, e);
  const venue = obj(e.venue);
  const seriesId = Number(e.series_id) || (arr(e.recurrence).length || (Array.isArray(e.recurrence) && e.recurrence.length) ? id : 0);
  const pw = opts.password === undefined ? {} : { password: opts.password };
  const [next, tickets] = await Promise.all([
    seriesId ? ok(v.api.call('GET', `/events/${seriesId}/occurrences`, { per_page: '6', ...pw })).then((b) => arr(b.events)) : Promise.resolve([]),
    ticketsOf(v, id),
  ]);
  const ld = eventLd(e, venue, tickets.raw);
  return {
    id, locked: false,
    parts: {
      status: 200, path, title: view.title, description: cut(view.excerpt, 160) || view.title, ogType: 'event',
      image: view.image || undefined, private: opts.password !== undefined, jsonLd: jsonText(ld),
      body: render('event', {
        t: v.t, lang: v.lang, home: `${v.base}/events/`, self, e: view, imageAlt: v.t('image', { name: view.title }),
        venue: venue && str(venue.venue) ? { name: htmlToText(str(venue.venue)), href: pageHref(v, 'venue', venue.url), address: addressOf(venue),
          osm: osmLink(venue) } : null,
        organizers: arr(e.organizer).map((o) => ({ name: htmlToText(str(o.organizer)), href: pageHref(v, 'organizer', o.url) })),
        categories: arr(e.categories).map((c) => ({ name: htmlToText(str(c.name)), href: pageHref(v, 'category', c.url ?? `/events/category/${str(c.slug)}/`) })),
        tags: arr(e.tags).map((c) => ({ name: htmlToText(str(c.name)), href: pageHref(v, 'tag', c.url ?? `/tag/${str(c.slug)}/`) })),
        description: lazyImages(str(e.description)),
        tickets: tickets.shown,
        next: next.filter((o) => Number(o.id) !== id).slice(0, 5).map((o) => shown(v, o)).map((o) => ({ href: o.href, when: o.when, iso: o.iso })),
        add: addLinks(v, e, id, venue),
      }),
    },
  };
}

function addLinks(v: View, e: Json, id: number, venue: Json | null): { ics: string; webcal: string; google: string } {
  const ics = `${v.api.apiUrl}/events/${id}.ics`;
  const stamp = (utc: string, allDay: boolean) => (allDay ? utc.slice(0, 10).replaceAll('-', '') : `${utc.slice(0, 10).replaceAll('-', '')}T${utc.slice(11, 19).replaceAll(':', '')}Z`);
  const allDay = e.all_day === true;
  const start = allDay ? str(e.start_date) : str(e.utc_start_date);
  const endWall = allDay ? nextDay(str(e.end_date).slice(0, 10)) : str(e.utc_end_date);
  const google = new URL('https://calendar.google.com/calendar/render');
  google.searchParams.set('action', 'TEMPLATE');
  google.searchParams.set('text', htmlToText(str(e.title)));
  google.searchParams.set('dates', `${stamp(start, allDay)}/${stamp(endWall, allDay)}`);
  google.searchParams.set('details', `${cut(htmlToText(str(e.excerpt)) || htmlToText(str(e.description)), 500)}\n${str(e.url)}`.trim());
  if (venue) google.searchParams.set('location', [htmlToText(str(venue.venue)), addressOf(venue)].filter(Boolean).join(', '));
  return { ics, webcal: ics.replace(/^https?:/, 'webcal:'), google: google.toString() };
}

/** An event's tickets as its page shows them (contract §19), and as the JSON-LD offers read them. */
async function ticketsOf(v: View, id: number): Promise<{ shown: object[]; raw: Json[] }> {
  const answer = await v.api.call('GET', `/events/${id}/tickets`, { per_page: '50' });
  if (answer.status !== 200) return { shown: [], raw: [] };
  const raw = arr(answer.body.tickets);
  return {
    raw,
    shown: raw.map((k) => {
      const cap = obj(k.capacity_details);
      const available = cap && typeof cap.available === 'number' ? cap.available : null;
      const open = k.is_available === true;
      return {
        id: Number(k.id), title: htmlToText(str(k.title)), description: str(k.description) ? lazyImages(str(k.description)) : '',
        cost: Number(k.price) === 0 ? v.t('free') : str(k.cost),
        places: !open ? (available === 0 ? v.t('soldOut') : v.t('notAvailable')) : available === -1 || available === null ? v.t('unlimited')
          : v.t('placesLeft', { count: available }),
        url: k.provider === 'external' && /^https?:\/\//i.test(str(k.url)) ? str(k.url) : '',
        form: k.provider === 'rsvp' && open,
      };
    }),
  };
}

/** schema.org Event for the page (contract §21: what Google's event rich results ask for), built on the API's own json_ld. */
function eventLd(e: Json, venue: Json | null, tickets: Json[]): Json {
  const base = obj(e.json_ld) ?? {};
  const ld: Json = { ...base, '@context': 'https://schema.org', '@type': 'Event', name: htmlToText(str(e.title)), url: str(e.url) };
  ld.eventStatus = 'https://schema.org/EventScheduled';
  ld.eventAttendanceMode = venue ? 'https://schema.org/OfflineEventAttendanceMode' : 'https://schema.org/OnlineEventAttendanceMode';
  if (!ld.description) ld.description = cut(htmlToText(str(e.excerpt)) || htmlToText(str(e.description)), 500) || ld.name;
  const image = obj(e.image);
  if (image && str(image.url)) ld.image = [str(image.url)];
  if (venue) {
    const place: Json = { '@type': 'Place', name: htmlToText(str(venue.venue)), url: str(venue.url) };
    place.address = {
      '@type': 'PostalAddress', streetAddress: htmlToText(str(venue.address)), addressLocality: htmlToText(str(venue.city)),
      addressRegion: htmlToText(str(venue.stateprovince ?? venue.province ?? venue.state)), postalCode: str(venue.zip),
      addressCountry: htmlToText(str(venue.country)),
    };
    if (osmLink(venue)) place.geo = { '@type': 'GeoCoordinates', latitude: Number(venue.geo_lat), longitude: Number(venue.geo_lng) };
    ld.location = place;
  } else {
    ld.location = { '@type': 'VirtualLocation', url: str(e.url) };
  }
  const organizers = arr(e.organizer).map((o) => ({ '@type': 'Organization', name: htmlToText(str(o.organizer)), url: str(o.url) }));
  if (organizers.length) ld.organizer = organizers.length === 1 ? organizers[0] : organizers;
  if (tickets.length) {
    ld.offers = tickets.map((k) => {
      const cap = obj(k.capacity_details);
      return {
        '@type': 'Offer', name: htmlToText(str(k.title)), price: Number(k.price) || 0, priceCurrency: str(k.currency) || 'USD',
        url: k.provider === 'external' && str(k.url) ? str(k.url) : str(e.url),
        availability: k.is_available === true ? 'https://schema.org/InStock' : cap?.available === 0 ? 'https://schema.org/SoldOut'
          : 'https://schema.org/OutOfStock',
        ...(str(k.available_from) ? { validFrom: str(k.available_from).replace(' ', 'T') } : {}),
      };
    });
  }
  return ld;
}

export { dateFormats };
