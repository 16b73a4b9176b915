/**
 * Helpers for the language contract tests (CONTRACT.md §1, §8; issue 4): requests under a language prefix and/or
 * with `translation_language`, the five record kinds and their translatable fields, and expected texts with the
 * fallback to a record's first language.
 */
import { api, apiUrl, tokenFor, type ApiResponse, type FormValue } from '../../support/api.js';
import { futureDay } from './events.js';
import { uniqueWord } from './list.js';

export type Json = Record<string, any>;
export type Lang = 'en' | 'de' | 'pt-pt';
export const LANGS: Lang[] = ['en', 'de', 'pt-pt'];
export const NAMESPACE_PATH = '/calendar/events/v1';

export type KindName = 'events' | 'venues' | 'organizers' | 'categories' | 'tags';
export const KIND_NAMES: KindName[] = ['events', 'venues', 'organizers', 'categories', 'tags'];

/** The field that holds a record's name, in the route shape and in the embedded shape alike. */
export const NAME_FIELD: Record<KindName, string> = {
  events: 'title', venues: 'venue', organizers: 'organizer', categories: 'name', tags: 'name',
};

/** Contract §8: the translatable fields of each kind. */
export const FIELDS: Record<KindName, string[]> = {
  events: ['title', 'description', 'excerpt'],
  venues: ['venue', 'description'],
  organizers: ['organizer', 'description'],
  categories: ['name', 'description'],
  tags: ['name', 'description'],
};

/** The key of a kind's records in its list envelope. */
export const LIST_KEY: Record<KindName, string> = {
  events: 'events', venues: 'venues', organizers: 'organizers', categories: 'categories', tags: 'tags',
};

let editorToken: Promise<string> | undefined;
/** The shared editor of the language tests (may write every kind). */
export const editor = (): Promise<string> => (editorToken ??= tokenFor('editor', 'contract-languages-editor'));

/** A letters-only word nobody else uses (search, unique names). */
export const word = (prefix = 'lq'): string => uniqueWord(prefix);

/** The API root, under a language prefix when one is given (any string, to try invalid prefixes too). */
export function rootFor(prefix?: string | null): string {
  const root = apiUrl();
  if (!prefix) return root;
  if (!root.endsWith(NAMESPACE_PATH)) throw new Error(`unexpected API root ${root}`);
  return `${root.slice(0, -NAMESPACE_PATH.length)}/${prefix}${NAMESPACE_PATH}`;
}

/** How a request asks for its language: a path prefix, a `translation_language` value, both or neither. */
export interface Access {
  label: string;
  /** The language the request should get (contract §8: parameter, else prefix, else en). */
  lang: Lang;
  prefix?: Lang;
  param?: Lang;
}

/** Every way a read can name its language, with the language it must get. */
export const READS: Access[] = [
  { label: 'no prefix, no parameter (en)', lang: 'en' },
  { label: '/en prefix', lang: 'en', prefix: 'en' },
  { label: 'translation_language=en', lang: 'en', param: 'en' },
  { label: '/de prefix', lang: 'de', prefix: 'de' },
  { label: 'translation_language=de', lang: 'de', param: 'de' },
  { label: '/pt-pt prefix', lang: 'pt-pt', prefix: 'pt-pt' },
  { label: 'translation_language=pt-pt', lang: 'pt-pt', param: 'pt-pt' },
  { label: '/de prefix + translation_language=pt-pt (parameter wins)', lang: 'pt-pt', prefix: 'de', param: 'pt-pt' },
  { label: '/pt-pt prefix + translation_language=de (parameter wins)', lang: 'de', prefix: 'pt-pt', param: 'de' },
];

/** GET `path` (relative to the API root) the way `access` says, with extra query parameters. */
export function read(path: string, access: Pick<Access, 'prefix' | 'param'>, query: Record<string, FormValue> = {},
  token?: string): Promise<ApiResponse> {
  return api(`${rootFor(access.prefix)}${path}`, {
    query: { ...query, ...(access.param ? { translation_language: access.param } : {}) },
    token,
  });
}

export interface WriteOptions {
  method?: string;
  prefix?: Lang;
  /** translation_language value and where it goes. */
  param?: string;
  paramIn?: 'query' | 'body';
  /** Send the body as a form instead of JSON. */
  form?: boolean;
  token?: string;
}

/** A write to `path` (relative to the API root) in the language the options name. */
export async function write(path: string, body: Json, opts: WriteOptions = {}): Promise<ApiResponse> {
  const token = opts.token ?? (await editor());
  const inQuery = opts.param !== undefined && (opts.paramIn ?? 'query') === 'query';
  const inBody = opts.param !== undefined && opts.paramIn === 'body';
  const payload = inBody ? { ...body, translation_language: opts.param } : body;
  return api(`${rootFor(opts.prefix)}${path}`, {
    method: opts.method ?? 'POST',
    token,
    query: inQuery ? { translation_language: opts.param! } : undefined,
    ...(opts.form ? { form: payload } : { body: payload }),
  });
}

/** Throws with the response text unless the status is the one expected (for fixtures in beforeAll). */
export function must(res: ApiResponse, status: number, what: string): Json {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text.slice(0, 800)}`);
  return res.json;
}

/** The text a reader sees of a markup description: tags dropped, white space collapsed (json_ld descriptions). */
export const plain = (html: string): string => html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();

/** Per-language texts of a record (only the languages written) and its first language. */
export interface Texts {
  first: Lang;
  by: Partial<Record<Lang, Json>>;
}

/** The text of `field` in `lang`: the language's own, else the first language's (contract §8). */
export function expected(texts: Texts, lang: Lang, field: string): string {
  const own = texts.by[lang]?.[field];
  if (own !== undefined) return own;
  const first = texts.by[texts.first]?.[field];
  return first ?? '';
}

/** The translatable fields of a record (route or embedded shape) as `{field: value}`. */
export const pick = (record: Json | undefined, fields: string[]): Json =>
  Object.fromEntries(fields.map((f) => [f, record?.[f]]));

/** The translatable fields the record must show in `lang`. */
export const expectedFields = (texts: Texts, lang: Lang, fields: string[]): Json =>
  Object.fromEntries(fields.map((f) => [f, expected(texts, lang, f)]));

/** Full per-language text of a kind: every translatable field, tagged with `tag` and `w` so each is unique. */
export function textsOf(kind: KindName, w: string, tag: string): Json {
  const out: Json = {};
  for (const field of FIELDS[kind]) {
    out[field] = field === 'description' || field === 'excerpt' ? `<p>${tag} ${w} ${kind} ${field}</p>` : `${tag} ${w} ${kind} ${field}`;
  }
  return out;
}

/** A fresh evening on a random far-future day. */
export function eventDates(): { day: string; start_date: string; end_date: string } {
  const day = futureDay();
  return { day, start_date: `${day} 19:00:00`, end_date: `${day} 21:00:00` };
}

/** Path of a record: `/events/12`. */
export const recordPath = (kind: KindName, id: number): string => `/${kind}/${id}`;

/** Creates a record of `kind` with `body` (plus the fields a kind needs), in the language `opts` names. */
export async function createRecord(kind: KindName, body: Json, opts: WriteOptions = {}): Promise<ApiResponse> {
  const extra = kind === 'events' ? (() => {
    const { start_date, end_date } = eventDates();
    return { start_date, end_date };
  })() : {};
  return write(`/${kind}`, { ...extra, ...body }, opts);
}

/** Finds the record with `id` in a list response (throws with the response when absent). */
export function inList(res: ApiResponse, kind: KindName, id: number): Json {
  const list = res.json?.[LIST_KEY[kind]] as Json[] | undefined;
  const found = list?.find((r) => r.id === id);
  if (!found) throw new Error(`record ${id} is not in the ${kind} list: ${res.status} ${res.text.slice(0, 600)}`);
  return found;
}

/** The narrowest list query that contains a record, independent of language. */
export function listQuery(kind: KindName, id: number, eventId: number, day?: string): Record<string, FormValue> {
  switch (kind) {
    case 'events':
      return day ? { start_date: day, end_date: day, per_page: 50 } : { include: [id] };
    case 'venues':
    case 'organizers':
      return { event: eventId };
    default:
      return { include: [id], hide_empty: false };
  }
}

/** The record of `kind` and `id` embedded in an event (route shape of GET /events/{id} or a list item). */
export function embeddedIn(event: Json, kind: Exclude<KindName, 'events'>, id: number): Json | undefined {
  switch (kind) {
    case 'venues':
      return Array.isArray(event.venue) ? undefined : event.venue?.id === id ? event.venue : undefined;
    case 'organizers':
      return (event.organizer as Json[]).find((o) => o.id === id);
    case 'categories':
      return (event.categories as Json[]).find((t) => t.id === id);
    default:
      return (event.tags as Json[]).find((t) => t.id === id);
  }
}

/** A request failure summary for assertions: status, language header and the start of the body. */
export const summary = (res: ApiResponse): Json => ({
  status: res.status, contentLanguage: res.headers.get('content-language'), body: res.text.slice(0, 400),
});
