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
 *   start_date = yesterday 23:59:00 UTC, end_date = now + 24 months (month arithmetic in UTC); they are then
 *   treated as any given value (rounded to their local day in inclusive mode, exact in strict mode — the
 *   origin shifts the strict default start by the site offset twice, which we do not copy).
 * Bounds on the same side combine by intersection: the stricter one wins.
 */
import { DateTime } from 'luxon';
import { toWall, type Wall } from './format.js';
import { parseInstant } from './parse.js';
import { toLuxonZone } from './zones.js';

export interface DateFilterInput {
  start_date?: unknown; end_date?: unknown;
  starts_before?: unknown; starts_after?: unknown; ends_before?: unknown; ends_after?: unknown;
  strict: boolean;
}

export interface Bound { utc: Wall; inclusive: boolean }

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

function stricter(current: Bound | undefined, next: Bound, slot: Slot): Bound {
  if (!current) return next;
  if (current.utc === next.utc) return current.inclusive ? next : current;
  const isMin = slot === 'startMin' || slot === 'endMin';
  return isMin === next.utc > current.utc ? next : current;
}

export function listWindow(input: DateFilterInput, siteTz: string, now: Date = new Date()): ListWindow {
  const zone = toLuxonZone(siteTz);
  const values: Partial<Record<DateFilterKey, DateTime>> = {};
  for (const key of KEYS) {
    if (input[key] !== undefined) values[key] = parseInstant(input[key], siteTz, now);
  }
  if (!RELATIVE_KEYS.some((key) => input[key] !== undefined)) {
    const utcNow = DateTime.fromJSDate(now, { zone: 'utc' });
    values.start_date ??= utcNow.minus({ days: 1 }).set({ hour: 23, minute: 59, second: 0, millisecond: 0 }).setZone(zone);
    values.end_date ??= utcNow.plus({ months: 24 }).startOf('second').setZone(zone);
  }

  const window: ListWindow = { echo: {} };
  for (const key of KEYS) {
    const value = values[key];
    if (!value) continue;
    const { slot, inclusive, round } = RULES[key];
    const bound = input.strict ? value : value[round]('day').startOf('second');
    window.echo[key] = toWall(bound);
    window[slot] = stricter(window[slot], { utc: toWall(bound.toUTC()), inclusive }, slot);
  }
  return window;
}
