/**
 * RRULE, RDATE and EXDATE as the `recurrence` lines of an event write (contract §13), checked and evaluated by the
 * service's own code (lib/events/recurrence.ts), so a series the service would refuse fails here with its message,
 * and the occurrences the reader places in the window are the ones the service will write.
 */
import type ICAL from 'ical.js';
import { expand, parseRecurrenceParam, type RecurrenceLine, type SeriesTiming } from '../../events/recurrence.js';
import { ParamError } from '../../model/errors.js';
import { utcToWall, type Wall } from '../../time/format.js';
import { utcWallOf } from '../../time/wall.js';
import { dayOf, EventError, instantOf, rawTimes, type TimeContext, utcStamp, wallIn } from './dates.js';

/** Whether a VEVENT repeats. */
export const repeats = (component: ICAL.Component): boolean =>
  component.hasProperty('rrule') || component.hasProperty('rdate');

/** One RDATE or EXDATE line with every value of that property kind: dates as dates, times in UTC. */
function dateLine(component: ICAL.Component, name: 'rdate' | 'exdate', timing: SeriesTiming, ctx: TimeContext): string[] {
  const dates: string[] = [];
  const times: string[] = [];
  for (const time of component.getAllProperties(name).flatMap(rawTimes)) {
    if (time.date || timing.allDay) dates.push((time.date ? dayOf(time) : wallIn(instantOf(time, ctx), timing.tz).slice(0, 10)).replace(/-/g, ''));
    else times.push(utcStamp(instantOf(time, ctx)));
  }
  const head = name.toUpperCase();
  return [...(dates.length ? [`${head};VALUE=DATE:${dates.join(',')}`] : []), ...(times.length ? [`${head}:${times.join(',')}`] : [])];
}

/** The recurrence lines of a series, in the form the service stores them; EventError when it would refuse them. */
export function recurrenceLines(component: ICAL.Component, timing: SeriesTiming, ctx: TimeContext): RecurrenceLine[] {
  if (component.hasProperty('exrule')) throw new EventError('EXRULE is not supported (RFC 5545 deprecates it)');
  const rules = component.getAllProperties('rrule');
  if (rules.length > 1) throw new EventError('more than one RRULE (RFC 5545 allows one)');
  const rule = rules[0]?.getFirstValue();
  const lines = [
    ...(rule ? [`RRULE:${String(rule)}`] : []),
    ...dateLine(component, 'rdate', timing, ctx),
    ...dateLine(component, 'exdate', timing, ctx),
  ];
  try {
    const input = parseRecurrenceParam(lines);
    return 'lines' in input ? input.lines : [];
  } catch (e) {
    if (e instanceof ParamError) throw new EventError(e.message);
    throw e;
  }
}

/** How far series are evaluated: the service's horizon (contract §13), from `now`. */
export interface Horizon {
  now: Date;
  days: number;
}

/** The last wall (in `tz`) occurrences are written up to, as lib/events/series.ts computes it. */
export const horizonEnd = (tz: string, { now, days }: Horizon): Wall =>
  `${utcToWall(utcWallOf(new Date(now.getTime() + days * 86_400_000)), tz).slice(0, 10)} 23:59:59`;

/**
 * Rule evaluation the reader spends on one source, all series together. A rule whose parts rarely meet costs the
 * service's evaluation limit (250 ms) each; past this budget the remaining series are taken as running on (their
 * last occurrence unknown), which only widens what the window keeps. The service evaluates them again when written.
 */
export const EVALUATION_BUDGET_MS = 2000;

export interface Occurrences {
  /** Occurrence starts (walls in the series' zone) up to the horizon; undefined when not evaluated (budget spent). */
  starts?: Wall[];
  /** Whether the series runs on past the horizon (or was not evaluated). */
  open: boolean;
}

/** A clock for the evaluation budget of one read. */
export class Budget {
  private spent = 0;

  constructor(private readonly limitMs: number) {}

  run(lines: RecurrenceLine[], timing: SeriesTiming, through: Wall): Occurrences {
    if (this.spent >= this.limitMs) return { open: true };
    const t0 = performance.now();
    try {
      return expand(lines, timing, through);
    } catch (e) {
      if (e instanceof ParamError) throw new EventError(e.message);
      throw e;
    } finally {
      this.spent += performance.now() - t0;
    }
  }
}
