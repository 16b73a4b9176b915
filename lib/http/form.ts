/**
 * Query strings and form bodies with PHP-style nesting (`a[]=1&a[]=2`, `venue[city]=X`, `organizer[0][organizer]=Y`),
 * parsed by `qs` within the limits of contract §2: at most 100 entries per list and no index above 99 (`qs` turns
 * either into an object with such a key, which marks that parameter invalid), at most 5 levels of nesting and 1,000
 * parameters. Keys that name object internals (`__proto__`, `constructor`, `length`, `push`…) are dropped, so no
 * client value reaches a prototype or makes the service allocate or loop in proportion to a number it chose. Lone
 * UTF-16 surrogates (which no UTF-8 text can hold) become U+FFFD.
 */
// The parser alone: qs's index also loads its stringifier (lambda bundles are budgeted).
import parseQuery from 'qs/lib/parse.js';

export type Nested = { [key: string]: NestedValue };
export type NestedValue = string | NestedValue[] | Nested;

/** A parsed query or body: the values, and the top-level names whose value broke a list limit. */
export interface ParsedForm {
  values: Record<string, unknown>;
  invalid: Record<string, string>;
}

export const MAX_LIST_ENTRIES = 100;

const QS_OPTIONS = {
  arrayLimit: MAX_LIST_ENTRIES,
  depth: 5,
  parameterLimit: 1000,
  allowPrototypes: false,
  plainObjects: true,
  duplicates: 'last',
  charsetSentinel: false,
} as const;

/** Names of Object.prototype and Array.prototype members: never keys of a parsed value. */
const INTERNALS = new Set(['__proto__', 'prototype', ...Object.getOwnPropertyNames(Object.prototype),
  ...Object.getOwnPropertyNames(Array.prototype)]);

const LIST_LIMIT_REASON = `must be a list of at most ${MAX_LIST_ENTRIES} entries, with indices from 0 to ${MAX_LIST_ENTRIES - 1}`;

class ListLimit extends Error {}

/** A copy with ordinary prototypes and without internal keys; throws ListLimit on an index of 100 or more. */
function clean(value: unknown): NestedValue | undefined {
  if (typeof value === 'string') return value.toWellFormed();
  if (Array.isArray(value)) return value.map(clean).filter((v): v is NestedValue => v !== undefined);
  if (value === null || typeof value !== 'object') return undefined;
  const out: Nested = {};
  for (const [key, child] of Object.entries(value)) {
    if (INTERNALS.has(key)) continue;
    if (/^\d+$/.test(key) && key.length > 2) throw new ListLimit();
    const v = clean(child);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

function checked(raw: Record<string, unknown>): ParsedForm {
  const values: Record<string, unknown> = {};
  const invalid: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (INTERNALS.has(name)) continue;
    try {
      const v = clean(value);
      if (v !== undefined) values[name] = v;
    } catch (e) {
      if (!(e instanceof ListLimit)) throw e;
      invalid[name] = `${name} ${LIST_LIMIT_REASON}`;
    }
  }
  return { values, invalid };
}

/** Parses a query string or an `application/x-www-form-urlencoded` body. */
export const parseForm = (text: string): ParsedForm => checked(parseQuery(text, QS_OPTIONS) as Record<string, unknown>);

/** How deep a JSON body may nest (the deepest shape the contract takes, a recurrence rule list, needs 4). */
export const MAX_JSON_DEPTH = 10;

export class TooDeep extends Error {}

/**
 * The same cleaning for a parsed JSON object: internal keys dropped, nesting bounded (JSON.parse accepts any depth,
 * but every recursive step after it would not). JSON arrays are bounded by the list parsers.
 */
export function cleanJson(value: Record<string, unknown>, depth = 1): Record<string, unknown> {
  if (depth > MAX_JSON_DEPTH) throw new TooDeep();
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!INTERNALS.has(k)) out[k] = cleanJsonValue(v, depth + 1);
  return out;
}

function cleanJsonValue(value: unknown, depth: number): unknown {
  if (depth > MAX_JSON_DEPTH) throw new TooDeep();
  if (typeof value === 'string') return value.toWellFormed(); // a lone surrogate (JSON "\ud835") is not text
  if (Array.isArray(value)) return value.map((v) => cleanJsonValue(v, depth + 1));
  if (value !== null && typeof value === 'object') return cleanJson(value as Record<string, unknown>, depth);
  return value;
}
