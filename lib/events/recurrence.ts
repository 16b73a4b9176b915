/**
 * Recurrence rules (contract §13): the RFC 5545 lines an event write may carry, the object form of the origin's
 * recurring-events add-on translated into them, and their expansion into occurrence start times.
 *
 * Rules are evaluated by `rrule` on wall-clock times ("floating" in its terms): the series' start in its own time zone
 * is the rule's DTSTART, so every occurrence keeps the start's wall-clock time, and each is turned into UTC by the
 * zone library the rest of the service uses (lib/time). That is RFC 5545's meaning of `DTSTART;TZID=…` exactly, across
 * daylight-saving changes. (`rrule-temporal` would need a Temporal polyfill in every bundle; `rrule`'s own `tzid` option
 * returns floating dates that must be converted anyway.)
 */
import { createContext, Script } from 'node:vm';
import { ParamError } from '../model/errors.js';
import { utcToWall, wallToUtc, type Wall } from '../time/format.js';
import { utcWallOf, wallParts, utcDateOf } from '../time/wall.js';
import { normalizeTimezone } from '../time/zones.js';
import { RRule, type Options } from './rrule.js';

/** The most occurrences a series may have within the horizon (contract §13). */
export const MAX_OCCURRENCES = 1000;
/** The most lines and characters a recurrence may have (far above what a real one needs). */
const MAX_LINES = 100;
const MAX_LINE_LENGTH = 2000;

/** A parsed RRULE/RDATE/EXDATE line, values still as written (zones are applied when the series is known). */
export type RecurrenceLine =
  | { kind: 'RRULE'; rule: Partial<Options>; text: string }
  | { kind: 'RDATE' | 'EXDATE'; tzid?: string; date: boolean; values: string[]; text: string };

/** What a write sends: RFC 5545 lines, or the add-on's object form (translated once the start is known). */
export type RecurrenceInput = { lines: RecurrenceLine[] } | { object: Record<string, unknown> };

const fail = (message: string): never => {
  throw new ParamError(message);
};

const DATE_VALUE = /^(\d{4})(\d{2})(\d{2})$/;
const DATE_TIME_VALUE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/;

/** A DATE or DATE-TIME value as a wall ("…Z" kept apart by the caller). */
function valueWall(v: string, date: boolean, line: string): Wall {
  const m = date ? DATE_VALUE.exec(v) : DATE_TIME_VALUE.exec(v);
  if (!m) fail(`recurrence line "${line}" has the value "${v}", which is not a ${date ? 'DATE (YYYYMMDD)' : 'DATE-TIME (YYYYMMDDTHHMMSS[Z])'}`);
  const wall = `${m![1]}-${m![2]}-${m![3]} ${date ? '00:00:00' : `${m![4]}:${m![5]}:${m![6]}`}`;
  const parts = wallParts(wall);
  if (!parts || !utcDateOf(parts) || parts.year < 1) fail(`recurrence line "${line}" has the value "${v}", which is not a date that exists`);
  return wall;
}

function parseRule(value: string, line: string): Partial<Options> {
  const parts = value.split(';');
  const names = new Set<string>();
  for (const part of parts) {
    const [name, v] = part.split('=');
    const upper = (name ?? '').toUpperCase();
    if (!/^[A-Z]+$/.test(upper) || v === undefined || v === '') fail(`recurrence line "${line}" has a malformed part "${part}"`);
    if (names.has(upper)) fail(`recurrence line "${line}" repeats ${upper}`);
    names.add(upper);
    if (upper === 'DTSTART' || upper === 'TZID') fail(`recurrence line "${line}" must not hold ${upper}: the event's start_date and timezone are the series' start`);
    if (!['FREQ', 'UNTIL', 'COUNT', 'INTERVAL', 'BYSECOND', 'BYMINUTE', 'BYHOUR', 'BYDAY', 'BYMONTHDAY', 'BYYEARDAY', 'BYWEEKNO',
      'BYMONTH', 'BYSETPOS', 'WKST'].includes(upper)) fail(`recurrence line "${line}" has the unknown part ${upper}`);
  }
  if (!names.has('FREQ')) fail(`recurrence line "${line}" has no FREQ`);
  if (names.has('COUNT') && names.has('UNTIL')) fail(`recurrence line "${line}" has both COUNT and UNTIL (RFC 5545 allows one)`);
  let options: Partial<Options>;
  try {
    options = RRule.parseString(value.toUpperCase());
  } catch (e) {
    return fail(`recurrence line "${line}" does not parse: ${(e as Error).message}`);
  }
  const check = (ok: boolean, what: string) => { if (!ok) fail(`recurrence line "${line}" has an invalid ${what}`); };
  check(options.freq !== undefined && options.freq !== null && options.freq >= 0 && options.freq <= 6, 'FREQ');
  for (const [k, n] of [['COUNT', options.count], ['INTERVAL', options.interval]] as const) {
    if (n !== undefined && n !== null) check(Number.isInteger(n) && n >= 1 && n <= 100_000, k);
  }
  for (const [k, list, lo, hi] of [['BYMONTH', options.bymonth, 1, 12], ['BYMONTHDAY', options.bymonthday, -31, 31],
    ['BYYEARDAY', options.byyearday, -366, 366], ['BYWEEKNO', options.byweekno, -53, 53], ['BYHOUR', options.byhour, 0, 23],
    ['BYMINUTE', options.byminute, 0, 59], ['BYSECOND', options.bysecond, 0, 59], ['BYSETPOS', options.bysetpos, -366, 366]] as const) {
    const values = list === undefined || list === null ? [] : Array.isArray(list) ? list : [list];
    check(values.every((n) => Number.isInteger(n) && n >= lo && n <= hi && (n !== 0 || lo === 0)), k);
  }
  const until = /UNTIL=([^;]+)/i.exec(value)?.[1];
  if (until !== undefined) valueWall(until.toUpperCase().replace(/Z$/, ''), !until.includes('T') && !until.includes('t'), line);
  const byday = /BYDAY=([^;]+)/i.exec(value)?.[1];
  if (byday !== undefined) {
    for (const d of byday.split(',')) check(/^[+-]?([1-9]|[1-4]\d|5[0-3])?(MO|TU|WE|TH|FR|SA|SU)$/i.test(d), `BYDAY value "${d}"`);
  }
  return options;
}

/** One line, checked: RRULE, RDATE or EXDATE with the parameters contract §13 allows. */
export function parseLine(raw: unknown): RecurrenceLine {
  if (typeof raw !== 'string') return fail('recurrence must be a list of RFC 5545 lines (strings)');
  const line = raw.trim();
  if (line.length > MAX_LINE_LENGTH) fail(`recurrence lines must be at most ${MAX_LINE_LENGTH} characters`);
  const colon = line.indexOf(':');
  if (colon < 0) fail(`recurrence line "${line}" has no ":" (expected RRULE:…, RDATE…:… or EXDATE…:…)`);
  const [name, ...params] = line.slice(0, colon).split(';');
  const value = line.slice(colon + 1).trim();
  const upper = name!.toUpperCase();
  if (upper === 'RRULE') {
    if (params.length) fail(`recurrence line "${line}": RRULE takes no parameters`);
    const rule = parseRule(value, line);
    // UNTIL keeps the form it was given: rrule would write a date as midnight UTC, which east of UTC ends the rule a day
    // early; untilWall reads a date as the end of that day in the series' zone.
    const until = /UNTIL=([^;]+)/i.exec(value)?.[1]?.toUpperCase();
    return { kind: 'RRULE', rule, text: `RRULE:${until ? `${ruleText({ ...rule, until: null })};UNTIL=${until}` : ruleText(rule)}` };
  }
  if (upper !== 'RDATE' && upper !== 'EXDATE') {
    return fail(`recurrence line "${line}" is not RRULE, RDATE or EXDATE${upper === 'EXRULE' ? ' (EXRULE is deprecated by RFC 5545; use EXDATE)' : ''}`);
  }
  let tzid: string | undefined;
  let date = false;
  for (const p of params) {
    const [k, v] = p.split('=');
    const key = (k ?? '').toUpperCase();
    if (key === 'TZID' && v) {
      try {
        tzid = normalizeTimezone(v.replace(/^"|"$/g, ''));
      } catch {
        fail(`recurrence line "${line}" names an unknown time zone "${v}"`);
      }
    } else if (key === 'VALUE' && v && ['DATE', 'DATE-TIME'].includes(v.toUpperCase())) date = v.toUpperCase() === 'DATE';
    else fail(`recurrence line "${line}" has the parameter "${p}" (allowed: TZID=zone, VALUE=DATE or VALUE=DATE-TIME)`);
  }
  const values = value.split(',').map((v) => v.trim().toUpperCase());
  if (values.some((v) => v === '')) fail(`recurrence line "${line}" has an empty value`);
  if (values.length > MAX_OCCURRENCES) fail(`recurrence line "${line}" has more than ${MAX_OCCURRENCES} values`);
  for (const v of values) {
    if (date && v.includes('T')) fail(`recurrence line "${line}" says VALUE=DATE but has the date-time "${v}"`);
    const isDate = date || !v.includes('T');
    if (isDate && tzid) fail(`recurrence line "${line}" has a TZID with DATE values`);
    if (v.endsWith('Z') && tzid) fail(`recurrence line "${line}" has a TZID with UTC values ("…Z")`);
    valueWall(v.replace(/Z$/, ''), isDate, line);
  }
  const isDate = date || values.every((v) => !v.includes('T'));
  if (!isDate && values.some((v) => !v.includes('T'))) fail(`recurrence line "${line}" mixes DATE and DATE-TIME values`);
  const head = [upper, ...(tzid ? [`TZID=${tzid}`] : []), ...(isDate ? ['VALUE=DATE'] : [])].join(';');
  return { kind: upper, tzid, date: isDate, values, text: `${head}:${values.join(',')}` };
}

/** The rule's canonical text (no DTSTART), as responses show it. */
export function ruleText(rule: Partial<Options>): string {
  return RRule.optionsToString({ ...rule, dtstart: null }).replace(/^RRULE:/, '').replace(/([=,])\+/g, '$1');
}

/** Parses a write's `recurrence` value: a list of lines, the add-on's object form, or [] (no recurrence). */
export function parseRecurrenceParam(v: unknown): RecurrenceInput {
  if (Array.isArray(v)) {
    if (v.length > MAX_LINES) fail(`recurrence must hold at most ${MAX_LINES} lines`);
    const lines = v.map(parseLine);
    if (lines.filter((l) => l.kind === 'RRULE').length > 1) fail('recurrence may hold at most one RRULE line');
    return { lines };
  }
  if (typeof v === 'string') return parseRecurrenceParam(v.trim() === '' ? [] : v.split(/\r?\n/).filter((l) => l.trim() !== ''));
  if (v && typeof v === 'object') return { object: v as Record<string, unknown> };
  if (v === null) return { lines: [] };
  return fail('recurrence must be a list of RFC 5545 lines or a {"rules": [...]} object');
}

// ------------------------------------------------------------------------------------------------ the add-on's object form

const FREQS: Record<string, string> = { 'every-day': 'DAILY', 'every-week': 'WEEKLY', 'every-month': 'MONTHLY', 'every-year': 'YEARLY',
  daily: 'DAILY', weekly: 'WEEKLY', monthly: 'MONTHLY', yearly: 'YEARLY' };
const ORDINALS: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4, fifth: 5, last: -1 };
const WEEKDAYS: Record<string, string> = { monday: 'MO', tuesday: 'TU', wednesday: 'WE', thursday: 'TH', friday: 'FR', saturday: 'SA',
  sunday: 'SU' };

/** "YYYY-MM-DD" (or a longer date-time string starting so) → YYYYMMDD, or a 400 naming `where`. */
function objectDate(v: unknown, where: string): string {
  const m = typeof v === 'string' ? /^\s*(\d{4})-(\d{2})-(\d{2})(?:[ T]|$)/.exec(v) : null;
  if (!m || !wallParts(`${m[1]}-${m[2]}-${m[3]} 00:00:00`) || !utcDateOf(wallParts(`${m[1]}-${m[2]}-${m[3]} 00:00:00`)!)) {
    fail(`${where} must be a date (YYYY-MM-DD)`);
  }
  return `${m![1]}${m![2]}${m![3]}`;
}

/** What `on` says: ordinal weekday ("first monday"), weekdays ("monday, wednesday"), or a day of the month ("15"). */
function onPart(on: unknown, freq: string, where: string): string {
  if (typeof on !== 'string') return fail(`${where} must be a phrase such as "first monday", "monday, friday" or "15"`);
  const text = on.trim().toLowerCase();
  const ordinal = /^(first|second|third|fourth|fifth|last)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)$/.exec(text);
  if (ordinal) {
    if (freq !== 'MONTHLY' && freq !== 'YEARLY') fail(`${where} "${on}" needs a monthly or yearly rule`);
    return `BYDAY=${ORDINALS[ordinal[1]!]}${WEEKDAYS[ordinal[2]!]}`;
  }
  const days = text.split(/\s*(?:,|\band\b)\s*/).filter(Boolean);
  if (days.length && days.every((d) => WEEKDAYS[d])) {
    if (freq !== 'WEEKLY') fail(`${where} "${on}" (weekdays) needs a weekly rule`);
    return `BYDAY=${days.map((d) => WEEKDAYS[d]).join(',')}`;
  }
  const day = /^(?:day\s+)?(\d{1,2})$/.exec(text);
  if (day && Number(day[1]) >= 1 && Number(day[1]) <= 31) {
    if (freq !== 'MONTHLY') fail(`${where} "${on}" (a day of the month) needs a monthly rule`);
    return `BYMONTHDAY=${Number(day[1])}`;
  }
  return fail(`${where} "${on}" cannot be translated: use "first monday" … "last sunday", weekdays such as "monday, friday", or a day of the month`);
}

/**
 * The add-on's `{"rules": [...], "exclusions": [...]}` as RFC 5545 lines. `until` converts an end date (the last day
 * an occurrence may start, in the event's zone) into the rule's UTC UNTIL. Anything ambiguous is a 400 naming the part.
 */
export function translateObject(o: Record<string, unknown>, startWall: Wall, until: (date: string) => string): string[] {
  for (const k of Object.keys(o)) if (k !== 'rules' && k !== 'exclusions' && k !== 'description') fail(`recurrence.${k} is not understood (rules, exclusions)`);
  const rules = o.rules ?? [];
  const exclusions = o.exclusions ?? [];
  if (!Array.isArray(rules)) fail('recurrence.rules must be a list');
  if (!Array.isArray(exclusions)) fail('recurrence.exclusions must be a list');
  const lines: string[] = [];
  const rdates: string[] = [];
  (rules as unknown[]).forEach((r, i) => {
    const where = `recurrence.rules[${i}]`;
    if (!r || typeof r !== 'object' || Array.isArray(r)) fail(`${where} must be an object`);
    const rule = r as Record<string, unknown>;
    const type = typeof rule.type === 'string' ? rule.type.trim().toLowerCase() : '';
    if (type === 'date') {
      rdates.push(objectDate(rule.date ?? (rule.custom as Record<string, unknown> | undefined)?.date, `${where}.date`));
      return;
    }
    const freq = FREQS[type];
    if (!freq) fail(`${where}.type "${String(rule.type)}" cannot be translated (every-day, every-week, every-month, every-year or date)`);
    if (lines.length) fail(`${where}: only one repeating rule is possible (RFC 5545 allows one RRULE); further dates go in as type "date"`);
    const parts = [`FREQ=${freq}`];
    const interval = rule.interval ?? rule.every;
    if (interval !== undefined) {
      if (!Number.isInteger(Number(interval)) || Number(interval) < 1 || Number(interval) > 1000) fail(`${where}.interval must be a whole number from 1`);
      if (Number(interval) > 1) parts.push(`INTERVAL=${Number(interval)}`);
    }
    if (rule.on !== undefined && rule.on !== '') {
      parts.push(onPart(rule.on, freq, `${where}.on`));
      if (freq === 'YEARLY' && /^BYDAY=/.test(parts.at(-1)!)) parts.push(`BYMONTH=${Number(startWall.slice(5, 7))}`);
    }
    const endType = typeof rule.end_type === 'string' ? rule.end_type.trim().toLowerCase() : rule.end_type === undefined ? 'never' : '';
    if (endType === 'on') parts.push(`UNTIL=${until(objectDate(rule.end, `${where}.end`))}`);
    else if (endType === 'after') {
      const n = Number(rule.end_count);
      if (!Number.isInteger(n) || n < 1) fail(`${where}.end_count must be a whole number from 1`);
      parts.push(`COUNT=${n}`);
    } else if (endType !== 'never') fail(`${where}.end_type "${String(rule.end_type)}" cannot be translated (never, On or After)`);
    lines.push(`RRULE:${parts.join(';')}`);
  });
  if (rdates.length) lines.push(`RDATE;VALUE=DATE:${rdates.join(',')}`);
  const exdates = (exclusions as unknown[]).map((x, i) => {
    const where = `recurrence.exclusions[${i}]`;
    if (typeof x === 'string') return objectDate(x, where);
    if (x && typeof x === 'object' && !Array.isArray(x)) {
      const e = x as Record<string, unknown>;
      const custom = e.custom as Record<string, unknown> | undefined;
      const date = e.date ?? (custom?.date as Record<string, unknown> | undefined)?.date ?? custom?.date;
      if (date !== undefined) return objectDate(typeof date === 'object' && date ? (date as Record<string, unknown>).date : date, `${where}.date`);
    }
    return fail(`${where} cannot be translated: only excluded dates are supported ("YYYY-MM-DD" or {"date": "YYYY-MM-DD"})`);
  });
  if (exdates.length) lines.push(`EXDATE;VALUE=DATE:${exdates.join(',')}`);
  return lines;
}

// ------------------------------------------------------------------------------------------------ expansion

/**
 * How long one rule may take to evaluate. `rrule` looks for matches up to the year 9999 and only stops at a match, so a
 * rule whose parts can never meet (FREQ=HOURLY;INTERVAL=48;BYHOUR=1 from an even hour, 30 February) would run for
 * minutes: it runs in a `vm` context whose timeout stops it, and the write is refused.
 */
const EVALUATION_MS = 250;
const sandbox = createContext({});
const ALL = new Script('rule.all(take)');

function allWithin(rule: InstanceType<typeof RRule>, take: (d: Date) => boolean): void {
  Object.assign(sandbox, { rule, take });
  try {
    ALL.runInContext(sandbox, { timeout: EVALUATION_MS });
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      fail('recurrence: the rule finds too few dates to evaluate (its parts rarely or never meet); simplify it');
    }
    throw e;
  } finally {
    Object.assign(sandbox, { rule: undefined, take: undefined });
  }
}

export interface SeriesTiming {
  /** The first occurrence's start, as a wall in `tz`. */
  start: Wall;
  tz: string;
  allDay: boolean;
}

const floating = (wall: Wall): Date => new Date(`${wall.replace(' ', 'T')}Z`);

/**
 * A rule's UNTIL as the last wall in the series' zone that it allows: UNTIL in UTC (…Z) is an instant, so that instant's
 * wall; a date, the end of that day; a date-time without zone, itself. Undefined when the rule has no UNTIL.
 */
export function untilWall(rrule: Extract<RecurrenceLine, { kind: 'RRULE' }>, tz: string): Wall | undefined {
  if (!rrule.rule.until) return undefined;
  const text = /UNTIL=([^;]+)/i.exec(rrule.text)![1]!;
  const wall = valueWall(text.replace(/Z$/i, ''), !/T/i.test(text), rrule.text);
  return /Z$/i.test(text) ? utcToWall(wall, tz) : !/T/i.test(text) ? `${wall.slice(0, 10)} 23:59:59` : wall;
}
const wallOfFloating = (d: Date): Wall => utcWallOf(d);

/** A line's values as walls in the series' zone (VALUE=DATE: that day at the series' start time, flagged). */
export function valueWalls(line: Extract<RecurrenceLine, { values: string[] }>, timing: SeriesTiming): { wall: Wall; day: boolean }[] {
  return line.values.map((v) => {
    if (line.date) return { wall: `${valueWall(v, true, line.text).slice(0, 10)} ${timing.start.slice(11)}`, day: true };
    const wall = valueWall(v.replace(/Z$/, ''), false, line.text);
    if (v.endsWith('Z')) return { wall: utcToWall(wall, timing.tz), day: false };
    if (line.tzid && line.tzid !== timing.tz) return { wall: utcToWall(wallToUtc(wall, line.tzid), timing.tz), day: false };
    return { wall, day: false };
  });
}

/**
 * The walls (in the series' zone) at which a series' occurrences start, the first always its start, up to
 * `horizonEnd` (a wall; the first occurrence exists even beyond it). Null rule options mean a plain list of dates.
 * More than MAX_OCCURRENCES → 400. `open` says whether the rule runs on past the horizon (the daily job extends it).
 */
export function expand(lines: RecurrenceLine[], timing: SeriesTiming, horizonEnd: Wall): { starts: Wall[]; open: boolean } {
  const starts = new Set<Wall>([timing.start]);
  const tooMany = () => fail(`recurrence yields more than ${MAX_OCCURRENCES} occurrences within the horizon (until ${horizonEnd.slice(0, 10)}); end the rule earlier (COUNT or UNTIL)`);
  let open = false;
  const rrule = lines.find((l) => l.kind === 'RRULE') as Extract<RecurrenceLine, { kind: 'RRULE' }> | undefined;
  if (rrule) {
    const options: Partial<Options> = { ...rrule.rule, dtstart: floating(timing.start), tzid: null };
    const until = untilWall(rrule, timing.tz);
    if (until) options.until = floating(until);
    const rule = new RRule(options);
    const end = floating(horizonEnd);
    let n = 0;
    allWithin(rule, (d) => {
      if (d > end) {
        open = true;
        return false;
      }
      if (++n > MAX_OCCURRENCES + 1) tooMany();
      starts.add(wallOfFloating(d));
      return true;
    });
    if (!open && !rrule.rule.count && !rrule.rule.until) open = true; // (an endless rule that the iterator ended at its own limit)
  }
  for (const line of lines) {
    if (line.kind !== 'RDATE') continue;
    for (const { wall } of valueWalls(line, timing)) if (wall <= horizonEnd && wall > timing.start) starts.add(wall);
  }
  for (const line of lines) {
    if (line.kind !== 'EXDATE') continue;
    for (const { wall, day } of valueWalls(line, timing)) {
      for (const s of [...starts]) {
        if (day ? s.slice(0, 10) === wall.slice(0, 10) : s === wall) {
          if (s === timing.start) fail(`recurrence line "${line.text}" excludes the first occurrence; move start_date instead`);
          starts.delete(s);
        }
      }
    }
  }
  const sorted = [...starts].sort();
  if (sorted.length > MAX_OCCURRENCES) tooMany();
  return { starts: sorted, open };
}

/** The lines to store and show, from what the write sent (the object form translated at the series' start). */
export function recurrenceLines(input: RecurrenceInput, timing: SeriesTiming): RecurrenceLine[] {
  if ('lines' in input) return input.lines;
  const until = (date: string): string => {
    const wall = `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)} 23:59:59`;
    return `${wallToUtc(wall, timing.tz).replace(/[-:]/g, '').replace(' ', 'T')}Z`;
  };
  return translateObject(input.object, timing.start, until).map(parseLine);
}

/** Stored lines back to parsed ones (records hold the canonical text). */
export const storedLines = (texts: string[] | undefined): RecurrenceLine[] => (texts ?? []).map(parseLine);

/**
 * A series' lines cut at the occurrence starting at `at` (a wall in the series' zone; contract §13 `scope=following`):
 * the earlier part's rule ends just before it (UNTIL in UTC), the later part's starts there (COUNT less the occurrences
 * before), and each part keeps the RDATE and EXDATE values on its side.
 */
export function splitLines(texts: string[], timing: SeriesTiming, at: Wall): { before: string[]; after: string[] } {
  const lines = storedLines(texts);
  const before: string[] = [];
  const after: string[] = [];
  for (const line of lines) {
    if (line.kind === 'RRULE') {
      const untilUtc = utcWallOf(new Date(Date.parse(`${wallToUtc(at, timing.tz).replace(' ', 'T')}Z`) - 1000));
      const until = `${untilUtc.replace(/[-:]/g, '').replace(' ', 'T')}Z`;
      const { count: _c, until: _u, ...rest } = line.rule;
      before.push(`RRULE:${ruleText({ ...rest, until: null })};UNTIL=${until}`);
      if (line.rule.count) {
        const earlier = expand([{ ...line }], timing, utcWallOf(new Date(Date.parse(`${at.replace(' ', 'T')}Z`) - 1000))).starts.length;
        const left = line.rule.count - earlier;
        if (left > 0) after.push(`RRULE:${ruleText({ ...rest, count: left })}`);
      } else after.push(line.text);
      continue;
    }
    const walls = valueWalls(line, timing);
    const head = line.text.slice(0, line.text.indexOf(':') + 1);
    const early = line.values.filter((_, i) => walls[i]!.wall < at);
    const late = line.values.filter((_, i) => walls[i]!.wall >= at);
    if (early.length) before.push(`${head}${early.join(',')}`);
    if (late.length) after.push(`${head}${late.join(',')}`);
  }
  return { before: before.map((t) => parseLine(t).text), after: after.map((t) => parseLine(t).text) };
}
