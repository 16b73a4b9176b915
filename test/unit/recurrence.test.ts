/**
 * The recurrence rules module (lib/events/recurrence.ts): line parsing and canonical text, the add-on's object form,
 * expansion in wall time across daylight-saving changes, and the cut of a split. The HTTP behaviour is in
 * test/contract/recurrence.test.ts.
 */
import { expand, parseLine, parseRecurrenceParam, recurrenceLines, splitLines, storedLines } from '../../lib/events/recurrence.js';
import { ParamError } from '../../lib/model/errors.js';
import { wallToUtc } from '../../lib/time/format.js';

const berlin = { start: '2027-01-05 18:00:00', tz: 'Europe/Berlin', allDay: false };
const HORIZON = '2028-12-31 23:59:59';
const lines = (texts: string[]) => storedLines(texts);

describe('lines', () => {
  test('any letter case in, upper case out, parts in the order sent', () => {
    expect(parseLine('rrule:freq=weekly;byday=tu,th;interval=2').text).toBe('RRULE:FREQ=WEEKLY;BYDAY=TU,TH;INTERVAL=2');
    expect(parseLine('rdate;tzid=Europe/Lisbon:20270301t100000').text).toBe('RDATE;TZID=Europe/Lisbon:20270301T100000');
    expect(parseLine('EXDATE:20270301').text).toBe('EXDATE;VALUE=DATE:20270301');
    expect(parseLine('RRULE:FREQ=MONTHLY;BYDAY=-1FR').text).toBe('RRULE:FREQ=MONTHLY;BYDAY=-1FR');
  });

  test.each([
    ['RRULE:FREQ=DAILY;DTSTART=20270101T000000', /DTSTART/],
    ['RRULE:FREQ=DAILY;FREQ=WEEKLY', /repeats FREQ/],
    ['RRULE:FREQ=DAILY;BYMONTH=13', /BYMONTH/],
    ['RRULE:FREQ=DAILY;INTERVAL=0', /INTERVAL/],
    ['RDATE;TZID=Mars/Olympus:20270101T000000', /unknown time zone/],
    ['RDATE;VALUE=PERIOD:20270101T000000/PT1H', /parameter/],
    ['RDATE;VALUE=DATE:20270101T000000', /VALUE=DATE/],
    ['RDATE:20270101,20270102T100000', /mixes/],
    ['RDATE:20270230', /exists/],
    ['DTSTART:20270101T000000', /not RRULE, RDATE or EXDATE/],
    ['RRULE FREQ=DAILY', /no ":"/],
  ])('%s is refused', (line, message) => {
    expect(() => parseLine(line)).toThrow(ParamError);
    expect(() => parseLine(line)).toThrow(message);
  });

  test('the parameter: a list, lines in one string, [] or null; nothing else', () => {
    expect(parseRecurrenceParam('RRULE:FREQ=DAILY;COUNT=2\r\nEXDATE:20270102')).toEqual({ lines: [parseLine('RRULE:FREQ=DAILY;COUNT=2'),
      parseLine('EXDATE:20270102')] });
    expect(parseRecurrenceParam([])).toEqual({ lines: [] });
    expect(parseRecurrenceParam(null)).toEqual({ lines: [] });
    expect(() => parseRecurrenceParam(7)).toThrow(ParamError);
    expect(() => parseRecurrenceParam(Array(101).fill('RDATE:20270101'))).toThrow(/at most 100/);
  });
});

describe('the add-on\'s object form', () => {
  const translate = (o: object, timing = berlin) => recurrenceLines({ object: o as Record<string, unknown> }, timing).map((l) => l.text);

  test('types, "on" phrases and ends', () => {
    expect(translate({ rules: [{ type: 'Every-Week', on: 'monday, wednesday', end_type: 'After', end_count: 10 }] }))
      .toEqual(['RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10']);
    expect(translate({ rules: [{ type: 'every-day' }] })).toEqual(['RRULE:FREQ=DAILY']);
    expect(translate({ rules: [{ type: 'every-month', on: '15', end_type: 'never' }] })).toEqual(['RRULE:FREQ=MONTHLY;BYMONTHDAY=15']);
    expect(translate({ rules: [{ type: 'every-year', on: 'last sunday' }] })).toEqual(['RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=1']);
    // "On" an end date: the last day an occurrence may start, in the event's zone, as UTC.
    expect(translate({ rules: [{ type: 'every-week', end_type: 'on', end: '2027-03-31' }] })).toEqual(['RRULE:FREQ=WEEKLY;UNTIL=20270331T215959Z']);
    expect(translate({ rules: [{ type: 'every-day', interval: 3 }, { type: 'date', date: '2027-02-20' }], exclusions: ['2027-01-08',
      { date: '2027-01-11' }] })).toEqual(['RRULE:FREQ=DAILY;INTERVAL=3', 'RDATE;VALUE=DATE:20270220', 'EXDATE;VALUE=DATE:20270108,20270111']);
  });

  test.each([
    [{ rules: [{ type: 'every-fortnight' }] }, /rules\[0\]\.type/],
    [{ rules: [{ type: 'every-week', on: 'first monday' }] }, /monthly or yearly/],
    [{ rules: [{ type: 'every-day' }, { type: 'every-week' }] }, /only one repeating rule/],
    [{ rules: [{ type: 'every-day', end_type: 'On', end: 'soon' }] }, /rules\[0\]\.end/],
    [{ rules: [{ type: 'every-day', end_type: 'After', end_count: 0 }] }, /end_count/],
    [{ rules: [{ type: 'every-day', end_type: 'sometimes' }] }, /end_type/],
    [{ rules: [{ type: 'every-day' }], exclusions: [{ type: 'Rule', custom: { type: 'Weekly' } }] }, /exclusions\[0\]/],
    [{ rules: [], frequency: 'daily' }, /recurrence\.frequency/],
  ])('%j is refused, naming the part', (o, message) => {
    expect(() => translate(o)).toThrow(message);
  });
});

describe('expansion', () => {
  test('wall-clock starts across both daylight-saving changes of a year', () => {
    const { starts, open } = expand(lines(['RRULE:FREQ=WEEKLY;COUNT=52']), berlin, HORIZON);
    expect(open).toBe(false);
    expect(starts).toHaveLength(52);
    expect(starts.every((s) => s.endsWith('18:00:00'))).toBe(true);
    expect(new Set(starts.map((s) => wallToUtc(s, 'Europe/Berlin').slice(11)))).toEqual(new Set(['17:00:00', '16:00:00']));
  });

  test('UNTIL as a date ends the rule after that day in the series\' zone, also once stored (east of UTC included)', () => {
    const line = parseLine('RRULE:FREQ=DAILY;UNTIL=20270108');
    expect(line.text).toBe('RRULE:FREQ=DAILY;UNTIL=20270108');
    const { starts } = expand(storedLines([line.text]), berlin, HORIZON);
    expect(starts).toEqual(['2027-01-05 18:00:00', '2027-01-06 18:00:00', '2027-01-07 18:00:00', '2027-01-08 18:00:00']);
    expect(parseLine('RRULE:FREQ=DAILY;UNTIL=20270108T170000Z').text).toBe('RRULE:FREQ=DAILY;UNTIL=20270108T170000Z');
    expect(expand(lines(['RRULE:FREQ=DAILY;UNTIL=20270108T165959Z']), berlin, HORIZON).starts).toHaveLength(3);
  });

  test('the first occurrence is the start, even beyond the horizon and whatever the rule says', () => {
    expect(expand(lines(['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=2']), berlin, HORIZON).starts)
      .toEqual(['2027-01-05 18:00:00', '2027-01-11 18:00:00', '2027-01-18 18:00:00']);
    expect(expand(lines(['RRULE:FREQ=DAILY']), { ...berlin, start: '2030-01-01 10:00:00' }, HORIZON))
      .toEqual({ starts: ['2030-01-01 10:00:00'], open: true });
  });

  test('an open rule stops at the horizon and says so; UNTIL in UTC is an instant', () => {
    const open = expand(lines(['RRULE:FREQ=MONTHLY']), berlin, HORIZON);
    expect(open.open).toBe(true);
    expect(open.starts.at(-1)).toBe('2028-12-05 18:00:00');
    // 17:00 UTC is 18:00 in Berlin in January: the occurrence of that instant is the last.
    expect(expand(lines(['RRULE:FREQ=DAILY;UNTIL=20270107T170000Z']), berlin, HORIZON).starts).toHaveLength(3);
  });

  test('a time that does not exist on a spring-forward day still gives an occurrence', () => {
    const { starts } = expand(lines(['RRULE:FREQ=DAILY;COUNT=3']), { start: '2027-03-27 02:30:00', tz: 'Europe/Berlin', allDay: false },
      HORIZON);
    expect(starts).toEqual(['2027-03-27 02:30:00', '2027-03-28 02:30:00', '2027-03-29 02:30:00']);
    expect(() => wallToUtc(starts[1]!, 'Europe/Berlin')).not.toThrow();
  });

  test('an EXDATE of the first occurrence is refused; more than 1,000 within the horizon are refused', () => {
    expect(() => expand(lines(['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE;TZID=Europe/Berlin:20270105T180000']), berlin, HORIZON))
      .toThrow(/first occurrence/);
    expect(() => expand(lines(['RRULE:FREQ=DAILY;COUNT=1001']), { ...berlin, start: '2025-01-01 10:00:00' }, '2031-01-01 00:00:00'))
      .toThrow(/more than 1000/);
  });
});

describe('splitting at an occurrence', () => {
  test('COUNT: the earlier part ends before it (UTC UNTIL), the later part counts what is left; dates go to their side', () => {
    const cut = splitLines(['RRULE:FREQ=WEEKLY;COUNT=5', 'RDATE;VALUE=DATE:20270108,20270301', 'EXDATE:20270126T180000'], berlin,
      '2027-01-19 18:00:00');
    expect(cut.before).toEqual(['RRULE:FREQ=WEEKLY;UNTIL=20270119T165959Z', 'RDATE;VALUE=DATE:20270108']);
    expect(cut.after).toEqual(['RRULE:FREQ=WEEKLY;COUNT=3', 'RDATE;VALUE=DATE:20270301', 'EXDATE:20270126T180000']);
  });

  test('UNTIL and open rules continue as they were', () => {
    expect(splitLines(['RRULE:FREQ=DAILY'], berlin, '2027-01-07 18:00:00').after).toEqual(['RRULE:FREQ=DAILY']);
    expect(splitLines(['RRULE:FREQ=DAILY;UNTIL=20270301T000000Z'], berlin, '2027-01-07 18:00:00'))
      .toEqual({ before: ['RRULE:FREQ=DAILY;UNTIL=20270107T165959Z'], after: ['RRULE:FREQ=DAILY;UNTIL=20270301T000000Z'] });
  });
});
