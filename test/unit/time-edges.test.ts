/**
 * Edges of the time code beyond time.test.ts: half-hour DST, midnight transitions, historical local mean time,
 * small years, 24:00, month-end arithmetic of the default window. Each expectation matches what the code gave
 * when it ran on luxon, except where a test says otherwise.
 */
import { isoWithOffset, utcToWall, wallToUtc } from '../../lib/time/format.js';
import { listWindow } from '../../lib/time/list-bounds.js';
import { parseInstant, parseWriteDate } from '../../lib/time/parse.js';
import { timezoneAbbr, zoneOf } from '../../lib/time/zones.js';
import { ParamError } from '../../lib/http/errors.js';

describe('DST in unusual zones', () => {
  it('takes the first occurrence in a half-hour overlap (Lord Howe, 02:00 -> 01:30)', () => {
    expect(wallToUtc('2025-04-06 01:45:00', 'Australia/Lord_Howe')).toBe('2025-04-05 14:45:00'); // +11:00
    expect(wallToUtc('2025-04-06 01:29:59', 'Australia/Lord_Howe')).toBe('2025-04-05 14:29:59');
    expect(isoWithOffset('2025-04-06 02:00:00', 'Australia/Lord_Howe')).toBe('2025-04-06T02:00:00+10:30');
  });

  it('moves a half-hour gap forward by half an hour (Lord Howe, 02:00 -> 02:30)', () => {
    expect(utcToWall(wallToUtc('2025-10-05 02:15:00', 'Australia/Lord_Howe'), 'Australia/Lord_Howe')).toBe('2025-10-05 02:45:00');
  });

  it('moves a midnight gap forward (Santiago, 00:00 -> 01:00)', () => {
    expect(wallToUtc('2025-09-07 00:00:00', 'America/Santiago')).toBe('2025-09-07 04:00:00');
    expect(parseWriteDate('2025-09-07', 'America/Santiago').local).toBe('2025-09-07 01:00:00');
  });

  it('converts in Kathmandu (+5:45) and Chatham (+13:45 in summer)', () => {
    expect(wallToUtc('2025-01-01 12:00:00', 'Asia/Kathmandu')).toBe('2025-01-01 06:15:00');
    expect(isoWithOffset('2025-01-01 12:00:00', 'Pacific/Chatham')).toBe('2025-01-01T12:00:00+13:45');
  });

  it('gives the same results whatever the overlap is approached from', () => {
    for (const wall of ['2025-11-02 01:00:00', '2025-11-02 01:30:00', '2025-11-02 01:59:59']) {
      const utc = wallToUtc(wall, 'America/New_York');
      expect(utcToWall(utc, 'America/New_York')).toBe(wall);
      expect(timezoneAbbr('America/New_York', utc)).toBe('EDT');
    }
  });
});

describe('day bounds around midnight transitions (Havana: 01:00 -> 00:00 on 2 November 2025)', () => {
  const HAVANA = 'America/Havana';

  it('starts a day whose midnight happens twice at the first midnight', () => {
    // luxon picked the midnight with the offset of the value given (05:00 UTC for 01:30 standard time).
    for (const value of ['2025-11-02 01:30', '2025-11-02 00:30', '2025-11-02 12:00']) {
      const w = listWindow({ start_date: value, strict: false }, HAVANA, new Date('2025-07-01T12:00:00Z'));
      expect(w.echo.start_date).toBe('2025-11-02 00:00:00');
      expect(w.startMin).toEqual({ utc: '2025-11-02 04:00:00', inclusive: true });
    }
  });

  it('ends the day before at its own 23:59:59', () => {
    // luxon's endOf('day') gave 2 November 00:59:59 here (the next day's first midnight hour).
    const w = listWindow({ end_date: 'now', strict: false }, HAVANA, new Date('2025-11-01T16:00:00Z'));
    expect(w.echo.end_date).toBe('2025-11-01 23:59:59');
    expect(w.endMax).toEqual({ utc: '2025-11-02 03:59:59', inclusive: true });
  });
});

describe('offsets', () => {
  it('keeps the sign of historical offsets just west of UTC (London local mean time, -0:01:15)', () => {
    expect(wallToUtc('1800-01-01 12:00:00', 'Europe/London')).toBe('1800-01-01 12:01:15');
    expect(utcToWall('1800-01-01 12:01:15', 'Europe/London')).toBe('1800-01-01 12:00:00');
    expect(isoWithOffset('1800-01-01 12:00:00', 'Europe/London')).toBe('1800-01-01T12:00:00-00:01');
    expect(zoneOf('Europe/Dublin').offset(Date.parse('1900-06-01T00:00:00Z'))).toBeCloseTo(-25.35, 2);
  });

  it('handles offset zones under an hour on both sides of UTC', () => {
    expect(wallToUtc('2025-03-01 20:00:00', 'UTC-0:30')).toBe('2025-03-01 20:30:00');
    expect(wallToUtc('2025-03-01 20:00:00', 'UTC+0:45')).toBe('2025-03-01 19:15:00');
    expect(isoWithOffset('2025-03-01 20:00:00', 'UTC-0:30')).toBe('2025-03-01T20:00:00-00:30');
    expect(parseWriteDate('2025-03-01T20:00:00Z', 'UTC-0:30')).toEqual({ local: '2025-03-01 19:30:00', utc: '2025-03-01 20:00:00' });
    expect(timezoneAbbr('UTC-0:30', '2025-03-01 20:00:00')).toBe('UTC-0:30');
    expect(timezoneAbbr('UTC-0', '2025-03-01 20:00:00')).toBe('UTC+0');
  });

  it('reads an ISO offset under an hour west of UTC', () => {
    expect(parseWriteDate('2025-03-01T20:00:00-00:30', 'UTC')).toEqual({ local: '2025-03-01 20:30:00', utc: '2025-03-01 20:30:00' });
  });
});

describe('calendar edges', () => {
  it('keeps years below 100 as written', () => {
    expect(parseWriteDate('0050-06-15 12:00', 'UTC')).toEqual({ local: '0050-06-15 12:00:00', utc: '0050-06-15 12:00:00' });
    expect(parseWriteDate('0001-01-01', 'UTC').local).toBe('0001-01-01 00:00:00');
    expect(wallToUtc('0001-01-01 00:00:00', 'UTC+5:30')).toBe('0000-12-31 18:30:00');
  });

  it('rejects years outside 1..9999 in the zone', () => {
    expect(() => parseInstant('0000-06-15', 'UTC')).toThrow(ParamError);
    expect(() => parseInstant(-62135596801, 'UTC')).toThrow(ParamError); // 0000-12-31 23:59:59 UTC
    expect(() => parseInstant(253402300800, 'UTC')).toThrow(ParamError); // 10000-01-01
    expect(() => parseInstant(8_640_000_000_000, 'UTC+5:30')).toThrow(ParamError); // the last instant a Date holds
    expect(parseWriteDate(253402300799, 'UTC').utc).toBe('9999-12-31 23:59:59');
  });

  it('reads 24:00 as the end of the day, and nothing later', () => {
    expect(parseWriteDate('2025-03-01 24:00', 'UTC').local).toBe('2025-03-02 00:00:00');
    expect(parseWriteDate('2025-02-28T24:00:00Z', 'UTC').local).toBe('2025-03-01 00:00:00');
    expect(() => parseInstant('2025-03-01 24:30', 'UTC')).toThrow(ParamError);
    expect(() => parseInstant('2025-03-01 23:60', 'UTC')).toThrow(ParamError);
    expect(() => parseInstant('2024-02-30', 'UTC')).toThrow(ParamError);
    expect(parseWriteDate('2024-02-29', 'UTC').local).toBe('2024-02-29 00:00:00');
  });

  it('truncates to whole seconds before 1970 too', () => {
    expect(parseWriteDate('1969-12-31T23:59:59.900Z', 'UTC').utc).toBe('1969-12-31 23:59:59');
  });

  it('clamps the default end to the last day of a shorter month', () => {
    expect(listWindow({ strict: false }, 'UTC', new Date('2024-02-29T12:00:00Z')).echo)
      .toEqual({ start_date: '2024-02-28 00:00:00', end_date: '2026-02-28 23:59:59' });
    expect(listWindow({ strict: true }, 'UTC', new Date('2025-01-31T12:00:00.750Z')).echo)
      .toEqual({ start_date: '2025-01-30 23:59:00', end_date: '2027-01-31 12:00:00' });
  });
});
