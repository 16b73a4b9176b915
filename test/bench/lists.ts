/**
 * `npm run bench -- --lists` (test/bench/README.md "Lists of linked records"): for each size K, a fresh table with
 * K venues, K organizers, K categories and K tags and no events, written in bulk from the product's own item
 * builders; then the list scenarios L1–L4 over HTTP against the real handlers, metered as the main scenarios are.
 * Runs in a worker process of its own (run.ts), like a calendar size.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { KeepAliveClient, Rng, type LoopBounds } from './common.js';
import { benchEnv, documentClient, LAMBDA_DEADLINE_MS } from './scale.js';
import type { ScenarioResult, ScenarioSpec } from './scenarios.js';
import type { LambdaHandler } from '../../lib/local/server.js';
import type { TransactItem } from '../../lib/store/types.js';
import type { TermItem } from '../../lib/terms/item.js';

export interface ListsOptions {
  perKind: number;
  endpoint: string;
  table: string;
  seed: number;
  readBounds: LoopBounds;
  writeConcurrency: number;
  log?: (line: string) => void;
}

export interface ListsResult {
  perKind: number;
  seedMs: number;
  scenarios: ScenarioResult[];
}

/** Shares of the seeded set: published records, records linked by an event, terms with events. */
export const LIST_MIX = { published: 0.9, linked: 0.6, nonEmptyTerms: 0.7, translated: 0.1, childCategories: 0.25 };

const WORDS = ['harbour', 'garden', 'studio', 'hall', 'theatre', 'gallery', 'market', 'chapel', 'loft', 'arena', 'jazz', 'folk',
  'kids', 'night', 'summer', 'winter', 'dance', 'film', 'poetry', 'craft', 'food', 'wine', 'river', 'north', 'south', 'old', 'new'];

export function listScenarios(word: string): ScenarioSpec[] {
  const get = (id: string, title: string, path: string): ScenarioSpec => ({ id, budget: 7, title, method: 'GET', path, expectStatus: 200 });
  return [
    get('L1a', 'venues, first page', '/venues'),
    get('L1b', 'organizers, first page', '/organizers'),
    get('L1c', 'categories, first page (hide_empty, by name)', '/categories'),
    get('L1d', 'tags, first page (hide_empty, by name)', '/tags'),
    get('L1e', 'tags, first page in German', '/tags?translation_language=de'),
    get('L1f', 'tags, 50 per page', '/tags?per_page=50'),
    get('L2a', 'venues, page 20', '/venues?page=20'),
    get('L2b', 'categories, page 20', '/categories?page=20'),
    get('L2c', 'tags, page 20', '/tags?page=20'),
    get('L3a', `venues, search=${word}`, `/venues?search=${word}`),
    get('L3b', `organizers, search=${word}`, `/organizers?search=${word}`),
    get('L3c', `tags, search=${word}`, `/tags?search=${word}`),
    get('L4a', 'venues, has_events=true', '/venues?has_events=true'),
    get('L4b', 'organizers, has_events=true', '/organizers?has_events=true'),
  ];
}

export async function runLists(o: ListsOptions): Promise<ListsResult> {
  const log = o.log ?? (() => {});
  Object.assign(process.env, benchEnv(o.endpoint, o.table));
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;

  const { ensureTable } = await import('../../lib/local/dynamodb-local.js');
  const { createLocalServer } = await import('../../lib/local/server.js');
  const { nameOrderKeys, newTermItem, withDerived } = await import('../../lib/terms/item.js');
  const { collectionPartition, collectionSortKey, fold } = await import('../../lib/linked/item.js');
  const { kindCountKey } = await import('../../lib/linked/counts.js');
  const { createdIndexItems } = await import('../../lib/linked/words.js');
  const { postKey, slugIndexKey } = await import('../../lib/store/keys.js');
  const seed = await import('./seed.js');
  const sc = await import('./scenarios.js');

  const { raw, doc: client } = documentClient(o.endpoint);
  await ensureTable(raw, o.table);
  const rng = new Rng(o.seed);
  const pick = () => WORDS[Math.floor(rng.next() * WORDS.length)]!;
  const name = (i: number) => `${pick()} ${pick()} ${i}`;
  const t0 = performance.now();
  const items: Record<string, unknown>[] = [];

  const { createdTermIndexItems } = await import('../../lib/terms/words.js');
  const index = new IndexItems();
  let nextTermId = 1;
  for (const taxonomy of ['category', 'tag'] as const) {
    const ids: number[] = [];
    const terms: TermItem[] = [];
    for (let i = 0; i < o.perKind; i++) {
      const id = nextTermId++;
      const parent = taxonomy === 'category' && ids.length > 10 && rng.next() < LIST_MIX.childCategories ? ids[Math.floor(rng.next() * ids.length)]! : 0;
      let term = newTermItem(taxonomy, id, 'en', { name: name(i), slug: `${taxonomy}-${id}`, parent,
        cnt: rng.next() < LIST_MIX.nonEmptyTerms ? 1 + Math.floor(rng.next() * 50) : 0 });
      if (rng.next() < LIST_MIX.translated) term = withDerived({ ...term, tr: { ...term.tr, de: { name: `${pick()} ${i}` } } });
      items.push(term, ...nameOrderKeys(term).map((k) => ({ ...k, id })));
      terms.push(term);
      ids.push(id);
    }
    if (taxonomy === 'category') settleLinked(terms);
    // The search index as each term's create writes it (lib/terms/words.ts), with its emptiness as the counts have it.
    for (const term of terms) index.apply(createdTermIndexItems(taxonomy, term));
  }
  const start = Date.parse('2024-01-01T00:00:00Z');
  let nextPostId = 1_000;
  for (const kind of ['venue', 'organizer'] as const) {
    const counts: Record<string, number> = {};
    for (let i = 0; i < o.perKind; i++) {
      const id = nextPostId++;
      const status: 'publish' | 'draft' = rng.next() < LIST_MIX.published ? 'publish' : 'draft';
      counts[status] = (counts[status] ?? 0) + 1;
      const dateUtc = new Date(start + i * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
      const title = name(i);
      const record = {
        ...postKey(id), kind, id, v: 1, author: 1, status, slug: `${kind}-${id}`, tr: { en: { name: title, description: `<p>The ${title}.</p>` } },
        lang0: 'en' as const, nm: { en: fold(title) }, dateUtc, modifiedUtc: dateUtc, linked: rng.next() < LIST_MIX.linked ? 1 + Math.floor(rng.next() * 20) : 0,
        ...(kind === 'venue' ? { city: 'Lisboa', country: 'Portugal', showMap: true, showMapLink: true, spAuto: true } : { email: `o${id}@example.org` }),
        GSI1PK: slugIndexKey(kind, `${kind}-${id}`), GSI1SK: kind, GSI2PK: collectionPartition(kind), GSI2SK: collectionSortKey(dateUtc, id),
      };
      items.push(record);
      // The search index as the record's create writes it (lib/linked/words.ts), merged with the other records'.
      index.apply(createdIndexItems(kind, record));
    }
    items.push({ ...kindCountKey(kind), ...counts });
  }
  for (const item of index.items()) items.push(item);
  await seed.writeAll(client, o.table, seed.chunks(items), o.writeConcurrency);
  await seed.raiseCounter(client, o.table, 'term', nextTermId);
  await seed.raiseCounter(client, o.table, 'post', nextPostId);
  await (await import('../../lib/store/nonempty-rebuild.js')).rebuildNonEmpty(); // the counts a bulk write leaves out
  const seedMs = performance.now() - t0;
  log(`lists K=${o.perKind}: ${items.length} items in ${(seedMs / 1000).toFixed(1)} s`);

  const server: Server = createLocalServer({
    requestLog: () => undefined,
    loadHandler: async (group) => {
      const { handler } = (await import(`../../functions/${group}.js`)) as { handler: LambdaHandler };
      return (event, context) => handler(event, { ...context, getRemainingTimeInMillis: () => LAMBDA_DEADLINE_MS });
    },
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const http = new KeepAliveClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  try {
    const scenarios: ScenarioResult[] = [];
    for (const spec of listScenarios('harbour')) {
      const r = await sc.measureScenario(http, spec, o.readBounds);
      log(`lists K=${o.perKind}: ${r.id} ${r.path}: ${r.error ?? `${r.meter.requests} req, ${r.meter.rcu} RCU, ${r.meter.items} items read, total ${r.total}, p50 ${r.latency.p50.toFixed(1)} ms`}`);
      scenarios.push(r);
    }
    return { perKind: o.perKind, seedMs, scenarios };
  } finally {
    http.close();
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
    await raw.send(new DeleteTableCommand({ TableName: o.table })).catch(() => undefined);
    raw.destroy();
  }
}

/**
 * Items as a sequence of transactions would leave them, for the ones index writes use: Puts, single-attribute SETs
 * (bucket entries) and counter ADDs; many records' entries in one bucket become one item.
 */
/**
 * Categories' `linked` as the non-empty counts' rebuild sets it (lib/store/nonempty-rebuild.ts): 1 for its own events
 * plus its non-empty direct children. Set before the index is written, so the rebuild changes no category's emptiness.
 */
function settleLinked(terms: TermItem[]): void {
  const byId = new Map(terms.map((t) => [t.id, t]));
  const filled = new Set<number>();
  for (const t of terms) {
    if (t.cnt <= 0) continue;
    for (let id = t.id, depth = 0; id && !filled.has(id) && depth < 100; id = byId.get(id)?.parent ?? 0, depth++) filled.add(id);
  }
  for (const t of terms) t.linked = Number(t.cnt > 0);
  for (const id of filled) {
    const parent = byId.get(byId.get(id)!.parent);
    if (parent) parent.linked = (parent.linked ?? 0) + 1;
  }
}

class IndexItems {
  private readonly byKey = new Map<string, Record<string, unknown>>();

  private item(key: Record<string, unknown>): Record<string, unknown> {
    const k = `${String(key.PK)}\u0000${String(key.SK)}`;
    let item = this.byKey.get(k);
    if (!item) this.byKey.set(k, (item = { PK: key.PK, SK: key.SK }));
    return item;
  }

  apply(transactItems: TransactItem[]): void {
    for (const t of transactItems) {
      if (t.Put) Object.assign(this.item(t.Put.Item as Record<string, unknown>), t.Put.Item);
      else if (t.Update && /^SET #e = :v$/.test(t.Update.UpdateExpression ?? '')) {
        this.item(t.Update.Key!)[t.Update.ExpressionAttributeNames!['#e']!] = t.Update.ExpressionAttributeValues![':v'];
      } else if (t.Update && /^ADD /.test(t.Update.UpdateExpression ?? '')) {
        const item = this.item(t.Update.Key!);
        for (const [placeholder, name] of Object.entries(t.Update.ExpressionAttributeNames ?? {})) {
          item[name] = ((item[name] as number | undefined) ?? 0) + (t.Update.ExpressionAttributeValues![placeholder.replace('#', ':')] as number);
        }
      } else throw new Error(`the seeder cannot apply ${JSON.stringify(t).slice(0, 200)}`);
    }
  }

  items(): Record<string, unknown>[] {
    return [...this.byKey.values()];
  }
}

/** The report: one row per scenario, a column per size. */
export function renderLists(results: ListsResult[]): string {
  const head = `| scenario | ${results.map((r) => `K = ${r.perKind.toLocaleString('en')}: RCU / items read / total`).join(' | ')} |`;
  const rows = results[0]!.scenarios.map((s, i) => `| ${s.id} ${s.title} | ${results.map((r) => {
    const x = r.scenarios[i]!;
    return x.error ? `error: ${x.error}` : `${x.meter.rcu} / ${x.meter.items} / ${x.total ?? '–'}`;
  }).join(' | ')} |`);
  return [head, `|---|${results.map(() => '---|').join('')}`, ...rows, ''].join('\n');
}
