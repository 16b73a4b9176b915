/** Parameters shared by several routes. */
import { ParamError } from '../model/errors.js';
import { POST_STATUSES, type PostStatus } from '../model/status.js';
import { LANGUAGES, type ParamSpec, type ParseContext, type Schema } from './types.js';
import { MAX_LIST, parseBoolean, parseEnum, parsePositiveInt, parseString, TEXT_LIMITS } from './parsers.js';
import { anyCaseEnum, queryList, text } from './schemas.js';

type Parse = ParamSpec['parse'];

export function param(
  name: string,
  where: ParamSpec['in'],
  description: string,
  schema: Schema,
  parse: Parse,
  extra: Partial<Pick<ParamSpec, 'required' | 'default'>> = {},
): ParamSpec {
  return { name, in: where, description, schema, parse, ...extra };
}

/** Path ids are digits (the route guarantees it); 0 or an id beyond any counter names no record → 404 later. */
export const idParam = (what: string): ParamSpec =>
  param('id', 'path', `the ${what} ID`, { type: 'integer', minimum: 0 }, (v) => {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : 0;
  }, { required: true });

export const slugParam = (what: string): ParamSpec =>
  param('slug', 'path', `the ${what} slug`, text(TEXT_LIMITS.other), (v) => parseString(v, TEXT_LIMITS.other), {
    required: true,
  });

export const translationLanguage: ParamSpec = param(
  'translation_language',
  'query',
  'the content language of the request and response (else the path prefix, else en)',
  { type: 'string', enum: LANGUAGES },
  (v) => {
    // Exactly one of the codes (contract §8: any other value is a 400; no trimming or case folding).
    if (typeof v === 'string' && (LANGUAGES as readonly string[]).includes(v)) return v;
    throw new ParamError(`must be one of: ${LANGUAGES.join(', ')}`);
  },
);

export const page: ParamSpec = param('page', 'query', 'the archive page to return', { type: 'integer', minimum: 1, default: 1 },
  (v) => parsePositiveInt(v), { default: 1 });

export const MAX_PER_PAGE = 50;
export const perPage: ParamSpec = param(
  'per_page',
  'query',
  `the number of results per page (clamped to ${MAX_PER_PAGE})`,
  { type: 'integer', minimum: 1, default: 10 },
  (v) => Math.min(parsePositiveInt(v), MAX_PER_PAGE),
  { default: 10 },
);

export const search = (fields: string): ParamSpec =>
  param('search', 'query', `words to look for in ${fields}`, text(TEXT_LIMITS.other), (v) => parseString(v, TEXT_LIMITS.other));

export const passwordRead: ParamSpec = param('password', 'query', 'the password of a password-protected record',
  text(TEXT_LIMITS.other), (v) => parseString(v, TEXT_LIMITS.other));

export const contextParam: ParamSpec = param('context', 'query',
  'view (default) or edit, in any letter case: edit shows password-protected content to callers who may edit the record',
  anyCaseEnum(['view', 'edit']), parseEnum(['view', 'edit'] as const));

export const forceParam: ParamSpec = param('force', 'query', 'delete permanently instead of moving to the trash (editors only)',
  { type: 'boolean', default: false }, parseBoolean);

export const boolParam = (name: string, description: string, where: ParamSpec['in'] = 'body'): ParamSpec =>
  param(name, where, description, { type: 'boolean' }, parseBoolean);

export { POST_STATUSES, type PostStatus } from '../model/status.js';

/** A status list filter: anonymous callers and subscribers may only ask for `publish` (reference §11.2). */
export const statusFilter = (what: string): ParamSpec =>
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

export const statusWrite = (what: string): ParamSpec =>
  param('status', 'body', `the ${what} status (any letter case)`, anyCaseEnum(POST_STATUSES), parseEnum(POST_STATUSES));
