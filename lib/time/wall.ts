/** Wall-clock strings, 'YYYY-MM-DD HH:MM:SS', and their fields (no time-zone knowledge here). */

/** A wall-clock time, 'YYYY-MM-DD HH:MM:SS', in a zone given alongside it (or UTC). */
export type Wall = string;

export interface WallParts { year: number; month: number; day: number; hour: number; minute: number; second: number }

export const WALL_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** The fields of a wall string, or undefined when it is not one (shape only: see utcDateOf for the calendar). */
export function wallParts(wall: Wall): WallParts | undefined {
  const m = WALL_RE.exec(wall);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  return { year, month, day, hour, minute, second };
}

const between = (n: number, min: number, max: number): boolean => Number.isInteger(n) && n >= min && n <= max;

/**
 * The instant at which a UTC clock shows these fields, or undefined when they name no such time (month 13,
 * 30 February, 10:60, a NaN field). 24:00:00 is the end of the day, the next day's 00:00:00 (ISO 8601; luxon
 * read it so too). Built with the UTC setters, which keep years 0–99 as they are (Date.UTC and the Date
 * constructor read them as 1900–1999).
 */
export function utcDateOf(p: WallParts): Date | undefined {
  const time = (between(p.hour, 0, 23) && between(p.minute, 0, 59) && between(p.second, 0, 59))
    || (p.hour === 24 && p.minute === 0 && p.second === 0);
  if (!time || !between(p.year, -271820, 275759) || !between(p.month, 1, 12)) return undefined;
  const d = new Date(0);
  d.setUTCFullYear(p.year, p.month - 1, p.day);
  if (d.getUTCFullYear() !== p.year || d.getUTCMonth() !== p.month - 1 || d.getUTCDate() !== p.day) return undefined;
  d.setUTCHours(p.hour, p.minute, p.second, 0);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** The wall string of a Date's UTC fields (years below 1000 zero-padded, as stored). */
export function utcWallOf(date: Date): Wall {
  if (Number.isNaN(date.getTime())) throw new RangeError('Invalid time value');
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

/** A bound on a UTC wall: the value itself included or not. */
export interface Bound { utc: Wall; inclusive: boolean }

/** Whether a UTC wall lies within optional lower and upper bounds. */
export const within = (value: Wall, min?: Bound, max?: Bound): boolean =>
  (!min || (min.inclusive ? value >= min.utc : value > min.utc)) && (!max || (max.inclusive ? value <= max.utc : value < max.utc));
