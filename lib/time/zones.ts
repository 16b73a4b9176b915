import { DateTime, FixedOffsetZone, IANAZone, type Zone } from 'luxon';
import { ParamError } from '../http/errors.js';

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
  if (!/^[A-Za-z][A-Za-z0-9_/+-]*$/.test(name) || !IANAZone.isValidZone(name)) return undefined;
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

/** The luxon zone for a time zone string (validated as normalizeTimezone does). */
export function toLuxonZone(tz: string): Zone {
  const name = normalizeTimezone(tz);
  if (name === 'UTC') return FixedOffsetZone.utcInstance;
  const offset = parseOffset(name);
  if (offset) return FixedOffsetZone.instance(offset.sign * (offset.hours * 60 + offset.minutes));
  return IANAZone.create(name);
}

/**
 * Abbreviation in force at a UTC instant ('YYYY-MM-DD HH:MM:SS'): 'EST'/'EDT', 'CET'/'CEST', 'BST', 'UTC'.
 * Offset zones answer with their own name ('UTC+5'); zones without an English abbreviation answer 'GMT+9'.
 */
export function timezoneAbbr(tz: string, utcWall: string): string {
  const name = normalizeTimezone(tz);
  const zone = toLuxonZone(name);
  if (zone.type === 'fixed') return name;
  const at = DateTime.fromFormat(utcWall, 'yyyy-MM-dd HH:mm:ss', { zone: 'utc' }).setZone(zone);
  if (!at.isValid) throw new Error(`not a UTC wall-clock time: ${utcWall}`);
  // en-US knows the American abbreviations; en-GB knows the European ones (CET, CEST, BST).
  const us = at.setLocale('en-US').offsetNameShort ?? name;
  if (!/^GMT[+-]/.test(us)) return us;
  return at.setLocale('en-GB').offsetNameShort ?? us;
}
