/** The /imports routes (contract §20): editors bring a calendar in from an iCalendar source or a site of the origin. */
import { ParamError } from '../model/errors.js';
import { POST_STATUSES } from '../model/status.js';
import { boolParam, idParam, page, param, perPage, requiredWhen, translationLanguage, withDefault } from './common.js';
import { MAX_LIST, parseEnum, parsePositiveInt, parseString, parseUrl, TEXT_LIMITS } from './parsers.js';
import { anyCaseEnum, dateInput, text } from './schemas.js';
import { LANGUAGES, type Language, type OperationSpec, type ParamValues, type RouteSpec, type Schema } from './types.js';
import { parseInstant } from '../time/parse.js';

export const SCHEDULES = ['once', 'hourly', 'daily', 'weekly'] as const;
export type Schedule = (typeof SCHEDULES)[number];
export const AUTHORITIES = ['overwrite', 'retain', 'preserve'] as const;
export type Authority = (typeof AUTHORITIES)[number];
/** The statuses imported events may be given (trash is not a status to import into). */
export const IMPORT_STATUSES = POST_STATUSES.filter((s) => s !== 'trash');
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** What a source is, as sent: validated in shape here, its URL's address and the origin's API path by the handler. */
export type SourceInput =
  | { type: 'ics'; url: string; content?: undefined }
  | { type: 'ics'; content: string; url?: undefined }
  | { type: 'tec'; url: string; username?: string; password?: string; content?: undefined };

/** An application password as WordPress shows it: 24 letters and digits, spaces allowed. */
const CREDENTIAL_MAX = 200;

function parseSource(v: unknown): SourceInput {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ParamError('must be an object with a type: ics or tec');
  const o = v as Record<string, unknown>;
  const type = parseEnum(['ics', 'tec'] as const)(o.type);
  const field = (name: string, parse: (raw: unknown) => string): string | undefined => {
    if (o[name] === undefined || o[name] === null) return undefined;
    try {
      return parse(o[name]);
    } catch (e) {
      throw new ParamError(`${name} ${(e as Error).message}`);
    }
  };
  const url = field('url', (raw) => parseUrl(raw));
  if (type === 'ics') {
    // A file of up to the body's own limit (1 MiB); its text is read by the run.
    const content = field('content', (raw) => parseString(raw, 1_100_000));
    if ((url === undefined) === (content === undefined)) throw new ParamError('an ics source has either url or content');
    return url !== undefined ? { type, url } : { type, content: content! };
  }
  if (url === undefined) throw new ParamError('a tec source needs url: <site>/wp-json/tribe/events/v1');
  if (o.content !== undefined) throw new ParamError('a tec source has no content');
  const username = field('username', (raw) => parseString(raw, CREDENTIAL_MAX, { allowEmpty: true }).trim());
  const password = field('password', (raw) => parseString(raw, CREDENTIAL_MAX, { allowEmpty: true }).replace(/\s+/g, ''));
  return { type, url, ...(username !== undefined ? { username } : {}), ...(password !== undefined ? { password } : {}) };
}

const SOURCE_SCHEMA: Schema = {
  type: 'object',
  description: 'where the events come from: {"type": "ics", "url"} (an iCalendar feed), {"type": "ics", "content": "BEGIN:VCALENDAR…"} '
    + '(a file), or {"type": "tec", "url": "<site>/wp-json/tribe/events/v1", "username", "password"} (a site running The Events '
    + 'Calendar; an application password of that site, optional, for what anonymous readers cannot see). The password is never shown',
  properties: {
    type: { type: 'string', enum: ['ics', 'tec'], description: 'ics or tec (any letter case)' },
    url: { type: 'string', format: 'uri', maxLength: TEXT_LIMITS.other, description: 'an http(s) URL' },
    content: { type: 'string', minLength: 1, description: 'an iCalendar file\'s text (ics only; schedule once)' },
    username: { type: 'string', maxLength: CREDENTIAL_MAX, description: 'tec only: the source\'s user name ("" removes the credentials)' },
    password: { type: 'string', maxLength: CREDENTIAL_MAX, description: 'tec only: an application password of the source' },
  },
  additionalProperties: true,
};

/** Term ids, slugs or names, as on event writes: kept as sent and resolved by each run. */
function parseTerms(v: unknown): (number | string)[] {
  if (v === '' || v === null || (Array.isArray(v) && v.length === 0)) return [];
  const items = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : typeof v === 'number' ? [v] : null;
  if (!items) throw new ParamError('must be a list of term ids, slugs or names');
  if (items.length > MAX_LIST) throw new ParamError(`must hold at most ${MAX_LIST} entries`);
  return items.map((i) => (typeof i === 'string' ? i.trim() : i)).filter((i) => i !== '').map((i): number | string => {
    if (typeof i === 'number' || (typeof i === 'string' && /^\d+$/.test(i))) return parsePositiveInt(i);
    if (typeof i === 'string') return parseString(i, TEXT_LIMITS.name);
    throw new ParamError('must be a list of term ids, slugs or names');
  });
}

const TERMS_SCHEMA: Schema = {
  anyOf: [
    { type: 'array', maxItems: MAX_LIST, items: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', maxLength: TEXT_LIMITS.name }] } },
    { type: 'string', nullable: true, description: `comma-separated ids, slugs or names (at most ${MAX_LIST})` },
    { type: 'integer', minimum: 1 },
  ],
};

/** A window bound: any date the event writes take (contract §6), read in the site time zone; "" returns to the default. */
const windowDate = <N extends string>(name: N, what: string) =>
  param(name, 'body', `${what} (a date, date and time, ISO 8601, Unix timestamp or phrase, in the site time zone); "" returns to the `
    + 'default', { anyOf: [...(dateInput().anyOf ?? []), { type: 'string', maxLength: 0 }] }, (v): string | number => {
    if (v === '') return '';
    parseInstant(v, 'UTC'); // format check only; the handler reads it in the site time zone
    return v as string | number; // parseInstant accepts only strings and numbers
  });

const termsParam = <N extends 'categories' | 'tags'>(name: N, what: string) =>
  param(name, 'body', `${what} ids, slugs or names added to every imported event (unknown names create ${what === 'category' ? 'categories' : 'tags'}); `
    + '[] removes them', TERMS_SCHEMA, parseTerms);

export function importWriteParams(create: boolean) {
  return [
    requiredWhen(create, param('name', 'body', 'what the import is called', text(TEXT_LIMITS.name), (v) => parseString(v, TEXT_LIMITS.name).trim())),
    requiredWhen(create, param('source', 'body', 'the source: its type cannot change', SOURCE_SCHEMA, parseSource)),
    param('schedule', 'body', 'once (default), hourly, daily or weekly (any letter case); a content source is imported once',
      anyCaseEnum(SCHEDULES), parseEnum(SCHEDULES)),
    param('status', 'body', 'the status of the events it creates (any letter case); default: publish for ics sources, each source event\'s '
      + 'own for tec sources; "" returns to the default', { anyOf: [anyCaseEnum(IMPORT_STATUSES), { type: 'string', maxLength: 0 }] },
    (v): ImportStatus | '' => (v === '' ? '' : parseEnum(IMPORT_STATUSES)(v))),
    termsParam('categories', 'category'),
    termsParam('tags', 'tag'),
    param('authority', 'body', 'overwrite (default): the source wins on every run; retain: an imported event is never touched again; '
      + 'preserve: fields changed through the API since the import are kept (any letter case)', anyCaseEnum(AUTHORITIES), parseEnum(AUTHORITIES)),
    windowDate('start_date', 'import the events that end after this; default for ics: everything in the file, for tec: 30 days ago'),
    windowDate('end_date', 'import the events that start before this (a date alone: its whole day); default for ics: everything, for tec: '
      + 'two years ahead'),
    param('language', 'body', `the language the imported text is written in: ${LANGUAGES.join(', ')} (default en)`,
      { type: 'string', enum: LANGUAGES }, (v): Language => {
        if (typeof v === 'string' && (LANGUAGES as readonly string[]).includes(v)) return v as Language;
        throw new ParamError(`must be one of: ${LANGUAGES.join(', ')}`);
      }),
    translationLanguage,
  ] as const;
}
export type ImportWriteParams = ParamValues<ReturnType<typeof importWriteParams>>;

const importRead = [idParam('import'), translationLanguage] as const;
export type ImportReadParams = ParamValues<typeof importRead>;
const importDelete = [idParam('import'), withDefault(boolParam('delete_events', 'true: the events this import brought in are trashed too '
  + '(202: by the import worker)', 'query'), false), translationLanguage] as const;
export type ImportDeleteParams = ParamValues<typeof importDelete>;
const importList = [page, perPage, translationLanguage] as const;
export type ImportListParams = ParamValues<typeof importList>;

const update = (params: OperationSpec['params']) =>
  (['POST', 'PUT', 'PATCH'] as const).map((method): OperationSpec => ({ id: `imports.update${method === 'POST' ? '' : `.${method.toLowerCase()}`}`,
    method, summary: 'Changes an import (only the fields sent change; the source\'s type stays)', capability: 'manage_imports', success: 200,
    errors: [400, 401, 403, 404], response: 'Import', params }));

export const importRoutes: RouteSpec[] = [
  { path: '/imports', group: 'imports', operations: [
    { id: 'imports.list', method: 'GET', summary: 'Lists the imports (editors only)', capability: 'manage_imports', success: 200,
      errors: [401, 403, 404], response: 'ImportList', params: importList },
    { id: 'imports.create', method: 'POST', summary: 'Creates an import and queues its first run (202); at most 100 imports',
      capability: 'manage_imports', success: 202, queuedCreate: true, errors: [400, 401, 403, 409], response: 'Import',
      params: importWriteParams(true) },
  ] },
  { path: '/imports/{id}', group: 'imports', operations: [
    { id: 'imports.get', method: 'GET', summary: 'Returns one import with its last run', capability: 'manage_imports', success: 200,
      errors: [401, 403, 404], response: 'Import', params: importRead },
    ...update([idParam('import'), ...importWriteParams(false)]),
    { id: 'imports.delete', method: 'DELETE', summary: 'Deletes an import (200); with delete_events=true also trashes the events it brought '
      + 'in (202: the worker does it)', capability: 'manage_imports', success: 200, alsoQueues: 'with delete_events=true: the events it '
      + 'brought in are trashed by the import worker', errors: [401, 403, 404], response: 'Import', params: importDelete },
  ] },
  { path: '/imports/{id}/run', group: 'imports', operations: [
    { id: 'imports.run', method: 'POST', summary: 'Queues a run of the import now (202); 409 while one is queued or running',
      capability: 'manage_imports', success: 202, errors: [401, 403, 404, 409], response: 'Import', headers: ['Location'],
      params: importRead },
  ] },
];

