/**
 * Parameter parsers shared by the route definitions. Each takes the raw request value and returns the
 * normalised one, or throws ParamError with a reason a client can act on (contract §2).
 */
import { ParamError } from '../model/errors.js';

/** Text bounds of contract §2, in code points: `name` is a term name or a slug (the title bound is for events, venues and organizers). */
export const TEXT_LIMITS = { title: 1000, name: 200, description: 100_000, excerpt: 10_000, other: 2000 } as const;

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

export function parseBoolean(raw: unknown): boolean {
  if (typeof raw === 'boolean') return raw;
  if (raw === 1 || raw === 0) return raw === 1;
  if (typeof raw === 'string') {
    const v = raw.trim().toLowerCase();
    if (TRUE.has(v)) return true;
    if (FALSE.has(v)) return false;
  }
  throw new ParamError('must be a boolean (true/false, 1/0, yes/no, on/off)');
}

/** The origin's tribe_is_truthy: any value accepted, only the truthy set counts as true. */
export function parseTruthy(raw: unknown): boolean {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'number') return raw === 1;
  if (typeof raw !== 'string') throw new ParamError('must be a string or a boolean');
  return ['1', 'true', 'yes', 'on', 'y', 'enable', 'enabled'].includes(raw.trim().toLowerCase());
}

/** A positive integer: a JSON integer, or digits only (no exponent, sign, hex or decimal point, as ids are written). */
export function parsePositiveInt(raw: unknown): number {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d{1,16}\s*$/.test(raw) ? Number(raw.trim()) : NaN;
  if (!Number.isInteger(n) || n <= 0 || n > Number.MAX_SAFE_INTEGER) throw new ParamError('must be a positive integer');
  return n;
}

/** The most entries any list parameter holds (contract §2); more is a 400, never work in proportion. */
export const MAX_LIST = 100;

/** A list: JSON array, repeated `a[]=` keys, or a comma-separated string; items trimmed, empties dropped. */
export function parseList(raw: unknown): unknown[] {
  let items: unknown[];
  if (Array.isArray(raw)) items = raw;
  else if (typeof raw === 'string') items = raw.split(',');
  else if (typeof raw === 'number') items = [raw];
  else if (raw !== null && typeof raw === 'object') items = Object.values(raw);
  else throw new ParamError('must be a list (array or comma-separated string)');
  const out = items
    .flatMap((i) => (typeof i === 'string' ? i.split(',') : [i]))
    .map((i) => (typeof i === 'string' ? i.trim() : i))
    .filter((i) => i !== '' && i !== null && i !== undefined);
  if (out.length === 0) throw new ParamError('must not be empty');
  if (out.length > MAX_LIST) throw new ParamError(`must hold at most ${MAX_LIST} entries`);
  return out;
}

export function parseIdList(raw: unknown): number[] {
  return [...new Set(parseList(raw).map((i) => {
    try {
      return parsePositiveInt(i);
    } catch {
      throw new ParamError('must be a list of positive integer ids');
    }
  }))];
}

export function parseString(raw: unknown, max: number = TEXT_LIMITS.other, opts: { allowEmpty?: boolean } = {}): string {
  let s: string;
  if (typeof raw === 'string') s = raw;
  else if (typeof raw === 'number' && Number.isFinite(raw)) s = String(raw);
  else throw new ParamError('must be a string');
  if (!opts.allowEmpty && s.trim() === '') throw new ParamError('must not be empty');
  if ([...s].length > max) throw new ParamError(`must be at most ${max} characters`);
  return s;
}

export function parseUrl(raw: unknown, opts: { allowEmpty?: boolean } = {}): string {
  const s = parseString(raw, TEXT_LIMITS.other, { allowEmpty: opts.allowEmpty }).trim();
  if (s === '') return '';
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw new ParamError('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ParamError('must be an absolute http(s) URL');
  return s; // stored and returned exactly as sent once valid (contract §7): http://tri.be stays http://tri.be
}

export function parseEnum<T extends string>(values: readonly T[]) {
  return (raw: unknown): T => {
    const s = typeof raw === 'string' ? raw.trim().toLowerCase() : raw;
    if (typeof s === 'string' && (values as readonly string[]).includes(s)) return s as T;
    throw new ParamError(`must be one of: ${values.join(', ')}`);
  };
}

export function parseNumber(raw: unknown): number {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(n)) throw new ParamError('must be a number');
  return n;
}
