/**
 * What writes cost (test/bench/README.md "Writes"): saving an event through the public API, as a client would, with
 * the DynamoDB work each save does — requests, sequential rounds (calls that wait for the one before), the items its
 * transactions write, and the write units DynamoDB would charge for them (from the items' sizes once written:
 * DynamoDB Local's own ConsumedCapacity under-counts transactions) — and the handler's time.
 *
 * - `measureWriteScenarios`: on a seeded calendar (scale.ts, after the read scenarios), W1 `POST /events` with a
 *   60-word description, W2 with a 2,000-character one, W3 a title-only `PATCH`.
 * - `runWrites` (`npm run bench -- --writes [--root DIR]`): a fresh table seeded through `POST /events` only (8 in
 *   flight, the benchmark's text mix), then W1–W3 on it. With `--root` it runs another checkout's server and store (an
 *   earlier commit, for figures before a change): only this file's HTTP and DynamoDB calls are the benchmark's own.
 */
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { KeepAliveClient, percentile, Rng } from './common.js';
import { EventGenerator, paragraphText, words, type LinkPools } from './seed.js';

type Key = { PK: string; SK: string };
type Item = Record<string, unknown>;

/** One write action a call made: the item's key, and whether it was inside a transaction (DynamoDB charges twice). */
interface WriteAction { key: Key; kind: 'put' | 'update' | 'delete' | 'check'; tx: boolean }

/** What one captured stretch of work did. */
export interface Captured {
  requests: number;
  transactions: number;
  rounds: number;
  actions: WriteAction[];
  commands: Record<string, number>;
}

/** Wraps the store's client (setClient) to see every DynamoDB call: names, rounds and write actions. */
export class WriteProbe {
  private current: Captured = WriteProbe.empty();
  private inFlight = 0;
  private readonly real: DynamoDBDocumentClient;

  constructor(private readonly store: { db: () => DynamoDBDocumentClient; setClient: (c: DynamoDBDocumentClient | null) => void }) {
    this.real = store.db();
    const wrapped = Object.create(this.real) as DynamoDBDocumentClient;
    const send = this.real.send.bind(this.real) as (...args: unknown[]) => Promise<unknown>;
    (wrapped as { send: (...args: unknown[]) => unknown }).send = async (command: unknown, ...rest: unknown[]) => {
      this.note(command);
      if (this.inFlight++ === 0) this.current.rounds++;
      try {
        return await send(command, ...rest);
      } finally {
        this.inFlight--;
      }
    };
    store.setClient(wrapped);
  }

  static empty(): Captured {
    return { requests: 0, transactions: 0, rounds: 0, actions: [], commands: {} };
  }

  private note(command: unknown): void {
    const name = (command as object)?.constructor?.name ?? 'unknown';
    const c = this.current;
    c.requests++;
    c.commands[name] = (c.commands[name] ?? 0) + 1;
    const input = (command as { input?: Record<string, unknown> }).input ?? {};
    if (name === 'TransactWriteCommand') {
      c.transactions++;
      for (const t of (input.TransactItems as Record<string, { Key?: Key; Item?: Key }>[] | undefined) ?? []) {
        const [kind, body] = Object.entries(t)[0]!;
        const key = body.Key ?? body.Item!;
        c.actions.push({ key: { PK: key.PK, SK: key.SK }, tx: true, kind: kind === 'Put' ? 'put' : kind === 'Update' ? 'update' : kind === 'Delete' ? 'delete' : 'check' });
      }
    } else if (name === 'PutCommand' || name === 'UpdateCommand' || name === 'DeleteCommand') {
      const key = (input.Key ?? input.Item) as Key;
      c.actions.push({ key: { PK: key.PK, SK: key.SK }, tx: false, kind: name === 'PutCommand' ? 'put' : name === 'UpdateCommand' ? 'update' : 'delete' });
    } else if (name === 'BatchWriteCommand') {
      for (const reqs of Object.values((input.RequestItems as Record<string, Record<string, { Item?: Key; Key?: Key }>[]>) ?? {})) {
        for (const r of reqs) {
          const [kind, body] = Object.entries(r)[0]!;
          const key = body.Item ?? body.Key!;
          c.actions.push({ key: { PK: key.PK, SK: key.SK }, tx: false, kind: kind === 'PutRequest' ? 'put' : 'delete' });
        }
      }
    }
  }

  /** Starts a new capture and returns the one that ran until now. */
  take(): Captured {
    const out = this.current;
    this.current = WriteProbe.empty();
    return out;
  }

  uninstall(): void {
    this.store.setClient(this.real);
  }

  /** The client to read items back with (outside any capture). */
  get client(): DynamoDBDocumentClient {
    return this.real;
  }
}

/** An item's size as DynamoDB counts it: names and values in UTF-8, numbers by their significant digits. */
export function itemSize(item: Item): number {
  const value = (v: unknown): number => {
    if (typeof v === 'string') return Buffer.byteLength(v);
    if (typeof v === 'number') return Math.ceil(String(Math.abs(v)).replace(/^0+|\.|0+$/g, '').length / 2) + 1;
    if (typeof v === 'boolean' || v === null) return 1;
    if (v instanceof Set) return [...v].reduce((n: number, x) => n + value(x), 0);
    if (Array.isArray(v)) return 3 + v.reduce((n: number, x) => n + 1 + value(x), 0);
    if (v && typeof v === 'object') return 3 + Object.entries(v).reduce((n, [k, x]) => n + 1 + Buffer.byteLength(k) + value(x), 0);
    return 0;
  };
  return Object.entries(item).reduce((n, [k, v]) => n + Buffer.byteLength(k) + value(v), 0);
}

/**
 * The write units DynamoDB would charge for actions, from the items as they stand afterwards (`sizes`: bytes by key;
 * absent: deleted, or a check): 1 per KB written (2 inside a transaction), at least 1 per item.
 */
export function chargedUnits(actions: WriteAction[], sizes: Map<string, number>): number {
  return actions.reduce((sum, a) => sum + (a.tx ? 2 : 1) * Math.max(1, Math.ceil((sizes.get(`${a.key.PK}|${a.key.SK}`) ?? 0) / 1024)), 0);
}

/** The sizes of the items now stored under `keys` (read consistently, in batches of 100). */
export async function sizesOf(client: DynamoDBDocumentClient, table: string, keys: Key[]): Promise<Map<string, number>> {
  const { BatchGetCommand } = await import('@aws-sdk/lib-dynamodb');
  const unique = [...new Map(keys.map((k) => [`${k.PK}|${k.SK}`, k])).values()];
  const sizes = new Map<string, number>();
  for (let i = 0; i < unique.length; i += 100) {
    let request: Record<string, { Keys: Key[]; ConsistentRead: boolean }> | undefined = { [table]: { Keys: unique.slice(i, i + 100), ConsistentRead: true } };
    while (request && Object.keys(request).length) {
      const out = await client.send(new BatchGetCommand({ RequestItems: request }));
      for (const item of out.Responses?.[table] ?? []) sizes.set(`${item.PK}|${item.SK}`, itemSize(item));
      request = out.UnprocessedKeys as typeof request;
    }
  }
  return sizes;
}

// ------------------------------------------------------------------------------------------------ the scenarios

export interface WriteScenarioResult {
  id: string;
  title: string;
  samples: number;
  /** Medians per call. */
  requests: number;
  rounds: number;
  transactions: number;
  actions: number;
  writeUnits: number;
  handlerMs: { p50: number; p90: number };
  commands: Record<string, number>;
}

const BENCH_WORDS = ('jazz night market open air workshop lecture festival tour tasting concert screening reading gala brunch '
  + 'dance theatre exhibition yoga run ride family kids science poetry comedy quiz choir organ piano strings brass garden harbour '
  + 'river old town museum library campus forest winter summer spring autumn late early grand little').split(' ');

/** A description of `n` words drawn from the seeded calendar's vocabulary (so they share its index items, as real text does). */
const wordsText = (rng: Rng, n: number) => `<p>${Array.from({ length: n }, () => rng.pick(BENCH_WORDS)).join(' ')}.</p>`;

/**
 * W1–W3, `samples` calls each, one at a time: the handler's time comes from `handlerMs` (the local server's own timing
 * of the last call), the DynamoDB work from the probe, the write units from the items written, read back after each call.
 */
export async function measureWriteScenarios(http: KeepAliveClient, apiPath: string, token: string, probe: WriteProbe, table: string,
  handlerMs: () => number, links: { venue?: number; organizers: number[]; categories: number[]; tags: number[] }, samples = 30,
  seed = 7): Promise<WriteScenarioResult[]> {
  const rng = new Rng(seed);
  const day = (i: number) => `2027-0${1 + (i % 9)}-1${i % 10}`;
  const base = (i: number) => ({ status: 'publish', start_date: `${day(i)} 19:00:00`, end_date: `${day(i)} 21:00:00`, venue: links.venue,
    organizer: links.organizers.slice(0, 1), categories: links.categories.slice(0, 2), tags: links.tags.slice(0, 1) });
  const created: number[] = [];
  const specs: { id: string; title: string; call: (i: number) => Promise<{ status: number; text: string }>; expect: number }[] = [
    { id: 'W1', title: 'POST /events, 60-word description', expect: 201,
      call: (i) => http.request('POST', `${apiPath}/events`, { headers: { authorization: `Bearer ${token}` },
        body: { ...base(i), title: `Evening ${words(rng, 3)} ${i}`, description: wordsText(rng, 60) } }) },
    { id: 'W2', title: 'POST /events, 2,000-character description', expect: 201,
      call: (i) => http.request('POST', `${apiPath}/events`, { headers: { authorization: `Bearer ${token}` },
        body: { ...base(i), title: `Long ${words(rng, 3)} ${i}`, description: paragraphText(rng, 2000, 2000) } }) },
    { id: 'W3', title: 'PATCH /events/{id}, title only', expect: 200,
      call: (i) => http.request('PATCH', `${apiPath}/events/${created[i % created.length]}`, { headers: { authorization: `Bearer ${token}` },
        body: { title: `Renamed ${words(rng, 3)} ${i}` } }) },
  ];
  const results: WriteScenarioResult[] = [];
  for (const spec of specs) {
    const runs: { c: Captured; units: number; ms: number }[] = [];
    for (let i = -1; i < samples; i++) {
      probe.take();
      const res = await spec.call(i + 1);
      const ms = handlerMs();
      const c = probe.take();
      if (res.status !== spec.expect) throw new Error(`${spec.id} answered ${res.status}: ${res.text.slice(0, 300)}`);
      if (spec.id === 'W1') created.push((JSON.parse(res.text) as { id: number }).id);
      if (i < 0) continue; // a warm-up call
      runs.push({ c, units: chargedUnits(c.actions, await sizesOf(probe.client, table, c.actions.map((a) => a.key))), ms });
    }
    const mid = (f: (r: (typeof runs)[number]) => number) => percentile(runs.map(f), 50);
    const ms = runs.map((r) => r.ms);
    results.push({ id: spec.id, title: spec.title, samples: runs.length, requests: mid((r) => r.c.requests), rounds: mid((r) => r.c.rounds),
      transactions: mid((r) => r.c.transactions), actions: mid((r) => r.c.actions.length), writeUnits: mid((r) => r.units),
      handlerMs: { p50: percentile(ms, 50), p90: percentile(ms, 90) }, commands: runs[0]?.c.commands ?? {} });
  }
  return results;
}

// ------------------------------------------------------------------------------------------------ seeding through the API

export interface WritesOptions {
  /** The checkout whose server and store are measured (default: this one). */
  root: string;
  endpoint: string;
  table: string;
  /** Events seeded through POST /events. */
  n: number;
  concurrency: number;
  seed: number;
  samples: number;
  log?: (line: string) => void;
}

export interface WritesResult {
  root: string;
  n: number;
  seeding: { ms: number; eventsPerSecond: number; requestsPerEvent: number; transactionsPerEvent: number; actionsPerEvent: number;
    writeUnitsPerEvent: number; storedItemsPerEvent: number };
  scenarios: WriteScenarioResult[];
}

/** The request body of a generated event: its text, dates, status and links, as a client of the API sends them. */
function bodyOf(e: ReturnType<EventGenerator['event']>['item']): Record<string, unknown> {
  const en = e.tr.en!;
  return {
    title: en.title, description: en.description, ...(en.excerpt ? { excerpt: en.excerpt } : {}),
    start_date: e.start, end_date: e.end, timezone: e.tz, all_day: e.allDay,
    status: e.status === 'trash' ? 'draft' : e.status, hide_from_listings: e.hidden, featured: e.featured, sticky: e.sticky,
    ...(e.venue !== undefined ? { venue: e.venue } : {}), organizer: e.organizers, categories: e.categories, tags: e.tags,
    ...(e.website ? { website: e.website } : {}), ...(e.cost.length ? { cost: e.cost.join(' – ') } : {}),
  };
}

/** Every item of the table, counted (a Scan: the benchmark's own, outside any capture). */
export const countItems = async (client: DynamoDBDocumentClient, table: string): Promise<number> => {
  const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
  let n = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await client.send(new ScanCommand({ TableName: table, Select: 'COUNT', ExclusiveStartKey }));
    n += out.Count ?? 0;
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return n;
};

async function pool<T>(items: T[], concurrency: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!, i);
    }
  }));
}

export async function runWrites(o: WritesOptions): Promise<WritesResult> {
  const log = o.log ?? (() => {});
  const { benchEnv, documentClient, BENCH_JWT_SECRET } = await import('./scale.js');
  Object.assign(process.env, benchEnv(o.endpoint, o.table));
  const root = resolve(o.root);
  const from = (path: string) => import(pathToFileURL(join(root, path)).href);
  const { ensureTable } = await from('lib/local/dynamodb-local.ts');
  const { createLocalServer } = await from('lib/local/server.ts');
  const { signLocalToken } = await from('lib/local/token-sign.ts');
  const store = await from('lib/store/client.ts');
  const { raw } = documentClient(o.endpoint);
  await ensureTable(raw, o.table);
  // Items are read back with a document client of the measured checkout's own SDK, as its store reads them.
  const { DynamoDBDocumentClient: Doc } = await import(pathToFileURL(createRequire(join(root, 'package.json')).resolve('@aws-sdk/lib-dynamodb')).href);

  let lastHandlerMs = 0;
  const server: Server = createLocalServer({
    requestLog: () => undefined,
    loadHandler: async (group: string) => {
      const { handler } = await from(`functions/${group}.ts`);
      return async (event: unknown, context: { getRemainingTimeInMillis: () => number }) => {
        const t0 = performance.now();
        try {
          return await handler(event, { ...context, getRemainingTimeInMillis: () => 15 * 60_000 });
        } finally {
          lastHandlerMs = performance.now() - t0;
        }
      };
    },
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const http = new KeepAliveClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const apiPath = '/calendar/events/v1';
  try {
    const token = await signLocalToken({ secret: BENCH_JWT_SECRET, role: 'editor', sub: 'bench-writer' });
    const post = async (path: string, body: Record<string, unknown>): Promise<number> => {
      const res = await http.request('POST', `${apiPath}${path}`, { headers: { authorization: `Bearer ${token}` }, body });
      if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
      return (JSON.parse(res.text) as { id: number }).id;
    };
    const rng = new Rng(o.seed);
    const made = async (path: string, n: number, body: (i: number) => Record<string, unknown>) => {
      const ids: number[] = [];
      for (let i = 0; i < n; i++) ids.push(await post(path, body(i)));
      return ids;
    };
    const pools: LinkPools = {
      venues: await made('/venues', 20, (i) => ({ venue: `Writes venue ${i}`, city: 'Berlin', description: `<p>${words(rng, 12)}</p>` })),
      organizers: await made('/organizers', 30, (i) => ({ organizer: `Writes organizer ${i}`, email: `o${i}@example.org` })),
      categories: await made('/categories', 20, (i) => ({ name: `Writes category ${i}` })),
      tags: await made('/tags', 30, (i) => ({ name: `Writes tag ${i}` })),
      authors: [1],
    };
    const client: DynamoDBDocumentClient = Doc.from(raw, { marshallOptions: { removeUndefinedValues: true } });
    const before = await countItems(client, o.table);
    const gen = new EventGenerator(pools, o.seed, new Date());
    const bodies = Array.from({ length: o.n }, (_, i) => bodyOf(gen.event(20_000_000 + i).item));
    const probe = new WriteProbe(store);
    log(`writes: seeding ${o.n} events through POST /events, ${o.concurrency} in flight (${root})…`);
    probe.take();
    const t0 = performance.now();
    await pool(bodies, o.concurrency, async (body) => {
      await post('/events', body);
    });
    const ms = performance.now() - t0;
    const seeded = probe.take();
    const after = await countItems(client, o.table);
    const units = chargedUnits(seeded.actions, await sizesOf(client, o.table, seeded.actions.map((a) => a.key)));
    const seeding = {
      ms, eventsPerSecond: o.n / (ms / 1000), requestsPerEvent: seeded.requests / o.n, transactionsPerEvent: seeded.transactions / o.n,
      actionsPerEvent: seeded.actions.length / o.n, writeUnitsPerEvent: units / o.n, storedItemsPerEvent: (after - before) / o.n,
    };
    log(`writes: ${seeding.eventsPerSecond.toFixed(1)} events/s, ${seeding.requestsPerEvent.toFixed(1)} requests, ${seeding.transactionsPerEvent.toFixed(1)} `
      + `transactions, ${seeding.actionsPerEvent.toFixed(0)} items written, ${seeding.writeUnitsPerEvent.toFixed(0)} write units, `
      + `${seeding.storedItemsPerEvent.toFixed(1)} stored items per event`);
    const scenarios = await measureWriteScenarios(http, apiPath, token, probe, o.table, () => lastHandlerMs,
      { venue: pools.venues[0], organizers: pools.organizers, categories: pools.categories, tags: pools.tags }, o.samples);
    for (const s of scenarios) log(`writes: ${s.id} ${s.title}: ${describeWrite(s)}`);
    probe.uninstall();
    return { root, n: o.n, seeding, scenarios };
  } finally {
    http.close();
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
    raw.destroy();
  }
}

export const describeWrite = (s: WriteScenarioResult): string => `${s.requests} requests, ${s.rounds} rounds, ${s.transactions} transactions, `
  + `${s.actions} items written, ${s.writeUnits} write units, handler p50 ${s.handlerMs.p50.toFixed(0)} ms (p90 ${s.handlerMs.p90.toFixed(0)})`;

