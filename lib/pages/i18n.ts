/** The pages' language: its message file, its Intl locale, and dates formatted with Intl (contract §21). */
import type { Language } from '../model/language.js';
import { de } from './messages/de.js';
import { en, type Messages } from './messages/en.js';
import { ptPt } from './messages/pt-pt.js';

const MESSAGES: Record<Language, Messages> = { en, de, 'pt-pt': ptPt };
export const LOCALES: Record<Language, string> = { en: 'en', de: 'de', 'pt-pt': 'pt-PT' };

export type MessageKey = keyof Messages;
export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

export function translator(lang: Language): Translate {
  const messages = MESSAGES[lang];
  return (key, values = {}) => messages[key].replace(/\{(\w+)\}/g, (m, name: string) => (name in values ? String(values[name]) : m));
}

/** A stored wall-clock "YYYY-MM-DD HH:MM:SS" as the instant it names when read in UTC (so Intl shows its digits). */
const wallAsUtc = (wall: string): Date => new Date(`${wall.slice(0, 10)}T${wall.slice(11, 19) || '00:00:00'}Z`);

/** Formats dates for one language. Event times are shown in the event's own zone (their wall clock, as stored). */
export function dateFormats(lang: Language, siteZone: string) {
  const locale = LOCALES[lang];
  const day = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
  const shortDay = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short' });
  const time = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', hour: 'numeric', minute: '2-digit' });
  const monthYear = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', month: 'long', year: 'numeric' });
  const weekday = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', weekday: 'short' });
  const weekdayLong = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', weekday: 'long' });
  const siteDay = new Intl.DateTimeFormat('en-CA', { timeZone: siteZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return {
    /** "Saturday, 1 March 2025" for a "YYYY-MM-DD…" wall clock. */
    day: (wall: string) => day.format(wallAsUtc(wall)),
    shortDay: (wall: string) => shortDay.format(wallAsUtc(wall)),
    time: (wall: string) => time.format(wallAsUtc(wall)),
    monthYear: (month: string) => monthYear.format(wallAsUtc(`${month}-01 00:00:00`)),
    /** Monday-first weekday names (short and long). */
    weekdays: () => [1, 2, 3, 4, 5, 6, 7].map((d) => ({
      short: weekday.format(new Date(Date.UTC(2024, 0, d))), long: weekdayLong.format(new Date(Date.UTC(2024, 0, d))),
    })),
    /** The site-time-zone day ("YYYY-MM-DD") of a UTC wall clock. */
    siteDayOf: (utcWall: string) => siteDay.format(wallAsUtc(utcWall)),
    /** A date range of an event in its own zone: "Saturday, 1 March 2025, 20:00 – 22:00". */
    range(start: string, end: string, allDay: boolean, allDayText: string): string {
      const sameDay = start.slice(0, 10) === end.slice(0, 10);
      if (allDay) return sameDay ? `${this.day(start)} · ${allDayText}` : `${this.day(start)} – ${this.day(end)}`;
      return sameDay ? `${this.day(start)}, ${this.time(start)} – ${this.time(end)}`
        : `${this.day(start)}, ${this.time(start)} – ${this.day(end)}, ${this.time(end)}`;
    },
  };
}
export type DateFormats = ReturnType<typeof dateFormats>;
