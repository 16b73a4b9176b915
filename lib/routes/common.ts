/** Parameters shared by several routes. */
import { ParamError } from '../model/errors.js';
import { POST_STATUSES, type PostStatus } from '../model/status.js';
import { LANGUAGES, type Language, type ParamSpec, type ParamValues, type ParseContext, type RecordRefParams, type RefKind, type Schema } from './types.js';
import { MAX_LIST, parseBoolean, parseEnum, parsePositiveInt, parseString, TEXT_LIMITS } from './parsers.js';
import { anyCaseEnum, queryList, text } from './schemas.js';
import { MAX_QUERY_WORDS, queryWords } from '../text/words.js';
import { MAX_RADIUS, parseLatitude, parseLongitude, parseRadius, parseUnit } from '../geo/params.js';

/** A parameter whose handler gets `T | undefined` (see `required` and `withDefault` for the others). */
export function param<N extends string, T>(name: N, where: ParamSpec['in'], description: string, schema: Schema,
  parse: (raw: unknown, ctx: ParseContext) => T): ParamSpec<N, T, false> {
  return { name, in: where, description, schema, parse };
}

/** The same parameter, required: the pipeline answers 400 rest_missing_callback_param without it. */
export function required<N extends string, T, O>(p: ParamSpec<N, T, boolean, O>): ParamSpec<N, T, true, O> {
  const { present: _present, ...spec } = p;
  return { ...spec, required: true };
}

/** Required on create only (an update changes only what it sends): typed as optional for the shared write code. */
export const requiredWhen = <N extends string, T>(create: boolean, p: ParamSpec<N, T, false>): ParamSpec<N, T, false> =>
  (create ? { ...p, required: true } : p);

/** The same parameter with a default: the handler always gets a value. */
export function withDefault<N extends string, T>(p: ParamSpec<N, T>, value: T): ParamSpec<N, T, true> {
  const { present: _present, ...spec } = p;
  return { ...spec, default: value };
}

/** The same parameter, naming records of `kind` that must exist (and, in filters, be readable by the caller). */
/** The same parameter naming records of `kind` by id (or term slug): the handler gets their ids (number or number[]). */
export function resolving<N extends string, T, P extends boolean>(p: ParamSpec<N, T, P>, kind: RefKind):
  ParamSpec<N, T, P, T extends readonly unknown[] ? number[] : number> {
  const { out: _out, ...spec } = p;
  return { ...spec, refs: kind };
}

/** The same parameter, whose `refIds` must name existing records of `kind`; the value itself is kept. */
export const checking = <N extends string, T, P extends boolean>(p: ParamSpec<N, T, P>, kind: RefKind,
  refIds: (value: T) => (string | number)[]): ParamSpec<N, T, P> => ({ ...p, refs: kind, refIds });

/** Path ids are digits (the route guarantees it); 0 or an id beyond any counter names no record → 404 later. */
export const idParam = (what: string) =>
  required(param('id', 'path', `the ${what} ID`, { type: 'integer', minimum: 0 }, (v) => {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : 0;
  }));

export const slugParam = (what: string) =>
  required(param('slug', 'path', `the ${what} slug`, text(TEXT_LIMITS.other), (v) => parseString(v, TEXT_LIMITS.other)));

export const translationLanguage = param(
  'translation_language',
  'query',
  'the content language of the request and response (else the path prefix, else en)',
  { type: 'string', enum: LANGUAGES },
  (v) => {
    // Exactly one of the codes (contract §8: any other value is a 400; no trimming or case folding).
    if (typeof v === 'string' && (LANGUAGES as readonly string[]).includes(v)) return v as Language;
    throw new ParamError(`must be one of: ${LANGUAGES.join(', ')}`);
  },
);

export const page = withDefault(param('page', 'query', 'the archive page to return', { type: 'integer', minimum: 1, default: 1 },
  (v) => parsePositiveInt(v)), 1);

export const MAX_PER_PAGE = 50;
export const perPage = withDefault(param(
  'per_page',
  'query',
  `the number of results per page (clamped to ${MAX_PER_PAGE})`,
  { type: 'integer', minimum: 1, default: 10 },
  (v) => Math.min(parsePositiveInt(v), MAX_PER_PAGE),
), 10);

/** Search words (contract §9): whole words and word prefixes; a query without a word is refused. */
export const search = (fields: string) =>
  param('search', 'query', `words to look for in ${fields}: every word must begin a word of one of them `
    + `(case and accents ignored); at most ${MAX_QUERY_WORDS} different words`,
    text(TEXT_LIMITS.other), (v) => {
      const s = parseString(v, TEXT_LIMITS.other);
      const words = queryWords(s).length;
      if (words === 0) throw new ParamError('must contain at least one word');
      if (words > MAX_QUERY_WORDS) throw new ParamError(`must hold at most ${MAX_QUERY_WORDS} different words`);
      return s;
    });

export const passwordRead = param('password', 'query', 'the password of a password-protected record',
  text(TEXT_LIMITS.other), (v) => parseString(v, TEXT_LIMITS.other));

export const contextParam = param('context', 'query',
  'view (default) or edit, in any letter case: edit shows password-protected content to callers who may edit the record',
  anyCaseEnum(['view', 'edit']), parseEnum(['view', 'edit'] as const));

/** The parameters of reading one record, and of deleting one, besides its id or slug. */
export type RecordReadParams = RecordRefParams & ParamValues<readonly [typeof passwordRead, typeof contextParam]>;
export type RecordDeleteParams = RecordRefParams & ParamValues<readonly [typeof forceParam]>;

export const forceParam = withDefault(param('force', 'query', 'delete permanently instead of moving to the trash (editors only)',
  { type: 'boolean', default: false }, parseBoolean), false);

export const boolParam = <N extends string>(name: N, description: string, where: ParamSpec['in'] = 'body') =>
  param(name, where, description, { type: 'boolean' }, parseBoolean);

export { POST_STATUSES, type PostStatus } from '../model/status.js';

/** A status list filter: anonymous callers and subscribers may only ask for `publish` (reference §11.2). */
export const statusFilter = (what: string) =>
  param('status', 'query', `the ${what} statuses to include (publish, future, draft, pending, private, trash; any letter case); `
    + 'anonymous callers and subscribers may ask only for publish',
    queryList(anyCaseEnum(POST_STATUSES)),
    (v, ctx: ParseContext) => {
      const list = (Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : [v])
        .map((s) => (typeof s === 'string' ? s.trim().toLowerCase() : s));
      if (list.length > MAX_LIST) throw new ParamError(`must hold at most ${MAX_LIST} entries`);
      if (list.length === 0 || list.some((s) => typeof s !== 'string' || !(POST_STATUSES as readonly string[]).includes(s))) {
        throw new ParamError(`must be a list of: ${POST_STATUSES.join(', ')}`);
      }
      const role = ctx.caller?.role ?? 'subscriber';
      if (role === 'subscriber' && list.some((s) => s !== 'publish')) {
        throw new ParamError('only published records can be listed without editing rights');
      }
      return [...new Set(list)] as PostStatus[];
    });

export const statusWrite = (what: string) =>
  param('status', 'body', `the ${what} status (any letter case)`, anyCaseEnum(POST_STATUSES), parseEnum(POST_STATUSES));

/** The geo filters of /events, /events.ics and /venues (contract §18); combined and resolved by lib/geo/params.ts. */
export const geoParams = (what: string) => [
  boolParam('geoloc', `true: only ${what} whose venue has coordinates; false: only those whose venue has none (no venue `
    + 'included); not with a point', 'query'),
  param('geoloc_lat', 'query', `latitude of a point (decimal degrees, -90 to 90): only ${what} within the radius of it; needs geoloc_lng`,
    { type: 'number', minimum: -90, maximum: 90 }, parseLatitude),
  param('geoloc_lng', 'query', 'longitude of the point (decimal degrees, -180 to 180); needs geoloc_lat',
    { type: 'number', minimum: -180, maximum: 180 }, parseLongitude),
  param('geoloc_radius', 'query', `radius around the point, in geoloc_unit (greater than 0, at most ${MAX_RADIUS}); default: `
    + 'CALENDAR_GEOLOC_RADIUS (25) in CALENDAR_GEOLOC_UNIT (mi); needs a point',
  { type: 'number', minimum: 0, maximum: MAX_RADIUS }, parseRadius),
  param('geoloc_unit', 'query', 'mi or km (any case): the unit of geoloc_radius and of every distance; default CALENDAR_GEOLOC_UNIT (mi); '
    + 'needs a point', anyCaseEnum(['mi', 'km']), parseUnit),
] as const;
