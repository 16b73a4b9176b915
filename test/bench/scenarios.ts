/**
 * The measured API calls (issue 6 scenarios 1–8) through the local HTTP server: per call the DynamoDB requests,
 * capacity and items read (X-Calendar-Meter, CALENDAR_METER=1), the items returned (records in the body), the
 * DynamoDB command names (a recording wrapper around the store's document client), and latency p50/p99 over a
 * loop bounded in count and time.
 *
 * Everything that touches product modules is imported dynamically by the caller after the environment is set.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { boundedLoop, headerValue, median, parseMeter, percentile, type HttpAnswer, type KeepAliveClient, type LoopBounds, type MeterReading } from './common.js';

export const API_PATH = '/calendar/events/v1';

export interface Latency {
  samples: number;
  p50: number;
  p99: number;
  min: number;
  max: number;
}

export const latencyOf = (ms: number[]): Latency => ({
  samples: ms.length,
  p50: percentile(ms, 50),
  p99: percentile(ms, 99),
  min: ms.length ? Math.min(...ms) : NaN,
  max: ms.length ? Math.max(...ms) : NaN,
});

export interface ScenarioResult {
  /** "1", "2", "3", "4", "5a", "5b", "6", "7a"…"7d", "8". */
  id: string;
  /** The budget number this row is checked against. */
  budget: number;
  title: string;
  method: string;
  path: string;
  status: number;
  /** Records in the response body (events/venues/… in a list; 1 for one record). */
  itemsReturned: number;
  /** The list's exact total (X-TEC-Total), when it is a list. */
  total?: number;
  /** Bytes of the response body: read in bulk they would cost 0.5 RCU per 4 KB (the byte floor). */
  bytes?: number;
  /** Median over the measured calls of each meter field. */
  meter: MeterReading;
  /** True when the meter differed between calls (min/max then tell by how much). */
  meterVaries: boolean;
  meterMin: MeterReading;
  meterMax: MeterReading;
  /** DynamoDB commands of the first measured call, by name. */
  commands: Record<string, number>;
  latency: Latency;
  error?: string;
}

export interface ScenarioSpec {
  id: string;
  budget: number;
  title: string;
  method: 'GET' | 'POST';
  path: string;
  token?: string;
  /** A fresh body per call (writes must not collide). */
  body?: (i: number) => unknown;
  expectStatus: number;
}

/** Records the name of every command the store's document client sends (the handlers run in this process). */
export interface CommandRecorder {
  reset(): void;
  take(): Record<string, number>;
  uninstall(): void;
}

/**
 * Wraps the store's client (`db()`) so every `send` is recorded by command name, and installs the wrapper with
 * `setClient`. The wrapped client is the real one: requests still reach DynamoDB and are metered.
 */
export function installCommandRecorder(store: {
  db: () => DynamoDBDocumentClient;
  setClient: (c: DynamoDBDocumentClient | null) => void;
}): CommandRecorder {
  const real = store.db();
  let names: string[] = [];
  const wrapped = Object.create(real) as DynamoDBDocumentClient;
  (wrapped as unknown as { send: (...args: unknown[]) => unknown }).send = (command: unknown, ...rest: unknown[]) => {
    names.push((command as object)?.constructor?.name ?? 'unknown');
    return (real.send as (...args: unknown[]) => unknown).call(real, command, ...rest);
  };
  store.setClient(wrapped);
  return {
    reset: () => {
      names = [];
    },
    take: () => {
      const out: Record<string, number> = {};
      for (const n of names) out[n] = (out[n] ?? 0) + 1;
      names = [];
      return out;
    },
    uninstall: () => store.setClient(real),
  };
}

/** Records in a response body: the list array's length, 1 for a single record, 0 for an error. */
export function countReturned(status: number, text: string): number {
  if (status < 200 || status >= 300) return 0;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 0;
  }
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    // One record (it has an id; its own categories/tags arrays are embedded, not returned records).
    if ('id' in json) return 1;
    for (const key of ['events', 'venues', 'organizers', 'categories', 'tags']) {
      const v = (json as Record<string, unknown>)[key];
      if (Array.isArray(v)) return v.length;
    }
    return 0;
  }
  return Array.isArray(json) ? json.length : 0;
}

const fieldwise = (readings: MeterReading[], f: (xs: number[]) => number): MeterReading => ({
  requests: f(readings.map((r) => r.requests)),
  rcu: f(readings.map((r) => r.rcu)),
  wcu: f(readings.map((r) => r.wcu)),
  items: f(readings.map((r) => r.items)),
});

/** Runs one scenario: a warm-up call, then calls within `bounds`, each timed and metered. */
export async function measureScenario(http: KeepAliveClient, spec: ScenarioSpec, bounds: LoopBounds, recorder?: CommandRecorder): Promise<ScenarioResult> {
  const call = (i: number): Promise<HttpAnswer> => http.request(spec.method, `${API_PATH}${spec.path}`, {
    headers: spec.token ? { authorization: `Bearer ${spec.token}` } : {},
    ...(spec.body ? { body: spec.body(i) } : {}),
  });
  const base = { id: spec.id, budget: spec.budget, title: spec.title, method: spec.method, path: spec.path };
  const warm = await call(0);
  if (warm.status !== spec.expectStatus) {
    const zero = { requests: 0, rcu: 0, wcu: 0, items: 0 };
    return { ...base, status: warm.status, itemsReturned: 0, meter: zero, meterVaries: false, meterMin: zero, meterMax: zero,
      commands: {}, latency: latencyOf([]), error: `expected ${spec.expectStatus}, got ${warm.status}: ${warm.text.slice(0, 300)}` };
  }
  let first: { answer: HttpAnswer; commands: Record<string, number> } | null = null;
  const readings: MeterReading[] = [];
  const ms: number[] = [];
  let error: string | undefined;
  await boundedLoop(bounds, async (i) => {
    recorder?.reset();
    const answer = await call(i + 1);
    const commands = recorder?.take() ?? {};
    first ??= { answer, commands };
    ms.push(answer.ms);
    const m = parseMeter(headerValue(answer, 'x-calendar-meter'));
    if (!m) error ??= 'no X-Calendar-Meter header (is CALENDAR_METER=1 set for the server?)';
    else readings.push(m);
    if (answer.status !== spec.expectStatus) error ??= `a measured call answered ${answer.status}: ${answer.text.slice(0, 200)}`;
  });
  const f = first as { answer: HttpAnswer; commands: Record<string, number> } | null;
  const total = f ? headerValue(f.answer, 'x-tec-total') : undefined;
  const meterMin = fieldwise(readings, (xs) => (xs.length ? Math.min(...xs) : NaN));
  const meterMax = fieldwise(readings, (xs) => (xs.length ? Math.max(...xs) : NaN));
  return {
    ...base,
    status: f?.answer.status ?? 0,
    itemsReturned: f ? countReturned(f.answer.status, f.answer.text) : 0,
    ...(f ? { bytes: Buffer.byteLength(f.answer.text) } : {}),
    ...(total !== undefined ? { total: Number(total) } : {}),
    meter: fieldwise(readings, median),
    meterVaries: JSON.stringify(meterMin) !== JSON.stringify(meterMax),
    meterMin,
    meterMax,
    commands: f?.commands ?? {},
    latency: latencyOf(ms),
    ...(error ? { error } : {}),
  };
}

/** The facts of a seeded calendar the scenarios need. */
export interface ScenarioTargets {
  /** Scenario 1/2: an event with a venue, 2 organizers, 3 categories and 2 tags. */
  event: { id: number; slug: string };
  /** Scenario 5: a category on about 1% of events, and a venue. */
  category: { id: number; share: number };
  venue: { id: number; share: number };
  /** The busiest category, tag and organizer (single-filter lists). */
  topCategory: { id: number; share: number };
  tag: { id: number; share: number };
  organizer: { id: number; share: number };
  /** Scenario 6: one calendar month (site time zone = UTC). */
  month: { start: string; end: string };
  /** Scenario 8: two category ids and an editor token. */
  categoryIds: [number, number];
  editorToken: string;
  /** Makes names unique across runs within one table. */
  runTag: string;
  /**
   * Geo filters (contract §18): a circle around the busiest venue holding only it (radius in km), and the home city's
   * centre, whose default circle (25 mi) holds every venue of the city.
   */
  geo?: { one: { lat: number; lng: number; km: number; share: number }; city: { name: string; lat: number; lng: number; share: number } };
  /** With recurring series in the calendar: a 2-year daily series that scenario 13b rewrites, and the day new ones start. */
  series?: number;
  seriesStart?: string;
}

export function scenarioSpecs(t: ScenarioTargets): ScenarioSpec[] {
  const get = (id: string, budget: number, title: string, path: string): ScenarioSpec => ({ id, budget, title, method: 'GET', path, expectStatus: 200 });
  return [
    get('1', 1, 'event by id (venue, 2 organizers, 3 categories, 2 tags)', `/events/${t.event.id}`),
    get('2', 2, 'event by slug', `/events/by-slug/${encodeURIComponent(t.event.slug)}`),
    get('3', 3, 'list, no parameters (page 1, 10 per page)', '/events'),
    get('4', 4, 'list, page 20', '/events?page=20'),
    get('5a', 5, `list, category on ${(t.category.share * 100).toFixed(2)}% of events`, `/events?categories=${t.category.id}`),
    get('5b', 5, `list, venue on ${(t.venue.share * 100).toFixed(2)}% of events`, `/events?venue=${t.venue.id}`),
    get('6', 6, 'list, one month', `/events?start_date=${t.month.start}&end_date=${t.month.end}`),
    // Every single filter of contract §9, and combinations (budget 11: cost follows the page, not the calendar).
    get('11a', 11, 'list, featured=true (5% of events)', '/events?featured=true'),
    get('11b', 11, 'list, search for one word (workshop)', '/events?search=workshop'),
    // Contract §19: every tenth seeded event has an rsvp ticket.
    get('11l', 11, 'list, ticketed=true (10% of events)', '/events?ticketed=true'),
    get('11m', 11, 'list, ticketed=false (90% of events)', '/events?ticketed=false'),
    // Combined filters (no growth budget: they read the matches of their most selective part).
    get('11c', 0, 'list, a category and featured=true', `/events?categories=${t.category.id}&featured=true`),
    get('11d', 11, `list, the busiest category (${(t.topCategory.share * 100).toFixed(1)}% of events)`, `/events?categories=${t.topCategory.id}`),
    get('11e', 11, `list, the busiest tag (${(t.tag.share * 100).toFixed(1)}% of events)`, `/events?tags=${t.tag.id}`),
    get('11f', 11, `list, the busiest organizer (${(t.organizer.share * 100).toFixed(1)}% of events)`, `/events?organizer=${t.organizer.id}`),
    get('11g', 11, 'list, search for a word prefix (wor)', '/events?search=wor'),
    get('11h', 0, 'list, search for two words (jazz night)', '/events?search=jazz%20night'),
    get('11i', 11, 'list, events still running today or later (ends_after)', `/events?ends_after=${t.month.start}`),
    { ...get('11j', 11, 'list, draft events (editor, status=draft)', '/events?status=draft'), token: t.editorToken },
    get('11k', 12, 'list, no parameters, 50 per page', '/events?per_page=50'),
    // Geo filters (contract §18): each a single filter, under the same growth and page budget.
    ...(t.geo === undefined ? [] : [
      get('14a', 11, `list, a circle holding one venue (${(t.geo.one.share * 100).toFixed(1)}% of events)`,
        `/events?geoloc_lat=${t.geo.one.lat}&geoloc_lng=${t.geo.one.lng}&geoloc_radius=${t.geo.one.km}&geoloc_unit=km`),
      get('14b', 11, `list, ${t.geo.city.name}'s default circle, every venue of the city (${(t.geo.city.share * 100).toFixed(1)}% of events)`,
        `/events?geoloc_lat=${t.geo.city.lat}&geoloc_lng=${t.geo.city.lng}`),
      get('14c', 11, 'list, geoloc=true (venue with coordinates)', '/events?geoloc=true'),
      get('14d', 11, 'list, geoloc=false (no venue, or one without coordinates)', '/events?geoloc=false'),
    ]),
    get('7a', 7, 'venues, first page', '/venues'),
    get('7b', 7, 'organizers, first page', '/organizers'),
    get('7c', 7, 'categories, first page', '/categories'),
    get('7d', 7, 'tags, first page', '/tags'),
    {
      id: '8', budget: 8, title: 'create: inline venue + 2 categories (editor)', method: 'POST', path: '/events', token: t.editorToken,
      expectStatus: 201,
      body: (i) => ({
        title: `Bench create ${t.runTag} ${i}`,
        start_date: '2031-06-01 18:00:00',
        end_date: '2031-06-01 21:00:00',
        status: 'publish',
        venue: { venue: `Bench inline venue ${t.runTag} ${i}`, city: 'Lisboa', country: 'Portugal' },
        categories: t.categoryIds,
      }),
    },
    // Recurring series (contract §13): writes that rewrite up to 730 occurrences (no budget: their cost is reported).
    ...(t.series === undefined ? [] : [
      { id: '13a', budget: 0, title: 'create a 2-year daily series (730 occurrences)', method: 'POST' as const, path: '/events', token: t.editorToken,
        expectStatus: 201, body: (i: number) => ({ title: `Bench daily ${t.runTag} ${i}`, description: '<p>Every morning before work.</p>',
          status: 'publish', start_date: `${t.seriesStart} 07:00:00`, end_date: `${t.seriesStart} 08:00:00`, recurrence: ['RRULE:FREQ=DAILY;COUNT=730'] }) },
      { id: '13b', budget: 0, title: 'change the title of a 2-year daily series (730 occurrences rewritten)', method: 'POST' as const,
        path: `/events/${t.series}`, token: t.editorToken, expectStatus: 200,
        body: (i: number) => ({ title: `Bench regenerated ${t.runTag} ${i}` }) },
    ]),
  ];
}

/** The calendar month `monthsAhead` months after `now`'s month: first and last day, YYYY-MM-DD. */
export function monthWindow(now: Date, monthsAhead: number): { start: string; end: string } {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth() + monthsAhead;
  const first = new Date(Date.UTC(y, m, 1));
  const last = new Date(Date.UTC(y, m + 1, 0));
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return { start: day(first), end: day(last) };
}

/** The record whose share of events is closest to `target` (ties: the lower id). */
export function closestShare(perRecord: Record<number, number>, events: number, target: number): { id: number; share: number } {
  let best: { id: number; share: number } | null = null;
  for (const [id, count] of Object.entries(perRecord)) {
    const share = count / events;
    if (!best || Math.abs(share - target) < Math.abs(best.share - target) || (Math.abs(share - target) === Math.abs(best.share - target) && Number(id) < best.id)) {
      best = { id: Number(id), share };
    }
  }
  if (!best) throw new Error('no record has any event');
  return best;
}

/** The record linked by the most events. */
export function busiest(perRecord: Record<number, number>, events: number): { id: number; share: number } {
  const [id, count] = Object.entries(perRecord).sort((a, b) => b[1] - a[1] || Number(a[0]) - Number(b[0]))[0] ?? [];
  if (id === undefined) throw new Error('no record has any event');
  return { id: Number(id), share: count! / events };
}
