/** The /categories and /tags routes (reference §4.4(b), §5.2, §8, §9.3, §10.4). */
import { checking, idParam, page, param, perPage, requiredWhen, resolving, search, translationLanguage } from './common.js';
import { parseBoolean, parseEnum, parseList, parsePositiveInt, parseString, TEXT_LIMITS } from './parsers.js';
import type { OperationSpec, ParamValues, RouteSpec } from './types.js';
import { anyCaseEnum, queryList, text } from './schemas.js';

type Taxonomy = 'category' | 'tag';

const termRefs = <N extends string>(name: N, description: string, kind: Taxonomy) =>
  resolving(param(name, 'query', description, queryList(text(TEXT_LIMITS.other, { allowEmpty: true })),
    (v) => parseList(v).map((i) => (typeof i === 'number' ? i : parseString(i)))), kind);

const eventRef = <N extends string>(name: N, description: string) =>
  resolving(param(name, 'query', description, { type: 'integer', minimum: 1 }, (v) => parsePositiveInt(v)), 'event');

function listParams(kind: Taxonomy) {
  return [
    page, perPage,
    search('the name and slug'),
    termRefs('include', 'only these terms (ids or slugs)', kind),
    termRefs('exclude', 'not these terms (ids or slugs)', kind),
    param('order', 'query', 'asc or desc (any letter case)', anyCaseEnum(['asc', 'desc'], { default: 'asc' }),
      parseEnum(['asc', 'desc'] as const)),
    param('orderby', 'query', 'id, name, slug, count, include, description or term_group (any letter case)',
      anyCaseEnum(['id', 'name', 'slug', 'count', 'include', 'description', 'term_group'], { default: 'name' }),
      parseEnum(['id', 'name', 'slug', 'count', 'include', 'description', 'term_group'] as const)),
    param('hide_empty', 'query', 'omit terms with no published events', { type: 'boolean', default: true }, parseBoolean),
    ...(kind === 'category'
      ? [resolving(param('parent', 'query', 'children of this category', { type: 'integer', minimum: 1 }, (v: unknown) => parsePositiveInt(v)),
        'category')]
      : []),
    eventRef('post', 'terms of this event'),
    eventRef('event', 'terms of this event (wins over post)'),
    param('slug', 'query', 'the exact slug', text(TEXT_LIMITS.other), (v) => parseString(v)),
    translationLanguage,
  ] as const;
}
export type TermListParams = ParamValues<ReturnType<typeof listParams>>;

function writeParams(kind: Taxonomy, create: boolean) {
  return [
    requiredWhen(create, param('name', 'body', `the ${kind} name`, text(TEXT_LIMITS.name),
      (v) => parseString(v, TEXT_LIMITS.name).trim())),
    param('description', 'body', `the ${kind} description (HTML, sanitised)`, text(TEXT_LIMITS.description),
      (v) => parseString(v, TEXT_LIMITS.description)),
    param('slug', 'body', `the ${kind} slug (made unique with -2, -3…)`, text(TEXT_LIMITS.name), (v) => parseString(v, TEXT_LIMITS.name)),
    kind === 'category'
      ? checking(param('parent', 'body', 'the parent category id; 0 or null moves the category to the top level',
        { type: 'integer', minimum: 0, nullable: true },
        (v: unknown): number | null => (v === null || v === 0 || v === '0' ? 0 : parsePositiveInt(v))),
      'category', (v) => (v === 0 || v === null ? [] : [v]))
      // A tag's parent is kept only to be refused by the handler (null counts as not sent, as WordPress' isset).
      : param('parent', 'body', 'tags are not hierarchical: any value but null is refused (400 rest_taxonomy_not_hierarchical)',
        { type: 'integer', nullable: true }, (v): number | null => (v === null ? null : -1)),
    translationLanguage,
  ] as const;
}
export type TermWriteParams = ParamValues<ReturnType<typeof writeParams>>;
export type TermIdParams = { id: number };
export type TermUpdateParams = TermIdParams & TermWriteParams;

function routes(kind: Taxonomy, plural: 'categories' | 'tags'): RouteSpec[] {
  const title = kind === 'category' ? 'Category' : 'Tag';
  const capability = kind === 'category' ? 'manage_categories' : 'manage_tags';
  const id = idParam(kind);
  return [
    { path: `/${plural}`, group: plural, operations: [
      { id: `${plural}.list`, method: 'GET', summary: `Lists ${plural}`, capability: 'public', success: 200, errors: [400, 401],
        response: `${title}List`, params: listParams(kind) },
      { id: `${plural}.create`, method: 'POST', summary: `Creates a ${kind}`, capability, success: 201,
        errors: [400, 401, 403, 413], response: title, params: writeParams(kind, true) },
    ] },
    { path: `/${plural}/{id}`, group: plural, operations: [
      { id: `${plural}.get`, method: 'GET', summary: `Returns one ${kind}`, capability: 'public', success: 200,
        errors: [400, 401, 404], response: title, params: [id, translationLanguage] },
      ...(['POST', 'PUT', 'PATCH'] as const).map((method): OperationSpec => ({
        id: `${plural}.update${method === 'POST' ? '' : `.${method.toLowerCase()}`}`, method,
        summary: `Updates a ${kind} (only the fields sent change)`, capability, success: 200,
        errors: [400, 401, 403, 404, 412, 413], response: title, params: [id, ...writeParams(kind, false)] })),
      { id: `${plural}.delete`, method: 'DELETE', summary: `Deletes a ${kind} permanently and unlinks it from its events`,
        capability, success: 200, errors: [400, 401, 403, 404, 412], response: title, params: [id, translationLanguage] },
    ] },
  ];
}

export const categoryRoutes = routes('category', 'categories');
export const tagRoutes = routes('tag', 'tags');
