/**
 * Warm overhead (budget 10): the time of one handler invocation with DynamoDB answered instantly by an in-memory
 * stub, per route kind. Each functions/<group>.ts handler is imported in this process with the stub installed
 * through the store's `setClient`, then called with HTTP API 2.0 events in a tight loop; the median is reported.
 *
 * The stub (MemoryTable) keeps items in a Map and answers the document client's commands — Get, BatchGet, Query
 * (on the table or an index of lib/store/table.ts, by partition value and sort-key condition), Put, Delete,
 * Update (SET/REMOVE/ADD/DELETE), TransactWrite, BatchWrite — without conditions, capacity or marshalling. Its
 * fixtures are written by the product itself: venues, organizers and terms through the stubbed POST handlers, and
 * events from the seeder's generator with the product's own create items. Run it in its own process: it replaces
 * the store's client for the whole process.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { median, percentile } from './common.js';
import { parseUpdateExpression, type Item } from './seed.js';

type Key = { PK: string; SK: string };
type IndexDef = { name: string | null; pk: string; sk: string };

export class UnsupportedCommand extends Error {}

const copy = (item: Item): Item => ({ ...item });

/** A DynamoDB stand-in for the document client's `send` (see the file comment). */
export class MemoryTable {
  readonly items = new Map<string, Item>();
  /** Per index: partition value → items sorted by the sort key, kept up to date on every write. */
  private readonly parts = new Map<string | null, Map<string, Item[]>>();
  readonly calls: Record<string, number> = {};
  /** Parsed KeyConditionExpressions (the handlers send a handful of distinct ones). */
  private readonly conditions = new Map<string, RegExpExecArray | null>();

  constructor(readonly tableName: string, private readonly indexes: IndexDef[]) {
    for (const d of indexes) this.parts.set(d.name, new Map());
  }

  private static id = (k: Key) => `${k.PK}\u0000${k.SK}`;

  private unindex(item: Item): void {
    for (const d of this.indexes) {
      const list = this.parts.get(d.name)!.get(item[d.pk] as string);
      const at = list ? list.indexOf(item) : -1;
      if (at >= 0) list!.splice(at, 1);
    }
  }

  put(item: Item): void {
    const id = MemoryTable.id(item as Key);
    const old = this.items.get(id);
    if (old) this.unindex(old);
    this.items.set(id, item);
    for (const d of this.indexes) {
      const pk = item[d.pk];
      if (typeof pk !== 'string' || item[d.sk] === undefined) continue;
      const m = this.parts.get(d.name)!;
      let list = m.get(pk);
      if (!list) m.set(pk, (list = []));
      const sk = String(item[d.sk]);
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (String(list[mid]![d.sk]) <= sk) lo = mid + 1;
        else hi = mid;
      }
      list.splice(lo, 0, item);
    }
  }

  delete(key: Key): void {
    const id = MemoryTable.id(key);
    const old = this.items.get(id);
    if (!old) return;
    this.unindex(old);
    this.items.delete(id);
  }

  private index(name: string | null): { def: IndexDef; parts: Map<string, Item[]> } {
    const def = this.indexes.find((i) => i.name === name);
    if (!def) throw new UnsupportedCommand(`MemoryTable: no index ${name}`);
    return { def, parts: this.parts.get(name)! };
  }

  /** Applies an UpdateExpression (conditions are not checked) and returns the new item. */
  applyUpdate(key: Key, expression: string, names?: Record<string, string>, values?: Record<string, unknown>): Item {
    const id = MemoryTable.id(key);
    const item: Item = { ...(this.items.get(id) ?? { PK: key.PK, SK: key.SK }) };
    for (const c of parseUpdateExpression(expression, names, values)) {
      const seen = item[c.attribute];
      if (c.action === 'SET') item[c.attribute] = c.value;
      else if (c.action === 'REMOVE') delete item[c.attribute];
      else if (c.action === 'ADD') {
        if (typeof c.value === 'number') item[c.attribute] = (typeof seen === 'number' ? seen : 0) + c.value;
        else if (c.value instanceof Set) item[c.attribute] = new Set([...((seen as Set<unknown> | undefined) ?? []), ...c.value]);
        else throw new UnsupportedCommand(`MemoryTable: ADD of ${typeof c.value}`);
      } else if (c.action === 'DELETE' && seen instanceof Set && c.value instanceof Set) {
        item[c.attribute] = new Set([...seen].filter((v) => !(c.value as Set<unknown>).has(v)));
      }
    }
    this.put(item);
    return item;
  }

  private query(input: Record<string, any>): { items: Item[]; last?: Item } {
    if (input.FilterExpression) throw new UnsupportedCommand('MemoryTable: Query FilterExpression is not supported');
    const names: Record<string, string> = input.ExpressionAttributeNames ?? {};
    const values: Record<string, unknown> = input.ExpressionAttributeValues ?? {};
    const nameOf = (t: string) => (t.startsWith('#') ? names[t]! : t);
    const expr = String(input.KeyConditionExpression ?? '');
    let m = this.conditions.get(expr);
    if (m === undefined) this.conditions.set(expr, (m = /^\s*(#?\w+)\s*=\s*(:\w+)\s*(?:AND\s+(.+))?$/i.exec(expr)));
    if (!m) throw new UnsupportedCommand(`MemoryTable: KeyConditionExpression "${expr}"`);
    const { def, parts } = this.index(input.IndexName ?? null);
    if (nameOf(m[1]!) !== def.pk) throw new UnsupportedCommand(`MemoryTable: "${expr}" does not start with the partition key ${def.pk}`);
    let list = parts.get(String(values[m[2]!])) ?? [];
    const sortCond = m[3]?.trim();
    if (sortCond) {
      // The partition is sorted by the sort key: a condition is a slice between two binary searches.
      const sk = (i: Item) => String(i[def.sk]);
      const firstWhere = (pred: (v: string) => boolean) => {
        let lo = 0;
        let hi = list.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (pred(sk(list[mid]!))) hi = mid;
          else lo = mid + 1;
        }
        return lo;
      };
      let range: [number, number];
      let s: RegExpExecArray | null;
      if ((s = /^(#?\w+)\s+BETWEEN\s+(:\w+)\s+AND\s+(:\w+)$/i.exec(sortCond))) {
        const [lo, hi] = [String(values[s[2]!]), String(values[s[3]!])];
        range = [firstWhere((v) => v >= lo), firstWhere((v) => v > hi)];
      } else if ((s = /^begins_with\(\s*(#?\w+)\s*,\s*(:\w+)\s*\)$/i.exec(sortCond))) {
        const prefix = String(values[s[2]!]);
        range = [firstWhere((v) => v >= prefix), firstWhere((v) => v > prefix && !v.startsWith(prefix))];
      } else if ((s = /^(#?\w+)\s*(>=|<=|<|>|=)\s*(:\w+)$/.exec(sortCond))) {
        const [op, x] = [s[2]!, String(values[s[3]!])];
        const from = op === '>=' || op === '=' ? firstWhere((v) => v >= x) : op === '>' ? firstWhere((v) => v > x) : 0;
        const to = op === '<=' || op === '=' ? firstWhere((v) => v > x) : op === '<' ? firstWhere((v) => v >= x) : list.length;
        range = [from, to];
      } else throw new UnsupportedCommand(`MemoryTable: sort key condition "${sortCond}"`);
      if (nameOf(s[1]!) !== def.sk) throw new UnsupportedCommand(`MemoryTable: "${sortCond}" is not on the sort key ${def.sk}`);
      list = list.slice(range[0], Math.max(range[0], range[1]));
    }
    if (input.ScanIndexForward === false) list = [...list].reverse();
    if (input.ExclusiveStartKey) {
      const after = MemoryTable.id(input.ExclusiveStartKey as Key);
      list = list.slice(list.findIndex((i) => MemoryTable.id(i as Key) === after) + 1);
    }
    if (typeof input.Limit === 'number' && list.length > input.Limit) {
      list = list.slice(0, input.Limit);
      const last = list[list.length - 1]!;
      return { items: list.map(copy), last: { PK: last.PK, SK: last.SK, [def.pk]: last[def.pk], [def.sk]: last[def.sk] } };
    }
    return { items: list.map(copy) };
  }

  private write(op: Record<string, any>): void {
    if (op.Put) this.put(op.Put.Item);
    else if (op.Delete) this.delete(op.Delete.Key);
    else if (op.Update) this.applyUpdate(op.Update.Key, op.Update.UpdateExpression, op.Update.ExpressionAttributeNames, op.Update.ExpressionAttributeValues);
    else if (!op.ConditionCheck) throw new UnsupportedCommand(`MemoryTable: transact item ${Object.keys(op).join(',')}`);
  }

  /** Milliseconds spent answering commands (so a route's time can be told apart from the stub's own). */
  busyMs = 0;

  /** The document client's `send`. */
  send = async (command: { input: Record<string, any>; constructor: { name: string } }): Promise<Record<string, unknown>> => {
    const t0 = performance.now();
    try {
      return this.answer(command);
    } finally {
      this.busyMs += performance.now() - t0;
    }
  };

  private answer(command: { input: Record<string, any>; constructor: { name: string } }): Record<string, unknown> {
    const name = command.constructor.name;
    this.calls[name] = (this.calls[name] ?? 0) + 1;
    const input = command.input;
    switch (name) {
      case 'GetCommand': {
        const item = this.items.get(MemoryTable.id(input.Key));
        return item ? { Item: copy(item) } : {};
      }
      case 'BatchGetCommand': {
        const Responses: Record<string, Item[]> = {};
        for (const [table, req] of Object.entries(input.RequestItems as Record<string, { Keys: Key[] }>)) {
          Responses[table] = req.Keys.map((k) => this.items.get(MemoryTable.id(k))).filter((i): i is Item => !!i).map(copy);
        }
        return { Responses, UnprocessedKeys: {} };
      }
      case 'QueryCommand': {
        const { items: Items, last } = this.query(input);
        return { Items, Count: Items.length, ScannedCount: Items.length, ...(last ? { LastEvaluatedKey: last } : {}) };
      }
      case 'PutCommand':
        this.put(input.Item);
        return {};
      case 'DeleteCommand':
        this.write({ Delete: input });
        return {};
      case 'UpdateCommand': {
        const item = this.applyUpdate(input.Key, input.UpdateExpression, input.ExpressionAttributeNames, input.ExpressionAttributeValues);
        return input.ReturnValues && input.ReturnValues !== 'NONE' ? { Attributes: copy(item) } : {};
      }
      case 'TransactWriteCommand':
        for (const op of input.TransactItems) this.write(op);
        return {};
      case 'BatchWriteCommand':
        for (const reqs of Object.values(input.RequestItems as Record<string, Record<string, any>[]>)) {
          for (const r of reqs) this.write(r.PutRequest ? { Put: r.PutRequest } : { Delete: r.DeleteRequest });
        }
        return { UnprocessedItems: {} };
      default:
        throw new UnsupportedCommand(`MemoryTable: ${name} is not supported; teach test/bench/warm.ts`);
    }
  }
}

// ------------------------------------------------------------------------------------------------ invocations

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<{ statusCode: number; body?: string } | unknown>;

export function httpApiEvent(method: string, path: string, options: { query?: string; body?: unknown; token?: string } = {}): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = { host: 'bench.local', 'x-forwarded-proto': 'https', 'user-agent': 'bench' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const query = options.query ?? '';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: query,
    headers,
    ...(query ? { queryStringParameters: Object.fromEntries(new URLSearchParams(query)) } : {}),
    requestContext: {
      accountId: '000000000000', apiId: 'bench', domainName: 'bench.local', domainPrefix: 'bench',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: randomUUID(), routeKey: '$default', stage: '$default', time: new Date().toUTCString(), timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  } as APIGatewayProxyEventV2;
}

const context = (name: string): Context => ({
  callbackWaitsForEmptyEventLoop: true, functionName: name, functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`, memoryLimitInMB: '1024', awsRequestId: randomUUID(),
  logGroupName: name, logStreamName: name, getRemainingTimeInMillis: () => 30_000, done: () => {}, fail: () => {}, succeed: () => {},
});

export interface WarmRoute {
  group: string;
  kind: 'get' | 'list' | 'create' | 'index';
  label: string;
  status: number;
  iterations: number;
  /** Milliseconds per invocation. */
  median: number;
  p99: number;
  mean: number;
  /** DynamoDB commands one invocation sends (to the stub). */
  commandsPerCall: number;
  /** Median milliseconds of one invocation without the stub's own time answering its commands (the budget). */
  handlerMedian: number;
  /** Median milliseconds the stub spent answering one invocation's commands. */
  stubMedian: number;
  error?: string;
}

export interface WarmResult {
  /** The most calls a route was given (routes report how many they made). */
  iterations: number;
  routes: WarmRoute[];
  /** Items the stub held (fixtures). */
  fixtureItems: number;
}

export interface WarmOptions {
  /** Calls per route… */
  iterations: number;
  /** …unless this much time has passed first (at least 50 calls are made). */
  maxMsPerRoute: number;
  warmup: number;
  log?: (line: string) => void;
}

const API = '/calendar/events/v1';

/**
 * Sets the environment, installs the stub, writes fixtures through the handlers, and times each route: `warmup`
 * untimed calls, then up to `iterations` timed ones (bounded by maxMsPerRoute).
 */
export async function runWarm(o: WarmOptions): Promise<WarmResult> {
  Object.assign(process.env, {
    AWS_REGION: 'local', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    CALENDAR_TABLE_NAME: 'bench-warm', CALENDAR_TIMEZONE: 'UTC', CALENDAR_JWT_SECRET: 'bench-warm-secret-0123456789abcdef0123', CALENDAR_SITE_URL: '',
    CALENDAR_JWT_ISSUER: '',
    // The handlers' own lines and metrics stay out of the report (as for npm start, lib/local/observability-env.ts).
    POWERTOOLS_LOG_LEVEL: 'WARN', POWERTOOLS_METRICS_DISABLED: 'true',
  });
  delete process.env.CALENDAR_METER;
  const { TABLE } = await import('../../lib/store/table.js');
  const store = await import('../../lib/store/client.js');
  const { signLocalToken } = await import('../../lib/local/token-sign.js');
  const { EventGenerator, eventTransactItems } = await import('./seed.js');

  const mem = new MemoryTable('bench-warm', [
    { name: null, pk: TABLE.partitionKey, sk: TABLE.sortKey },
    ...TABLE.indexes.map((i) => ({ name: i.name as string, pk: i.partitionKey as string, sk: i.sortKey as string })),
  ]);
  store.setClient(mem as never);

  const groups = ['root', 'events', 'venues', 'organizers', 'categories', 'tags'] as const;
  const handlers = {} as Record<(typeof groups)[number], Handler>;
  for (const g of groups) handlers[g] = ((await import(`../../functions/${g}.js`)) as { handler: Handler }).handler;
  const token = await signLocalToken({ secret: process.env.CALENDAR_JWT_SECRET!, role: 'editor', sub: 'bench-warm-editor' });

  const invoke = async (group: (typeof groups)[number], event: APIGatewayProxyEventV2) =>
    (await handlers[group](event, context(group))) as { statusCode: number; body?: string };
  const create = async (group: (typeof groups)[number], body: Record<string, unknown>): Promise<number> => {
    const res = await invoke(group, httpApiEvent('POST', `${API}/${group}`, { token, body }));
    if (res.statusCode !== 201) throw new Error(`warm fixtures: POST /${group} answered ${res.statusCode}: ${res.body?.slice(0, 300)}`);
    return (JSON.parse(res.body!) as { id: number }).id;
  };

  // Fixtures, written by the product itself.
  const venues: number[] = [];
  const organizers: number[] = [];
  const categories: number[] = [];
  const tags: number[] = [];
  for (let i = 0; i < 5; i++) {
    venues.push(await create('venues', { venue: `Warm venue ${i}`, city: 'Berlin', country: 'Germany', address: `${i} Main street` }));
    organizers.push(await create('organizers', { organizer: `Warm organizer ${i}`, email: `o${i}@example.org` }));
    categories.push(await create('categories', { name: `Warm category ${i}`, description: '<p>About it</p>' }));
    tags.push(await create('tags', { name: `warm-tag-${i}` }));
  }
  const authorEvent = await create('events', { title: 'Warm author probe', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' });
  const author = (JSON.parse((await invoke('events', httpApiEvent('GET', `${API}/events/${authorEvent}`))).body!) as { author: number }).author;
  const gen = new EventGenerator({ venues, organizers, categories, tags, authors: [author] }, 7, new Date());
  for (let i = 0; i < 150; i++) {
    const g = gen.event(5_000_000 + i);
    for (const t of eventTransactItems(g.item, g.slug)) {
      if (t.Put) mem.put(t.Put.Item as Item);
      else if (t.Update) mem.applyUpdate(t.Update.Key as Key, t.Update.UpdateExpression!,
        t.Update.ExpressionAttributeNames, t.Update.ExpressionAttributeValues as Record<string, unknown>);
    }
  }
  const day = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
  const eventId = await create('events', {
    title: 'Warm scenario one', status: 'publish', start_date: `${day} 19:00:00`, end_date: `${day} 22:00:00`,
    venue: venues[0], organizer: organizers.slice(0, 2), categories: categories.slice(0, 3), tags: tags.slice(0, 2),
  });

  type Case = { group: (typeof groups)[number]; kind: WarmRoute['kind']; label: string; event: (i: number) => APIGatewayProxyEventV2; expect: number };
  const fixed = (e: APIGatewayProxyEventV2) => () => e;
  const cases: Case[] = [
    { group: 'root', kind: 'index', label: 'GET / (namespace index)', event: fixed(httpApiEvent('GET', API)), expect: 200 },
    { group: 'events', kind: 'get', label: 'GET /events/{id}', event: fixed(httpApiEvent('GET', `${API}/events/${eventId}`)), expect: 200 },
    { group: 'events', kind: 'list', label: 'GET /events', event: fixed(httpApiEvent('GET', `${API}/events`)), expect: 200 },
    {
      group: 'events', kind: 'create', label: 'POST /events (venue id, 2 categories)', expect: 201,
      // A day of its own per create (as a calendar's events spread over its days): the search index keeps one item per
      // word and day, which the stub would otherwise copy whole on every write of a day holding thousands of events.
      event: (i) => {
        const day = new Date(Date.UTC(2031, 0, 1) + (i % 3650) * 86_400_000).toISOString().slice(0, 10);
        return httpApiEvent('POST', `${API}/events`, { token, body: {
          title: `Warm create ${i}`, status: 'publish', start_date: `${day} 10:00:00`, end_date: `${day} 12:00:00`,
          venue: venues[1], categories: categories.slice(1, 3) } });
      },
    },
  ];
  for (const g of ['venues', 'organizers', 'categories', 'tags'] as const) {
    const id = { venues, organizers, categories, tags }[g][0]!;
    cases.push({ group: g, kind: 'get', label: `GET /${g}/{id}`, event: fixed(httpApiEvent('GET', `${API}/${g}/${id}`)), expect: 200 });
    cases.push({ group: g, kind: 'list', label: `GET /${g}`, event: fixed(httpApiEvent('GET', `${API}/${g}`)), expect: 200 });
  }

  const routes: WarmRoute[] = [];
  for (const c of cases) {
    const first = await invoke(c.group, c.event(-1));
    const base = { group: c.group, kind: c.kind, label: c.label, status: first.statusCode, iterations: 0 };
    if (first.statusCode !== c.expect) {
      routes.push({ ...base, median: NaN, p99: NaN, mean: NaN, commandsPerCall: NaN, handlerMedian: NaN, stubMedian: NaN,
        error: `expected ${c.expect}, got ${first.statusCode}: ${first.body?.slice(0, 200)}` });
      continue;
    }
    for (let i = 0; i < o.warmup; i++) await invoke(c.group, c.event(i));
    const before = Object.values(mem.calls).reduce((a, b) => a + b, 0);
    const ms: number[] = [];
    const stub: number[] = [];
    const own: number[] = [];
    const start = performance.now();
    for (let i = 0; i < o.iterations && (i < 50 || performance.now() - start < o.maxMsPerRoute); i++) {
      const e = c.event(o.warmup + i); // built outside the timed part
      const busy = mem.busyMs;
      const t0 = performance.now();
      await invoke(c.group, e);
      const t = performance.now() - t0;
      ms.push(t);
      stub.push(mem.busyMs - busy);
      own.push(t - (mem.busyMs - busy));
    }
    const after = Object.values(mem.calls).reduce((a, b) => a + b, 0);
    const r: WarmRoute = { ...base, iterations: ms.length, median: median(ms), p99: percentile(ms, 99),
      mean: ms.reduce((a, b) => a + b, 0) / ms.length, commandsPerCall: (after - before) / ms.length,
      handlerMedian: median(own), stubMedian: median(stub) };
    o.log?.(`warm: ${c.label}: median ${(r.median * 1000).toFixed(0)} µs (handler ${(r.handlerMedian * 1000).toFixed(0)} µs + stub ${(r.stubMedian * 1000).toFixed(0)} µs), p99 ${(r.p99 * 1000).toFixed(0)} µs (${r.iterations} calls)`);
    routes.push(r);
  }
  store.setClient(null);
  return { iterations: o.iterations, routes, fixtureItems: mem.items.size };
}
