import { utcDateOf, utcWallOf, WALL_RE, wallParts, type Wall, type WallParts } from './wall.js';
import { config } from '../config.js';
import { zoneOf, type Zone } from './zones.js';

export type { Wall, WallParts } from './wall.js';

export interface DateDetails { year: string; month: string; day: string; hour: string; minutes: string; seconds: string }

/** Split a wall string into the zero-padded parts of the reference's date-details object (no zone maths). */
export function dateDetails(wall: Wall): DateDetails {
  const m = WALL_RE.exec(wall);
  if (!m) throw new Error(`not a wall-clock time: ${wall}`);
  const [year = '', month = '', day = '', hour = '', minutes = '', seconds = ''] = m.slice(1);
  return { year, month, day, hour, minutes, seconds };
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** '+01:00' for 60 minutes, '-03:30' for -210 (seconds of historical offsets dropped, as luxon did). */
function isoOffset(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.trunc(abs / 60)).padStart(2, '0')}:${String(Math.trunc(abs % 60)).padStart(2, '0')}`;
}

/**
 * An instant read in a time zone: what parseInstant and wallClockIn return. `wall` is its wall clock in the
 * zone as the UTC fields of a Date (so date-fns can do calendar arithmetic on it in UTC, free of DST); the
 * accessors zoneName, year, millisecond and toISO() are those the code used when this was a luxon DateTime.
 */
export class ZonedTime {
  /** The offset from UTC in minutes at this instant. */
  readonly offset: number;

  constructor(readonly ms: number, readonly zone: Zone) {
    this.offset = zone.offset(ms);
  }

  getTime(): number { return this.ms; }

  /** The wall clock in the zone, as the UTC fields of a Date. */
  get wall(): Date { return new Date(this.ms + this.offset * MINUTE_MS); }

  /** The normalised zone name: 'Europe/Berlin', 'UTC+5:30'. */
  get zoneName(): string { return this.zone.name; }

  get year(): number { return this.wall.getUTCFullYear(); }

  get millisecond(): number { return this.wall.getUTCMilliseconds(); }

  /** '2025-03-01T21:00:00.000+01:00': the wall clock with its offset. */
  toISO(): string { return `${this.wall.toISOString().slice(0, -1)}${isoOffset(this.offset)}`; }
}

const zoneOfArg = (tz: string | Zone): Zone => (typeof tz === 'string' ? zoneOf(tz) : tz);

/**
 * The instant a wall-clock time denotes in tz; undefined when the fields name no calendar time (30 February).
 * The wall time is read under the offsets the zone has a day before and a day after it (a zone changes its
 * offset at most once in that span); a reading is real when the zone has that offset at the instant it gives.
 * DST overlap (clocks go back, 01:30 happens twice): both readings are real; the first occurrence (daylight
 * time), as PHP does.
 * DST gap (clocks jump forward, e.g. 02:30 on a spring-forward night): neither is real; the time is read with the
 * offset before the gap, which moves it forward by the length of the gap (02:30 -> 03:30 daylight time).
 * Offsets come from Intl through @date-fns/tz (lib/time/zones.ts), to the second for historical local mean time.
 */
export function wallClockIn(parts: WallParts, tz: string | Zone): ZonedTime | undefined {
  const wall = utcDateOf(parts)?.getTime();
  if (wall === undefined) return undefined;
  const zone = zoneOfArg(tz);
  if (zone.fixed) return new ZonedTime(wall - zone.offset(wall) * MINUTE_MS, zone);
  const before = zone.offset(wall - DAY_MS);
  const after = zone.offset(wall + DAY_MS);
  const readings = (before === after ? [before] : [before, after])
    .map((offset) => ({ offset, at: wall - offset * MINUTE_MS }))
    .filter(({ offset, at }) => zone.offset(at) === offset)
    .map(({ at }) => at);
  return new ZonedTime(readings.length ? Math.min(...readings) : wall - before * MINUTE_MS, zone);
}

/** The same instant read in another zone. */
export const inZone = (at: Date | ZonedTime, tz: string | Zone): ZonedTime => new ZonedTime(at.getTime(), zoneOfArg(tz));

/** Format an instant as a wall string: a ZonedTime in its own zone, a plain Date in UTC. */
export function toWall(at: Date | ZonedTime): Wall {
  return utcWallOf(at instanceof ZonedTime ? at.wall : at);
}

/** The instant of a wall string in tz; malformed walls are a programming error here. */
function parseWall(wall: Wall, tz: string | Zone): ZonedTime {
  const parts = wallParts(wall);
  const at = parts && wallClockIn(parts, tz);
  if (!at) throw new Error(`not a wall-clock time: ${wall}`);
  return at;
}

export function wallToUtc(wall: Wall, tz: string): Wall {
  return toWall(new Date(parseWall(wall, tz).ms));
}

export function utcToWall(utcWall: Wall, tz: string): Wall {
  const zone = zoneOf(tz);
  // Stored UTC walls (the only callers) shown in UTC are their own answer; every event and linked record
  // serialises two, so this path skips the date arithmetic.
  if (zone.name === 'UTC' && WALL_RE.test(utcWall)) return utcWall;
  return toWall(inZone(parseWall(utcWall, 'UTC'), zone));
}

/** '2025-03-01T20:00:00+01:00' (UTC gives '+00:00'), for schema.org json_ld. */
export function isoWithOffset(wall: Wall, tz: string): string {
  const at = parseWall(wall, tz);
  return `${at.wall.toISOString().slice(0, 19)}${isoOffset(at.offset)}`;
}

export function nowUtcWall(now: Date = new Date()): Wall {
  return toWall(now);
}

/** A stored UTC wall (a record's publication or modification date) in the site time zone. */
export const siteWall = (utcWall: Wall): Wall => utcToWall(utcWall, config().siteTimezone);
