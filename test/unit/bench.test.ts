/**
 * The benchmark's own code (test/bench/): update folding, the generated calendar's shares, percentiles, the meter
 * header, budget evaluation and the report, the Scan baseline's maths, the warm-overhead stub, and — against the
 * test harness's DynamoDB when it is there — a tiny seeding end to end with the Scan baseline checked against it.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../lib/local/dynamodb-local.js';
import { counterKey, postKey, termKey } from '../../lib/store/keys.js';
import { TABLE } from '../../lib/store/table.js';
import { wallToUtc } from '../../lib/time/format.js';
import { listWindow } from '../../lib/time/list-bounds.js';
import {
  answerFromMatches, baselineQueries, defaultWindow, runBaseline, scanFilterExpression, scanList, scanPass, sharedFilter, sortAndSlice,
  type BaselineQuery,
} from '../bench/baseline.js';
import { median, parseMeter, percentile, Rng, Zipf } from '../bench/common.js';
import type { ColdStartResult } from '../bench/coldstart.js';
import { evaluateBudgets, renderMarkdown, scenarioVerdict, type BenchResult } from '../bench/report.js';
import type { ScaleResult } from '../bench/scale.js';
import { closestShare, countReturned, monthWindow, type ScenarioResult } from '../bench/scenarios.js';
import {
  chunks, CounterFold, emptyTally, EventGenerator, eventTransactItems, foldTransactItems, makeUtcConverter, parseUpdateExpression,
  applyInMemory, seedEvents, tallyEvent, UnsupportedUpdate, WordIndexBuilder, writeAll, type LinkPools,
} from '../bench/seed.js';
import { planWords } from '../../lib/events/words.js';
import { MemoryTable } from '../bench/warm.js';
import type { WarmResult } from '../bench/warm.js';

const NOW = new Date('2026-03-10T12:00:00Z');
const range = (n: number, from: number) => Array.from({ length: n }, (_, i) => from + i);
const POOLS: LinkPools = { venues: range(200, 1), organizers: range(300, 201), categories: range(50, 1), tags: range(200, 51), authors: [1, 2, 3] };

describe('update expressions and folding', () => {
  it('parses ADD/SET/REMOVE/DELETE clauses with placeholders', () => {
    expect(parseUpdateExpression('ADD #c :d, years :y', { '#c': 'cnt' }, { ':d': 2, ':y': new Set([2026]) })).toEqual([
      { action: 'ADD', attribute: 'cnt', value: 2 },
      { action: 'ADD', attribute: 'years', value: new Set([2026]) },
    ]);
    expect(parseUpdateExpression('SET #a0 = :a0, #v = :v REMOVE #r1 DELETE s :x', { '#a0': 'title', '#v': 'v', '#r1': 'old' },
      { ':a0': 'T', ':v': 3, ':x': new Set([1]) })).toEqual([
      { action: 'SET', attribute: 'title', value: 'T' },
      { action: 'SET', attribute: 'v', value: 3 },
      { action: 'REMOVE', attribute: 'old' },
      { action: 'DELETE', attribute: 's', value: new Set([1]) },
    ]);
  });

  it('refuses what it cannot apply, naming the expression', () => {
    expect(() => parseUpdateExpression('SET a = if_not_exists(a, :z)', {}, { ':z': 0 })).toThrow(/if_not_exists/);
    expect(() => parseUpdateExpression('ADD a.b :x', {}, { ':x': 1 })).toThrow(/nested path/);
    expect(() => parseUpdateExpression('ADD #n :x', {}, { ':x': 1 })).toThrow(/ExpressionAttributeNames.*#n/);
    expect(() => parseUpdateExpression('ADD n :x', {}, {})).toThrow(/ExpressionAttributeValues.*:x/);
  });

  it('folds numbers by sum and sets by union per (key, attribute), keeping a placeholder-free condition', () => {
    const fold = new CounterFold();
    const k = { PK: 'TERM#1', SK: 'TERM' };
    fold.add(k, 'cnt', 1, 'attribute_exists(PK)');
    fold.add(k, 'cnt', 1, 'attribute_exists(PK)');
    fold.add({ PK: 'META', SK: 'EVENTS' }, 'years', new Set([2025]));
    fold.add({ PK: 'META', SK: 'EVENTS' }, 'years', new Set([2026, 2025]));
    fold.add({ PK: 'POST#9', SK: 'POST' }, 'linked', 0);
    expect(fold.get(k, 'cnt')).toBe(2);
    expect(fold.entries()).toEqual([
      { key: k, add: { cnt: 2 }, condition: 'attribute_exists(PK)' },
      { key: { PK: 'META', SK: 'EVENTS' }, add: { years: new Set([2025, 2026]) }, condition: null },
    ]);
    expect(() => fold.add(k, 'cnt', new Set([1]))).toThrow(UnsupportedUpdate);
  });

  it('turns the product\'s create items for an event into puts and folded counters', () => {
    const gen = new EventGenerator(POOLS, 3, NOW);
    const fold = new CounterFold();
    let e = gen.event(10_000_000);
    while (e.item.status !== 'publish' || e.item.categories.length === 0 || e.item.venue === undefined) e = gen.event(10_000_000);
    const puts = foldTransactItems(eventTransactItems(e.item, e.slug), fold);
    const links = 1 + e.item.organizers.length + e.item.categories.length + e.item.tags.length;
    expect(puts.find((p) => p.PK === `POST#${e.item.id}`)).toMatchObject({ kind: 'event', slug: `bench-event-${e.item.id}`, GSI1PK: `event#bench-event-${e.item.id}` });
    expect(puts.find((p) => String(p.PK).startsWith('SLUG#event#'))).toMatchObject({ id: e.item.id });
    expect(puts.filter((p) => String(p.PK).startsWith('REL#'))).toHaveLength(links);
    expect(fold.get(termKey(e.item.categories[0]!), 'cnt')).toBe(1);
    expect(fold.get(postKey(e.item.venue!), 'linked')).toBe(1);
  });

  it('fails loudly on an Update that is not a pure ADD, and on a Delete; drops ConditionChecks', () => {
    const fold = new CounterFold();
    const key = { PK: 'POST#1', SK: 'POST' };
    expect(() => foldTransactItems([{ Update: { TableName: 't', Key: key, UpdateExpression: 'SET #a = :a', ExpressionAttributeNames: { '#a': 'x' },
      ExpressionAttributeValues: { ':a': 1 } } }], fold)).toThrow(/POST#1\/POST .*SET clause on "x"/);
    expect(() => foldTransactItems([{ Delete: { TableName: 't', Key: key } }], fold)).toThrow(/deletes POST#1/);
    expect(foldTransactItems([{ ConditionCheck: { TableName: 't', Key: key, ConditionExpression: 'attribute_exists(PK)' } }], fold)).toEqual([]);
  });
});

describe('the generated calendar', () => {
  const N = 6_000;
  const gen = new EventGenerator(POOLS, 42, NOW);
  const tally = emptyTally();
  const events = Array.from({ length: N }, (_, i) => {
    const g = gen.event(10_000_000 + i);
    tallyEvent(tally, g);
    return g;
  });
  const share = (x: number) => x / N;

  it('has the issue\'s mix of statuses, durations, all-day and hidden events', () => {
    expect(share(tally.status.publish!)).toBeCloseTo(0.85, 1);
    for (const [status, p] of [['draft', 0.05], ['pending', 0.03], ['private', 0.03], ['future', 0.02], ['trash', 0.02]] as const) {
      expect(Math.abs(share(tally.status[status] ?? 0) - p)).toBeLessThan(0.008);
    }
    expect(Math.abs(share(tally.duration.multiDay + tally.duration.overMonth) - 0.1)).toBeLessThan(0.01);
    expect(Math.abs(share(tally.duration.overMonth) - 0.02)).toBeLessThan(0.005);
    expect(Math.abs(share(tally.allDay) - 0.03)).toBeLessThan(0.006);
    expect(Math.abs(share(tally.hidden) - 0.01)).toBeLessThan(0.004);
    expect(Object.keys(tally.timezones).length).toBeGreaterThanOrEqual(8);
  });

  it('spreads starts over five years around now, with real durations and slugs', () => {
    const y = 365.25 * 86_400_000;
    const wrong: string[] = [];
    for (const { item, duration, slug } of events) {
      const start = Date.parse(`${item.startUtc.replace(' ', 'T')}Z`);
      const end = Date.parse(`${item.endUtc.replace(' ', 'T')}Z`);
      const problems = [
        start < NOW.getTime() - 2.5 * y - 2 * 86_400_000 || start > NOW.getTime() + 2.5 * y + 2 * 86_400_000 ? 'start outside five years' : '',
        end < start ? 'ends before it starts' : '',
        duration === 'overMonth' && end - start <= 30 * 86_400_000 ? 'over-a-month event is shorter' : '',
        duration === 'sameDay' && item.end.slice(0, 10) !== item.start.slice(0, 10) ? 'same-day event spans days' : '',
        slug !== (item.status === 'trash' ? `bench-event-${item.id}__trashed` : `bench-event-${item.id}`) ? `slug ${slug}` : '',
        Boolean(item.GSI2PK) === item.hidden ? 'index entry does not follow hidden' : '',
      ].filter(Boolean);
      if (problems.length) wrong.push(`${item.id}: ${problems.join(', ')}`);
    }
    expect(wrong).toEqual([]);
  });

  it('skews links: a top category on a fifth or more of events, and one on about 1%', () => {
    const top = Math.max(...Object.values(tally.perCategory)) / N;
    expect(top).toBeGreaterThan(0.2);
    expect(Math.abs(closestShare(tally.perCategory, N, 0.01).share - 0.01)).toBeLessThan(0.003);
    expect(share(tally.withVenue)).toBeCloseTo(0.9, 1);
  });

  it('converts wall clocks to UTC exactly as the product does', () => {
    const toUtc = makeUtcConverter();
    const sample = events.filter((_, i) => i % 15 === 0).flatMap(({ item }) => [[item.start, item.tz], [item.end, item.tz]] as const);
    expect(sample.filter(([wall, tz]) => toUtc(wall, tz) !== wallToUtc(wall, tz))).toEqual([]);
  });

  it('is deterministic for a seed', () => {
    const again = new EventGenerator(POOLS, 42, NOW).event(10_000_000);
    expect(again.item).toEqual(events[0]!.item);
  });
});

describe('statistics and the meter', () => {
  it('percentiles interpolate between closest ranks', () => {
    expect(percentile([4, 1, 3, 2], 50)).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(percentile([1, 2, 3], 0)).toBe(1);
    expect(percentile([1, 2, 3], 100)).toBe(3);
    expect(percentile(range(100, 1), 99)).toBeCloseTo(99.01, 6);
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });

  it('reads the X-Calendar-Meter header', () => {
    expect(parseMeter('requests=3; rcu=4.5; wcu=0; items=12')).toEqual({ requests: 3, rcu: 4.5, wcu: 0, items: 12 });
    expect(parseMeter('requests=1; extra=9')).toEqual({ requests: 1, rcu: 0, wcu: 0, items: 0 });
    expect(parseMeter(undefined)).toBeNull();
  });

  it('Zipf probabilities decrease and sum to 1; the PRNG is reproducible', () => {
    const z = new Zipf(50, 1);
    expect(range(50, 0).reduce((s, k) => s + z.p(k), 0)).toBeCloseTo(1, 9);
    expect(z.p(0)).toBeGreaterThan(z.p(1));
    const a = new Rng(5);
    const b = new Rng(5);
    expect(range(5, 0).map(() => a.next())).toEqual(range(5, 0).map(() => b.next()));
    expect(new Set(z.distinct(new Rng(1), 3)).size).toBe(3);
  });

  it('counts returned records: list arrays, one record, errors', () => {
    expect(countReturned(200, JSON.stringify({ events: [{}, {}], total: 2 }))).toBe(2);
    expect(countReturned(200, JSON.stringify({ id: 5, categories: [{}, {}, {}] }))).toBe(1);
    expect(countReturned(404, '{"code":"x"}')).toBe(0);
  });

  it('month windows and the default list window (the product\'s listWindow is the oracle)', () => {
    expect(monthWindow(NOW, 3)).toEqual({ start: '2026-06-01', end: '2026-06-30' });
    expect(monthWindow(new Date('2026-11-20T00:00:00Z'), 3)).toEqual({ start: '2027-02-01', end: '2027-02-28' });
    const w = listWindow({ strict: false }, 'UTC', NOW);
    expect(defaultWindow(NOW)).toEqual({ startFrom: w.startMin!.utc, endTo: w.endMax!.utc });
  });
});

// ------------------------------------------------------------------------------------------------ budgets

const meter = (requests: number, rcu: number, items: number, wcu = 0) => ({ requests, rcu, wcu, items });
function scenario(id: string, budget: number, m: ReturnType<typeof meter>, extra: Partial<ScenarioResult> = {}): ScenarioResult {
  return {
    id, budget, title: `s${id}`, method: 'GET', path: budget === 4 ? '/events?page=20' : '/x', status: 200, itemsReturned: 10, meter: m,
    meterVaries: false, meterMin: m, meterMax: m, commands: {}, latency: { samples: 5, p50: 10, p99: 12, min: 9, max: 12 }, ...extra,
  };
}
function scale(n: number, list: ScenarioResult[]): ScaleResult {
  return {
    n, table: 't', linked: { counts: { venues: 1, organizers: 1, categories: 1, tags: 1 }, ms: 1, requests: 4, authors: 1 },
    seed: { events: n, items: n * 7, batchCalls: 1, retries: 0, counterUpdates: 1, itemTypes: {}, ms: 1000, eventsPerSecond: n, itemsPerSecond: 7 * n,
      tally: { events: n, status: { publish: n }, duration: { overMonth: 0, multiDay: 0, sameDay: n }, allDay: 0, hidden: 0, featured: 0, timezones: {}, withVenue: n } },
    skew: { topCategoryShare: 0.3, topVenueShare: 0.1, topTagShare: 0.05 },
    targets: { event: { id: 1, slug: 's' }, category: { id: 2, share: 0.01 }, venue: { id: 3, share: 0.1 }, month: { start: '2026-06-01', end: '2026-06-30' },
      topCategory: { id: 4, share: 0.3 }, tag: { id: 5, share: 0.05 }, organizer: { id: 6, share: 0.05 }, categoryIds: [1, 2], runTag: 'r' },
    scenarios: list, baseline: [], ms: 1,
  };
}
const good = (listRcu: number) => [
  scenario('1', 1, meter(2, 1.5, 4)), scenario('2', 2, meter(2, 1.5, 4)), scenario('3', 3, meter(3, listRcu, 60), { total: 1000 }),
  scenario('4', 4, meter(3, 20, 430), { total: 1000 }), scenario('5a', 5, meter(3, 10, 90), { total: 40 }), scenario('5b', 5, meter(3, 10, 90), { total: 31 }),
  scenario('6', 6, meter(3, 10, 150), { total: 80 }), ...['7a', '7b', '7c', '7d'].map((id) => scenario(id, 7, meter(2, 6, 30))),
  scenario('8', 8, meter(3, 1, 3, 12), { method: 'POST', commands: { TransactWriteCommand: 1, UpdateCommand: 1, BatchGetCommand: 1 } }),
];
const cold = (bytes: number, ms: number): ColdStartResult => ({
  runs: 20, nodeOptions: '', reference: { name: 'docclient', bytes: 300_000, runs: 20, medianMs: 80, p90Ms: 90, minMs: 70, processMedianMs: 120 },
  bundles: [{ name: 'events', bytes, runs: 20, medianMs: ms, p90Ms: ms, minMs: ms, processMedianMs: ms + 40 }],
});
const warm = (ms: number): WarmResult => ({ iterations: 100, fixtureItems: 1,
  routes: [{ group: 'events', kind: 'get', label: 'GET /events/{id}', status: 200, iterations: 100, median: ms, p99: ms, mean: ms, commandsPerCall: 2, handlerMedian: ms, stubMedian: 0 }] });

describe('budget evaluation', () => {
  it('passes every budget when each limit holds, judged at N = 100,000', () => {
    const rows = evaluateBudgets([scale(10_000, good(30)), scale(100_000, good(40))], cold(350 * 1024, 100), warm(0.3));
    expect(rows.slice(0, 10).map((r) => [r.budget, r.pass])).toEqual(range(10, 1).map((b) => [b, true]));
    expect(rows.find((r) => r.budget === 3)!.detail).toContain('= 1.33 ≤ 1.5');
    // Budget 11 judges every list's growth between the two sizes; budget 12 the byte floor of the default page.
    expect(rows.find((r) => r.budget === 11)!.pass).toBe(true);
    expect(rows.find((r) => r.budget === 12)!.detail).toContain('3: 40 RCU ≤ 10');
    // Page 20 is judged by what it reads beyond page 1 of the same list.
    expect(rows.find((r) => r.budget === 4)!.detail).toBe('430 − 60 items (page 1) = 370 ≤ 2 × 19 × 10 = 380');
    expect(rows[0]!.n).toBe(100_000);
  });

  it('fails each budget past its limit', () => {
    const bad = good(60).map((s) => {
      if (s.budget === 1) return { ...s, meter: meter(4, 1, 4) };
      if (s.budget === 2) return { ...s, meter: meter(2, 4.5, 9) };
      if (s.budget === 4) return { ...s, meter: meter(3, 50, 501) };
      if (s.id === '5b') return { ...s, meter: meter(3, 10, 94) };
      if (s.budget === 6) return { ...s, meter: meter(3, 10, 161) };
      if (s.id === '7c') return { ...s, meter: meter(2, 10.5, 30) };
      if (s.budget === 8) return { ...s, meter: meter(8, 2.5, 5, 10), commands: { TransactWriteCommand: 1, BatchGetCommand: 4, UpdateCommand: 2, QueryCommand: 1 } };
      return s;
    });
    const rows = evaluateBudgets([scale(10_000, good(30)), scale(100_000, bad)], cold(401 * 1024, 100), warm(0.51));
    expect(rows.slice(0, 10).map((r) => [r.budget, r.pass])).toEqual(range(10, 1).map((b) => [b, false]));
    expect(rows.find((r) => r.budget === 8)!.detail).toBe('1 transaction (= 1), 7 other req ≤ 2');
    // The default list's growth from 30 to 60 RCU (× 2) fails budget 11.
    expect(rows.find((r) => r.budget === 11)).toMatchObject({ pass: false });
    // Import time alone: 121 ms > 1.5 × 80 ms.
    expect(evaluateBudgets([], cold(100, 121), null).find((r) => r.budget === 9)!.pass).toBe(false);
  });

  it('budget 10 judges the handler\'s own time, the stub\'s time apart', () => {
    const route = (median: number, handlerMedian: number) => ({ ...warm(median).routes[0]!, handlerMedian, stubMedian: median - handlerMedian });
    const judge = (median: number, handler: number) =>
      evaluateBudgets([], null, { iterations: 100, fixtureItems: 1, routes: [route(median, handler)] }).find((r) => r.budget === 10)!;
    expect(judge(0.6, 0.4)).toMatchObject({ pass: true, detail: 'slowest GET /events/{id}: handler 0.400 ms (+ stub 0.200 ms; total median 0.600 ms) ≤ 0.5 ms' });
    expect(judge(0.6, 0.55).pass).toBe(false);
  });

  it('budget 3 fails on growth alone, and is undecided with one size; errors fail', () => {
    const rows = evaluateBudgets([scale(10_000, good(20)), scale(100_000, good(31))], null, null);
    expect(rows.find((r) => r.budget === 3)!.pass).toBe(false);
    expect(evaluateBudgets([scale(5_000, good(20))], null, null).find((r) => r.budget === 3)!.pass).toBeNull();
    expect(scenarioVerdict(scenario('1', 1, meter(0, 0, 0), { error: 'expected 200, got 500' })).pass).toBe(false);
    expect(evaluateBudgets([], null, null).every((r) => r.pass === null)).toBe(true);
  });

  it('renders a Markdown report with the verdicts', () => {
    const scales = [scale(1_000, good(30)), scale(3_000, good(40))];
    scales[1]!.baseline = [{ id: '3', page: 1, total: 1000, ids: [], rcu: 400, itemsRead: 20_000, requests: 9, latency: { samples: 1, p50: 900, p99: 900, min: 900, max: 900 } }];
    const result: BenchResult = {
      meta: { date: '2026-03-10', mode: 'quick', ns: [1_000, 3_000], seed: 42, args: [], totalMs: 1000,
        machine: { cpus: 2, cpuModel: 'cpu', memory: '4 GiB', os: 'linux', node: 'v20', java: 'OpenJDK 17' } },
      scales, coldStart: cold(350 * 1024, 100), warm: warm(0.3), budgets: evaluateBudgets(scales, cold(350 * 1024, 100), warm(0.3)),
    };
    const md = renderMarkdown(result);
    expect(md).toContain('Judged at N = 3,000, standing in for N = 100,000');
    expect(md).toContain('| 3 | 3,000 | s3 | 40 | 400 | 0.100 |');
    expect(md).toMatch(/\| 1 \| GET \/events\/\{id\}.*\| PASS \|/);
    expect(md).toContain('## Cold start');
    expect(md).toContain('## Warm overhead');
  });
});

// ------------------------------------------------------------------------------------------------ baseline and stub

describe('the Scan baseline\'s maths', () => {
  const matches = [
    { id: 3, startUtc: '2026-04-01 10:00:00', endUtc: '2026-04-01 12:00:00', venue: 7, categories: [1, 2] },
    { id: 1, startUtc: '2026-04-01 10:00:00', endUtc: '2026-04-03 12:00:00', categories: [2] },
    { id: 2, startUtc: '2026-03-01 09:00:00', endUtc: '2026-03-01 10:00:00', venue: 7, categories: [] },
  ];

  it('filters on kind, status, hidden and the window, plus category or venue', () => {
    const e = scanFilterExpression({ startFrom: 'a', endTo: 'b', category: 2 });
    expect(e.FilterExpression).toBe('#k = :event AND #s = :publish AND #h <> :true AND #st >= :from AND #en <= :to AND contains(#c, :cat)');
    expect(e.ExpressionAttributeValues[':cat']).toBe(2);
    expect(scanFilterExpression({ startFrom: 'a', endTo: 'b', venue: 7 }).FilterExpression).toMatch(/#v = :venue$/);
  });

  it('sorts by start then id and slices pages; answers each query from one pass', () => {
    expect(sortAndSlice(matches, 1, 2)).toEqual([2, 1]);
    expect(sortAndSlice(matches, 2, 2)).toEqual([3]);
    const q = (filter: BaselineQuery['filter'], page = 1): BaselineQuery => ({ id: 'x', filter, page });
    expect(answerFromMatches(matches, q({ startFrom: '2026-03-15 00:00:00', endTo: '2026-04-30 23:59:59', category: 2 }))).toEqual({ total: 2, ids: [1, 3] });
    expect(answerFromMatches(matches, q({ startFrom: '2026-01-01 00:00:00', endTo: '2026-04-01 23:59:59', venue: 7 }))).toEqual({ total: 2, ids: [2, 3] });
    const qs = baselineQueries(NOW, { category: { id: 1, share: 0 }, venue: { id: 7, share: 0 }, month: { start: '2026-06-01', end: '2026-06-30' } });
    expect(qs.map((x) => x.id)).toEqual(['3', '4', '5a', '5b', '6']);
    expect(sharedFilter(qs)).toEqual({ startFrom: defaultWindow(NOW).startFrom, endTo: defaultWindow(NOW).endTo });
  });
});

describe('the warm-overhead stub (MemoryTable)', () => {
  const mem = new MemoryTable('t', [{ name: null, pk: 'PK', sk: 'SK' }, ...TABLE.indexes.map((i) => ({ name: i.name as string, pk: i.partitionKey as string, sk: i.sortKey as string }))]);
  const send = (c: unknown) => mem.send(c as never);

  it('answers gets, queries on indexes by sort-key range, updates and transactions', async () => {
    await send(new TransactWriteCommand({ TransactItems: [
      { Put: { TableName: 't', Item: { PK: 'POST#1', SK: 'POST', GSI2PK: 'EVENTS#2026', GSI2SK: '2026-05-01 10:00:00#1' } } },
      { Put: { TableName: 't', Item: { PK: 'POST#2', SK: 'POST', GSI2PK: 'EVENTS#2026', GSI2SK: '2026-02-01 10:00:00#2' } } },
      { Update: { TableName: 't', Key: counterKey('post'), UpdateExpression: 'ADD #n :one', ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':one': 1 } } },
    ] }));
    const q = await send(new QueryCommand({ TableName: 't', IndexName: 'byStart', KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK BETWEEN :a AND :b',
      ExpressionAttributeValues: { ':pk': 'EVENTS#2026', ':a': '2026-01-01', ':b': '2026-12-31' } }));
    expect((q.Items as { PK: string }[]).map((i) => i.PK)).toEqual(['POST#2', 'POST#1']);
    // Limit ends a page with LastEvaluatedKey; ExclusiveStartKey continues after it, as DynamoDB pages do.
    const byPage = { TableName: 't', IndexName: 'byStart', KeyConditionExpression: 'GSI2PK = :pk',
      ExpressionAttributeValues: { ':pk': 'EVENTS#2026' }, Limit: 1 };
    const first = await send(new QueryCommand(byPage));
    expect((first.Items as { PK: string }[]).map((i) => i.PK)).toEqual(['POST#2']);
    expect(first.LastEvaluatedKey).toMatchObject({ PK: 'POST#2', GSI2SK: '2026-02-01 10:00:00#2' });
    const second = await send(new QueryCommand({ ...byPage, ExclusiveStartKey: first.LastEvaluatedKey as Record<string, unknown> }));
    expect((second.Items as { PK: string }[]).map((i) => i.PK)).toEqual(['POST#1']);
    expect(second.LastEvaluatedKey).toBeUndefined();
    const u = await send(new UpdateCommand({ TableName: 't', Key: counterKey('post'), UpdateExpression: 'ADD #n :one', ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: { ':one': 1 }, ReturnValues: 'UPDATED_NEW' }));
    expect(u.Attributes).toMatchObject({ n: 2 });
    expect((await send(new GetCommand({ TableName: 't', Key: postKey(1) }))).Item).toMatchObject({ PK: 'POST#1' });
    const b = await send(new BatchGetCommand({ RequestItems: { t: { Keys: [postKey(1), postKey(9)] } } }));
    expect((b.Responses as Record<string, unknown[]>).t).toHaveLength(1);
  });
});

// ------------------------------------------------------------------------------------------------ end to end

// The harness's DynamoDB (global-setup.ts); without it these tests fail, they never skip.
const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
if (!endpoint) throw new Error('CALENDAR_TEST_DYNAMODB_ENDPOINT is not set: the global setup did not start DynamoDB Local');

describe('the seeder\'s search index', () => {
  it('holds exactly the postings, counts and span entries the product\'s own event writes would leave', async () => {
    const pools: LinkPools = { venues: [1], organizers: [2], categories: [3], tags: [4], authors: [1] };
    const gen = new EventGenerator(pools, 5, NOW);
    const events = range(40, 20_000_000).map((id) => gen.event(id).item);
    const builder = new WordIndexBuilder();
    for (const e of events) builder.add({ ...e });
    const built = new Map([...builder.items()].map((item) => [`${item.PK}|${item.SK}`, item]));
    // What the product's create of each event puts in its transaction (lib/events/words.ts planWords), applied in memory.
    const expected = new Map<string, Record<string, unknown>>();
    for (const e of events) for (const t of (await planWords(null, e, Infinity)).items) applyInMemory(expected, t);
    expect(built.size).toBeGreaterThan(100);
    expect([...built.keys()].some((k) => k.startsWith('WS1#'))).toBe(true); // some seeded events are long
    expect([...built.values()].some((item) => Object.values(item).some((v) => typeof v === 'number' && v > 10_000))).toBe(true); // packed day counts
    expect(built).toEqual(expected);
  });
});

describe('seeding and the Scan baseline against DynamoDB (the test harness\'s)', () => {
  const table = `bench-unit-${randomUUID().slice(0, 8)}`;
  const raw = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION || 'local',
    credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID || 'local', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || 'local' } });
  const doc = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  const pools: LinkPools = { venues: [1, 2, 3], organizers: [4, 5], categories: [1, 2, 3, 4], tags: [5, 6], authors: [1] };
  const N = 120;

  beforeAll(async () => {
    await ensureTable(raw, table);
    // The records events link to (the counters' targets must exist).
    const targets = [...[...pools.venues, ...pools.organizers].map((id) => ({ ...postKey(id), kind: 'venue' })),
      ...[...pools.categories, ...pools.tags].map((id) => ({ ...termKey(id), cnt: 0 }))];
    await writeAll(doc, table, chunks(targets, 25), 4);
  }, 30_000);

  afterAll(async () => {
    await raw.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
    raw.destroy();
  });

  it('writes every item and folded counter, raises the id counter, and the baseline agrees with the data', async () => {
    const r = await seedEvents({ client: doc, table, n: N, firstId: 10_000_000, seed: 9, now: NOW, pools, concurrency: 4, searchIndex: false });
    expect(r.events).toBe(N);
    expect(r.items).toBe(Object.values(r.itemTypes).reduce((a, b) => a + b, 0));
    expect(r.itemTypes.POST).toBe(N);

    // The same seed regenerates the same events: the expected counters and list answers.
    const gen = new EventGenerator(pools, 9, NOW);
    const events = range(N, 10_000_000).map((id) => gen.event(id).item);
    const published = events.filter((e) => e.status === 'publish' && e.categories.includes(1)).length;
    const term = await doc.send(new GetCommand({ TableName: table, Key: termKey(1) }));
    expect(term.Item!.cnt).toBe(published);
    const counter = await doc.send(new GetCommand({ TableName: table, Key: counterKey('post') }));
    expect(counter.Item!.n).toBe(10_000_000 + N);

    const window = { startFrom: '2025-01-01 00:00:00', endTo: '2027-12-31 23:59:59' };
    const listed = events.filter((e) => e.status === 'publish' && !e.hidden && e.startUtc >= window.startFrom && e.endUtc <= window.endTo);
    const own = await scanList(doc, table, { ...window, category: 2 }, 1);
    expect(own.total).toBe(listed.filter((e) => e.categories.includes(2)).length);
    const q: BaselineQuery = { id: '5a', filter: { ...window, category: 2 }, page: 1 };
    const pass = await scanPass(doc, table, window);
    expect(answerFromMatches(pass.matches, q)).toEqual({ total: own.total, ids: own.ids });
    // A Scan costs the same whatever its filter: one pass stands for each query's own Scan.
    expect(pass.itemsRead).toBe(own.itemsRead);
    expect(pass.rcu).toBe(own.rcu);
    const [b] = await runBaseline(doc, table, [q], { maxCount: 1, maxMs: 0, minCount: 1 });
    expect(b).toMatchObject({ id: '5a', total: own.total, ids: own.ids, itemsRead: own.itemsRead });
  }, 30_000);
});

describe('the import benchmark\'s file (imports.ts)', () => {
  test('N single events with UIDs, titles, descriptions and instants an independent parser reads back', async () => {
    const { importFile } = await import('../bench/imports.js');
    const { default: nodeIcal } = await import('node-ical');
    const text = importFile(40, 7);
    // The same file for the same seed (but for DTSTAMP, the time it was written).
    const stable = (t: string) => t.split('\r\n').filter((l) => !l.startsWith('DTSTAMP')).join('\n');
    expect(stable(importFile(40, 7))).toBe(stable(text));
    const events = Object.values(nodeIcal.sync.parseICS(text)).flatMap((c) => (c?.type === 'VEVENT' ? [c] : []));
    expect(events).toHaveLength(40);
    expect(new Set(events.map((e) => e.uid)).size).toBe(40);
    for (const e of events) {
      expect(String(e.summary).length).toBeGreaterThan(0);
      expect(String(e.description).length).toBeGreaterThan(100);
      expect(e.end!.getTime()).toBeGreaterThan(e.start.getTime());
    }
  });
});
