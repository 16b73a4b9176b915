/**
 * The OpenAPI schema of an input parameter: its route-definition schema with the WordPress-style scalar types
 * spelled out as JSON Schema, so that the document is no stricter than the parsers (contract §2, §10):
 *
 * - `type: 'boolean'` (parseBoolean): JSON true/false, the JSON numbers 1/0, and the strings
 *   true/false/1/0/yes/no/on/off in any letter case, surrounding white space allowed;
 * - `type: 'integer'` in a body (parsePositiveInt and the like): a JSON integer or its digits as a string (forms
 *   send nothing else). In the path and the query string an integer is written in digits anyway.
 *
 * The namespace index keeps the WordPress spelling (`"type": "boolean"` means the same loose boolean there).
 */
import type { ParamSpec } from '../routes/types.js';
import type { OpenApiSchema } from './shape.js';

/** The strings parseBoolean accepts. */
export const BOOLEAN_STRING_PATTERN =
  '^\\s*(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[Yy][Ee][Ss]|[Nn][Oo]|[Oo][Nn]|[Oo][Ff][Ff]|1|0)\\s*$';

/** A positive integer written in digits, surrounding white space allowed. */
export const DIGIT_STRING_PATTERN = '^\\s*\\d+\\s*$';

/** Keywords that stay on the outer schema when a scalar type is spelled out as anyOf. */
const OUTER = ['description', 'default', 'example'] as const;

function split(schema: OpenApiSchema): { outer: OpenApiSchema; inner: OpenApiSchema } {
  const outer: Record<string, unknown> = {};
  const inner: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((OUTER as readonly string[]).includes(key)) outer[key] = value;
    else inner[key] = value;
  }
  return { outer: outer as OpenApiSchema, inner: inner as OpenApiSchema };
}

/** A boolean as parseBoolean reads it. */
export function looseBoolean(schema: OpenApiSchema = { type: 'boolean' }): OpenApiSchema {
  const { outer, inner } = split(schema);
  return {
    anyOf: [
      inner,
      { type: 'integer', enum: [0, 1] },
      { type: 'string', pattern: BOOLEAN_STRING_PATTERN },
    ],
    ...outer,
  };
}

/** An integer in a body: a JSON integer, or its digits as a string. */
export function looseInteger(schema: OpenApiSchema): OpenApiSchema {
  const { outer, inner } = split(schema);
  return { anyOf: [inner, { type: 'string', pattern: DIGIT_STRING_PATTERN }], ...outer };
}

/** The wire schema of a parameter, given its route-definition schema already copied to OpenAPI form. */
export function wireSchema(p: Pick<ParamSpec, 'in'>, schema: OpenApiSchema): OpenApiSchema {
  if (schema.type === 'boolean') return looseBoolean(schema);
  if (schema.type === 'integer' && p.in === 'body') return looseInteger(schema);
  return schema;
}
