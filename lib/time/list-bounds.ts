/**
 * The date window of GET /events (reference §6.1, contract §6).
 *
 * Every value is read in the SITE time zone (values with 'Z'/an offset and timestamps are converted into it),
 * and the resulting bounds are compared with each event's UTC start/end.
 * Inclusive mode (strict=false, default):
 *   start_date=D     start >= D 00:00:00        end_date=D     end <= D 23:59:59
 *   starts_before=D  start <  D 23:59:59        starts_after=D start >  D 23:59:59
 *   ends_before=D    end   <  D 23:59:59        ends_after=D   end   >  D 23:59:59
 * Strict mode: the same comparisons against the exact instants, no rounding.
 * Defaults, only when none of starts_before/starts_after/ends_before/ends_after is given:
 *   start_date = yesterday 23:59:00 UTC (or the caller's `defaultStart`), end_date = now + 24 months (month arithmetic
 *   in UTC); they are then treated as any given value (rounded to their local day in inclusive mode, exact in strict mode — the
 *   origin shifts the strict default start by the site offset twice, which we do not copy).
 * Bounds on the same side combine by intersection: the stricter one wins.
 */
import { UTCDateMini } from '@date-fns/utc/date/mini';
import { addDays, addMonths, addSeconds, set, subDays } from 'date-fns';
import { inZone, toWall, wallClockIn, type Wall, type ZonedTime } from './format.js';
import { FIRST_INSTANT, LAST_INSTANT, parseInstant } from './parse.js';
import type { Bound } from './wall.js';
import { zoneOf, type Zone } from './zones.js';

export interface DateFilterInput {
  start_date?: unknown; end_date?: unknown;
  starts_before?: unknown; starts_after?: unknown; ends_before?: unknown; ends_after?: unknown;
  strict: boolean;
  /** Replaces the default start (feeds start 30 days ago, contract §14). */
  defaultStart?: Date;
}

export type { Bound } from './wall.js';

export type DateFilterKey = 'start_date' | 'end_date' | 'starts_before' | 'starts_after' | 'ends_before' | 'ends_after';

export interface ListWindow {
  /** Constraints on the event's UTC start / end. */
  startMin?: Bound; startMax?: Bound; endMin?: Bound; endMax?: Bound;
  /** Normalised values for rest_url: site-tz wall clock after defaulting/rounding. */
  echo: Partial<Record<DateFilterKey, Wall>>;
}

type Slot = 'startMin' | 'startMax' | 'endMin' | 'endMax';

const RULES: Record<DateFilterKey, { slot: Slot; inclusive: boolean; round: 'startOf' | 'endOf' }> = {
  start_date: { slot: 'startMin', inclusive: true, round: 'startOf' },
  end_date: { slot: 'endMax', inclusive: true, round: 'endOf' },
  starts_before: { slot: 'startMax', inclusive: false, round: 'endOf' },
  starts_after: { slot: 'startMin', inclusive: false, round: 'endOf' },
  ends_before: { slot: 'endMax', inclusive: false, round: 'endOf' },
  ends_after: { slot: 'endMin', inclusive: false, round: 'endOf' },
};

const KEYS = Object.keys(RULES) as DateFilterKey[];
const RELATIVE_KEYS: DateFilterKey[] = ['starts_before', 'starts_after', 'ends_before', 'ends_after'];

/** Parameter validation for the six filters: throws ParamError when unparseable, returns raw unchanged. */
export function validateFilterDate(raw: unknown): unknown {
  parseInstant(raw, 'UTC');
  return raw;
}

/** Of two bounds on the same side of a window, the one that lets less through. */
export function stricter(current: Bound | undefined, next: Bound, slot: Slot): Bound {
  if (!current) return next;
  if (current.utc === next.utc) return current.inclusive ? next : current;
  const isMin = slot === 'startMin' || slot === 'endMin';
  return isMin === next.utc > current.utc ? next : current;
}

/** Calendar arithmetic is done on the UTC clock (no DST there), whatever the machine's zone: date-fns on a UTCDate. */
const onUtcClock = (at: Date): Date => new UTCDateMini(at.getTime());

/** 00:00:00 of the day whose wall clock (as UTC fields) is given: the first 00:00 if it happens twice, 01:00 if skipped. */
function startOfDay(wall: Date, zone: Zone): ZonedTime {
  return wallClockIn({ year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate(), hour: 0, minute: 0, second: 0 }, zone)!;
}

/** The last whole second of the day: 23:59:59, the second before the next day starts in the zone. */
function endOfDay(wall: Date, zone: Zone): ZonedTime {
  return inZone(addSeconds(new Date(startOfDay(addDays(onUtcClock(wall), 1), zone).ms), -1), zone);
}


export function listWindow(input: DateFilterInput, siteTz: string, now: Date = new Date()): ListWindow {
  const zone = zoneOf(siteTz);
  const values: Partial<Record<DateFilterKey, ZonedTime>> = {};
  for (const key of KEYS) {
    if (input[key] !== undefined) values[key] = parseInstant(input[key], siteTz, now);
  }
  if (!RELATIVE_KEYS.some((key) => input[key] !== undefined)) {
    const utcNow = onUtcClock(new Date(Math.floor(now.getTime() / 1000) * 1000));
    values.start_date ??= inZone(input.defaultStart ?? set(subDays(utcNow, 1), { hours: 23, minutes: 59, seconds: 0 }), zone);
    values.end_date ??= inZone(addMonths(utcNow, 24), zone);
  }

  const window: ListWindow = { echo: {} };
  for (const key of KEYS) {
    const value = values[key];
    if (!value) continue;
    const { slot, inclusive, round } = RULES[key];
    const bound = input.strict ? value : round === 'startOf' ? startOfDay(value.wall, zone) : endOfDay(value.wall, zone);
    window.echo[key] = toWall(bound);
    // Rounding to the end of 9999-12-31 in a zone west of UTC passes the last UTC second any event can have: clamp.
    const utc = Math.min(Math.max(bound.ms, FIRST_INSTANT), LAST_INSTANT);
    window[slot] = stricter(window[slot], { utc: toWall(new Date(utc)), inclusive }, slot);
  }
  return window;
}
