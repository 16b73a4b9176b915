import { ParamError } from '../../lib/http/errors.js';
import { listWindow, validateFilterDate, type Bound, type ListWindow } from '../../lib/time/list-bounds.js';

// Wednesday 2 July 2025 15:30 UTC = 11:30 EDT = Thursday 3 July 00:30 JST.
const NOW = new Date('2025-07-02T15:30:00Z');
const NY = 'America/New_York';
const TOKYO = 'Asia/Tokyo';

const incl = (utc: string): Bound => ({ utc, inclusive: true });
const excl = (utc: string): Bound => ({ utc, inclusive: false });

/** Does the window admit an event with these UTC start/end walls? (how the event list applies it) */
function admits(w: ListWindow, start: string, end: string): boolean {
  const above = (v: string, b?: Bound) => !b || (b.inclusive ? v >= b.utc : v > b.utc);
  const below = (v: string, b?: Bound) => !b || (b.inclusive ? v <= b.utc : v < b.utc);
  return above(start, w.startMin) && below(start, w.startMax) && above(end, w.endMin) && below(end, w.endMax);
}

describe('default window', () => {
  it('UTC site: from the start of yesterday to the end of the day 24 months ahead', () => {
    expect(listWindow({ strict: false }, 'UTC', NOW)).toEqual({
      startMin: incl('2025-07-01 00:00:00'),
      endMax: incl('2027-07-02 23:59:59'),
      echo: { start_date: '2025-07-01 00:00:00', end_date: '2027-07-02 23:59:59' },
    });
  });

  it('New York site (west of UTC): from the start of yesterday, local', () => {
    // yesterday 23:59 UTC = 1 July 19:59 EDT -> 1 July 00:00 EDT; now + 24 months = 2 July 2027 11:30 EDT.
    expect(listWindow({ strict: false }, NY, NOW)).toEqual({
      startMin: incl('2025-07-01 04:00:00'),
      endMax: incl('2027-07-03 03:59:59'),
      echo: { start_date: '2025-07-01 00:00:00', end_date: '2027-07-02 23:59:59' },
    });
  });

  it('Tokyo site (east of UTC): from the start of today, local', () => {
    // yesterday 23:59 UTC = 2 July 08:59 JST -> 2 July 00:00 JST; now + 24 months = 3 July 2027 00:30 JST.
    expect(listWindow({ strict: false }, TOKYO, NOW)).toEqual({
      startMin: incl('2025-07-01 15:00:00'),
      endMax: incl('2027-07-03 14:59:59'),
      echo: { start_date: '2025-07-02 00:00:00', end_date: '2027-07-03 23:59:59' },
    });
  });

  it('strict mode uses the default instants unrounded', () => {
    expect(listWindow({ strict: true }, NY, NOW)).toEqual({
      startMin: incl('2025-07-01 23:59:00'),
      endMax: incl('2027-07-02 15:30:00'),
      echo: { start_date: '2025-07-01 19:59:00', end_date: '2027-07-02 11:30:00' },
    });
  });

  it('treats undefined values as not given', () => {
    const w = listWindow({ strict: false, starts_after: undefined, ends_before: undefined }, 'UTC', NOW);
    expect(w.echo).toEqual({ start_date: '2025-07-01 00:00:00', end_date: '2027-07-02 23:59:59' });
  });

  it('excludes an event still running that started before the lower bound', () => {
    const w = listWindow({ strict: false }, 'UTC', NOW);
    expect(admits(w, '2025-06-30 23:00:00', '2025-07-05 00:00:00')).toBe(false);
    expect(admits(w, '2025-07-01 00:00:00', '2025-07-01 01:00:00')).toBe(true);
    expect(admits(w, '2027-07-02 20:00:00', '2027-07-03 00:00:00')).toBe(false);
  });
});

describe('start_date / end_date', () => {
  it('round to the whole local day of the value, read in the site zone', () => {
    const w = listWindow({ strict: false, start_date: '2024-07-01 15:00', end_date: '2024-07-03' }, NY, NOW);
    expect(w).toEqual({
      startMin: incl('2024-07-01 04:00:00'),
      endMax: incl('2024-07-04 03:59:59'),
      echo: { start_date: '2024-07-01 00:00:00', end_date: '2024-07-03 23:59:59' },
    });
  });

  it('take the date of an instant as seen in the site zone', () => {
    // 2 July 02:00 UTC is still 1 July in New York; timestamp 1719792000 = 1 July 00:00 UTC = 30 June in New York.
    expect(listWindow({ strict: false, start_date: '2024-07-02T02:00:00Z' }, NY, NOW).echo.start_date).toBe('2024-07-01 00:00:00');
    expect(listWindow({ strict: false, start_date: 1719792000 }, NY, NOW).echo.start_date).toBe('2024-06-30 00:00:00');
    expect(listWindow({ strict: false, start_date: '1719792000' }, TOKYO, NOW).echo.start_date).toBe('2024-07-01 00:00:00');
  });

  it('apply the other default when only one is given', () => {
    const w = listWindow({ strict: false, end_date: '2025-08-01' }, 'UTC', NOW);
    expect(w.startMin).toEqual(incl('2025-07-01 00:00:00'));
    expect(w.endMax).toEqual(incl('2025-08-01 23:59:59'));
  });

  it('accept relative phrases read in the site zone', () => {
    const w = listWindow({ strict: false, start_date: 'tomorrow', end_date: '+2 weeks' }, TOKYO, NOW);
    expect(w.echo).toEqual({ start_date: '2025-07-04 00:00:00', end_date: '2025-07-17 23:59:59' });
  });

  it('reproduce the inclusive/strict example of the reference', () => {
    // Events on 1 July 2024 (New York): 16:00-17:00 and 20:00-21:00; filter start 15:00, end 18:00 that day.
    const early = ['2024-07-01 20:00:00', '2024-07-01 21:00:00'] as const;
    const late = ['2024-07-02 00:00:00', '2024-07-02 01:00:00'] as const;
    const input = { start_date: '2024-07-01 15:00', end_date: '2024-07-01 18:00' };
    const inclusive = listWindow({ ...input, strict: false }, NY, NOW);
    expect([admits(inclusive, ...early), admits(inclusive, ...late)]).toEqual([true, true]);
    const strict = listWindow({ ...input, strict: true }, NY, NOW);
    expect([admits(strict, ...early), admits(strict, ...late)]).toEqual([true, false]);
  });

  it('strict: the reference docblock example, read in the site zone', () => {
    // The origin reads strict values as UTC (start 2017-12-20 19:00 NY); the contract reads them in the site
    // zone, so the bounds are midnight New York time (05:00 UTC) of each date.
    const w = listWindow({ strict: true, start_date: '2017-12-21', end_date: '2017-12-22' }, NY, NOW);
    expect(w).toEqual({
      startMin: incl('2017-12-21 05:00:00'),
      endMax: incl('2017-12-22 05:00:00'),
      echo: { start_date: '2017-12-21 00:00:00', end_date: '2017-12-22 00:00:00' },
    });
  });

  it('strict: values with an offset keep their instant', () => {
    const w = listWindow({ strict: true, start_date: '2024-07-01T15:00:00Z', end_date: '2024-07-01T18:00:00+02:00' }, NY, NOW);
    expect(w.startMin).toEqual(incl('2024-07-01 15:00:00'));
    expect(w.endMax).toEqual(incl('2024-07-01 16:00:00'));
    expect(w.echo).toEqual({ start_date: '2024-07-01 11:00:00', end_date: '2024-07-01 12:00:00' });
  });
});

describe('starts_before / starts_after / ends_before / ends_after', () => {
  it.each([
    ['starts_before', 'startMax'],
    ['starts_after', 'startMin'],
    ['ends_before', 'endMax'],
    ['ends_after', 'endMin'],
  ] as const)('%s rounds to the end of its day, exclusive, and drops the defaults', (key, slot) => {
    const w = listWindow({ strict: false, [key]: '2024-07-01 10:00' }, 'UTC', NOW);
    expect(w).toEqual({ [slot]: excl('2024-07-01 23:59:59'), echo: { [key]: '2024-07-01 23:59:59' } });
  });

  it('read the day in the site zone', () => {
    const w = listWindow({ strict: false, starts_after: '2024-07-01' }, NY, NOW);
    expect(w).toEqual({ startMin: excl('2024-07-02 03:59:59'), echo: { starts_after: '2024-07-01 23:59:59' } });
  });

  it('starts_after=D means from the next day; starts_before=D includes D', () => {
    const after = listWindow({ strict: false, starts_after: '2024-07-01' }, 'UTC', NOW);
    expect(admits(after, '2024-07-01 23:00:00', '2024-07-03 00:00:00')).toBe(false);
    expect(admits(after, '2024-07-02 00:00:00', '2024-07-02 01:00:00')).toBe(true);
    const before = listWindow({ strict: false, starts_before: '2024-07-01' }, 'UTC', NOW);
    expect(admits(before, '2024-07-01 23:00:00', '2024-07-02 01:00:00')).toBe(true);
    expect(admits(before, '2024-07-02 00:00:00', '2024-07-02 01:00:00')).toBe(false);
  });

  it('ends_after=D excludes events ending on D', () => {
    const w = listWindow({ strict: false, ends_after: '2024-07-01' }, 'UTC', NOW);
    expect(admits(w, '2024-06-30 10:00:00', '2024-07-01 23:00:00')).toBe(false);
    expect(admits(w, '2024-06-30 10:00:00', '2024-07-02 00:30:00')).toBe(true);
  });

  it('accept relative phrases', () => {
    const w = listWindow({ strict: false, starts_after: 'tomorrow', ends_before: '+2 weeks' }, NY, NOW);
    expect(w).toEqual({
      startMin: excl('2025-07-04 03:59:59'),
      endMax: excl('2025-07-17 03:59:59'),
      echo: { starts_after: '2025-07-03 23:59:59', ends_before: '2025-07-16 23:59:59' },
    });
  });

  it('strict: exact instants, no rounding', () => {
    const w = listWindow({ strict: true, starts_after: '2024-07-01 15:00', ends_before: '2024-07-01T20:00:00Z' }, NY, NOW);
    expect(w).toEqual({
      startMin: excl('2024-07-01 19:00:00'),
      endMax: excl('2024-07-01 20:00:00'),
      echo: { starts_after: '2024-07-01 15:00:00', ends_before: '2024-07-01 16:00:00' },
    });
  });

  it('combine with explicitly given start_date/end_date, keeping the stricter bound', () => {
    const laterStart = listWindow({ strict: false, starts_after: '2024-07-01', start_date: '2024-07-10' }, 'UTC', NOW);
    expect(laterStart.startMin).toEqual(incl('2024-07-10 00:00:00'));
    expect(laterStart.endMax).toBeUndefined(); // end_date default not applied
    expect(laterStart.echo).toEqual({ start_date: '2024-07-10 00:00:00', starts_after: '2024-07-01 23:59:59' });

    const laterAfter = listWindow({ strict: false, starts_after: '2024-07-01', start_date: '2024-06-01' }, 'UTC', NOW);
    expect(laterAfter.startMin).toEqual(excl('2024-07-01 23:59:59'));

    const ends = listWindow({ strict: false, ends_before: '2024-07-05', end_date: '2024-07-03', ends_after: '2024-07-01' }, 'UTC', NOW);
    expect(ends).toEqual({
      endMin: excl('2024-07-01 23:59:59'),
      endMax: incl('2024-07-03 23:59:59'),
      echo: { end_date: '2024-07-03 23:59:59', ends_before: '2024-07-05 23:59:59', ends_after: '2024-07-01 23:59:59' },
    });
  });

  it('prefer the exclusive bound when two bounds meet at the same instant', () => {
    const w = listWindow({ strict: true, start_date: '2024-07-01 12:00', starts_after: '2024-07-01 12:00' }, 'UTC', NOW);
    expect(w.startMin).toEqual(excl('2024-07-01 12:00:00'));
    const v = listWindow({ strict: true, end_date: '2024-07-01 12:00', ends_before: '2024-07-01 12:00' }, 'UTC', NOW);
    expect(v.endMax).toEqual(excl('2024-07-01 12:00:00'));
  });
});

describe('bad input', () => {
  it.each([['before my birthday'], [''], ['foo'], [true], [{}], [null]])('validateFilterDate rejects %p', (raw) => {
    expect(() => validateFilterDate(raw)).toThrow(ParamError);
  });

  it.each([['2024-07-01'], ['tomorrow'], [1700000000], ['next monday 9am'], ['2024-07-01T15:00:00+02:00']])(
    'validateFilterDate accepts %p unchanged',
    (raw) => {
      expect(validateFilterDate(raw)).toBe(raw);
    },
  );

  it('listWindow rejects an unparseable value', () => {
    expect(() => listWindow({ strict: false, ends_after: 'before my birthday' }, 'UTC', NOW)).toThrow(ParamError);
    expect(() => listWindow({ strict: false, start_date: '' }, NY, NOW)).toThrow(ParamError);
  });
});
