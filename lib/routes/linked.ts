/** The /venues and /organizers routes (reference §4.2–4.3, §7, §9.2, §10.2–10.3). */
import {
  boolParam, contextParam, geoParams, forceParam, idParam, page, param, passwordRead, perPage, requiredWhen, resolving, search, slugParam,
  statusFilter, statusWrite, translationLanguage,
} from './common.js';
import { parsePositiveInt, parseString, parseTruthy, parseUrl, TEXT_LIMITS } from './parsers.js';
import { ParamError } from '../model/errors.js';
import type { AnyParam, Group, OperationSpec, ParamValues, RecordRefParams, RouteSpec } from './types.js';
import { dateInput, text as textSchema, urlOrEmpty } from './schemas.js';
import { parseCoordinateWrite } from '../geo/params.js';

const coordinate = <N extends string>(name: N, what: string, limit: 90 | 180) => param(name, 'body',
  `${what} in decimal degrees (-${limit} to ${limit}; a number or a decimal string); null or "" clears it. Send both coordinates or neither`,
  { anyOf: [{ type: 'number', minimum: -limit, maximum: limit, nullable: true }, { type: 'string' }] }, parseCoordinateWrite(limit));

type Kind = 'venue' | 'organizer';

const text = <N extends string>(name: N, description: string, max: number = TEXT_LIMITS.other) =>
  param(name, 'body', description, textSchema(max, { allowEmpty: true }), (v) => parseString(v, max, { allowEmpty: true }));

const imageParam = param('image', 'body', 'an absolute http(s) image URL, or "" to remove the image', urlOrEmpty(),
  (v) => {
    if (typeof v === 'number' || (typeof v === 'string' && /^\s*\d+\s*$/.test(v))) {
      throw new ParamError('must be an absolute image URL (attachment ids are not accepted), or "" to remove it');
    }
    return parseUrl(v, { allowEmpty: true });
  });

const websiteParam = param('website', 'body', 'website (absolute http(s) URL), or "" to clear it', urlOrEmpty(),
  (v) => parseUrl(v, { allowEmpty: true }));

const FIELDS = {
  venue: [
    text('address', 'street address'), text('city', 'city'), text('country', 'country'), text('province', 'province'),
    text('state', 'state'), text('zip', 'postal code'), text('phone', 'phone number'),
    text('stateprovince', 'state or province (derived from state/province when not given)'),
    websiteParam,
    boolParam('show_map', 'whether to show a map (default true)'),
    boolParam('show_map_link', 'whether to show a map link (default true)'),
    coordinate('geo_lat', 'latitude', 90),
    coordinate('geo_lng', 'longitude', 180),
  ],
  organizer: [
    text('phone', 'phone number'),
    websiteParam,
    text('email', 'e-mail address'),
  ],
} as const;

function writeParams<K extends Kind>(kind: K, create: boolean) {
  return [
    requiredWhen(create, param(kind, 'body', `the ${kind} name`, textSchema(TEXT_LIMITS.title),
      (v) => parseString(v, TEXT_LIMITS.title).trim())),
    param('description', 'body', `the ${kind} description (HTML, sanitised)`, textSchema(TEXT_LIMITS.description, { allowEmpty: true }),
      (v) => parseString(v, TEXT_LIMITS.description, { allowEmpty: true })),
    param('excerpt', 'body', `the ${kind} excerpt (HTML, sanitised)`, textSchema(TEXT_LIMITS.excerpt, { allowEmpty: true }),
      (v) => parseString(v, TEXT_LIMITS.excerpt, { allowEmpty: true })),
    statusWrite(kind),
    resolving(param('author', 'body', 'the author user id (editors only may set someone else)', { type: 'integer', minimum: 1 },
      (v) => parsePositiveInt(v)), 'user'),
    param('date', 'body', 'the publication date (YYYY-MM-DD HH:MM:SS in the site time zone, ISO 8601, Unix timestamp or a phrase)',
      dateInput(), (v) => parseString(v)),
    param('date_utc', 'body', 'the publication date in UTC (YYYY-MM-DD HH:MM:SS, ISO 8601, Unix timestamp or a phrase)', dateInput(),
      (v) => parseString(v)),
    imageParam,
    ...FIELDS[kind],
    param('password', 'body', `a password that readers must send to see the ${kind}'s details; "" removes it`,
      textSchema(TEXT_LIMITS.other, { allowEmpty: true }),
      (v) => parseString(v, TEXT_LIMITS.other, { allowEmpty: true })),
    translationLanguage,
  ] as const;
}

/** The parameters of venue and organizer writes, as the shared write code gets them (each kind sends its own). */
export type LinkedWriteParams = Partial<ParamValues<ReturnType<typeof writeParams<'venue'>>> & ParamValues<ReturnType<typeof writeParams<'organizer'>>>>;

/** The parameters POST /venues (resp. /organizers) declares: inline objects in event writes are validated against them. */
export const linkedCreateParams = (kind: Kind): readonly AnyParam[] => writeParams(kind, true);

function listParams(kind: Kind) {
  const fields = kind === 'venue' ? 'name, description, address, city, province, state, zip and phone'
    : 'name, description, phone, e-mail and website';
  return [
    page, perPage, search(fields),
    resolving(param('event', 'query', `only ${kind}s linked to this event`, { type: 'integer', minimum: 1 }, (v) => parsePositiveInt(v)),
      'event'),
    param('has_events', 'query', `true (1, true, yes, on, y, enable or enabled, any case): only ${kind}s linked to a non-draft event; `
      + 'any other value: only those linked to none',
      { type: 'string' }, parseTruthy),
    param('only_with_upcoming', 'query', `true (1, true, yes, on, y, enable or enabled, any case): only ${kind}s with an upcoming `
      + 'event visible to the caller; any other value: no such filter',
      { type: 'string', default: 'false' }, parseTruthy),
    statusFilter(kind),
    ...(kind === 'venue' ? geoParams('venues') : []),
    passwordRead,
    contextParam,
    translationLanguage,
  ] as const;
}
export type LinkedListParams = ParamValues<ReturnType<typeof listParams>>;
export type LinkedUpdateParams = RecordRefParams & LinkedWriteParams;

function routes(kind: Kind, group: Group, plural: string): RouteSpec[] {
  const title = kind[0]!.toUpperCase() + kind.slice(1);
  const single = (key: AnyParam, suffix: string): OperationSpec[] => [
    { id: `${plural}.get${suffix}`, method: 'GET', summary: `Returns one ${kind}`, capability: 'public', success: 200,
      errors: [400, 401, 403, 404], response: title, params: [key, passwordRead, contextParam, translationLanguage] },
    ...(['POST', 'PUT', 'PATCH'] as const).map((method): OperationSpec => ({
      id: `${plural}.update${suffix}${method === 'POST' ? '' : `.${method.toLowerCase()}`}`, method,
      summary: `Updates a ${kind} (only the fields sent change)`, capability: 'edit_posts', success: 200,
      errors: [400, 401, 403, 404, 412, 413], response: title, params: [key, ...writeParams(kind, false)] })),
    { id: `${plural}.delete${suffix}`, method: 'DELETE', summary: `Moves a ${kind} to the trash, or deletes it with force=true`,
      capability: 'edit_posts', success: 200, errors: [400, 401, 403, 404, 410, 412], response: title,
      params: [key, forceParam, translationLanguage] },
  ];
  return [
    { path: `/${plural}`, group, operations: [
      { id: `${plural}.list`, method: 'GET', summary: `Lists ${kind}s, newest first`, capability: 'public', success: 200,
        errors: [400, 401, 404], response: `${title}List`, params: listParams(kind) },
      { id: `${plural}.create`, method: 'POST', summary: `Creates a ${kind} (or reuses one with the same name and description)`,
        capability: 'create_posts', success: 201, errors: [400, 401, 403, 413], response: title, params: writeParams(kind, true) },
    ] },
    { path: `/${plural}/{id}`, group, operations: single(idParam(kind), '') },
    { path: `/${plural}/by-slug/{slug}`, group, operations: single(slugParam(kind), 'BySlug') },
  ];
}

export const venueRoutes = routes('venue', 'venues', 'venues');
export const organizerRoutes = routes('organizer', 'organizers', 'organizers');
