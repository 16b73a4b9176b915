import { ParamError } from '../../lib/http/errors.js';
import { dateDetails, isoWithOffset, nowUtcWall, utcToWall, wallToUtc } from '../../lib/time/format.js';
import { parseInstant, parseWriteDate } from '../../lib/time/parse.js';
import { normalizeTimezone, timezoneAbbr, toLuxonZone } from '../../lib/time/zones.js';

// Wednesday 2 July 2025: 11:30 EDT in New York, already Thursday 00:30 JST in Tokyo.
const NOW = new Date('2025-07-02T15:30:00Z');
const NY = 'America/New_York';

describe('format', () => {
  it('splits a wall string into zero-padded date details', () => {
    expect(dateDetails('2025-03-01 07:05:09')).toEqual({
      year: '2025', month: '03', day: '01', hour: '07', minutes: '05', seconds: '09',
    });
    expect(() => dateDetails('2025-03-01T07:05:09')).toThrow();
  });

  it('converts wall clock to UTC and back, honouring DST', () => {
    expect(wallToUtc('2025-03-01 20:00:00', 'Europe/Berlin')).toBe('2025-03-01 19:00:00');
    expect(wallToUtc('2025-07-01 20:00:00', 'Europe/Berlin')).toBe('2025-07-01 18:00:00');
    expect(wallToUtc('2025-01-15 20:00:00', NY)).toBe('2025-01-16 01:00:00');
    expect(utcToWall('2025-07-01 18:00:00', 'Europe/Berlin')).toBe('2025-07-01 20:00:00');
    expect(utcToWall('2025-01-16 01:00:00', NY)).toBe('2025-01-15 20:00:00');
    expect(wallToUtc('2025-03-01 20:00:00', 'UTC')).toBe('2025-03-01 20:00:00');
  });

  it('converts with fixed-offset zones', () => {
    expect(wallToUtc('2025-03-01 20:00:00', 'UTC+5:30')).toBe('2025-03-01 14:30:00');
    expect(wallToUtc('2025-03-01 20:00:00', 'UTC-3:30')).toBe('2025-03-01 23:30:00');
    expect(utcToWall('2025-03-01 23:00:00', 'UTC+14')).toBe('2025-03-02 13:00:00');
  });

  it('moves a wall time inside a DST gap forward by the gap', () => {
    // 02:30 does not exist in New York on 9 March 2025: it becomes 03:30 EDT.
    expect(wallToUtc('2025-03-09 02:30:00', NY)).toBe('2025-03-09 07:30:00');
    expect(utcToWall('2025-03-09 07:30:00', NY)).toBe('2025-03-09 03:30:00');
  });

  it('picks the first occurrence of a wall time inside a DST overlap', () => {
    expect(wallToUtc('2025-11-02 01:30:00', NY)).toBe('2025-11-02 05:30:00'); // EDT, not EST (06:30)
    expect(wallToUtc('2025-10-26 02:30:00', 'Europe/Berlin')).toBe('2025-10-26 00:30:00'); // CEST
    expect(wallToUtc('2025-11-02 02:30:00', NY)).toBe('2025-11-02 07:30:00'); // after the overlap
  });

  it('formats ISO 8601 with the offset in force', () => {
    expect(isoWithOffset('2025-03-01 20:00:00', 'Europe/Berlin')).toBe('2025-03-01T20:00:00+01:00');
    expect(isoWithOffset('2025-07-01 20:00:00', 'Europe/Berlin')).toBe('2025-07-01T20:00:00+02:00');
    expect(isoWithOffset('2025-07-01 20:00:00', NY)).toBe('2025-07-01T20:00:00-04:00');
    expect(isoWithOffset('2025-07-01 20:00:00', 'UTC')).toBe('2025-07-01T20:00:00+00:00');
    expect(isoWithOffset('2025-07-01 20:00:00', 'UTC+5:30')).toBe('2025-07-01T20:00:00+05:30');
  });

  it('gives now as a UTC wall string', () => {
    expect(nowUtcWall(new Date('2025-07-02T15:30:07.789Z'))).toBe('2025-07-02 15:30:07');
    expect(nowUtcWall()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('rejects malformed wall strings', () => {
    expect(() => wallToUtc('2025-02-30 10:00:00', 'UTC')).toThrow();
    expect(() => utcToWall('tomorrow', 'UTC')).toThrow();
  });
});

describe('zones', () => {
  it.each([
    ['America/New_York', 'America/New_York'],
    ['america/new_york', 'America/New_York'],
    ['EUROPE/BERLIN', 'Europe/Berlin'],
    ['Asia/Kolkata', 'Asia/Kolkata'], // a link name stays as written (ICU would say Asia/Calcutta)
    ['UTC', 'UTC'],
    ['utc', 'UTC'],
    ['UTC+5', 'UTC+5'],
    ['utc+5', 'UTC+5'],
    ['UTC-3:30', 'UTC-3:30'],
    ['UTC+05:30', 'UTC+5:30'],
    ['UTC+05:00', 'UTC+5'],
    ['UTC+14', 'UTC+14'],
    ['UTC-12', 'UTC-12'],
    ['UTC-0', 'UTC+0'],
  ])('normalises %s to %s', (raw, expected) => {
    expect(normalizeTimezone(raw)).toBe(expected);
  });

  it.each([
    [''], ['  '], ['UTC+14:30'], ['UTC-12:30'], ['UTC+15'], ['UTC-13'], ['UTC+5:60'], ['UTC+'], ['UTC5'],
    ['+02:00'], ['-05:00'], ['Mars/Olympus_Mons'], ['New York'], [5], [null], [undefined], [{}],
  ])('rejects %p', (raw) => {
    expect(() => normalizeTimezone(raw)).toThrow(ParamError);
  });

  it('builds luxon zones, fixed ones for offsets', () => {
    expect(toLuxonZone('UTC+5:30').offset(0)).toBe(330);
    expect(toLuxonZone('UTC-3:30').offset(0)).toBe(-210);
    expect(toLuxonZone('UTC').offset(Date.parse('2025-07-01T00:00:00Z'))).toBe(0);
    const ny = toLuxonZone('america/new_york');
    expect(ny.name).toBe(NY);
    expect(ny.offset(Date.parse('2025-07-01T00:00:00Z'))).toBe(-240);
    expect(ny.offset(Date.parse('2025-01-01T00:00:00Z'))).toBe(-300);
    expect(() => toLuxonZone('Nowhere/Land')).toThrow(ParamError);
  });

  it.each([
    [NY, '2025-01-15 12:00:00', 'EST'],
    [NY, '2025-07-15 12:00:00', 'EDT'],
    [NY, '2025-03-09 06:59:59', 'EST'],
    [NY, '2025-03-09 07:00:00', 'EDT'],
    ['Europe/Berlin', '2025-01-15 12:00:00', 'CET'],
    ['Europe/Berlin', '2025-07-15 12:00:00', 'CEST'],
    ['Europe/London', '2025-01-15 12:00:00', 'GMT'],
    ['Europe/London', '2025-07-15 12:00:00', 'BST'],
    ['UTC', '2025-07-15 12:00:00', 'UTC'],
    ['UTC+5', '2025-07-15 12:00:00', 'UTC+5'],
    ['UTC-3:30', '2025-07-15 12:00:00', 'UTC-3:30'],
    ['Asia/Tokyo', '2025-07-15 12:00:00', 'GMT+9'],
  ])('abbreviates %s at %s as %s', (tz, utc, abbr) => {
    expect(timezoneAbbr(tz, utc)).toBe(abbr);
  });
});

describe('parseInstant / parseWriteDate', () => {
  const write = (raw: unknown, tz = NY, now = NOW) => parseWriteDate(raw, tz, now);

  it('reads plain dates and times as wall clock in the event zone', () => {
    expect(write('2025-03-01')).toEqual({ local: '2025-03-01 00:00:00', utc: '2025-03-01 05:00:00' });
    expect(write('2025-03-01 20:00')).toEqual({ local: '2025-03-01 20:00:00', utc: '2025-03-02 01:00:00' });
    expect(write('2025-07-01 20:00:05')).toEqual({ local: '2025-07-01 20:00:05', utc: '2025-07-02 00:00:05' });
    expect(write('2025-07-01T20:00')).toEqual({ local: '2025-07-01 20:00:00', utc: '2025-07-02 00:00:00' });
    expect(write('2025-03-01 20:00:00', 'Europe/Rome')).toEqual({ local: '2025-03-01 20:00:00', utc: '2025-03-01 19:00:00' });
    expect(write('2025-03-01 20:00:00', 'UTC+5:30')).toEqual({ local: '2025-03-01 20:00:00', utc: '2025-03-01 14:30:00' });
  });

  it('converts ISO 8601 with Z or an offset into the event zone', () => {
    expect(write('2025-03-01T20:00:00Z', 'Europe/Rome')).toEqual({ local: '2025-03-01 21:00:00', utc: '2025-03-01 20:00:00' });
    expect(write('2025-07-01T15:00:00+02:00')).toEqual({ local: '2025-07-01 09:00:00', utc: '2025-07-01 13:00:00' });
    expect(write('2025-07-01 15:00:00+0200')).toEqual({ local: '2025-07-01 09:00:00', utc: '2025-07-01 13:00:00' });
    expect(write('2025-07-01T15:00:00.999z', 'Asia/Tokyo')).toEqual({ local: '2025-07-02 00:00:00', utc: '2025-07-01 15:00:00' });
  });

  it('converts Unix timestamps (seconds) into the event zone', () => {
    // The origin would store the UTC digits 22:13:20 as New York time; the contract converts.
    expect(write(1700000000)).toEqual({ local: '2023-11-14 17:13:20', utc: '2023-11-14 22:13:20' });
    expect(write('1700000000')).toEqual({ local: '2023-11-14 17:13:20', utc: '2023-11-14 22:13:20' });
    expect(write('-86400', 'UTC')).toEqual({ local: '1969-12-31 00:00:00', utc: '1969-12-31 00:00:00' });
    expect(write(0, 'Asia/Tokyo')).toEqual({ local: '1970-01-01 09:00:00', utc: '1970-01-01 00:00:00' });
  });

  it.each([
    ['now', '2025-07-02 11:30:00'],
    ['today', '2025-07-02 00:00:00'],
    ['tomorrow', '2025-07-03 00:00:00'],
    ['Tomorrow', '2025-07-03 00:00:00'],
    ['yesterday', '2025-07-01 00:00:00'],
    ['tomorrow 9am', '2025-07-03 09:00:00'],
    ['next wednesday 4pm', '2025-07-09 16:00:00'],
    ['2018-01-01 4pm', '2018-01-01 16:00:00'],
    ['next monday 9am', '2025-07-07 09:00:00'],
    ['next monday', '2025-07-07 00:00:00'],
    ['+2 weeks', '2025-07-16 11:30:00'],
    ['+5 weeks', '2025-08-06 11:30:00'],
    ['-1 day', '2025-07-01 11:30:00'],
    ['+1 month', '2025-08-02 11:30:00'],
    ['in 3 days', '2025-07-05 11:30:00'],
    ['in 3 hours', '2025-07-02 14:30:00'],
    ['  tomorrow 9am  ', '2025-07-03 09:00:00'],
  ])('reads %p in New York relative to now', (raw, local) => {
    expect(write(raw).local).toBe(local);
  });

  it('gives the UTC instant of a phrase', () => {
    expect(write('now')).toEqual({ local: '2025-07-02 11:30:00', utc: '2025-07-02 15:30:00' });
    expect(write('tomorrow 9am')).toEqual({ local: '2025-07-03 09:00:00', utc: '2025-07-03 13:00:00' });
    expect(write('2018-01-01 4pm')).toEqual({ local: '2018-01-01 16:00:00', utc: '2018-01-01 21:00:00' });
  });

  it('takes "today" from the calendar of the given zone', () => {
    expect(write('today', 'Asia/Tokyo').local).toBe('2025-07-03 00:00:00');
    expect(write('tomorrow', 'Asia/Tokyo')).toEqual({ local: '2025-07-04 00:00:00', utc: '2025-07-03 15:00:00' });
    expect(write('today', 'UTC').local).toBe('2025-07-02 00:00:00');
    const lateEvening = new Date('2025-07-02T02:00:00Z'); // 1 July 22:00 in New York
    expect(write('today', NY, lateEvening).local).toBe('2025-07-01 00:00:00');
    expect(write('now', 'UTC-3:30', lateEvening)).toEqual({ local: '2025-07-01 22:30:00', utc: '2025-07-02 02:00:00' });
  });

  it('handles phrases across DST changes', () => {
    const beforeSpring = new Date('2025-03-08T17:00:00Z'); // Sat 8 March 12:00 EST
    expect(write('+1 day', NY, beforeSpring)).toEqual({ local: '2025-03-09 12:00:00', utc: '2025-03-09 16:00:00' });
    expect(write('in 24 hours', NY, beforeSpring)).toEqual({ local: '2025-03-09 13:00:00', utc: '2025-03-09 17:00:00' });
    expect(write('tomorrow 9am', NY, beforeSpring)).toEqual({ local: '2025-03-09 09:00:00', utc: '2025-03-09 13:00:00' });
    expect(write('tomorrow 2:30am', NY, beforeSpring).local).toBe('2025-03-09 03:30:00'); // inside the gap
    const beforeFall = new Date('2025-11-01T16:00:00Z'); // Sat 1 November 12:00 EDT
    expect(write('tomorrow 9am', NY, beforeFall)).toEqual({ local: '2025-11-02 09:00:00', utc: '2025-11-02 14:00:00' });
    expect(write('tomorrow', NY, beforeFall)).toEqual({ local: '2025-11-02 00:00:00', utc: '2025-11-02 04:00:00' });
    expect(write('+1 week', 'Europe/Berlin', new Date('2025-10-20T10:00:00Z'))).toEqual({
      local: '2025-10-27 12:00:00', utc: '2025-10-27 11:00:00',
    });
  });

  it('honours an explicit zone abbreviation in a phrase', () => {
    expect(write('tomorrow 9am EST', 'UTC')).toEqual({ local: '2025-07-03 14:00:00', utc: '2025-07-03 14:00:00' });
  });

  it('resolves DST gaps and overlaps in plain wall times', () => {
    expect(write('2025-03-09 02:30')).toEqual({ local: '2025-03-09 03:30:00', utc: '2025-03-09 07:30:00' });
    expect(write('2025-11-02 01:30')).toEqual({ local: '2025-11-02 01:30:00', utc: '2025-11-02 05:30:00' });
  });

  it('returns a luxon DateTime in the requested zone', () => {
    const dt = parseInstant('2025-03-01T20:00:00Z', 'Europe/Berlin', NOW);
    expect(dt.zoneName).toBe('Europe/Berlin');
    expect(dt.toISO()).toBe('2025-03-01T21:00:00.000+01:00');
    expect(parseInstant('now', 'UTC', new Date('2025-07-02T15:30:00.750Z')).millisecond).toBe(0);
  });

  it.each([
    ['before my birthday'], [''], ['   '], ['foo'], ['tomorrow banana'], ['banana tomorrow'], ['tomorrow to friday'],
    ['2025-02-30'], ['2025-13-01'], ['2025-03-01 25:00'], ['2025-03-01T20:00:00+25:00'], ['2025-03-01 20:00:00+25:00'], ['2025-03-01T25:00:00Z'], ['1.5'], ['99999999999999'],
    [1.5], [Number.NaN], [Number.POSITIVE_INFINITY], [1e15], [true], [false], [null], [undefined], [{}], [[]],
    [['2025-03-01']], [{ date: '2025-03-01' }],
  ])('rejects %p', (raw) => {
    expect(() => parseInstant(raw, NY, NOW)).toThrow(ParamError);
  });

  it('explains the expected format', () => {
    expect(() => parseInstant('foo', NY, NOW)).toThrow(/2025-03-01 20:00.*tomorrow 9am/);
  });

  it('rejects an unknown zone', () => {
    expect(() => parseInstant('2025-03-01', 'Nowhere/Land', NOW)).toThrow(ParamError);
  });
});
