/**
 * One calendar size N, run in its own process (run.ts starts it): sets the environment, serves the real handlers
 * over HTTP in this process (lib/local/server.ts) against a fresh table, seeds it (seed.ts), measures the
 * scenarios (scenarios.ts) and the Scan baseline (baseline.ts), and writes a ScaleResult as JSON.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { headerValue, KeepAliveClient, parseMeter, type LoopBounds, type MeterReading } from './common.js';
import type { BaselineResult } from './baseline.js';
import type { ScenarioResult, ScenarioTargets } from './scenarios.js';
import type { LinkedCounts, SeedEventsResult } from './seed.js';
import type { PageResult } from './pages.js';
import type { WriteScenarioResult } from './writes.js';
import type { LambdaHandler } from '../../lib/local/server.js';
import { distanceKm } from '../../lib/geo/distance.js';
import { CITY_CENTRES } from './seed.js';

export interface ScaleOptions {
  n: number;
  endpoint: string;
  table: string;
  seed: number;
  linked: LinkedCounts;
  /** Latency loop bounds for reads and for the write scenario, and for the Scan baseline. */
  readBounds: LoopBounds;
  writeBounds: LoopBounds;
  baselineBounds: LoopBounds;
  /** BatchWriteItem calls in flight. */
  writeConcurrency: number;
  /** Keep the table afterwards (default: deleted, to free DynamoDB Local's memory). */
  keepTable?: boolean;
  /** The share of events that are occurrences of recurring series (0: none), and with it the series write scenarios. */
  recurring?: number;
  /** Only these scenario ids (null: all). */
  only?: string[] | null;
  /** Also measure the calendar pages (pages.ts), each next to the API call it shows. */
  pages?: boolean;
  log?: (line: string) => void;
}

export interface ScaleResult {
  n: number;
  table: string;
  linked: { counts: LinkedCounts; ms: number; requests: number; authors: number };
  seed: Omit<SeedEventsResult, 'tally'> & { tally: Omit<SeedEventsResult['tally'], 'perCategory' | 'perVenue' | 'perTag' | 'perOrganizer'> };
  /** Shares of the most linked category/venue/tag (skew), for the report. */
  skew: { topCategoryShare: number; topVenueShare: number; topTagShare: number };
  targets: Omit<ScenarioTargets, 'editorToken'>;
  scenarios: ScenarioResult[];
  baseline: BaselineResult[];
  /** With `pages`: the calendar pages (pages.ts). */
  pages?: PageResult[];
  /** The write scenarios W1–W3 (writes.ts). */
  writes?: WriteScenarioResult[];
  ms: number;
}

export const BENCH_JWT_SECRET = 'bench-secret-0123456789abcdef0123456789';
export const FIRST_EVENT_ID = 10_000_000;
/** What the handlers see as their remaining time (the local server's default is API Gateway's 30 s). */
export const LAMBDA_DEADLINE_MS = 15 * 60_000;

/** The environment the handlers read; set before any product module is imported. */
export function benchEnv(endpoint: string, table: string): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_REGION: 'local',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    CALENDAR_TABLE_NAME: table,
    CALENDAR_METER: '1',
    CALENDAR_JWT_SECRET: BENCH_JWT_SECRET,
    CALENDAR_TIMEZONE: 'UTC',
    CALENDAR_SITE_URL: '',
    CALENDAR_JWT_ISSUER: '',
    // The handlers' own lines and metrics stay out of the report (as for npm start, lib/local/observability-env.ts).
    POWERTOOLS_LOG_LEVEL: 'WARN',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
}

/** A client of the benchmark's own (seeding, the Scan baseline), marshalling as the store's does. */
export function documentClient(endpoint: string): { raw: DynamoDBClient; doc: DynamoDBDocumentClient } {
  const raw = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 5 });
  return { raw, doc: DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false } }) };
}

export async function runScale(o: ScaleOptions): Promise<ScaleResult> {
  const log = o.log ?? (() => {});
  const t0 = performance.now();
  Object.assign(process.env, benchEnv(o.endpoint, o.table));
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;

  // Product modules only now, with the environment in place.
  const { ensureTable } = await import('../../lib/local/dynamodb-local.js');
  const { createLocalServer } = await import('../../lib/local/server.js');
  const { signLocalToken } = await import('../../lib/local/token-sign.js');
  const store = await import('../../lib/store/client.js');
  const seed = await import('./seed.js');
  const sc = await import('./scenarios.js');
  const bl = await import('./baseline.js');

  const { raw, doc: client } = documentClient(o.endpoint);
  await ensureTable(raw, o.table);

  // The real handlers, as the local server loads them, but with a Lambda deadline far beyond API Gateway's 30 s: on
  // DynamoDB Local a large list can take longer, and its cost is still worth reporting (the report flags such calls).
  let lastHandlerMs = 0;
  const server: Server = createLocalServer({
    requestLog: () => undefined,
    loadHandler: async (group) => {
      const { handler } = (await import(`../../functions/${group}.js`)) as { handler: LambdaHandler };
      return async (event, context) => {
        const started = performance.now();
        try {
          return await handler(event, { ...context, getRemainingTimeInMillis: () => LAMBDA_DEADLINE_MS });
        } finally {
          lastHandlerMs = performance.now() - started;
        }
      };
    },
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const http = new KeepAliveClient(origin);
  try {
    const tokens = await Promise.all([1, 2, 3].map((i) => signLocalToken({ secret: BENCH_JWT_SECRET, role: 'editor', sub: `bench-editor-${i}` })));

    log(`N=${o.n}: creating ${o.linked.venues} venues, ${o.linked.organizers} organizers, ${o.linked.categories} categories, ${o.linked.tags} tags through the API…`);
    const linked = await seed.createLinkedRecords(http, sc.API_PATH, tokens, o.linked, o.seed);
    log(`N=${o.n}: linked records in ${(linked.ms / 1000).toFixed(1)} s; seeding ${o.n} events in bulk…`);

    const now = new Date();
    const seeded = await seed.seedEvents({
      client, table: o.table, n: o.n, firstId: FIRST_EVENT_ID, seed: o.seed, now, pools: linked.pools,
      concurrency: o.writeConcurrency, recurring: o.recurring,
      onProgress: (done, n) => log(`N=${o.n}: ${done}/${n} events generated`),
    });
    log(`N=${o.n}: ${seeded.items} items in ${(seeded.ms / 1000).toFixed(1)} s (${Math.round(seeded.eventsPerSecond)} events/s, ${Math.round(seeded.itemsPerSecond)} items/s)`);
    await (await import('../../lib/store/nonempty-rebuild.js')).rebuildNonEmpty(); // the counts a bulk write leaves out

    // Scenario 1/2's event, created through the API with ids.
    const p = linked.pools;
    const startDay = new Date(now.getTime() + 10 * 86_400_000).toISOString().slice(0, 10);
    const created = await http.request('POST', `${sc.API_PATH}/events`, {
      headers: { authorization: `Bearer ${tokens[0]}` },
      body: {
        title: 'Bench scenario one', description: '<p>The event scenarios 1 and 2 read.</p>', status: 'publish',
        start_date: `${startDay} 19:00:00`, end_date: `${startDay} 22:00:00`,
        venue: p.venues[3], organizer: p.organizers.slice(5, 7), categories: p.categories.slice(2, 5), tags: p.tags.slice(7, 9),
      },
    });
    if (created.status !== 201) throw new Error(`creating the scenario 1 event failed: ${created.status} ${created.text.slice(0, 300)}`);
    const ev = JSON.parse(created.text) as { id: number; slug: string };

    const tally = seeded.tally;
    const targets: ScenarioTargets = {
      event: { id: ev.id, slug: ev.slug },
      category: sc.closestShare(tally.perCategory, tally.events, 0.01),
      venue: sc.busiest(tally.perVenue, tally.events),
      topCategory: sc.busiest(tally.perCategory, tally.events),
      tag: sc.busiest(tally.perTag, tally.events),
      organizer: sc.busiest(tally.perOrganizer, tally.events),
      month: sc.monthWindow(now, 3),
      categoryIds: [p.categories[1]!, p.categories[4]!],
      editorToken: tokens[0]!,
      runTag: `${o.n}-${Date.now().toString(36)}`,
      geo: geoTargets(p.coords ?? {}, tally.perVenue, tally.events),
      ...(o.recurring ? { series: await createDailySeries(http, tokens[0]!, startDay, 'Bench regenerated series'), seriesStart: startDay } : {}),
    };

    const recorder = sc.installCommandRecorder(store);
    const scenarios: ScenarioResult[] = [];
    for (const spec of sc.scenarioSpecs(targets).filter((x) => !o.only || o.only.includes(x.id))) {
      const r = await sc.measureScenario(http, spec, spec.method === 'POST' ? o.writeBounds : o.readBounds, recorder);
      log(`N=${o.n}: scenario ${r.id} ${r.method} ${r.path}: ${r.error ?? `${r.meter.requests} req, ${r.meter.rcu} RCU, ${r.meter.items} items read, ${r.itemsReturned} returned, p50 ${r.latency.p50.toFixed(1)} ms (${r.latency.samples} calls)`}`);
      scenarios.push(r);
    }
    if (o.recurring && (!o.only || o.only.includes('13c'))) {
      const r = await measureSeriesDeletes(http, tokens[0]!, startDay, sc);
      log(`N=${o.n}: scenario ${r.id}: ${r.meter.requests} req, ${r.meter.rcu} RCU, ${r.meter.wcu} WCU, p50 ${r.latency.p50.toFixed(0)} ms`);
      scenarios.push(r);
    }
    recorder.uninstall();

    let writes: WriteScenarioResult[] | undefined;
    if (!o.only || o.only.some((id) => /^W\d$/.test(id))) {
      const wr = await import('./writes.js');
      const probe = new wr.WriteProbe(store);
      writes = (await wr.measureWriteScenarios(http, sc.API_PATH, tokens[0]!, probe, o.table, () => lastHandlerMs,
        { venue: p.venues[3], organizers: p.organizers.slice(5, 7), categories: p.categories.slice(2, 5), tags: p.tags.slice(7, 9) },
        o.writeBounds.maxCount)).filter((w) => !o.only || o.only.includes(w.id));
      probe.uninstall();
      for (const w of writes) log(`N=${o.n}: scenario ${w.id} ${w.title}: ${wr.describeWrite(w)}`);
    }

    let pages: PageResult[] | undefined;
    if (o.pages) {
      const pg = await import('./pages.js');
      const slugOf = async (rel: string): Promise<string> => {
        const res = await http.request('GET', `${sc.API_PATH}${rel}`);
        if (res.status !== 200) throw new Error(`GET ${rel} answered ${res.status}`);
        return (JSON.parse(res.text) as { slug: string }).slug;
      };
      const ids = { category: targets.topCategory.id, tag: targets.tag.id, venue: targets.venue.id, organizer: targets.organizer.id };
      const slugs = {
        category: await slugOf(`/categories/${ids.category}`), tag: await slugOf(`/tags/${ids.tag}`), venue: await slugOf(`/venues/${ids.venue}`),
        organizer: await slugOf(`/organizers/${ids.organizer}`), event: ev.slug, month: targets.month.start.slice(0, 7),
      };
      pages = await pg.measurePages(http, pg.pageSpecs(slugs, ids), o.readBounds);
      for (const r of pages) {
        log(`N=${o.n}: page ${r.path}: ${r.status}, ${r.htmlBytes} B HTML, ${r.meter.requests} req / ${r.meter.rcu} RCU (API ${r.api.meter.requests} / `
          + `${r.api.meter.rcu}), p50 ${r.latency.p50.toFixed(1)} ms`);
      }
    }

    log(`N=${o.n}: Scan baseline…`);
    const baseline = await bl.runBaseline(client, o.table, bl.baselineQueries(now, targets), o.baselineBounds);
    for (const b of baseline) log(`N=${o.n}: scan ${b.id}: ${b.rcu} RCU, ${b.itemsRead} items read, total ${b.total}, p50 ${b.latency.p50.toFixed(0)} ms`);

    const top = (per: Record<number, number>) => (Object.values(per).length ? Math.max(...Object.values(per)) / tally.events : 0);
    const { perCategory, perVenue, perTag, perOrganizer, ...tallyRest } = tally;
    void perOrganizer;
    const { editorToken, ...publicTargets } = targets;
    void editorToken;
    return {
      n: o.n,
      table: o.table,
      linked: { counts: o.linked, ms: linked.ms, requests: linked.requests, authors: linked.pools.authors.length },
      seed: { ...seeded, tally: tallyRest },
      skew: { topCategoryShare: top(perCategory), topVenueShare: top(perVenue), topTagShare: top(perTag) },
      targets: publicTargets,
      scenarios,
      ...(writes ? { writes } : {}),
      baseline,
      ...(pages ? { pages } : {}),
      ms: performance.now() - t0,
    };
  } finally {
    http.close();
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
    if (!o.keepTable) await raw.send(new DeleteTableCommand({ TableName: o.table })).catch(() => undefined);
    raw.destroy();
  }
}

/**
 * The geo scenarios' circles: one around the busiest venue with a radius of 0.4 × the distance to its nearest
 * neighbour (so it holds that venue alone), and the home city's centre (seed.ts), whose default circle holds every
 * venue of the city and no other.
 */
function geoTargets(coords: Record<number, { lat: number; lng: number }>, perVenue: Record<number, number>, events: number):
  ScenarioTargets['geo'] {
  const ids = Object.keys(coords).map(Number);
  if (!ids.length) return undefined;
  const busiest = ids.reduce((a, b) => ((perVenue[b] ?? 0) > (perVenue[a] ?? 0) ? b : a));
  const at = coords[busiest]!;
  const nearest = Math.min(...ids.filter((id) => id !== busiest).map((id) => distanceKm(at, coords[id]!)));
  const km = Math.max(0.001, Math.floor(nearest * 0.4 * 1000) / 1000);
  const home = Object.keys(CITY_CENTRES)[0]!;
  const centre = CITY_CENTRES[home]!;
  const cityKm = 25 * 1.609344;
  const inCity = ids.filter((id) => distanceKm(centre, coords[id]!) <= cityKm);
  const share = (vs: number[]) => vs.reduce((n, id) => n + (perVenue[id] ?? 0), 0) / events;
  return { one: { ...at, km, share: share([busiest]) }, city: { name: home, ...centre, share: share(inCity) } };
}

/** A 2-year daily series (730 occurrences within the horizon) created through the API: its id. */
async function createDailySeries(http: KeepAliveClient, token: string, startDay: string, title: string): Promise<number> {
  const res = await http.request('POST', '/calendar/events/v1/events', { headers: { authorization: `Bearer ${token}` }, body: {
    title, description: '<p>Every morning before work, in the small hall.</p>', status: 'publish',
    start_date: `${startDay} 07:00:00`, end_date: `${startDay} 08:00:00`, recurrence: ['RRULE:FREQ=DAILY;COUNT=730'] } });
  if (res.status !== 201) throw new Error(`creating a daily series failed: ${res.status} ${res.text.slice(0, 300)}`);
  return (JSON.parse(res.text) as { id: number }).id;
}

/** Scenario 13c: DELETE ?force=true of a 2-year daily series (each call deletes a series created for it). */
async function measureSeriesDeletes(http: KeepAliveClient, token: string, startDay: string, sc: typeof import('./scenarios.js')):
  Promise<ScenarioResult> {
  const readings: MeterReading[] = [];
  const ms: number[] = [];
  for (let i = 0; i < 3; i++) {
    const id = await createDailySeries(http, token, startDay, `Bench deleted series ${i}`);
    const res = await http.request('DELETE', `${sc.API_PATH}/events/${id}?force=true`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`deleting a daily series failed: ${res.status} ${res.text.slice(0, 300)}`);
    readings.push(parseMeter(headerValue(res, 'x-calendar-meter'))!);
    ms.push(res.ms);
  }
  const mid = (f: (m: MeterReading) => number) => readings.map(f).sort((a, b) => a - b)[1]!;
  const meter = { requests: mid((m) => m.requests), rcu: mid((m) => m.rcu), wcu: mid((m) => m.wcu), items: mid((m) => m.items) };
  return { id: '13c', budget: 0, title: 'delete a 2-year daily series (force=true)', method: 'DELETE', path: '/events/{series}?force=true',
    status: 200, itemsReturned: 1, meter, meterVaries: false, meterMin: meter, meterMax: meter, commands: {}, latency: sc.latencyOf(ms) };
}
