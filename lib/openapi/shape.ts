/**
 * Wire shapes declared once: each field of a record's JSON names its OpenAPI schema and how its value is computed,
 * so the serialiser and the document's component schema come from the same lines (a field added to one is in the
 * other). Keys are emitted in declaration order, which is the order of the origin's responses.
 */
import { POST_STATUSES } from '../model/status.js';
import type { OpenApiSchema } from './schema-types.js';

export type { OpenApiSchema } from './schema-types.js';
export type Json = Record<string, unknown>;

export const ref = (name: string): OpenApiSchema => ({ $ref: `#/components/schemas/${name}` });
/** A `$ref` with a description of its own (siblings of `$ref` are ignored in OpenAPI 3.0). */
export const refd = (name: string, description: string): OpenApiSchema => ({ allOf: [ref(name)], description });
export const str = (description: string, extra: OpenApiSchema = {}): OpenApiSchema => ({ type: 'string', ...extra, description });
export const int = (description: string, extra: OpenApiSchema = {}): OpenApiSchema => ({ type: 'integer', ...extra, description });
export const num = (description: string, extra: OpenApiSchema = {}): OpenApiSchema => ({ type: 'number', ...extra, description });
export const bool = (description: string): OpenApiSchema => ({ type: 'boolean', description });
/** A boolean that a password-protected record shows as null until its password is given. */
export const lockedBool = (description: string): OpenApiSchema =>
  ({ ...bool(`${description} (null on a password-protected record whose password was not given)`), nullable: true });
export const arr = (items: OpenApiSchema, description: string, extra: OpenApiSchema = {}): OpenApiSchema =>
  ({ type: 'array', items, ...extra, description });
export const obj = (properties: Record<string, OpenApiSchema>, required: string[], description: string,
  extra: OpenApiSchema = {}): OpenApiSchema =>
  ({ type: 'object', description, properties, ...(required.length ? { required } : {}), ...extra });
/** Always the empty JSON array. */
export const emptyArray = (description: string): OpenApiSchema => ({ type: 'array', items: {}, maxItems: 0, description });

const DATE_EXAMPLE = '2025-07-14 20:00:00';
export const dateTime = (description: string): OpenApiSchema =>
  str(`${description}, YYYY-MM-DD HH:MM:SS (no T, no offset)`, { example: DATE_EXAMPLE });
export const apiLink = (what: string): OpenApiSchema => str(`absolute API URL of ${what}`, { format: 'uri' });
export const postStatus = (kind: string): OpenApiSchema => str(`the ${kind} status`, { enum: POST_STATUSES });
export const imageOrFalse = (description: string): OpenApiSchema =>
  ({ oneOf: [ref('Image'), { type: 'boolean', enum: [false] }], description });
export const globalIdSchema = (kind: string): OpenApiSchema =>
  str(`"<host>?id=<id>": identifies the ${kind} across sites`, { example: 'example.com?id=12' });
export const globalIdLineageSchema = (): OpenApiSchema => arr({ type: 'string' }, 'the global ids this record descends from: [global_id]');
export const jsonLd = (type: string): OpenApiSchema => ({
  type: 'object',
  additionalProperties: true,
  description: `schema.org ${type} as JSON-LD; only on single-record GETs (and on the records embedded in them)`,
});

/** One field of a wire shape. */
export interface WireField<V> {
  schema: OpenApiSchema;
  /** The value for a view of the record; undefined leaves the key out. */
  value: (view: V) => unknown;
  /** Listed as required in the schema: always present. */
  required?: boolean;
  /** What a password-protected record that was not unlocked shows instead (reference §11.3); absent: shown as is. */
  blank?: unknown;
  /** Left out when empty ("", "0", 0, false, null, [], absent), as the origin leaves empty venue and organizer values out. */
  dropEmpty?: boolean;
}

/** A field that is always present. */
export const always = <V>(schema: OpenApiSchema, value: (view: V) => unknown, blank?: unknown): WireField<V> =>
  ({ schema, value, required: true, ...(blank !== undefined ? { blank } : {}) });
/** A field that may be absent. */
export const sometimes = <V>(schema: OpenApiSchema, value: (view: V) => unknown, blank?: unknown): WireField<V> =>
  ({ schema, value, ...(blank !== undefined ? { blank } : {}) });
/** A field left out when empty. */
export const unlessEmpty = <V>(schema: OpenApiSchema, value: (view: V) => unknown, blank?: unknown): WireField<V> =>
  ({ schema, value, dropEmpty: true, ...(blank !== undefined ? { blank } : {}) });

const isEmpty = (v: unknown): boolean =>
  v === undefined || v === null || v === '' || v === '0' || v === 0 || v === false || (Array.isArray(v) && v.length === 0);

export interface WireShape<V> {
  /** The component schema (OpenAPI 3.0). */
  schema: OpenApiSchema;
  /** The record's JSON for a view; `blank` shows what a locked password-protected record shows. */
  render(view: V, opts?: { blank?: boolean }): Json;
}

export function wireShape<V>(description: string, fields: Record<string, WireField<V>>): WireShape<V> {
  const entries = Object.entries(fields);
  const schema = obj(Object.fromEntries(entries.map(([k, f]) => [k, f.schema])), entries.filter(([, f]) => f.required).map(([k]) => k),
    description);
  return {
    schema,
    render(view, opts = {}) {
      const out: Json = {};
      for (const [key, field] of entries) {
        const value = field.value(view);
        if (value === undefined || (field.dropEmpty && isEmpty(value))) continue;
        out[key] = opts.blank && 'blank' in field ? structuredClone(field.blank) : value;
      }
      return out;
    },
  };
}
