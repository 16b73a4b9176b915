/**
 * The text properties of a VEVENT as `POST /events` fields (contract §20 "iCalendar mapping"). ATTENDEE is never read.
 * Lengths are checked against the write's own limits, so an event that would be refused fails here, by name.
 */
import ICAL from 'ical.js';
import { TEXT_LIMITS } from '../../routes/parsers.js';
import { htmlToText, sanitizeHtml } from '../../text/sanitize.js';
import type { SourceOrganizer, SourceVenue } from '../source.js';
import { EventError } from './dates.js';

/** The text fields a VEVENT gives; undefined where it has no such property. */
export interface TextFields {
  title?: string;
  description?: string;
  venue?: SourceVenue;
  organizer?: SourceOrganizer[];
  categories?: string[];
  website?: string;
}

function checked(value: string, max: number, what: string): string {
  if ([...value].length > max) throw new EventError(`${what} is longer than ${max} characters`);
  return value;
}

const text = (component: ICAL.Component, name: string): string | undefined => {
  const value = component.getFirstPropertyValue(name);
  return typeof value === 'string' ? value : undefined;
};

const escapeHtml = (s: string): string => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** Plain text as HTML: paragraphs at blank lines, `<br />` at single line breaks, everything escaped. */
export function plainToHtml(plain: string): string {
  const text = plain.replace(/\r\n?/g, '\n').trim();
  return text === '' ? '' : text.split(/\n[ \t]*\n\s*/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br />')}</p>`).join('\n');
}

/** X-ALT-DESC;FMTTYPE=text/html, sanitised; undefined when absent or when nothing of it is left. */
function altDescription(component: ICAL.Component): string | undefined {
  const prop = component.getAllProperties('x-alt-desc').find((p) => String(p.getFirstParameter('fmttype')).toLowerCase() === 'text/html');
  const raw: unknown = prop?.jCal[3];
  if (typeof raw !== 'string') return undefined;
  // ical.js leaves values of unknown properties as written; X-ALT-DESC is TEXT-escaped like DESCRIPTION.
  const html = sanitizeHtml(ICAL.design.icalendar.value.text.fromICAL(raw));
  return htmlToText(html) !== '' || /<img\b/i.test(html) ? html : undefined;
}

function description(component: ICAL.Component): string | undefined {
  const plain = text(component, 'description');
  const html = altDescription(component) ?? (plain === undefined ? undefined : sanitizeHtml(plainToHtml(plain)));
  return html === undefined ? undefined : checked(html, TEXT_LIMITS.description, 'DESCRIPTION');
}

/** LOCATION: the venue's name before the first comma, its address after (line breaks count as commas). */
function venue(component: ICAL.Component): SourceVenue | undefined {
  const location = text(component, 'location')?.split('\n').map((line) => line.trim()).filter(Boolean).join(', ');
  if (!location) return undefined;
  const comma = location.indexOf(',');
  const name = (comma < 0 ? location : location.slice(0, comma)).trim();
  const address = comma < 0 ? '' : location.slice(comma + 1).trim();
  if (name === '') return undefined;
  const place: SourceVenue = { venue: checked(name, TEXT_LIMITS.title, 'LOCATION') };
  if (address) place.address = checked(address, TEXT_LIMITS.other, 'LOCATION');
  const geo = component.getFirstPropertyValue('geo');
  if (Array.isArray(geo)) {
    const [lat, lng] = geo.map(Number);
    if (lat !== undefined && lng !== undefined && Math.abs(lat) <= 90 && Math.abs(lng) <= 180) Object.assign(place, { geo_lat: lat, geo_lng: lng });
  }
  return place;
}

const EMAIL = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/;

/** ORGANIZER: its CN, else its address, with the `mailto:` address as email. */
function organizer(component: ICAL.Component): SourceOrganizer[] | undefined {
  const prop = component.getFirstProperty('organizer');
  if (!prop) return undefined;
  const value = String(prop.getFirstValue() ?? '').trim().replace(/^"(.*)"$/, '$1');
  const mail = /^mailto:(.+)$/i.exec(value)?.[1]?.trim();
  const email = mail && mail.length <= 254 && EMAIL.test(mail) ? mail : undefined;
  const cn = String(prop.getFirstParameter('cn') ?? '').trim();
  const name = cn || email;
  if (!name) return undefined;
  return [{ organizer: checked(name, TEXT_LIMITS.title, 'ORGANIZER'), ...(email ? { email: checked(email, TEXT_LIMITS.other, 'ORGANIZER') } : {}) }];
}

/** Every CATEGORIES value, split at commas, trimmed, each name once (the first spelling of names equal but for case). */
function categories(component: ICAL.Component): string[] | undefined {
  const props = component.getAllProperties('categories');
  if (props.length === 0) return undefined;
  const names = new Map<string, string>();
  for (const value of props.flatMap((p) => p.getValues())) {
    for (const name of String(value).split(',').map((s) => s.trim()).filter(Boolean)) {
      if (!names.has(name.toLowerCase())) names.set(name.toLowerCase(), checked(name, TEXT_LIMITS.name, 'CATEGORIES'));
    }
  }
  return [...names.values()];
}

/** URL, when it is an absolute http(s) address. */
function website(component: ICAL.Component): string | undefined {
  const raw = text(component, 'url')?.trim();
  if (!raw || raw.length > TEXT_LIMITS.other || !URL.canParse(raw)) return undefined;
  return /^https?:$/.test(new URL(raw).protocol) ? raw : undefined;
}

export function textFields(component: ICAL.Component): TextFields {
  const summary = text(component, 'summary')?.trim();
  const fields: TextFields = {
    title: summary ? checked(summary, TEXT_LIMITS.title, 'SUMMARY') : undefined,
    description: description(component),
    venue: venue(component),
    organizer: organizer(component),
    categories: categories(component),
    website: website(component),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}
