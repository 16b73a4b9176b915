import { tzOffset } from '@date-fns/tz/tzOffset';
import { ParamError } from '../model/errors.js';
import { utcDateOf, wallParts, type Wall } from './wall.js';

const TZ_REASON = "must be an IANA time zone such as Europe/Berlin, 'UTC', or an offset such as UTC+5 or UTC-3:30";
const OFFSET_RE = /^UTC([+-])(\d{1,2})(?::(\d{2}))?$/i;

interface Offset { sign: 1 | -1; hours: number; minutes: number }

function parseOffset(text: string): Offset | undefined {
  const m = OFFSET_RE.exec(text);
  if (!m) return undefined;
  const sign = m[1] === '-' ? -1 : 1;
  const hours = Number(m[2]);
  const minutes = m[3] === undefined ? 0 : Number(m[3]);
  const total = sign * (hours * 60 + minutes);
  if (minutes > 59 || total < -12 * 60 || total > 14 * 60) return undefined;
  return { sign, hours, minutes };
}

function formatOffset({ sign, hours, minutes }: Offset): string {
  const s = sign < 0 && hours + minutes > 0 ? '-' : '+';
  return `UTC${s}${hours}${minutes ? `:${String(minutes).padStart(2, '0')}` : ''}`;
}

/** Whether Intl knows the zone (it throws a RangeError for names it does not). */
function isIntlZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * Valid names already resolved: every date conversion and every serialised event validates its zone, and
 * building an Intl.DateTimeFormat each time dominated warm handler time. Only valid names are kept (input comes
 * from clients), and there are a few hundred of those at most.
 */
const resolvedNames = new Map<string, string>();

/** The spelling ICU uses for an IANA name, or undefined when it is not a zone. */
function resolveIana(name: string): string | undefined {
  const known = resolvedNames.get(name);
  if (known !== undefined) return known;
  const resolved = resolveIanaUncached(name);
  if (resolved !== undefined && resolvedNames.size < 1000) resolvedNames.set(name, resolved);
  return resolved;
}

function resolveIanaUncached(name: string): string | undefined {
  // Intl also accepts offsets such as "+02:00" in newer runtimes; the contract allows only names.
  if (!/^[A-Za-z][A-Za-z0-9_/+-]*$/.test(name) || !isIntlZone(name)) return undefined;
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  // ICU maps links to its own canonical ids (Asia/Kolkata -> Asia/Calcutta, EST -> America/Panama);
  // keep the name the client chose and only fix its letter case when ICU knows it under that name.
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}

/**
 * Event/site time zone: an IANA name (case fixed to the canonical spelling), 'UTC', or 'UTC±H[:MM]'
 * in -12..+14 (normalised: 'UTC+05:30' -> 'UTC+5:30', 'UTC+05:00' -> 'UTC+5'). Anything else -> ParamError.
 */
export function normalizeTimezone(raw: unknown): string {
  if (typeof raw !== 'string') throw new ParamError(TZ_REASON);
  const text = raw.trim();
  if (text === '' || text.length > 64) throw new ParamError(TZ_REASON);
  if (/^utc$/i.test(text)) return 'UTC';
  if (/^utc[+-]/i.test(text)) {
    const offset = parseOffset(text);
    if (!offset) throw new ParamError(TZ_REASON);
    return formatOffset(offset);
  }
  const name = resolveIana(text);
  if (!name) throw new ParamError(TZ_REASON);
  return name;
}

/** A time zone as the date code uses it. */
export interface Zone {
  /** The normalised name: 'Europe/Berlin', 'UTC', 'UTC+5:30'. */
  readonly name: string;
  /** A fixed offset ('UTC', 'UTC+5:30', or one read from input), as opposed to an IANA zone with its rules. */
  readonly fixed: boolean;
  /** The offset from UTC in minutes at an instant (ms since the epoch): 60 for Europe/Berlin in winter. */
  offset(ms: number): number;
}

/** A zone of a fixed whole number of minutes east of UTC (0 is 'UTC', 330 'UTC+5:30'). */
export function fixedZone(minutes: number): Zone {
  const abs = Math.abs(minutes);
  const name = minutes === 0 ? 'UTC' : formatOffset({ sign: minutes < 0 ? -1 : 1, hours: Math.floor(abs / 60), minutes: abs % 60 });
  return { name, fixed: true, offset: () => minutes };
}

const westOfUtcFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * The zone's offset at an instant, from Intl through @date-fns/tz. tzOffset (1.5.0) reads an offset written
 * '-00:MM[:SS]' as positive; such offsets are the local mean time of a few western European and African zones
 * before about 1920 (Europe/London -0:01:15), so a small positive answer has its sign checked with Intl.
 */
function ianaOffset(name: string, ms: number): number {
  const at = new Date(ms);
  const offset = tzOffset(name, at);
  if (!(offset > 0 && offset < 60)) return offset;
  let format = westOfUtcFormats.get(name);
  if (!format) westOfUtcFormats.set(name, (format = new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset' })));
  return format.format(at).includes('GMT-') ? -offset : offset;
}

const zones = new Map<string, Zone>();

/** The zone for a time zone string (validated as normalizeTimezone does, so unknown names -> ParamError). */
export function zoneOf(tz: string): Zone {
  const known = zones.get(tz); // stored and configured names are already normal: skip normalising them again
  if (known) return known;
  const name = normalizeTimezone(tz);
  let zone = zones.get(name);
  if (zone) {
    if (zones.size < 1000) zones.set(tz, zone);
    return zone;
  }
  const offset = name === 'UTC' ? { sign: 1 as const, hours: 0, minutes: 0 } : parseOffset(name);
  zone = offset ? { ...fixedZone(offset.sign * (offset.hours * 60 + offset.minutes)), name }
    : { name, fixed: false, offset: (ms: number) => ianaOffset(name, ms) };
  if (zones.size < 1000) zones.set(name, zone);
  return zone;
}

/**
 * The zone under the name it had when the date code used luxon (the same shape for callers: `name` and
 * `offset(ms)` in minutes).
 */
export const toLuxonZone = zoneOf;

const abbrFormats = new Map<string, Intl.DateTimeFormat>();

/** The short zone name Intl gives in a locale at an instant ('EST', 'CEST', 'GMT+9'). */
function shortZoneName(locale: string, zone: string, at: Date): string | undefined {
  const key = `${locale}|${zone}`;
  let format = abbrFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: 'short', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
    if (abbrFormats.size < 1000) abbrFormats.set(key, format);
  }
  return format.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value;
}

/**
 * Abbreviation in force at a UTC instant ('YYYY-MM-DD HH:MM:SS'): 'EST'/'EDT', 'CET'/'CEST', 'BST', 'UTC'.
 * Offset zones answer with their own name ('UTC+5'); zones without an English abbreviation answer 'GMT+9'.
 */
/**
 * Abbreviations already looked up, by zone and instant (a pure function of both). Asking Intl for the offset and
 * the short name costs tens of microseconds, every serialised event needs one, and lists show the same events
 * again and again. Bounded: cleared when full.
 */
const abbreviations = new Map<string, string>();

export function timezoneAbbr(tz: string, utcWall: Wall): string {
  const zone = zoneOf(tz);
  if (zone.fixed) return zone.name;
  const key = `${zone.name}|${utcWall}`;
  const known = abbreviations.get(key);
  if (known !== undefined) return known;
  const parts = wallParts(utcWall);
  const at = parts && utcDateOf(parts);
  if (!at) throw new Error(`not a UTC wall-clock time: ${utcWall}`);
  // en-US knows the American abbreviations; en-GB knows the European ones (CET, CEST, BST).
  const us = shortZoneName('en-US', zone.name, at) ?? zone.name;
  const abbr = /^GMT[+-]/.test(us) ? shortZoneName('en-GB', zone.name, at) ?? us : us;
  if (abbreviations.size >= 20_000) abbreviations.clear();
  abbreviations.set(key, abbr);
  return abbr;
}
