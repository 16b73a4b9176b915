/**
 * Schema builders for the route definitions: each describes on the wire what a parser of parsers.ts (or of the
 * route file) accepts, no stricter, so the namespace index and the OpenAPI document promise exactly what the
 * service takes (contract §2, §10). Only schemas live here; the parsers stay the authority.
 */
import { MAX_LIST } from './parsers.js';
import type { Schema } from './types.js';

/** At least one character that is not white space: what parseString's "must not be empty" checks. */
export const NOT_BLANK = '\\S';

/** A bounded text (parseString): not blank unless allowEmpty, at most `max` code points. */
export const text = (max: number, opts: { allowEmpty?: boolean } = {}): Schema =>
  opts.allowEmpty ? { type: 'string', maxLength: max } : { type: 'string', minLength: 1, maxLength: max, pattern: NOT_BLANK };

/** A pattern matching `word` in any letter case ("view" → "[Vv][Ii][Ee][Ww]"); other characters escaped. */
const anyCaseWord = (word: string): string =>
  [...word].map((c) => (c.toLowerCase() !== c.toUpperCase() ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');

/** A value of `values` in any letter case, surrounding white space allowed (parseEnum trims and lowercases). */
export const anyCaseEnum = (values: readonly string[], extra: Schema = {}): Schema => ({
  anyOf: [
    { type: 'string', enum: values },
    { type: 'string', pattern: `^\\s*(?:${values.map(anyCaseWord).join('|')})\\s*$` },
  ],
  ...extra,
});

/**
 * A date for parseInstant: a string (YYYY-MM-DD[ HH:MM[:SS]], ISO 8601 with Z or an offset, a Unix timestamp in
 * digits, or an English phrase) or a JSON integer Unix timestamp.
 */
export const dateInput = (): Schema => ({
  anyOf: [{ type: 'string', minLength: 1, pattern: NOT_BLANK }, { type: 'integer' }],
});

/** parseUrl with allowEmpty: an absolute http(s) URL, or empty (white space only) to remove the value. */
export const urlOrEmpty = (): Schema => ({
  type: 'string',
  maxLength: 2000,
  pattern: '^\\s*$|^\\s*[Hh][Tt][Tt][Pp][Ss]?:',
});

/** A list filter in the query string (parseList): comma-separated (style form, explode false) or `a[]=` keys. */
export const queryList = (items: Schema): Schema => ({ type: 'array', maxItems: MAX_LIST, items });

/** Digits only, optionally surrounded by white space: an id sent as a string. */
export const DIGITS = '^\\s*\\d+\\s*$';
