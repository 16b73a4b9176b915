/**
 * GET /events date filters in a UTC site (contract §6, reference §6.1): the default window, whole-day rounding,
 * strict_dates, the relative starts_/ends_ bounds and how they drop the defaults, multi-month events, events in
 * other time zones compared on their UTC times, ISO/offset/timestamp values, and what rest_url echoes.
 *
 * Every test puts its events on a far-future day range of its own (DayAllocator) and filters around it; the
 * default-window tests use near dates and find their events with a unique search word.
 */
import { DateTime } from 'luxon';
import type { FormValue } from '../support/api.js';
import { api } from '../support/api.js';
import {
  addDays, at, createEvent as createRaw, DayAllocator, eventsBase, list, listIds as listAll, onDay, queryOf, unix, uniqueWord,
  ymd, type Json,
} from './helpers/list.js';

const days = new DayAllocator(2061, 2090);
const ids = (events: Json[]) => events.map((e) => e.id as number);
const DAY_MS = 86_400_000;

/**
 * Other test files create events on random far-future days too. The blocks of this file never overlap, so the
 * assertions look only at the events this file created: `listIds` drops everyone else's from the answer.
 */
const ours = new Set<number>();
const createEvent = async (spec: Json): Promise<Json> => {
  const ev = await createRaw(spec);
  ours.add(ev.id);
  return ev;
};
const createEvents = async (specs: Json[]): Promise<Json[]> => {
  const out: Json[] = [];
  for (const spec of specs) out.push(await createEvent(spec));
  return out;
};
const listIds = async (query: Record<string, FormValue>): Promise<number[]> =>
  (await listAll({ per_page: 50, ...query })).filter((id) => ours.has(id));

describe('start_date / end_date (inclusive whole days)', () => {
  it('start_date=D includes an event starting D 00:00 and excludes one starting D-1 23:59', async () => {
    const d = days.block(3);
    const [before, on] = await createEvents([
      onDay(addDays(d, -1), '23:59', '00:30', {}, d),
      onDay(d, '00:00', '01:00'),
    ]);
    expect(await listIds({ start_date: d, end_date: addDays(d, 1) })).toEqual([on!.id]);
    // A time in start_date is rounded down to the start of its day.
    expect(await listIds({ start_date: at(d, '12:00'), end_date: addDays(d, 1) })).toEqual([on!.id]);
    expect(await listIds({ start_date: addDays(d, -1), end_date: addDays(d, 1) })).toEqual([before!.id, on!.id]);
  });

  it('end_date=D includes an event ending D 23:59:59 and excludes one ending D+1 00:00', async () => {
    const d = days.block(3);
    const [endsOn, endsNext] = await createEvents([
      onDay(d, '22:00', '23:59:59'),
      onDay(d, '22:30', '00:00', {}, addDays(d, 1)),
    ]);
    expect(await listIds({ start_date: d, end_date: d })).toEqual([endsOn!.id]);
    // A time in end_date is rounded up to the end of its day.
    expect(await listIds({ start_date: d, end_date: at(d, '08:00') })).toEqual([endsOn!.id]);
    expect(await listIds({ start_date: d, end_date: addDays(d, 1) })).toEqual([endsOn!.id, endsNext!.id]);
  });

  it('an event must both start on/after start_date and end on/before end_date (no overlap semantics)', async () => {
    const d = days.block(3);
    const ev = await createEvent(onDay(d, '10:00', '10:00', {}, addDays(d, 2)));
    expect(await listIds({ start_date: d, end_date: addDays(d, 2) })).toEqual([ev.id]);
    expect(await listIds({ start_date: addDays(d, 1), end_date: addDays(d, 2) })).toEqual([]);
    expect(await listIds({ start_date: d, end_date: addDays(d, 1) })).toEqual([]);
  });
});

describe('relative bounds (rounded to the end of their day)', () => {
  it('starts_after=D excludes events starting on D (even at 23:59:59) and includes D+1 00:00', async () => {
    const d = days.block(3);
    const [during, last, next] = await createEvents([
      onDay(d, '10:00', '11:00'),
      onDay(d, '23:59:59', '00:30', {}, addDays(d, 1)),
      onDay(addDays(d, 1), '00:00', '01:00'),
    ]);
    expect(await listIds({ starts_after: d, starts_before: addDays(d, 2) })).toEqual([next!.id]);
    expect(await listIds({ starts_after: addDays(d, -1), starts_before: addDays(d, 2) })).toEqual([during!.id, last!.id, next!.id]);
  });

  it('starts_before=D includes events starting during D (up to 23:59:58) and excludes D+1 00:00', async () => {
    const d = days.block(3);
    const [first, late, lastSecond, next] = await createEvents([
      onDay(d, '00:00', '01:00'),
      onDay(d, '23:59:58', '00:30', {}, addDays(d, 1)),
      onDay(d, '23:59:59', '00:30', {}, addDays(d, 1)),
      onDay(addDays(d, 1), '00:00', '01:00'),
    ]);
    expect(await listIds({ starts_after: addDays(d, -2), starts_before: d })).toEqual([first!.id, late!.id]);
    expect(await listIds({ starts_after: addDays(d, -2), starts_before: addDays(d, 1) }))
      .toEqual([first!.id, late!.id, lastSecond!.id, next!.id]);
  });

  it('ends_after=D excludes events ending on D and includes one ending D+1 00:00', async () => {
    const d = days.block(3);
    const [early, late, next] = await createEvents([
      onDay(d, '00:00', '00:30'),
      onDay(d, '20:00', '23:59:59'),
      onDay(d, '23:00', '00:00', {}, addDays(d, 1)),
    ]);
    expect(await listIds({ ends_after: d, ends_before: addDays(d, 3) })).toEqual([next!.id]);
    expect(await listIds({ ends_after: addDays(d, -1), ends_before: addDays(d, 3) })).toEqual([early!.id, late!.id, next!.id]);
  });

  it('ends_before=D includes events ending during D (up to 23:59:58) and excludes one ending D+1 00:00', async () => {
    const d = days.block(3);
    const [morning, late, next] = await createEvents([
      onDay(d, '09:00', '10:00'),
      onDay(d, '22:00', '23:59:58'),
      onDay(d, '23:00', '00:00', {}, addDays(d, 1)),
    ]);
    expect(await listIds({ ends_after: addDays(d, -2), ends_before: d })).toEqual([morning!.id, late!.id]);
    expect(await listIds({ ends_after: addDays(d, -2), ends_before: addDays(d, 1) })).toEqual([morning!.id, late!.id, next!.id]);
  });

  it('explicit start_date/end_date and relative bounds are AND-ed (the stricter wins)', async () => {
    const d = days.block(12);
    const [x, y] = await createEvents([
      onDay(d, '10:00', '11:00'),
      onDay(addDays(d, 3), '10:00', '11:00'),
    ]);
    const wide = { start_date: addDays(d, -5), end_date: addDays(d, 10) };
    expect(await listIds({ ...wide, starts_after: d })).toEqual([y!.id]);
    expect(await listIds({ ...wide, starts_before: addDays(d, 1) })).toEqual([x!.id]);
    expect(await listIds({ ...wide, ends_after: addDays(d, 2) })).toEqual([y!.id]);
    expect(await listIds({ ...wide, ends_before: addDays(d, 2) })).toEqual([x!.id]);
    expect(await listIds({ start_date: addDays(d, 2), end_date: addDays(d, 10), starts_after: addDays(d, -5) })).toEqual([y!.id]);
    // An explicit end_date stays in force next to a relative bound.
    expect(await listIds({ starts_after: addDays(d, -5), end_date: addDays(d, 1) })).toEqual([x!.id]);
    expect(await listIds({ start_date: addDays(d, 1), ends_before: addDays(d, 10) })).toEqual([y!.id]);

    const res = await list({ ...wide, starts_after: d });
    const q = queryOf(res.json.rest_url);
    expect(q.start_date).toBe(`${addDays(d, -5)} 00:00:00`);
    expect(q.end_date).toBe(`${addDays(d, 10)} 23:59:59`);
    expect(q.starts_after).toBe(`${d} 23:59:59`);
  });
});

describe('strict_dates', () => {
  let d: string;
  let e16: Json;
  let e20: Json;
  beforeAll(async () => {
    d = days.block(2);
    [e16, e20] = (await createEvents([onDay(d, '16:00', '17:00'), onDay(d, '20:00', '21:00')])) as [Json, Json];
  });

  it('reference example: 15:00–18:00 returns both events inclusively but only the 16:00 one strictly', async () => {
    const q = { start_date: at(d, '15:00'), end_date: at(d, '18:00') };
    expect(await listIds(q)).toEqual([e16.id, e20.id]);
    expect(await listIds({ ...q, strict_dates: 'false' })).toEqual([e16.id, e20.id]);
    expect(await listIds({ ...q, strict_dates: 'true' })).toEqual([e16.id]);
    expect(await listIds({ ...q, strict_dates: 'yes' })).toEqual([e16.id]);
    expect(await listIds({ ...q, strict_dates: '1' })).toEqual([e16.id]);
  });

  it('strict bounds are exact and start_date/end_date inclusive of the exact instant', async () => {
    expect(await listIds({ start_date: at(d, '16:00'), end_date: at(d, '17:00'), strict_dates: 'true' })).toEqual([e16.id]);
    expect(await listIds({ start_date: at(d, '16:00:01'), end_date: at(d, '21:00'), strict_dates: 'true' })).toEqual([e20.id]);
    expect(await listIds({ start_date: at(d, '15:00'), end_date: at(d, '20:59:59'), strict_dates: 'true' })).toEqual([e16.id]);
  });

  it('strict relative bounds are exact and exclusive', async () => {
    const strict = { strict_dates: 'true' };
    expect(await listIds({ ...strict, starts_after: at(d, '16:00'), starts_before: at(d, '23:00') })).toEqual([e20.id]);
    expect(await listIds({ ...strict, starts_after: at(d, '15:59:59'), starts_before: at(d, '20:00') })).toEqual([e16.id]);
    expect(await listIds({ ...strict, ends_after: at(d, '17:00'), ends_before: at(d, '23:00') })).toEqual([e20.id]);
    expect(await listIds({ ...strict, ends_after: at(d, '10:00'), ends_before: at(d, '21:00') })).toEqual([e16.id]);
    // The same inclusively: starts_after rounds to the end of the day, so neither event starts after it.
    expect(await listIds({ starts_after: at(d, '16:00'), starts_before: addDays(d, 1) })).toEqual([]);
  });

  it('rest_url echoes the exact values and strict_dates in strict mode, the rounded ones otherwise', async () => {
    const q = { start_date: at(d, '15:00'), end_date: at(d, '18:00') };
    const strict = queryOf((await list({ ...q, strict_dates: 'true' })).json.rest_url);
    expect(strict.start_date).toBe(at(d, '15:00:00'));
    expect(strict.end_date).toBe(at(d, '18:00:00'));
    expect(strict.strict_dates).toBe('true');
    const inclusive = queryOf((await list(q)).json.rest_url);
    expect(inclusive.start_date).toBe(at(d, '00:00:00'));
    expect(inclusive.end_date).toBe(at(d, '23:59:59'));
  });
});

describe('the default window and how relative bounds drop it', () => {
  const now = new Date();
  const today = ymd(now);
  const dayFromNow = (n: number, time = '10:00') => at(ymd(new Date(now.getTime() + n * DAY_MS)), time);

  it('lists an event starting in 3 days, not one 30 months ahead, not one that started 3 days ago', async () => {
    const word = uniqueWord();
    const [near, far, running] = await createEvents([
      { title: `Near ${word}`, start_date: dayFromNow(3), end_date: dayFromNow(3, '11:00') },
      { title: `Far ${word}`, start_date: dayFromNow(913), end_date: dayFromNow(913, '11:00') },
      { title: `Running ${word}`, start_date: dayFromNow(-3), end_date: dayFromNow(2) },
    ]);
    const res = await list({ search: word });
    expect(res.status).toBe(200);
    expect(ids(res.json.events)).toEqual([near!.id]);
    expect(res.json.total).toBe(1);
    // The running one is found with ends_after (a relative bound drops the default start).
    expect(await listIds({ search: word, ends_after: dayFromNow(-1) })).toEqual([running!.id, near!.id, far!.id]);
  });

  it('the default end is 24 months ahead, compared with the event end', async () => {
    const word = uniqueWord();
    const [inside, endsAfter] = await createEvents([
      { title: `Inside ${word}`, start_date: dayFromNow(700), end_date: dayFromNow(700, '11:00') },
      { title: `Ends late ${word}`, start_date: dayFromNow(700, '12:00'), end_date: dayFromNow(770) },
    ]);
    expect(await listIds({ search: word })).toEqual([inside!.id]);
    expect(await listIds({ search: word, start_date: today, end_date: dayFromNow(800) })).toEqual([inside!.id, endsAfter!.id]);
  });

  it('the default start is the start of yesterday (UTC site)', async () => {
    const word = uniqueWord();
    const before = ymd(new Date());
    const [yesterday, twoDaysAgo] = await createEvents([
      { title: `Yesterday ${word}`, start_date: at(addDays(before, -1), '00:00'), end_date: at(addDays(before, 1), '10:00') },
      { title: `Two days ago ${word}`, start_date: at(addDays(before, -2), '23:59:59'), end_date: at(addDays(before, 1), '10:00') },
    ]);
    const got = await listIds({ search: word });
    if (ymd(new Date()) === before) expect(got).toEqual([yesterday!.id]);
    expect(got).not.toContain(twoDaysAgo!.id);
  });

  it('an event 3 years ahead is found with starts_after=<today> alone, not without parameters', async () => {
    const word = uniqueWord();
    const ev = await createEvent({ title: `Later ${word}`, start_date: dayFromNow(1096), end_date: dayFromNow(1096, '12:00') });
    expect(await listIds({ search: word })).toEqual([]);
    expect(await listIds({ search: word, starts_after: today })).toEqual([ev.id]);
    expect(await listIds({ search: word, starts_before: dayFromNow(2000) })).toEqual([ev.id]);
    expect(await listIds({ search: word, ends_after: today })).toEqual([ev.id]);
    // start_date alone keeps the default end_date, so the event is still out.
    expect(await listIds({ search: word, start_date: today })).toEqual([]);
    // An explicit end_date next to a relative bound is kept (AND-ed).
    expect(await listIds({ search: word, starts_after: today, end_date: dayFromNow(600) })).toEqual([]);

    const res = await list({ search: word, starts_after: today });
    const q = queryOf(res.json.rest_url);
    expect(q.starts_after).toBe(`${today} 23:59:59`);
    expect('start_date' in q).toBe(false);
    expect('end_date' in q).toBe(false);
  });

  it('rest_url echoes the default window: start of yesterday to the end of the day 24 months ahead', async () => {
    const expected = () => {
      const t = DateTime.utc();
      return {
        start_date: `${t.minus({ days: 1 }).toISODate()} 00:00:00`,
        end_date: `${t.plus({ months: 24 }).toISODate()} 23:59:59`,
      };
    };
    const before = expected();
    const res = await list({ search: uniqueWord() });
    const after = expected();
    const q = queryOf(res.json.rest_url);
    expect([before, after]).toContainEqual({ start_date: q.start_date, end_date: q.end_date });
  });

  it('strict_dates without dates: the default start is exactly yesterday 23:59:00 UTC', async () => {
    const word = uniqueWord();
    const before = ymd(new Date());
    const yesterday = addDays(before, -1);
    const [noon, lastMinute] = await createEvents([
      { title: `Noon ${word}`, start_date: at(yesterday, '12:00'), end_date: at(addDays(before, 1), '10:00') },
      { title: `Last minute ${word}`, start_date: at(yesterday, '23:59:30'), end_date: at(addDays(before, 1), '10:00') },
    ]);
    const res = await list({ search: word, strict_dates: 'true' });
    if (ymd(new Date()) !== before) return; // the day changed during the test: nothing to compare with
    expect(ids(res.json.events).filter((id) => ours.has(id))).toEqual([lastMinute!.id]);
    expect(ids(res.json.events)).not.toContain(noon!.id);
    const q = queryOf(res.json.rest_url);
    expect(q.start_date).toBe(at(yesterday, '23:59:00'));
    expect(q.strict_dates).toBe('true');
    // The inclusive default starts at the beginning of yesterday, so both are listed.
    expect(await listIds({ search: word })).toEqual([noon!.id, lastMinute!.id]);
  });

  it('accepts phrases such as "tomorrow" as filter values', async () => {
    const word = uniqueWord();
    const ev = await createEvent({ title: `Soon ${word}`, start_date: dayFromNow(3), end_date: dayFromNow(3, '11:00') });
    expect(await listIds({ search: word, start_date: 'tomorrow' })).toEqual([ev.id]);
    expect(await listIds({ search: word, ends_before: 'tomorrow' })).toEqual([]);
    expect(await listIds({ search: word, starts_after: 'yesterday', starts_before: '+10 days' })).toEqual([ev.id]);
  });
});

describe('events spanning months', () => {
  it('a January–April event is in a January..April window and not in a January..March one', async () => {
    const block = days.block(490);
    const year = Number(block.slice(0, 4)) + 1;
    const ev = await createEvent({ start_date: `${year}-01-15 10:00:00`, end_date: `${year}-04-10 18:00:00` });
    expect(await listIds({ start_date: `${year}-01-01`, end_date: `${year}-04-30` })).toEqual([ev.id]);
    expect(await listIds({ start_date: `${year}-01-15`, end_date: `${year}-04-10` })).toEqual([ev.id]);
    expect(await listIds({ start_date: `${year}-01-01`, end_date: `${year}-03-31` })).toEqual([]);
    expect(await listIds({ start_date: `${year}-01-16`, end_date: `${year}-04-30` })).toEqual([]);
    // "Running during February": starts before it ends, ends after it starts.
    expect(await listIds({ starts_before: `${year}-02-01`, ends_after: `${year}-03-01` })).toEqual([ev.id]);
    expect(await listIds({ starts_before: `${year}-02-01`, ends_after: `${year}-04-10` })).toEqual([]);
  });
});

describe('time zones: bounds in the (UTC) site time zone against each event\'s UTC times', () => {
  it('an event at 23:30 New York time on D-1 is on D for the filters', async () => {
    const d = days.block(3);
    const ny = await createEvent({ start_date: at(addDays(d, -1), '23:30'), end_date: at(d, '00:30'), timezone: 'America/New_York' });
    expect(ny.start_date).toBe(at(addDays(d, -1), '23:30:00'));
    expect(ny.utc_start_date.slice(0, 10)).toBe(d);
    expect(await listIds({ start_date: d, end_date: d })).toEqual([ny.id]);
    expect(await listIds({ start_date: addDays(d, -1), end_date: addDays(d, -1) })).toEqual([]);
    expect(await listIds({ starts_after: addDays(d, -1), starts_before: d })).toEqual([ny.id]);
    expect(await listIds({ ends_after: addDays(d, -1), ends_before: d })).toEqual([ny.id]);
  });

  it('an event at 08:00 Tokyo time on D+1 is on D for the filters', async () => {
    const d = days.block(3);
    const tokyo = await createEvent({ start_date: at(addDays(d, 1), '08:00'), end_date: at(addDays(d, 1), '08:30'), timezone: 'Asia/Tokyo' });
    expect(tokyo.utc_start_date).toBe(at(d, '23:00:00'));
    expect(await listIds({ start_date: d, end_date: d })).toEqual([tokyo.id]);
    expect(await listIds({ start_date: addDays(d, 1), end_date: addDays(d, 1) })).toEqual([]);
  });

  it('orders events of different time zones by their UTC start, not their wall clock', async () => {
    const d = days.block(2);
    // Wall clock 12:00 < 16:45 < 20:00, but UTC Tokyo 20:00 = 11:00Z < UTC+5 16:45 = 11:45Z < UTC 12:00.
    const [utc, tokyo, offset] = await createEvents([
      { start_date: at(d, '12:00'), end_date: at(d, '13:00'), timezone: 'UTC' },
      { start_date: at(d, '20:00'), end_date: at(d, '21:00'), timezone: 'Asia/Tokyo' },
      { start_date: at(d, '16:45'), end_date: at(d, '17:00'), timezone: 'UTC+5' },
    ]);
    expect(offset!.utc_start_date).toBe(at(d, '11:45:00'));
    expect(await listIds({ start_date: d, end_date: d })).toEqual([tokyo!.id, offset!.id, utc!.id]);
  });

  it('strict bounds compare exact UTC instants across zones', async () => {
    const d = days.block(2);
    const tokyo = await createEvent({ start_date: at(d, '20:00'), end_date: at(d, '21:00'), timezone: 'Asia/Tokyo' }); // 11:00Z–12:00Z
    const q = { strict_dates: 'true', start_date: at(d, '11:00'), end_date: at(d, '12:00') };
    expect(await listIds(q)).toEqual([tokyo.id]);
    expect(await listIds({ ...q, start_date: at(d, '11:00:01') })).toEqual([]);
    expect(await listIds({ ...q, end_date: at(d, '11:59:59') })).toEqual([]);
  });
});

describe('filter values: ISO 8601 with an offset and Unix timestamps', () => {
  let d: string;
  let a: Json;
  let b: Json;
  beforeAll(async () => {
    d = days.block(3);
    [a, b] = (await createEvents([onDay(d, '23:00', '23:30'), onDay(addDays(d, 1), '01:00', '02:00')])) as [Json, Json];
  });
  const end = () => addDays(d, 2);

  it('an ISO value with an offset is converted to the site zone before its day is taken', async () => {
    // 20:00-05:00 on D is D+1 01:00Z: the whole of D+1.
    expect(await listIds({ start_date: `${d}T20:00:00-05:00`, end_date: end() })).toEqual([b.id]);
    // 22:00+02:00 on D is D 20:00Z: the whole of D.
    expect(await listIds({ start_date: `${d}T22:00:00+02:00`, end_date: end() })).toEqual([a.id, b.id]);
    expect(await listIds({ start_date: `${d}T22:00:00Z`, end_date: end() })).toEqual([a.id, b.id]);
    // 01:30+03:00 on D+1 is D 22:30Z: end of D, so b (ending D+1) is out.
    expect(await listIds({ start_date: d, end_date: `${addDays(d, 1)}T01:30:00+03:00` })).toEqual([a.id]);
    const q = queryOf((await list({ start_date: `${d}T20:00:00-05:00`, end_date: end() })).json.rest_url);
    expect(q.start_date).toBe(`${addDays(d, 1)} 00:00:00`);
  });

  it('strict ISO values with an offset are exact instants', async () => {
    const strict = { strict_dates: 'true', end_date: at(end(), '00:00') };
    expect(await listIds({ ...strict, start_date: `${d}T18:00:00-05:00` })).toEqual([a.id, b.id]); // = D 23:00Z
    expect(await listIds({ ...strict, start_date: `${d}T18:30:00-05:00` })).toEqual([b.id]); // = D 23:30Z
    const q = queryOf((await list({ ...strict, start_date: `${d}T18:30:00-05:00` })).json.rest_url);
    expect(q.start_date).toBe(at(d, '23:30:00'));
  });

  it('a Unix timestamp means its UTC day (inclusive) or its exact instant (strict)', async () => {
    expect(await listIds({ start_date: unix(at(d, '12:00:00')), end_date: end() })).toEqual([a.id, b.id]);
    expect(await listIds({ start_date: unix(at(addDays(d, 1), '00:30:00')), end_date: end() })).toEqual([b.id]);
    expect(await listIds({ start_date: d, end_date: unix(at(d, '00:00:01')) })).toEqual([a.id]);
    expect(await listIds({ start_date: unix(at(d, '23:00:00')), end_date: unix(at(end(), '00:00:00')), strict_dates: 'true' }))
      .toEqual([a.id, b.id]);
    expect(await listIds({ start_date: unix(at(d, '23:00:01')), end_date: unix(at(end(), '00:00:00')), strict_dates: 'true' }))
      .toEqual([b.id]);
    const q = queryOf((await list({ start_date: unix(at(d, '12:00:00')), end_date: unix(at(d, '12:00:00')) })).json.rest_url);
    expect(q.start_date).toBe(`${d} 00:00:00`);
    expect(q.end_date).toBe(`${d} 23:59:59`);
  });
});

describe('rest_url', () => {
  it('is {api}/events/ plus the normalised dates and the filters', async () => {
    const d = days.block(3);
    const word = uniqueWord();
    const ev = await createEvent(onDay(d, '10:00', '11:00', { title: `Echo ${word}`, featured: true }));
    const res = await list({ start_date: d, end_date: addDays(d, 2), search: word, featured: 'true', status: 'publish', per_page: 5 });
    expect(res.status).toBe(200);
    expect(ids(res.json.events)).toEqual([ev.id]);
    expect(res.json.rest_url.startsWith(`${eventsBase()}?`)).toBe(true);
    const q = queryOf(res.json.rest_url);
    expect(q).toMatchObject({
      start_date: `${d} 00:00:00`, end_date: `${addDays(d, 2)} 23:59:59`, search: word, featured: 'true', status: 'publish',
      per_page: '5',
    });
    // Following rest_url gives the same answer.
    const again = await api(res.json.rest_url);
    expect(again.status).toBe(200);
    expect(ids(again.json.events)).toEqual([ev.id]);
    expect(again.json.rest_url).toBe(res.json.rest_url);
  });

  it('echoes each relative bound rounded to the end of its day', async () => {
    const d = days.block(3);
    const res = await list({ starts_after: d, starts_before: addDays(d, 1), ends_after: d, ends_before: `${addDays(d, 2)} 06:00` });
    expect(res.status).toBe(200);
    const q = queryOf(res.json.rest_url);
    expect(q).toMatchObject({
      starts_after: `${d} 23:59:59`, starts_before: `${addDays(d, 1)} 23:59:59`, ends_after: `${d} 23:59:59`,
      ends_before: `${addDays(d, 2)} 23:59:59`,
    });
    expect('start_date' in q).toBe(false);
    expect('end_date' in q).toBe(false);
  });
});
