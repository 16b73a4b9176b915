/**
 * Time zones of an iCalendar file (contract §20): a TZID is read by the file's own VTIMEZONE of that name, else as a
 * zone name the service takes (IANA, `UTC`, `UTC±H[:MM]`), else as a Windows zone id or the display name Outlook
 * writes for it. Windows ids go to IANA names through windows-iana (CLDR's windowsZones table); display names to ids
 * through ./windows-display-names.ts.
 */
import ICAL from 'ical.js';
import { WINDOWS_TO_IANA_MAP } from 'windows-iana';
import { wallClockIn } from '../../time/format.js';
import type { WallParts } from '../../time/wall.js';
import { normalizeTimezone } from '../../time/zones.js';
import { rawValue } from './components.js';
import { WINDOWS_DISPLAY_NAMES } from './windows-display-names.js';

const comparable = (name: string): string => name.replace(/\s+/g, ' ').replace(/&/g, 'and').trim().toLowerCase();
/** `(UTC-05:00) `, `(GMT+10:00) `, `(UTC) `: the offset Windows puts before a display name (it changes across versions). */
const OFFSET_PREFIX = /^\((?:UTC|GMT)(?:[+-]\d{1,2}(?::?\d{2})?)?\)\s*/i;

const WINDOWS_IANA = new Map(WINDOWS_TO_IANA_MAP.filter((z) => z.territory === '001').map((z) => [comparable(z.windowsName), z.iana[0]]));
const DISPLAY_IDS = new Map(WINDOWS_DISPLAY_NAMES.map(([id, display]) => [comparable(display.replace(OFFSET_PREFIX, '')), id]));

function serviceName(name: string): string | undefined {
  try {
    return normalizeTimezone(name);
  } catch {
    return undefined;
  }
}

/** The zone name the service takes for a TZID text, or undefined when the text names no zone known here. */
export function zoneName(tzid: string): string | undefined {
  const text = tzid.trim();
  if (text === '' || text.length > 200) return undefined;
  const windowsId = comparable(text.replace(OFFSET_PREFIX, ''));
  const iana = serviceName(text) ?? WINDOWS_IANA.get(windowsId) ?? WINDOWS_IANA.get(comparable(DISPLAY_IDS.get(windowsId) ?? ''));
  return iana === undefined ? undefined : serviceName(iana);
}

/**
 * The zone a VTIMEZONE stands for, when it says so: its TZID, its X-LIC-LOCATION (Lightning, Google), or the IANA name
 * at the end of a prefixed TZID (`/mozilla.org/20050126_1/Europe/Berlin`, `/citadel.org/…/Europe/Berlin`).
 */
function vtimezoneName(tzid: string, component: ICAL.Component): string | undefined {
  const location = rawValue(component, 'x-lic-location');
  const suffix = tzid.length <= 200 ? /^\/.+?\/((?:[A-Za-z_-]+\/)?[A-Za-z_-]+\/[A-Za-z_+-]+)$/.exec(tzid)?.[1] : undefined;
  return zoneName(tzid) ?? (location ? zoneName(location) : undefined) ?? (suffix ? zoneName(suffix) : undefined);
}

/** How a file's TZID is read. */
export interface FileZone {
  /** The zone name the service takes, when the TZID names one; else the caller writes a fixed offset. */
  name: string | undefined;
  /** The instant (ms) a wall clock of this zone denotes, or undefined when the zone cannot tell. */
  instant(parts: WallParts): number | undefined;
}

/**
 * Observances, RDATE values and years of rules one file's VTIMEZONEs may make ical.js expand, all zones together:
 * ical.js expands a zone's rules year by year from its first observance to the year asked for, so a hostile VTIMEZONE
 * (many open rules from year 1, FREQ=SECONDLY) would run for hours. A real zone costs two rules times a few hundred
 * years (Outlook's start in 1601); a zone over the budget is read by its name, as if the file had no VTIMEZONE.
 */
const MAX_OBSERVANCES = 100;
const MAX_RDATES = 1000;
const RULE_YEAR_BUDGET = 50_000;

/** The zones of one file, each VTIMEZONE hydrated at most once, expanded once up to the last year the file uses. */
export class FileZones {
  private readonly vtimezones = new Map<string, ICAL.Component>();
  private readonly resolved = new Map<string, FileZone | undefined>();
  private budget = RULE_YEAR_BUDGET;

  /** `lastYear`: the latest year of any date in the file, so each zone's rules are expanded exactly once. */
  constructor(vtimezones: ICAL.Component[], private readonly lastYear: number) {
    for (const vtz of vtimezones) {
      const tzid = rawValue(vtz, 'tzid');
      if (tzid !== undefined && !this.vtimezones.has(tzid)) this.vtimezones.set(tzid, vtz);
    }
  }

  /** The zone a TZID names, or undefined when neither the file nor a zone table knows it. */
  zone(tzid: string): FileZone | undefined {
    if (!this.resolved.has(tzid)) this.resolved.set(tzid, this.resolve(tzid));
    return this.resolved.get(tzid);
  }

  private resolve(tzid: string): FileZone | undefined {
    const vtz = this.vtimezones.get(tzid);
    const timezone = vtz && this.hydrate(tzid, vtz);
    if (vtz && timezone) {
      return {
        name: vtimezoneName(tzid, vtz),
        instant: (p) => {
          const seconds = ICAL.Time.fromData({ ...p, isDate: false }, timezone).toUnixTime();
          return Number.isFinite(seconds) ? seconds * 1000 : undefined;
        },
      };
    }
    const name = zoneName(tzid);
    return name === undefined ? undefined : { name, instant: (p) => wallClockIn(p, name)?.ms };
  }

  /** ical.js's reading of a VTIMEZONE, expanded up to the file's last year; undefined when it is too costly or broken. */
  private hydrate(tzid: string, vtz: ICAL.Component): ICAL.Timezone | undefined {
    const cost = ruleYears(vtz, this.lastYear);
    if (cost === undefined || cost > this.budget) return undefined;
    this.budget -= cost;
    try {
      const timezone = new ICAL.Timezone({ component: vtz, tzid });
      timezone.utcOffset(ICAL.Time.fromData({ year: this.lastYear, month: 12, day: 31, hour: 23, minute: 59, second: 59, isDate: false }));
      return timezone;
    } catch {
      return undefined;
    }
  }
}

/**
 * The years of rules ical.js would expand for a VTIMEZONE up to `lastYear`, or undefined when its rules are not of the
 * shape real zones have (yearly, in one month) or it has too many observances or dates.
 */
function ruleYears(vtz: ICAL.Component, lastYear: number): number | undefined {
  const observances = vtz.getAllSubcomponents().filter((c) => c.name === 'standard' || c.name === 'daylight');
  if (observances.length > MAX_OBSERVANCES) return undefined;
  let years = 0;
  let rdates = 0;
  for (const observance of observances) {
    rdates += observance.getAllProperties('rdate').reduce((n, p) => n + p.getValues().length, 0);
    const rules = observance.getAllProperties('rrule');
    if (rules.length > 1) return undefined;
    const rule = rules[0]?.getFirstValue();
    if (rules.length === 0) continue;
    const start = observance.getFirstPropertyValue('dtstart');
    if (!(rule instanceof ICAL.Recur) || !(start instanceof ICAL.Time) || !yearlyInOneMonth(rule)) return undefined;
    const end = lastYear + ICAL.Timezone.EXTRA_COVERAGE;
    years += Math.max(0, Math.min(rule.until ? rule.until.year : end, end) - start.year + 1);
  }
  return rdates > MAX_RDATES ? undefined : years;
}

/** FREQ=YEARLY in one month, on one weekday or a week of month days: at most a few changes a year. */
function yearlyInOneMonth(rule: ICAL.Recur): boolean {
  const { parts } = rule;
  return rule.freq === 'YEARLY' && Object.keys(parts).every((k) => ['BYMONTH', 'BYDAY', 'BYMONTHDAY'].includes(k))
    && (parts.BYMONTH?.length ?? 0) <= 1 && (parts.BYDAY?.length ?? 0) <= 1 && (parts.BYMONTHDAY?.length ?? 0) <= 7;
}
