import { DateTime } from 'luxon';
import { toLuxonZone } from './zones.js';

/** A wall-clock time, 'YYYY-MM-DD HH:MM:SS', in a zone given alongside it (or UTC). */
export type Wall = string;

export const WALL_FORMAT = 'yyyy-MM-dd HH:mm:ss';
const WALL_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

export interface WallParts { year: number; month: number; day: number; hour: number; minute: number; second: number }

export interface DateDetails { year: string; month: string; day: string; hour: string; minutes: string; seconds: string }

/** Split a wall string into the zero-padded parts of the reference's date-details object (no zone maths). */
export function dateDetails(wall: Wall): DateDetails {
  const m = WALL_RE.exec(wall);
  if (!m) throw new Error(`not a wall-clock time: ${wall}`);
  const [, year, month, day, hour, minutes, seconds] = m as unknown as [string, string, string, string, string, string, string];
  return { year, month, day, hour, minutes, seconds };
}

/**
 * The instant a wall-clock time denotes in tz.
 * DST gap (clocks jump forward, e.g. 02:30 on a spring-forward night): luxon's default, the time is moved
 * forward by the length of the gap (02:30 -> 03:30 daylight time).
 * DST overlap (clocks go back, 01:30 happens twice): the first occurrence (daylight time), as PHP does.
 * Luxon alone picks by the offset in force *today*, so we choose explicitly to stay deterministic.
 */
export function wallClockIn(parts: WallParts, tz: string): DateTime {
  const dt = DateTime.fromObject({ ...parts, millisecond: 0 }, { zone: toLuxonZone(tz) });
  if (!dt.isValid) return dt;
  const [first] = dt.getPossibleOffsets().sort((a, b) => a.toMillis() - b.toMillis());
  return first ?? dt;
}

function parseWall(wall: Wall, tz: string): DateTime {
  const utc = WALL_RE.test(wall) ? DateTime.fromFormat(wall, WALL_FORMAT, { zone: 'utc' }) : undefined;
  if (!utc?.isValid) throw new Error(`not a wall-clock time: ${wall}`);
  const { year, month, day, hour, minute, second } = utc;
  return wallClockIn({ year, month, day, hour, minute, second }, tz);
}

/** Format a DateTime as a wall string in its own zone. */
export function toWall(dt: DateTime): Wall {
  return dt.toFormat(WALL_FORMAT);
}

export function wallToUtc(wall: Wall, tz: string): Wall {
  return toWall(parseWall(wall, tz).toUTC());
}

export function utcToWall(utcWall: Wall, tz: string): Wall {
  return toWall(parseWall(utcWall, 'UTC').setZone(toLuxonZone(tz)));
}

/** '2025-03-01T20:00:00+01:00' (UTC gives '+00:00'), for schema.org json_ld. */
export function isoWithOffset(wall: Wall, tz: string): string {
  return parseWall(wall, tz).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
}

export function nowUtcWall(now: Date = new Date()): Wall {
  return toWall(DateTime.fromJSDate(now, { zone: 'utc' }));
}
