/**
 * RRULE, RDATE and EXDATE as the `recurrence` lines of an event write (contract §13), checked and evaluated by the
 * service's own code (lib/events/recurrence.ts), so a series the service would refuse fails here with its message,
 * and the occurrences the reader places in the window are the ones the service will write.
 */
import type ICAL from 'ical.js';
import { expand, parseLine, parseRecurrenceParam, type RecurrenceLine, ruleText, type SeriesTiming, valueWalls } from '../../events/recurrence.js';
import { ParamError } from '../../model/errors.js';
import { utcToWall, type Wall } from '../../time/format.js';
import { utcWallOf } from '../../time/wall.js';
import { dayOf, EventError, instantOf, rawTimes, type TimeContext, utcStamp, wallIn } from './dates.js';

/** Whether a VEVENT repeats. */
export const repeats = (component: ICAL.Component): boolean =>
  component.hasProperty('rrule') || component.hasProperty('rdate');

/** Values per line: the service takes lines of at most 2,000 characters. */
const VALUES_PER_LINE = 100;

/** `HEAD:v1,v2…` lines of at most VALUES_PER_LINE values. */
function lines(head: string, values: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < values.length; i += VALUES_PER_LINE) out.push(`${head}:${values.slice(i, i + VALUES_PER_LINE).join(',')}`);
  return out;
}

/** The RDATE or EXDATE lines with every value of that property kind: dates as dates, times in UTC. */
function dateLines(component: ICAL.Component, name: 'rdate' | 'exdate', timing: SeriesTiming, ctx: TimeContext): string[] {
  const dates: string[] = [];
  const times: string[] = [];
  for (const time of component.getAllProperties(name).flatMap(rawTimes)) {
    if (time.date || timing.allDay) dates.push((time.date ? dayOf(time) : wallIn(instantOf(time, ctx), timing.tz).slice(0, 10)).replace(/-/g, ''));
    else times.push(utcStamp(instantOf(time, ctx)));
  }
  const head = name.toUpperCase();
  return [...lines(`${head};VALUE=DATE`, dates), ...lines(head, times)];
}

/** The recurrence lines of a series, in the form the service stores them; EventError when it would refuse them. */
export function recurrenceLines(component: ICAL.Component, timing: SeriesTiming, ctx: TimeContext): RecurrenceLine[] {
  if (component.hasProperty('exrule')) throw new EventError('EXRULE is not supported (RFC 5545 deprecates it)');
  const rules = component.getAllProperties('rrule');
  if (rules.length > 1) throw new EventError('more than one RRULE (RFC 5545 allows one)');
  const rule = rules[0]?.getFirstValue();
  const all = [
    ...(rule ? [`RRULE:${String(rule)}`] : []),
    ...dateLines(component, 'rdate', timing, ctx),
    ...dateLines(component, 'exdate', timing, ctx),
  ];
  try {
    const input = parseRecurrenceParam(all);
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

/** The series evaluation of one read: the horizon and the time left to spend. */
export class Evaluator {
  private spent = 0;

  constructor(readonly horizon: Horizon, private readonly limitMs = EVALUATION_BUDGET_MS) {}

  /** The service's expansion up to the horizon; undefined once the budget is spent. A refusal is an EventError. */
  expand(lines: RecurrenceLine[], timing: SeriesTiming, through = horizonEnd(timing.tz, this.horizon)): Occurrences | undefined {
    if (this.spent >= this.limitMs) return undefined;
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

type DateLine = Extract<RecurrenceLine, { values: string[] }>;

/** A line with the values `keep` keeps, or nothing when none is left. */
function keepValues(line: DateLine, timing: SeriesTiming, keep: (v: { wall: Wall; day: boolean }) => boolean): RecurrenceLine[] {
  const walls = valueWalls(line, timing);
  const values = line.values.filter((_, i) => keep(walls[i]!));
  return values.length ? [parseLine(`${line.text.slice(0, line.text.indexOf(':') + 1)}${values.join(',')}`)] : [];
}

/**
 * RFC 5545 lets an EXDATE exclude DTSTART itself (Google Calendar writes so when a series' first occurrence is deleted);
 * the service refuses that and wants the series to start at its first remaining occurrence instead (contract §13). The
 * series is moved there: the EXDATE values of the old start dropped, a COUNT less the rule's occurrences skipped.
 * Undefined when DTSTART is not excluded (or the budget is spent: the service then refuses the series itself).
 */
export function moveExcludedStart(lines: RecurrenceLine[], timing: SeriesTiming, evaluator: Evaluator): { lines: RecurrenceLine[]; start: Wall } | undefined {
  const isStart = (v: { wall: Wall; day: boolean }) => (v.day ? v.wall.slice(0, 10) === timing.start.slice(0, 10) : v.wall === timing.start);
  if (!lines.some((l) => l.kind === 'EXDATE' && valueWalls(l, timing).some(isStart))) return undefined;
  const kept = lines.flatMap((l) => (l.kind === 'EXDATE' ? keepValues(l, timing, (v) => !isStart(v)) : [l]));
  const starts = evaluator.expand(kept, timing)?.starts;
  if (!starts) return undefined;
  const next = starts.find((s) => s > timing.start);
  if (next === undefined) throw new EventError('EXDATE excludes every occurrence');
  const rule = kept.find((l) => l.kind === 'RRULE');
  if (rule?.kind !== 'RRULE' || !rule.rule.count) return { lines: kept, start: next };
  const ruleStarts = evaluator.expand([rule], timing, next)?.starts;
  if (!ruleStarts?.includes(next)) throw new EventError('EXDATE excludes the first occurrence, and the next one is not of the RRULE');
  const count = rule.rule.count - ruleStarts.indexOf(next);
  return { lines: kept.map((l) => (l === rule ? parseLine(`RRULE:${ruleText({ ...rule.rule, count })}`) : l)), start: next };
}
