/**
 * `npm run bench -- --pages` (test/bench/README.md "Calendar pages"): after a calendar is seeded (run.ts, scale.ts),
 * each page kind of contract §21 over HTTP against the real pages function, next to the API call whose list or record
 * it shows: the page's server time, its HTML (bytes and gzipped), the pages' script (gzipped), and its DynamoDB work
 * (X-Calendar-Meter: the API calls the page made and its own reads) against the API call's.
 */
import { gzipSync } from 'node:zlib';
import { boundedLoop, headerValue, median, parseMeter, round, type KeepAliveClient, type LoopBounds, type MeterReading } from './common.js';
import { API_PATH, latencyOf, type Latency } from './scenarios.js';

/** Contract §21's budgets for a list page of 20 events: HTML (uncompressed) and its scripts together (gzipped). */
export const PAGE_BUDGETS = { listHtmlBytes: 60 * 1024, scriptGzipBytes: 15 * 1024 } as const;

export interface PageSpec {
  kind: string;
  path: string;
  /** The API call whose list or record the page shows (API_PATH-relative). */
  api: string;
}

export interface PageResult {
  kind: string;
  path: string;
  status: number;
  latency: Latency;
  htmlBytes: number;
  htmlGzipBytes: number;
  /** The scripts the page loads (site.js), gzipped. */
  scriptGzipBytes: number;
  meter: MeterReading;
  api: { path: string; status: number; meter: MeterReading; latency: Latency };
}

export interface PageSlugs { category: string; tag: string; venue: string; organizer: string; event: string; month: string }

export function pageSpecs(s: PageSlugs, ids: { category: number; tag: number; venue: number; organizer: number }): PageSpec[] {
  const [y, m] = s.month.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const window = `ends_after=${s.month}-01%2000:00:00&starts_before=${s.month}-${last}%2023:59:59&per_page=50`;
  return [
    { kind: 'list (20 events)', path: '/events/', api: '/events?per_page=20' },
    { kind: 'list, page 3', path: '/events/?page=3', api: '/events?per_page=20&page=3' },
    { kind: `month ${s.month}`, path: `/events/month/${s.month}/`, api: `/events?${window}` },
    { kind: 'category', path: `/events/category/${s.category}/`, api: `/events?categories=${ids.category}&per_page=20` },
    { kind: 'tag', path: `/tag/${s.tag}/`, api: `/events?tags=${ids.tag}&per_page=20` },
    { kind: 'venue', path: `/venue/${s.venue}/`, api: `/events?venue=${ids.venue}&per_page=20` },
    { kind: 'organizer', path: `/organizer/${s.organizer}/`, api: `/events?organizer=${ids.organizer}&per_page=20` },
    { kind: 'event', path: `/event/${s.event}/`, api: `/events/by-slug/${s.event}` },
    { kind: 'list in German', path: '/de/events/', api: '/events?per_page=20' },
  ];
}

const medianMeter = (readings: MeterReading[]): MeterReading => ({
  requests: median(readings.map((r) => r.requests)), rcu: median(readings.map((r) => r.rcu)),
  wcu: median(readings.map((r) => r.wcu)), items: median(readings.map((r) => r.items)),
});

export async function measurePages(http: KeepAliveClient, specs: PageSpec[], bounds: LoopBounds): Promise<PageResult[]> {
  const script = await http.request('GET', '/events/assets/site.js');
  if (script.status !== 200) throw new Error(`the pages' script answered ${script.status}`);
  const scriptGzipBytes = gzipSync(script.text, { level: 9 }).byteLength;
  const out: PageResult[] = [];
  for (const spec of specs) {
    await http.request('GET', spec.path); // warm-up
    const pages = await boundedLoop(bounds, () => http.request('GET', spec.path));
    await http.request('GET', `${API_PATH}${spec.api}`);
    const apis = await boundedLoop(bounds, () => http.request('GET', `${API_PATH}${spec.api}`));
    const meterOf = (a: (typeof pages)[number]) => {
      const m = parseMeter(headerValue(a, 'x-calendar-meter'));
      if (!m) throw new Error(`${spec.path}: no X-Calendar-Meter header (CALENDAR_METER=1 is not set)`);
      return m;
    };
    const first = pages[0]!;
    out.push({
      kind: spec.kind, path: spec.path, status: first.status, latency: latencyOf(pages.map((p) => p.ms)),
      htmlBytes: Buffer.byteLength(first.text), htmlGzipBytes: gzipSync(first.text, { level: 9 }).byteLength, scriptGzipBytes,
      meter: medianMeter(pages.map(meterOf)),
      api: { path: spec.api, status: apis[0]!.status, meter: medianMeter(apis.map(meterOf)), latency: latencyOf(apis.map((a) => a.ms)) },
    });
  }
  return out;
}

const kb = (bytes: number): string => (bytes / 1024).toFixed(1);

/** The README's table: one row per page kind, the page against the API call it shows. */
export function renderPages(rows: PageResult[], n: number): string {
  const lines = [
    `Calendar of ${n.toLocaleString('en')} events. Server time is the local server's (handlers in-process, DynamoDB Local), p50 over the`,
    'measured calls; RCU and DynamoDB requests are the median per call; "extra" is what the page reads beyond the API call it shows.',
    '',
    '| page | status | p50 ms (API) | HTML KB | HTML gzip KB | script gzip KB | requests (API) | RCU (API) | extra RCU |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(`| ${r.kind} \`${r.path}\` | ${r.status} | ${r.latency.p50.toFixed(1)} (${r.api.latency.p50.toFixed(1)}) | ${kb(r.htmlBytes)} | `
      + `${kb(r.htmlGzipBytes)} | ${kb(r.scriptGzipBytes)} | ${r.meter.requests} (${r.api.meter.requests}) | ${round(r.meter.rcu)} (${round(r.api.meter.rcu)}) | `
      + `${round(r.meter.rcu - r.api.meter.rcu)} |`);
  }
  const list = rows[0];
  if (list) {
    lines.push('', `Budgets (contract §21): list page HTML ${kb(list.htmlBytes)} KB ≤ ${kb(PAGE_BUDGETS.listHtmlBytes)} KB: `
      + `${list.htmlBytes <= PAGE_BUDGETS.listHtmlBytes ? 'PASS' : 'FAIL'}; script ${kb(list.scriptGzipBytes)} KB gzipped ≤ `
      + `${kb(PAGE_BUDGETS.scriptGzipBytes)} KB: ${list.scriptGzipBytes <= PAGE_BUDGETS.scriptGzipBytes ? 'PASS' : 'FAIL'}.`);
  }
  return `${lines.join('\n')}\n`;
}
