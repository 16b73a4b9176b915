/**
 * DATE and DATE-TIME values of an iCalendar file as instants and as wall clocks of the zone an event is written in
 * (contract §6, §20): `…Z` is UTC, a TZID is read by lib/imports/ics/zones.ts, a floating time in the site time zone,
 * a DATE is an all-day date. Values are read from ical.js's jCal form, as written: ical.js's own Time objects roll
 * 30 February over into March, which the import must refuse instead.
 */
import type ICAL from 'ical.js';
import { inZone, toWall, wallClockIn, type Wall } from '../../time/format.js';
import { inYearRange } from '../../time/parse.js';
import { utcDateOf, type WallParts } from '../../time/wall.js';
import { fixedZone } from '../../time/zones.js';
import type { FileZones } from './zones.js';

/** An event that cannot be read: its message is the per-event error (contract §20). */
export class EventError extends Error {}

/** A DATE or DATE-TIME as written. */
export interface RawTime {
  parts: WallParts;
  date: boolean;
  utc: boolean;
  tzid?: string;
}

/** jCal's forms; `YYYY-MM-DDT::` is ical.js's reading of a bare `YYYYMMDD` without VALUE=DATE, a date (as node-ical reads it). */
const VALUE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(Z?)|T::)?$/;

/** The values of a date property (a PERIOD's start), or an EventError naming the property. */
export function rawTimes(prop: ICAL.Property): RawTime[] {
  const name = prop.name.toUpperCase();
  const tzid = prop.getFirstParameter('tzid');
  const values: unknown[] = prop.jCal.slice(3);
  if (values.length > 10_000) throw new EventError(`${name} has more than 10000 values`);
  return values.map((value) => {
    const text = Array.isArray(value) ? value[0] : value;
    const m = typeof text === 'string' ? VALUE.exec(text) : null;
    const [year, month, day, hour = '0', minute = '0', second = '0'] = m?.slice(1, 7) ?? [];
    const parts = { year: Number(year), month: Number(month), day: Number(day), hour: Number(hour), minute: Number(minute), second: Number(second) };
    if (!m || !utcDateOf(parts) || parts.hour > 23) throw new EventError(`${name} is not a valid date: ${String(text).slice(0, 40)}`);
    const date = m[4] === undefined;
    return { parts, date, utc: m[7] === 'Z', ...(typeof tzid === 'string' && tzid !== '' && !date && m[7] !== 'Z' ? { tzid } : {}) };
  });
}

export function rawTime(component: ICAL.Component, name: string): RawTime | undefined {
  const prop = component.getFirstProperty(name);
  if (!prop) return undefined;
  const [time, ...more] = rawTimes(prop);
  if (!time || more.length) throw new EventError(`${name.toUpperCase()} must hold one value`);
  return time;
}

/** How one file's times are read: its zones and the site time zone for floating times and dates. */
export interface TimeContext {
  zones: FileZones;
  siteTimeZone: string;
}

/** The instant of a value (a DATE: its midnight in the site time zone). */
export function instantOf(time: RawTime, ctx: TimeContext): number {
  const ms = time.utc ? utcDateOf(time.parts)?.getTime()
    : time.tzid !== undefined ? zoneOf(time.tzid, ctx).instant(time.parts)
      : wallClockIn(time.parts, ctx.siteTimeZone)?.ms;
  if (ms === undefined || !inYearRange(ms)) throw new EventError('a date is outside the years 0001–9999');
  return Math.floor(ms / 1000) * 1000;
}

function zoneOf(tzid: string, ctx: TimeContext) {
  const zone = ctx.zones.zone(tzid);
  if (!zone) throw new EventError('unknown time zone');
  return zone;
}

/**
 * The zone an event is written in, from its DTSTART: a TZID's zone name (a fixed offset when only the file's VTIMEZONE
 * knows it), the site time zone for floating times, dates and single UTC times, and UTC for a series in UTC (its
 * rule repeats at one UTC time).
 */
export function eventZone(start: RawTime, startMs: number, series: boolean, ctx: TimeContext): string {
  if (start.utc) return series ? 'UTC' : ctx.siteTimeZone;
  if (start.tzid === undefined) return ctx.siteTimeZone;
  const zone = zoneOf(start.tzid, ctx);
  if (zone.name !== undefined) return zone.name;
  const minutes = (utcDateOf(start.parts)!.getTime() - startMs) / 60_000;
  if (!Number.isInteger(minutes) || minutes < -12 * 60 || minutes > 14 * 60) throw new EventError('unknown time zone');
  return fixedZone(minutes).name;
}

/** The wall clock of an instant in a zone, its years kept within 0001–9999. */
export function wallIn(ms: number, tz: string): Wall {
  const wall = toWall(inZone(new Date(ms), tz));
  if (!/^\d{4}-/.test(wall) || wall < '0001-01-01') throw new EventError('a date is outside the years 0001–9999');
  return wall;
}

/** `YYYY-MM-DD` of a DATE value. */
export const dayOf = (time: RawTime): string => `${String(time.parts.year).padStart(4, '0')}-${String(time.parts.month).padStart(2, '0')}-${String(time.parts.day).padStart(2, '0')}`;

/** A day `days` after another (`YYYY-MM-DD`). */
export function addDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** RFC 5545 compact form of an instant in UTC: `YYYYMMDDTHHMMSSZ`. */
export const utcStamp = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;
