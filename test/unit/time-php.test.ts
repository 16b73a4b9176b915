/**
 * Relative weekday phrases read as PHP's strtotime reads them (contract §6: where the library and PHP differ, PHP's
 * reading wins), on every weekday, and dates outside the years 0001–9999 refused in UTC and in the zone.
 *
 * PHP's rules (its "Relative Formats"): `dayname` and `this dayname` move to the next day of that name, today
 * included; `next dayname` to the first one after today; `last`/`previous dayname` to the last one before today;
 * a weekday alone is 00:00, a following time sets the clock; `midnight` is today 00:00.
 */
import { ParamError } from '../../lib/http/errors.js';
import { parseInstant } from '../../lib/time/parse.js';
import { listWindow } from '../../lib/time/list-bounds.js';

/** 2026-11-23 is a Monday; day i of that week is 23 + i. */
const weekday = (i: number) => new Date(Date.UTC(2026, 10, 23 + i, 10, 30));
const read = (phrase: string, now: Date, tz = 'UTC') => parseInstant(phrase, tz, now).toISO().slice(0, 16);
const on = (day: number, time = '00:00') => `${new Date(Date.UTC(2026, 10, day)).toISOString().slice(0, 10)}T${time}`;

describe.each([0, 1, 2, 3, 4, 5, 6])('on weekday %i of the week of Monday 2026-11-23', (i) => {
  const now = weekday(i); // Mon 23 … Sun 29
  const today = 23 + i;
  const friday = 27; // Friday of that week
  const nextFri = i < 4 ? friday : friday + 7; // today excluded
  const thisFri = i <= 4 ? friday : friday + 7; // today included
  const lastFri = i > 4 ? friday : friday - 7; // before today

  it('friday / this friday: today when it is Friday, else the next one', () => {
    expect(read('friday', now)).toBe(on(thisFri));
    expect(read('this friday', now)).toBe(on(thisFri));
    expect(read('Fri', now)).toBe(on(thisFri));
  });

  it('next friday: the first Friday after today (next friday 8pm at 20:00 that day)', () => {
    expect(read('next friday', now)).toBe(on(nextFri));
    expect(read('next friday 8pm', now)).toBe(on(nextFri, '20:00'));
    expect(read('next Friday at 8:30pm', now)).toBe(on(nextFri, '20:30'));
  });

  it('last / previous friday: the last Friday before today', () => {
    expect(read('last friday', now)).toBe(on(lastFri));
    expect(read('previous friday 9am', now)).toBe(on(lastFri, '09:00'));
  });

  it('midnight is today 00:00; noon today 12:00; tomorrow 9am', () => {
    expect(read('midnight', now)).toBe(on(today));
    expect(read('noon', now)).toBe(on(today, '12:00'));
    expect(read('tomorrow 9am', now)).toBe(on(today + 1, '09:00'));
  });
});

it('evaluates in the zone it is given: Tuesday 23:30 UTC is Wednesday in Berlin', () => {
  const now = new Date(Date.UTC(2026, 10, 24, 23, 30));
  expect(parseInstant('next friday', 'Europe/Berlin', now).toISO()).toBe('2026-11-27T00:00:00.000+01:00');
  expect(parseInstant('wednesday', 'Europe/Berlin', now).toISO()).toBe('2026-11-25T00:00:00.000+01:00');
  expect(parseInstant('wednesday', 'UTC', now).toISO()).toBe('2026-11-25T00:00:00.000+00:00');
});

it('keeps chrono for the phrases PHP reads the same way', () => {
  const tue = weekday(1);
  expect(read('+2 weeks', tue)).toBe(on(24 + 14, '10:30'));
  expect(read('3 days ago', tue)).toBe(on(21, '10:30'));
  expect(read('next week', tue)).toBe(on(24 + 7, '10:30'));
});

it('refuses years outside 0001–9999, in UTC or in the zone the value is read in', () => {
  const now = weekday(0);
  for (const [value, tz] of [['9999-12-31 23:00', 'UTC-12'], ['0001-01-01 00:00', 'UTC+14'], ['0000-06-01', 'UTC'],
    ['10000-01-01', 'UTC'], [-62135596801, 'UTC'], [253402300800, 'UTC'], ['+10000 years', 'UTC'], ['1e20', 'UTC'],
    ['12345678901234567890', 'UTC']] as const) {
    expect(() => parseInstant(value, tz, now)).toThrow(ParamError);
  }
  expect(parseInstant('9999-12-31 23:00', 'UTC', now).toISO()).toBe('9999-12-31T23:00:00.000+00:00');
  expect(parseInstant(-62135596800, 'UTC', now).toISO()).toBe('0001-01-01T00:00:00.000+00:00');
});

it('clamps list bounds rounded past the last second any event can have', () => {
  const w = listWindow({ end_date: '9999-12-31', strict: false }, 'UTC-12');
  expect(w.endMax!.utc).toBe('9999-12-31 23:59:59');
});

it('reads a hundred characters of digits and spaces at once (no backtracking)', () => {
  expect(() => parseInstant('1 '.repeat(50), 'UTC')).toThrow(ParamError);
  expect(() => parseInstant(`next friday ${'9'.repeat(88)}`, 'UTC')).toThrow(ParamError);
});
