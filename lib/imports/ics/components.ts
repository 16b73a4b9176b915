/**
 * A calendar's components, each parsed by ical.js on its own. ical.js parses a text all or nothing, so one broken line
 * would fail the whole import; the reader cuts the calendar at the BEGIN/END lines of its components (the only part
 * of the syntax read here) and has ical.js parse each, so a malformed component is an error of its own (contract §20).
 */
import ICAL from 'ical.js';

export interface Parsed {
  /** One VCALENDAR holding every component that parsed (VTIMEZONEs and VEVENTs), so TZIDs find their VTIMEZONE. */
  calendar: ICAL.Component;
  /** Components that did not parse: their UID line when they have one, and why. */
  broken: { uid: string; message: string }[];
}

/** A property's first value as ical.js parsed it, undecoded (decoding a value of a hostile type can throw). */
export function rawValue(component: ICAL.Component, name: string): string | undefined {
  const value: unknown = component.getFirstProperty(name)?.jCal[3];
  return typeof value === 'string' ? value : undefined;
}

/** A source that is not iCalendar fails the run (contract §20): say what it looks like instead. */
export class NotICalendarError extends Error {}

function notICalendar(text: string): NotICalendarError {
  const start = text.trimStart().slice(0, 200).toLowerCase();
  const kind = start === '' ? 'it is empty'
    : start.startsWith('<') ? 'it looks like HTML or XML'
      : start.startsWith('{') || start.startsWith('[') ? 'it looks like JSON'
        : 'it does not begin with BEGIN:VCALENDAR';
  return new NotICalendarError(`the source is not iCalendar: ${kind}`);
}

/** A component's lines, unfolded lines kept as they are (ical.js unfolds them). */
interface Chunk { name: string; lines: string[] }

const BEGIN = /^BEGIN:([A-Za-z0-9-]+)[ \t]*$/i;
const END = /^END:([A-Za-z0-9-]+)[ \t]*$/i;

/** The components directly inside each VCALENDAR, in one pass over the lines. */
function chunks(lines: string[]): Chunk[] {
  const found: Chunk[] = [];
  let depth = 0;
  let current: Chunk | undefined;
  for (const line of lines) {
    const begin = BEGIN.exec(line);
    const end = begin ? null : END.exec(line);
    if (begin) depth++;
    if (depth === 2 && begin) current = { name: begin[1]!.toUpperCase(), lines: [] };
    current?.lines.push(line);
    if (end) {
      if (depth === 2 && current) {
        found.push(current);
        current = undefined;
      }
      depth = Math.max(0, depth - 1);
    }
  }
  if (current) found.push(current); // unterminated: ical.js says so
  return found;
}

/** Most parameters one property may have (real ones have a handful): ical.js reads them in time quadratic in their number. */
const MAX_PARAMETERS = 100;

/** Whether a property of the lines has too many parameters: `;` outside quotes before its value's `:`, folds followed. */
function tooManyParameters(lines: string[]): boolean {
  let count = 0;
  let inValue = false;
  let quoted = false;
  for (const line of lines) {
    const folded = line.startsWith(' ') || line.startsWith('\t');
    if (!folded) [count, inValue, quoted] = [0, false, false];
    for (let i = folded ? 1 : 0; i < line.length && !inValue; i++) {
      const c = line[i];
      if (c === '"') quoted = !quoted;
      else if (!quoted && c === ':') inValue = true;
      else if (!quoted && c === ';' && ++count > MAX_PARAMETERS) return true;
    }
  }
  return false;
}

const uidOf = (chunk: Chunk): string => {
  const line = chunk.lines.find((l) => /^UID[:;]/i.test(l));
  return line === undefined ? '' : line.slice(line.indexOf(':') + 1).trim();
};

/** Parses a calendar's text; throws NotICalendarError when it is not iCalendar at all. */
export function parseCalendar(text: string): Parsed {
  const body = text.replace(/^\uFEFF/, '');
  const lines = body.split(/\r\n|\n|\r/);
  const first = lines.find((l) => l.trim() !== '');
  if (first === undefined || !/^BEGIN:VCALENDAR\s*$/i.test(first.trim())) throw notICalendar(body);
  const calendar = new ICAL.Component('vcalendar');
  const broken: Parsed['broken'] = [];
  for (const chunk of chunks(lines)) {
    if (chunk.name !== 'VEVENT' && chunk.name !== 'VTIMEZONE') continue;
    try {
      if (tooManyParameters(chunk.lines)) throw new Error(`a property has more than ${MAX_PARAMETERS} parameters`);
      const component = new ICAL.Component(ICAL.parse(chunk.lines.join('\r\n')));
      if (component.name !== chunk.name.toLowerCase()) throw new Error(`not one ${chunk.name}`);
      calendar.addSubcomponent(component);
    } catch (e) {
      if (chunk.name === 'VEVENT') broken.push({ uid: uidOf(chunk), message: `malformed VEVENT: ${e instanceof Error ? e.message : String(e)}`.slice(0, 500) });
    }
  }
  return { calendar, broken };
}
