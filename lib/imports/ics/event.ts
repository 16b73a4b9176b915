/**
 * One source event from its VEVENTs (contract §20): the master VEVENT of a UID as the fields of `POST /events`, its
 * RECURRENCE-ID VEVENTs as occurrence edits, and the UTC span it covers.
 */
import ICAL from 'ical.js';
import type { SeriesTiming } from '../../events/recurrence.js';
import { wallClockIn, wallToUtc, type Wall } from '../../time/format.js';
import { utcDateOf, utcWallOf, wallParts } from '../../time/wall.js';
import type { SourceFields, SourceOverride } from '../source.js';
import { addDays, dayOf, EventError, eventZone, instantOf, rawTime, type TimeContext, wallIn } from './dates.js';
import { textFields } from './fields.js';
import { type Evaluator, horizonEnd, type Horizon, moveExcludedStart, type Occurrences, recurrenceLines, repeats } from './series.js';

export const OPEN_END = '9999-12-31 23:59:59';

/** The dates of a VEVENT in the zone its event is written in. */
interface Dates extends SeriesTiming {
  end: Wall;
}

const wallMs = (wall: Wall): number => utcDateOf(wallParts(wall)!)!.getTime();

/** DTSTART, and DTEND or DURATION, as walls in `tz` (by default the zone DTSTART gives). */
function readDates(component: ICAL.Component, ctx: TimeContext, series: boolean, tz?: string): Dates {
  const start = rawTime(component, 'dtstart');
  if (!start) throw new EventError('missing DTSTART');
  const startMs = instantOf(start, ctx);
  if (start.date) {
    const day = dayOf(start);
    return { start: `${day} 00:00:00`, end: `${lastDay(component, day)} 23:59:59`, tz: tz ?? ctx.siteTimeZone, allDay: true };
  }
  const zone = tz ?? eventZone(start, startMs, series, ctx);
  const startWall = wallIn(startMs, zone);
  return { start: startWall, end: endWall(component, startWall, zone, ctx), tz: zone, allDay: false };
}

/** An all-day event's last day: DTEND is exclusive, DURATION counts days; one day without either. */
function lastDay(component: ICAL.Component, day: string): string {
  const end = rawTime(component, 'dtend');
  if (end && !end.date) throw new EventError('DTEND is a date-time but DTSTART a date');
  const duration = component.getFirstPropertyValue('duration');
  const days = end ? Math.round((wallMs(`${dayOf(end)} 00:00:00`) - wallMs(`${day} 00:00:00`)) / 86_400_000)
    : duration instanceof ICAL.Duration ? Math.ceil(duration.toSeconds() / 86_400) : 1;
  if (days < 0 || (duration instanceof ICAL.Duration && duration.isNegative)) throw new EventError('the event ends before it starts');
  return addDays(day, Math.max(days, 1) - 1);
}

/** A timed event's end: DTEND, else DTSTART plus DURATION (days in wall time, as RFC 5545 says), else its start. */
function endWall(component: ICAL.Component, startWall: Wall, tz: string, ctx: TimeContext): Wall {
  const end = rawTime(component, 'dtend');
  if (end) {
    if (end.date) throw new EventError('DTEND is a date but DTSTART a date-time');
    return wallIn(instantOf(end, ctx), tz);
  }
  const duration = component.getFirstPropertyValue('duration');
  if (!(duration instanceof ICAL.Duration)) return startWall;
  if (duration.isNegative) throw new EventError('the event ends before it starts');
  const day = new Date(wallMs(startWall) + (duration.weeks * 7 + duration.days) * 86_400_000);
  const parts = wallParts(utcWallOf(day));
  const ms = parts && wallClockIn(parts, tz)?.ms;
  if (ms === undefined) throw new EventError('a date is outside the years 0001–9999');
  return wallIn(ms + (duration.hours * 3600 + duration.minutes * 60 + duration.seconds) * 1000, tz);
}

const upper = (component: ICAL.Component, name: string): string => String(component.getFirstPropertyValue(name) ?? '').trim().toUpperCase();

/** Why a VEVENT is not imported: CLASS:PRIVATE/CONFIDENTIAL, STATUS:CANCELLED. */
export function removal(component: ICAL.Component): 'private' | 'cancelled' | undefined {
  if (['PRIVATE', 'CONFIDENTIAL'].includes(upper(component, 'class'))) return 'private';
  return upper(component, 'status') === 'CANCELLED' ? 'cancelled' : undefined;
}

/**
 * The fields of a master VEVENT and its occurrences up to the horizon: its recurrence when it repeats (starting at its
 * first occurrence that EXDATE leaves), evaluated as the service will evaluate it.
 */
export function masterFields(component: ICAL.Component, ctx: TimeContext, evaluator: Evaluator): { fields: SourceFields; occurrences: Occurrences } {
  const series = repeats(component);
  const dates = readDates(component, ctx, series);
  if (dates.end < dates.start) throw new EventError('the event ends before it starts');
  const { title, description = '', ...rest } = textFields(component);
  if (title === undefined) throw new EventError('missing SUMMARY');
  const fields: SourceFields = { title, description, start_date: dates.start, end_date: dates.end, all_day: dates.allDay, timezone: dates.tz, ...rest };
  if (!series) return { fields, occurrences: { starts: [dates.start], open: false } };
  let lines = recurrenceLines(component, dates, ctx);
  const moved = moveExcludedStart(lines, dates, evaluator);
  if (moved) {
    lines = moved.lines;
    Object.assign(fields, { start_date: moved.start, end_date: later(fields, moved.start) });
  }
  fields.recurrence = lines.map((l) => l.text);
  const occurrences = evaluator.expand(lines, { ...dates, start: fields.start_date }) ?? { open: true };
  return { fields, occurrences };
}

const EDITABLE = ['title', 'description', 'venue', 'organizer', 'categories', 'website'] as const;

/** A RECURRENCE-ID VEVENT as what it changes of its series (dates in the series' zone). */
export function override(component: ICAL.Component, series: SourceFields, ctx: TimeContext): SourceOverride {
  const rid = rawTime(component, 'recurrence-id')!;
  const tz = series.timezone;
  // A DATE names the day's occurrence (at the series' time of day); an all-day series' occurrences start at 00:00.
  const wall = rid.date ? `${dayOf(rid)} ${series.start_date.slice(11)}` : wallIn(instantOf(rid, ctx), tz);
  const recurrenceId = series.all_day ? `${wall.slice(0, 10)} 00:00:00` : wall;
  const removed = removal(component) !== undefined;
  const fields: Partial<SourceFields> = {};
  if (!removed) {
    const own = textFields(component);
    for (const key of EDITABLE) {
      if (own[key] !== undefined && JSON.stringify(own[key]) !== JSON.stringify(series[key])) Object.assign(fields, { [key]: own[key] });
    }
    if (component.hasProperty('dtstart')) {
      const dates = readDates(component, ctx, false, tz);
      if (dates.end < dates.start) throw new EventError('an occurrence ends before it starts');
      if (dates.start !== recurrenceId || dates.end !== later(series, recurrenceId) || dates.allDay !== series.all_day) {
        Object.assign(fields, { start_date: dates.start, end_date: dates.end, all_day: dates.allDay });
      }
    }
  }
  return { recurrenceId, removed, fields };
}

/** The end of the occurrence starting at `start`: the series' length later, in wall time. */
const later = (series: SourceFields, start: Wall): Wall =>
  utcWallOf(new Date(wallMs(start) + wallMs(series.end_date) - wallMs(series.start_date)));

/** The UTC end of an event's last occurrence (or edit), OPEN_END when it runs on past the horizon. */
export function lastEnd(fields: SourceFields, overrides: SourceOverride[], occurrences: Occurrences): string {
  if (occurrences.open) return OPEN_END;
  const last = occurrences.starts?.at(-1) ?? fields.start_date;
  const ends = [later(fields, last), ...overrides.flatMap((o) => (!o.removed && o.fields.end_date ? [o.fields.end_date] : []))];
  return ends.map((end) => wallToUtc(end, fields.timezone)).sort().at(-1)!;
}

/** The UTC spans an event covers: each occurrence up to the horizon, each edit, and beyond the horizon when it runs on. */
export function spans(fields: SourceFields, overrides: SourceOverride[], occurrences: Occurrences, horizon: Horizon): [string, string][] {
  const tz = fields.timezone;
  const span = (start: Wall, end: Wall): [string, string] => [wallToUtc(start, tz), wallToUtc(end, tz)];
  const list = (occurrences.starts ?? [fields.start_date]).map((s) => span(s, later(fields, s)));
  for (const o of overrides) if (!o.removed && o.fields.start_date && o.fields.end_date) list.push(span(o.fields.start_date, o.fields.end_date));
  if (occurrences.open) list.push([wallToUtc(horizonEnd(tz, horizon), tz), OPEN_END]);
  return list;
}
