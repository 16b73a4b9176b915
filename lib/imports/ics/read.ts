/**
 * The iCalendar source reader of imports (contract §20): a calendar's text in, the source events it holds out, as
 * `POST /events` bodies (lib/imports/source.ts). Pure: no I/O, no clock but `now`. See README.md beside this file.
 */
import { createHash } from 'node:crypto';
import type ICAL from 'ical.js';
import { wallToUtc } from '../../time/format.js';
import { normalizeTimezone } from '../../time/zones.js';
import type { SourceError, SourceEvent, SourceRead } from '../source.js';
import { parseCalendar, rawValue } from './components.js';
import { dayOf, EventError, instantOf, rawTime, type TimeContext, utcStamp } from './dates.js';
import { lastEnd, masterFields, OPEN_END, override, removal, spans } from './event.js';
import { Evaluator } from './series.js';
import { FileZones } from './zones.js';

export { NotICalendarError } from './components.js';

/** At most this many events per run (contract §20); beyond, the first ones by start. */
export const MAX_EVENTS = 10_000;
const MAX_UID_LENGTH = 1000;

export interface ReadOptions {
  /** IANA name (or UTC): floating times and dates are read in it. */
  siteTimeZone: string;
  /** A one-time import keys events without UID by summary, start and location; a scheduled one refuses them. */
  oneTime: boolean;
  /** UTC walls `YYYY-MM-DD HH:MM:SS`: events (series: any occurrence) outside are left out. Default: everything. */
  window?: { startUtc?: string; endUtc?: string };
  limit?: number;
  /** The service's recurrence horizon (contract §13): series are evaluated up to `horizonDays` after `now`. */
  now?: Date;
  horizonDays?: number;
}

/** Reads a calendar. Throws NotICalendarError when the text is not iCalendar; every other problem is a per-event error. */
export function readIcs(text: string, options: ReadOptions): SourceRead {
  const { calendar, broken } = parseCalendar(text);
  const vevents = calendar.getAllSubcomponents('vevent');
  const ctx: TimeContext = {
    zones: new FileZones(calendar.getAllSubcomponents('vtimezone'), lastYear(vevents)),
    siteTimeZone: normalizeTimezone(options.siteTimeZone),
  };
  const evaluator = new Evaluator({ now: options.now ?? new Date(), days: options.horizonDays ?? 730 });
  const errors: SourceError[] = [...broken];
  const events = new Map<string, Read>();
  for (const [uid, group] of groups(vevents)) {
    try {
      for (const event of readGroup(uid, group, ctx, evaluator, options)) if (!events.has(event.key)) events.set(event.key, event);
    } catch (e) {
      errors.push({ uid, message: e instanceof EventError ? e.message : `unreadable VEVENT: ${e instanceof Error ? e.message : String(e)}`.slice(0, 500) });
    }
  }
  return limited(inWindow([...events.values()], options.window), options.limit ?? MAX_EVENTS, errors);
}

/** A source event with the UTC spans it covers, for the window (the run does not need them). */
interface Read extends SourceEvent {
  spans: () => [string, string][];
}

/** The latest year of any date in the file, at least this year (ical.js expands zones at least that far by the real clock). */
function lastYear(vevents: ICAL.Component[]): number {
  let year = new Date().getUTCFullYear();
  for (const vevent of vevents) {
    for (const prop of vevent.getAllProperties()) {
      for (const value of prop.jCal.slice(3)) {
        const text = Array.isArray(value) ? value[0] : value;
        if (typeof text === 'string' && /^\d{4}-\d{2}-\d{2}/.test(text)) year = Math.max(year, Number(text.slice(0, 4)));
      }
    }
  }
  return year;
}

interface Group {
  masters: ICAL.Component[];
  edits: ICAL.Component[];
}

/** VEVENTs by UID, masters apart from RECURRENCE-ID edits; each VEVENT without UID on its own (under ""). */
function* groups(vevents: ICAL.Component[]): Generator<[string, Group]> {
  const byUid = new Map<string, Group>();
  for (const vevent of vevents) {
    const uid = (rawValue(vevent, 'uid') ?? '').trim();
    if (uid === '') {
      yield ['', { masters: [vevent], edits: [] }];
      continue;
    }
    let group = byUid.get(uid);
    if (!group) byUid.set(uid, (group = { masters: [], edits: [] }));
    (vevent.hasProperty('recurrence-id') ? group.edits : group.masters).push(vevent);
  }
  yield* byUid;
}

const sequence = (c: ICAL.Component): number => {
  const n = Number(c.getFirstPropertyValue('sequence'));
  return Number.isFinite(n) ? n : 0;
};

/** The events of one UID: its master (the highest SEQUENCE) with its edits, or, without a master, each edit alone. */
function readGroup(uid: string, group: Group, ctx: TimeContext, evaluator: Evaluator, options: ReadOptions): Read[] {
  if (uid.length > MAX_UID_LENGTH) throw new EventError(`UID is longer than ${MAX_UID_LENGTH} characters`);
  const master = group.masters.reduce<ICAL.Component | undefined>((best, c) => (!best || sequence(c) > sequence(best) ? c : best), undefined);
  if (master) return [readEvent(uid, master, group.edits, ctx, evaluator, options)];
  // Edits whose series is not in the source (an invitation to one occurrence): each an event of its own.
  return group.edits.map((edit) => readEvent(`${uid}#${recurrenceStamp(edit, ctx)}`, edit, [], ctx, evaluator, options));
}

function recurrenceStamp(edit: ICAL.Component, ctx: TimeContext): string {
  const rid = rawTime(edit, 'recurrence-id')!;
  return rid.date ? dayOf(rid).replace(/-/g, '') : utcStamp(instantOf(rid, ctx));
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** JSON with object keys sorted at every level, so equal content hashes equally whatever order it was built in. */
const canonical = (value: unknown): string => JSON.stringify(value, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v)
  ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));

function readEvent(uid: string, master: ICAL.Component, edits: ICAL.Component[], ctx: TimeContext, evaluator: Evaluator, options: ReadOptions): Read {
  const { fields, occurrences } = masterFields(master, ctx, evaluator);
  const overrides = new Map<string, { sequence: number; value: ReturnType<typeof override> }>();
  if (fields.recurrence) {
    for (const edit of edits) {
      const value = override(edit, fields, ctx);
      const known = overrides.get(value.recurrenceId);
      if (!known || sequence(edit) >= known.sequence) overrides.set(value.recurrenceId, { sequence: sequence(edit), value });
    }
  }
  const edited = [...overrides.values()].map((o) => o.value).sort((a, b) => (a.recurrenceId < b.recurrenceId ? -1 : 1));
  const removed = removal(master);
  const startUtc = wallToUtc(fields.start_date, fields.timezone);
  const endUtc = lastEnd(fields, edited, occurrences);
  const key = uid !== '' ? `uid:${uid}` : keyWithoutUid(fields, master, startUtc, options);
  return {
    key,
    ...(removed ? { removed } : {}),
    hash: sha256(canonical({ removed: removed ?? null, fields, overrides: edited })),
    fields,
    overrides: edited,
    startUtc,
    endUtc,
    spans: () => spans(fields, edited, occurrences, evaluator.horizon),
  };
}

function keyWithoutUid(fields: { title: string }, master: ICAL.Component, startUtc: string, options: ReadOptions): string {
  if (!options.oneTime) throw new EventError('missing UID');
  return `sum:${sha256(`${fields.title}|${startUtc}|${String(master.getFirstPropertyValue('location') ?? '')}`)}`;
}

/** Events with any span in the window (bounds inclusive, as list filters compare them). */
function inWindow(events: Read[], window: ReadOptions['window']): Read[] {
  const from = window?.startUtc ?? '';
  const to = window?.endUtc ?? OPEN_END;
  if (from === '' && to === OPEN_END) return events;
  return events.filter((e) => e.startUtc <= to && e.endUtc >= from && e.spans().some(([s, end]) => s <= to && end >= from));
}

/** The first `limit` events by start (then key), and an error naming the limit when there were more. */
function limited(events: Read[], limit: number, errors: SourceError[]): SourceRead {
  const sorted = events.sort((a, b) => (a.startUtc < b.startUtc ? -1 : a.startUtc > b.startUtc ? 1 : a.key < b.key ? -1 : 1));
  if (sorted.length > limit) {
    errors.push({ uid: '', message: `the source has ${sorted.length} events; at most ${limit} are imported per run (the first ${limit} by start)` });
  }
  return { events: sorted.slice(0, limit).map(({ spans: _spans, ...event }) => event), errors };
}
