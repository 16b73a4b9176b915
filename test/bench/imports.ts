/**
 * What an import costs (test/bench/README.md "Imports"): `npm run bench -- --imports [--n 2000]` serves an iCalendar
 * file of N single events (the benchmark's text mix, written by ical-generator) from a loopback HTTP server, imports
 * it through `POST /imports` on the local server — whose worker runs the import in the same process, as `npm start`
 * does — and waits for the run to finish; then runs it again with nothing changed. For each run: events per second,
 * and per source event the DynamoDB requests, transactions, items written, the write units DynamoDB would charge
 * (writes.ts `chargedUnits`) and the items it left stored.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ical from 'ical-generator';
import { KeepAliveClient } from './common.js';
import { EventGenerator, type LinkPools } from './seed.js';
import { chargedUnits, countItems, sizesOf, WriteProbe } from './writes.js';

export interface ImportsOptions {
  /** The checkout whose server is measured (default: this one). */
  root: string;
  endpoint: string;
  table: string;
  /** Single events in the file. */
  n: number;
  seed: number;
  log?: (line: string) => void;
}

/** One run of the import, per source event. */
export interface ImportRunResult {
  ms: number;
  eventsPerSecond: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  requestsPerEvent: number;
  transactionsPerEvent: number;
  actionsPerEvent: number;
  writeUnitsPerEvent: number;
  storedItemsPerEvent: number;
}

export interface ImportsResult {
  root: string;
  n: number;
  fileBytes: number;
  first: ImportRunResult;
  rerun: ImportRunResult;
}

const VENUES = Array.from({ length: 20 }, (_, i) => `Import hall ${i}, Berlin`);
const CATEGORIES = Array.from({ length: 20 }, (_, i) => `Import category ${i}`);

/** The file: N timed single events with the benchmark's titles and descriptions, a venue (LOCATION) and categories. */
export function importFile(n: number, seed: number): string {
  const pools: LinkPools = { venues: VENUES.map((_, i) => i), organizers: [], categories: CATEGORIES.map((_, i) => i), tags: [], authors: [1] };
  const gen = new EventGenerator(pools, seed, new Date());
  const cal = ical({ name: 'Benchmark import', prodId: { company: 'calendar-bench', product: 'imports' } });
  const utc = (wall: string): Date => new Date(`${wall.replace(' ', 'T')}Z`);
  for (let i = 0; i < n; i++) {
    const { item: e } = gen.event(30_000_000 + i);
    const en = e.tr.en!;
    cal.createEvent({
      id: `bench-${seed}-${i}@calendar-bench.example`, summary: en.title,
      description: (en.description ?? '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim(),
      start: utc(e.startUtc), end: utc(e.endUtc),
      ...(e.venue !== undefined ? { location: VENUES[e.venue] } : {}),
      categories: e.categories.map((c) => ({ name: CATEGORIES[c]! })),
    });
  }
  return cal.toString();
}

export async function runImports(o: ImportsOptions): Promise<ImportsResult> {
  const log = o.log ?? (() => {});
  const { benchEnv, documentClient, BENCH_JWT_SECRET } = await import('./scale.js');
  Object.assign(process.env, benchEnv(o.endpoint, o.table), { CALENDAR_IMPORT_ALLOW_PRIVATE: '1' });
  const root = resolve(o.root);
  const from = (path: string) => import(pathToFileURL(join(root, path)).href);
  const { ensureTable } = await from('lib/local/dynamodb-local.ts');
  const { createLocalServer } = await from('lib/local/server.ts');
  const { startLocalImports } = await from('lib/local/imports.ts');
  const { signLocalToken } = await from('lib/local/token-sign.ts');
  const store = await from('lib/store/client.ts');
  const { raw, doc: client } = documentClient(o.endpoint);
  await ensureTable(raw, o.table);

  const file = importFile(o.n, o.seed);
  const source: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8', 'content-length': Buffer.byteLength(file) });
    res.end(file);
  });
  await new Promise<void>((ok) => source.listen(0, '127.0.0.1', () => ok()));
  const server: Server = createLocalServer({ requestLog: () => undefined });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  startLocalImports(() => undefined);
  const http = new KeepAliveClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const api = '/calendar/events/v1';
  try {
    const token = await signLocalToken({ secret: BENCH_JWT_SECRET, role: 'editor', sub: 'bench-importer' });
    const headers = { authorization: `Bearer ${token}` };
    const probe = new WriteProbe(store);
    /** Runs one import run (started by `start`) to its end, measured. */
    const measured = async (start: () => Promise<number>): Promise<ImportRunResult> => {
      const before = await countItems(client, o.table);
      probe.take();
      const t0 = performance.now();
      const id = await start();
      let run: Record<string, number | string> = {};
      for (;;) {
        // One GET a second: its reads are part of the figures, a request per second of the run.
        await new Promise((ok) => setTimeout(ok, 1000));
        const res = await http.request('GET', `${api}/imports/${id}`, { headers });
        run = (JSON.parse(res.text) as { last_run: Record<string, number | string> }).last_run;
        if (run.state === 'done' || run.state === 'failed') break;
      }
      const ms = performance.now() - t0;
      const seen = probe.take();
      if (run.state !== 'done') throw new Error(`the import run ${run.state}: ${JSON.stringify(run).slice(0, 500)}`);
      const units = chargedUnits(seen.actions, await sizesOf(client, o.table, seen.actions.map((a) => a.key)));
      const after = await countItems(client, o.table);
      const r: ImportRunResult = {
        ms, eventsPerSecond: o.n / (ms / 1000), created: Number(run.created), updated: Number(run.updated), unchanged: Number(run.unchanged),
        failed: Number(run.failed), requestsPerEvent: seen.requests / o.n, transactionsPerEvent: seen.transactions / o.n,
        actionsPerEvent: seen.actions.length / o.n, writeUnitsPerEvent: units / o.n, storedItemsPerEvent: (after - before) / o.n,
      };
      log(`imports: ${describeImportRun(r)}`);
      return r;
    };
    let importId = 0;
    const url = `http://127.0.0.1:${(source.address() as AddressInfo).port}/calendar.ics`;
    log(`imports: ${o.n} events (${(Buffer.byteLength(file) / 1024).toFixed(0)} KB of iCalendar) through POST /imports (${root})…`);
    const first = await measured(async () => {
      const res = await http.request('POST', `${api}/imports`, { headers, body: { name: 'Benchmark', source: { type: 'ics', url } } });
      if (res.status !== 202) throw new Error(`POST /imports answered ${res.status}: ${res.text.slice(0, 300)}`);
      importId = (JSON.parse(res.text) as { id: number }).id;
      return importId;
    });
    log('imports: the same file again (nothing changed)…');
    const rerun = await measured(async () => {
      const res = await http.request('POST', `${api}/imports/${importId}/run`, { headers });
      if (res.status !== 202) throw new Error(`POST /imports/${importId}/run answered ${res.status}: ${res.text.slice(0, 300)}`);
      return importId;
    });
    probe.uninstall();
    return { root, n: o.n, fileBytes: Buffer.byteLength(file), first, rerun };
  } finally {
    http.close();
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
    await new Promise<void>((ok) => source.close(() => ok()));
    raw.destroy();
  }
}

export const describeImportRun = (r: ImportRunResult): string => `${r.eventsPerSecond.toFixed(1)} events/s (${(r.ms / 1000).toFixed(1)} s; `
  + `${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.failed} failed); per event ${r.requestsPerEvent.toFixed(1)} requests, `
  + `${r.transactionsPerEvent.toFixed(2)} transactions, ${r.actionsPerEvent.toFixed(1)} items written, ${r.writeUnitsPerEvent.toFixed(1)} write units, `
  + `${r.storedItemsPerEvent.toFixed(1)} stored items`;
