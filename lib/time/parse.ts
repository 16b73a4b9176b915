import { casual } from 'chrono-node';
import { ParamError } from '../model/errors.js';
import { toWall, wallClockIn, ZonedTime, type Wall } from './format.js';
import { fixedZone, zoneOf, type Zone } from './zones.js';

const DATE_REASON = "must be a date such as 2025-03-01 20:00, a Unix timestamp or a phrase such as 'tomorrow 9am'";
const YEAR_REASON = 'must be a date between the years 0001 and 9999, in UTC and in the time zone it is read in';

/** Whether an instant's UTC year is within 0001–9999 (contract §6; the stored walls have four-digit years). */
export const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
export const LAST_INSTANT = Date.parse('9999-12-31T23:59:59Z');
export const inYearRange = (ms: number): boolean => ms >= FIRST_INSTANT && ms <= LAST_INSTANT;

// Wall clock in the target zone: 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM[:SS[.fff]]', with ' ' or 'T'.
const LOCAL_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/i;
// The same with 'Z' or a numeric offset: an instant.
const OFFSET_RE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:(Z)|([+-])([01]\d|2[0-3])(?::?([0-5]\d))?)$/i;

type Instant = Date | ZonedTime;

function fromTimestamp(seconds: number): Instant | undefined {
  return Number.isSafeInteger(seconds) ? new Date(seconds * 1000) : undefined;
}

/** Number fields of a regex match; absent optional groups are 0. */
const fields = (m: RegExpExecArray) => {
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0)) as [number, number, number, number, number, number];
  return { year, month, day, hour, minute, second };
};

function fromOffset(m: RegExpExecArray): Instant | undefined {
  const [zulu, sign, hours, minutes] = m.slice(7, 11);
  const offset = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes ?? 0));
  return wallClockIn(fields(m), fixedZone(offset));
}

/**
 * Natural-language phrases through chrono, read in tz with `now` as reference. The whole input must be one
 * phrase. A phrase naming only a day ('tomorrow', 'next monday') means 00:00 of it, like PHP strtotime;
 * durations ('+2 weeks', '-1 day', 'in 3 days') keep the time of day (wall clock, so across DST too).
 */
function fromPhrase(text: string, zone: Zone, now: Date): Instant | undefined {
  const php = phpWeekday(text, zone, now);
  if (php !== null) return php;
  const results = casual.parse(text, { instant: now, timezone: zone.offset(now.getTime()) });
  const [r] = results;
  if (results.length !== 1 || !r || r.index !== 0 || r.text.length !== text.length || r.end) return undefined;
  const c = r.start;
  const keepTime = c.isCertain('hour') || r.tags().has('result/relativeDate');
  const parts = {
    year: c.get('year') ?? NaN,
    month: c.get('month') ?? NaN,
    day: c.get('day') ?? NaN,
    hour: keepTime ? c.get('hour') ?? 0 : 0,
    minute: keepTime ? c.get('minute') ?? 0 : 0,
    second: keepTime ? c.get('second') ?? 0 : 0,
  };
  // A certain offset comes from the text ('9am EST') or from chrono's own instant arithmetic ('now',
  // 'in 3 hours'): those components are wall clock at that fixed offset.
  const offset = c.isCertain('timezoneOffset') ? c.get('timezoneOffset') : null;
  if (offset !== null) return wallClockIn(parts, fixedZone(offset));
  return wallClockIn(parts, zone);
}

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
/** "friday", "this fri", "next friday 8pm", "last monday at noon", "midnight": PHP's relative weekday words. */
const WEEKDAY_PHRASE = /^(?:(this|next|last|previous)\s+)?(sun|mon|tue|wed|thu|fri|sat)[a-z]*\b\s*(.*)$/i;

/**
 * The phrases whose PHP reading chrono does not share (contract §6: PHP's reading wins). `friday` and `this friday`
 * are today when today is a Friday, else the next one; `next friday` is the first Friday after today (in three days
 * on a Tuesday; chrono reads the Friday of next week); `last friday` is the last one before today; each at 00:00
 * unless a time follows, which chrono reads on that day. `midnight` is today's (chrono: tonight's). Null when the
 * text is none of these.
 */
function phpWeekday(text: string, zone: Zone, now: Date): Instant | undefined | null {
  const today = new ZonedTime(now.getTime(), zone).wall; // wall clock as UTC fields
  const day = (offset: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + offset));
  if (/^(today\s+)?midnight$/i.test(text)) return wallClockIn(partsOf(day(0)), zone);
  const m = WEEKDAY_PHRASE.exec(text);
  if (!m || !WEEKDAYS.includes(m[2]!.toLowerCase()) || !isWeekdayWord(text.split(/\s+/)[m[1] ? 1 : 0]!)) return null;
  const target = WEEKDAYS.indexOf(m[2]!.toLowerCase());
  const ahead = (target - today.getUTCDay() + 7) % 7;
  const which = (m[1] ?? 'this').toLowerCase();
  const offset = which === 'next' ? ahead || 7 : which === 'last' || which === 'previous' ? -((today.getUTCDay() - target + 7) % 7 || 7) : ahead;
  const date = day(offset);
  const rest = m[3]!.replace(/^at\s+/i, '').trim();
  if (rest === '') return wallClockIn(partsOf(date), zone);
  const time = casual.parse(rest, { instant: date, timezone: 0 });
  const [r] = time;
  // Anything but a plain time after the weekday ("fri next week", "friday morning") is left to chrono as a whole.
  if (time.length !== 1 || !r || r.index !== 0 || r.text.length !== rest.length || r.end || !r.start.isCertain('hour')) return null;
  if (r.start.isCertain('day') || r.start.isCertain('weekday')) return null;
  return wallClockIn({ ...partsOf(date), hour: r.start.get('hour') ?? 0, minute: r.start.get('minute') ?? 0, second: r.start.get('second') ?? 0 }, zone);
}

const DAY_WORDS = /^(sun|mon|tue|tues|wed|wednes|thu|thur|thurs|fri|sat|satur)(day)?\.?$/i;
const isWeekdayWord = (word: string): boolean => DAY_WORDS.test(word);

const partsOf = (d: Date) => ({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: 0, minute: 0, second: 0 });

function parseAny(raw: unknown, zone: Zone, now: Date): Instant | undefined {
  if (typeof raw === 'number') return fromTimestamp(raw);
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (text === '' || text.length > 100) return undefined;
  if (/^-?\d+$/.test(text)) return fromTimestamp(Number(text));
  const local = LOCAL_RE.exec(text);
  if (local) return wallClockIn(fields(local), zone);
  const offset = OFFSET_RE.exec(text);
  if (offset) return fromOffset(offset);
  // ISO-shaped input that failed the patterns above is malformed; chrono would be too lenient (offset +25:00).
  if (/^\d{4}-\d{2}-\d{2}T/i.test(text)) return undefined;
  return fromPhrase(text, zone, now);
}

/**
 * Parse a date value into an instant, returned in zone tz (whole seconds). Accepts Unix timestamps (seconds,
 * number or digit string), 'YYYY-MM-DD[ HH:MM[:SS]]' (wall clock in tz), ISO 8601 with 'Z' or an offset
 * (converted into tz) and English phrases ('tomorrow 9am', 'next monday', '+2 weeks'). Else ParamError.
 * Phrases use the process's clock arithmetic (chrono); the server runs in UTC.
 */
export function parseInstant(raw: unknown, tz: string, now: Date = new Date()): ZonedTime {
  const zone = zoneOf(tz);
  const ms = parseAny(raw, zone, now)?.getTime();
  // Whole seconds (the start of the second, also before 1970).
  const dt = ms === undefined || Number.isNaN(ms) ? undefined : new ZonedTime(Math.floor(ms / 1000) * 1000, zone);
  if (!dt) throw new ParamError(DATE_REASON);
  if (!inYearRange(dt.ms) || !(dt.year >= 1 && dt.year <= 9999)) throw new ParamError(YEAR_REASON);
  return dt;
}

/** An event start/end/date value as wall clock in the event's tz plus its UTC wall clock (contract §6). */
export function parseWriteDate(raw: unknown, tz: string, now: Date = new Date()): { local: Wall; utc: Wall } {
  const dt = parseInstant(raw, tz, now);
  return { local: toWall(dt), utc: toWall(new Date(dt.ms)) };
}
