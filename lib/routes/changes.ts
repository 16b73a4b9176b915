/** The changes feed (contract §16): what changed since a cursor, in commit order. */
import { ParamError } from '../model/errors.js';
import { param, translationLanguage, withDefault } from './common.js';
import { parsePositiveInt } from './parsers.js';
import type { ParamValues, RouteSpec } from './types.js';

export const MAX_CHANGES_PAGE = 500;

/**
 * A position in the change log: every number up to `seq` was read, except `pending` ones (numbers that had not
 * committed yet, each with the time in seconds after which it never will), and when the cursor was issued.
 */
export interface Cursor {
  seq: number;
  issued: number;
  pending: [number, number][];
}

/** The most numbers a cursor keeps waiting for; past it, a read stops before the first gap instead. */
export const MAX_PENDING = 50;

export const encodeCursor = (c: Cursor): string =>
  Buffer.from(`c2:${c.seq}:${c.issued}:${c.pending.map(([n, until]) => `${n}-${until}`).join(',')}`).toString('base64url');

export function decodeCursor(text: string): Cursor | null {
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(text)) return null;
  const m = /^c2:(\d{1,15}):(\d{1,12}):((?:\d{1,15}-\d{1,12})(?:,\d{1,15}-\d{1,12}){0,49})?$/
    .exec(Buffer.from(text, 'base64url').toString('latin1'));
  if (!m) return null;
  const pending = m[3] ? m[3].split(',').map((p) => p.split('-').map(Number) as [number, number]) : [];
  if (pending.some(([n]) => n > Number(m[1]))) return null;
  return { seq: Number(m[1]), issued: Number(m[2]), pending };
}

const changesParams = [
  param('since', 'query', 'a next_cursor from an earlier answer, or "latest" for the current position (no changes); without it, the '
    + 'feed starts at the oldest change kept', { type: 'string', maxLength: 2048 }, (v): Cursor | 'latest' => {
    const text = String(v).trim();
    if (text === 'latest') return 'latest';
    const cursor = decodeCursor(text);
    if (!cursor) throw new ParamError('must be a next_cursor this API returned, or "latest"');
    return cursor;
  }),
  // Clamped, as every page size is (contract §2): only a value that is not a positive integer is refused.
  withDefault(param('per_page', 'query', `the most changes to return (clamped to ${MAX_CHANGES_PAGE})`,
    { type: 'integer', minimum: 1, default: 100 }, (v) => Math.min(parsePositiveInt(v), MAX_CHANGES_PAGE)), 100),
  translationLanguage,
] as const;
export type ChangesParams = ParamValues<typeof changesParams>;

export const changeRoutes: RouteSpec[] = [
  { path: '/changes', group: 'root', operations: [
    { id: 'changes.list', method: 'GET', summary: 'Lists what changed since a cursor, in commit order (incremental sync)',
      capability: 'public', success: 200, errors: [410], response: 'ChangeFeed', params: changesParams },
  ] },
];
