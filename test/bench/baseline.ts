/**
 * The naive baseline (benchmark code only): the list scenarios answered by a paginated Scan of the whole table
 * with a FilterExpression on kind/status/hidden/dates (and category or venue), then sort + slice in memory — what
 * a table without purpose-built keys would have to do. Anonymous callers see published events only, as the API's.
 * Its cost is the Scan's own (ReturnConsumedCapacity TOTAL, ScannedCount); it runs in-process, without the HTTP
 * server and handler around it, which favours it slightly in latency.
 */
import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { boundedLoop, type LoopBounds } from './common.js';
import { latencyOf, type Latency, type ScenarioTargets } from './scenarios.js';

/**
 * Items per Scan page at most. Pages still end at DynamoDB's 1 MB first (these items average well over 200 bytes),
 * so requests and capacity are those of an unbounded Scan; DynamoDB Local just serves such pages about three times
 * faster than pages without a Limit.
 */
export const SCAN_PAGE_LIMIT = 5000;

export interface ScanFilter {
  /** Inclusive bounds on the UTC start and end, "YYYY-MM-DD HH:MM:SS". */
  startFrom: string;
  endTo: string;
  category?: number;
  venue?: number;
}

export interface ScanAnswer {
  total: number;
  /** The page's event ids, in list order. */
  ids: number[];
  rcu: number;
  itemsRead: number;
  requests: number;
}

/** The FilterExpression and its placeholders for a filter (pure; tested). */
export function scanFilterExpression(f: ScanFilter): { FilterExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> } {
  const names: Record<string, string> = { '#k': 'kind', '#s': 'status', '#h': 'hidden', '#st': 'startUtc', '#en': 'endUtc', '#id': 'id' };
  const values: Record<string, unknown> = { ':event': 'event', ':publish': 'publish', ':true': true, ':from': f.startFrom, ':to': f.endTo };
  const parts = ['#k = :event', '#s = :publish', '#h <> :true', '#st >= :from', '#en <= :to'];
  if (f.category !== undefined) {
    names['#c'] = 'categories';
    values[':cat'] = f.category;
    parts.push('contains(#c, :cat)');
  }
  if (f.venue !== undefined) {
    names['#v'] = 'venue';
    values[':venue'] = f.venue;
    parts.push('#v = :venue');
  }
  return { FilterExpression: parts.join(' AND '), ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

/** Orders matches as the API does (UTC start, then id) and slices out one page. */
export function sortAndSlice(matches: { id: number; startUtc: string }[], page: number, perPage: number): number[] {
  return [...matches]
    .sort((a, b) => (a.startUtc === b.startUtc ? a.id - b.id : a.startUtc < b.startUtc ? -1 : 1))
    .slice((page - 1) * perPage, page * perPage)
    .map((m) => m.id);
}

/** One query's own Scan: the whole table with this query's filter, sorted and sliced to the page. */
export async function scanList(client: DynamoDBDocumentClient, table: string, filter: ScanFilter, page = 1, perPage = 10): Promise<ScanAnswer> {
  const { matches, rcu, itemsRead, requests } = await scanPass(client, table, filter);
  return { total: matches.length, ids: sortAndSlice(matches, page, perPage), rcu, itemsRead, requests };
}

/** The default window of GET /events with the site in UTC: yesterday 00:00:00 .. (now + 24 months) 23:59:59. */
export function defaultWindow(now: Date): { startFrom: string; endTo: string } {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const yesterday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 1));
  const end = new Date(now.getTime());
  end.setUTCMonth(end.getUTCMonth() + 24);
  return { startFrom: `${day(yesterday)} 00:00:00`, endTo: `${day(end)} 23:59:59` };
}

export interface BaselineQuery {
  /** The scenario id of ours it stands beside. */
  id: string;
  filter: ScanFilter;
  page: number;
}

/** The Scan versions of the list scenarios 3, 4, 5a, 5b and 6. */
export function baselineQueries(now: Date, t: Pick<ScenarioTargets, 'category' | 'venue' | 'month'>): BaselineQuery[] {
  const w = defaultWindow(now);
  return [
    { id: '3', filter: w, page: 1 },
    { id: '4', filter: w, page: 20 },
    { id: '5a', filter: { ...w, category: t.category.id }, page: 1 },
    { id: '5b', filter: { ...w, venue: t.venue.id }, page: 1 },
    { id: '6', filter: { startFrom: `${t.month.start} 00:00:00`, endTo: `${t.month.end} 23:59:59` }, page: 1 },
  ];
}

export interface BaselineResult {
  id: string;
  page: number;
  total: number;
  ids: number[];
  rcu: number;
  itemsRead: number;
  requests: number;
  latency: Latency;
}

/** An event as the shared Scan pass keeps it. */
export interface ScanMatch {
  id: number;
  startUtc: string;
  endUtc: string;
  venue?: number;
  categories?: number[];
}

/** One query answered from the shared pass's matches: its own window, category and venue, sorted and sliced. */
export function answerFromMatches(matches: readonly ScanMatch[], q: BaselineQuery, perPage = 10): { total: number; ids: number[] } {
  const f = q.filter;
  const hits = matches.filter((m) => m.startUtc >= f.startFrom && m.endUtc <= f.endTo
    && (f.category === undefined || (m.categories ?? []).includes(f.category))
    && (f.venue === undefined || m.venue === f.venue));
  return { total: hits.length, ids: sortAndSlice(hits, q.page, perPage) };
}

/** The filter every query shares: the widest window of them all, no category or venue. */
export function sharedFilter(queries: readonly BaselineQuery[]): ScanFilter {
  return {
    startFrom: queries.map((q) => q.filter.startFrom).sort()[0]!,
    endTo: queries.map((q) => q.filter.endTo).sort().at(-1)!,
  };
}

/** One paginated Scan of the whole table with the shared FilterExpression, keeping what the queries need. */
export async function scanPass(client: DynamoDBDocumentClient, table: string, filter: ScanFilter): Promise<{ matches: ScanMatch[]; rcu: number; itemsRead: number; requests: number }> {
  const expr = scanFilterExpression(filter);
  const matches: ScanMatch[] = [];
  let rcu = 0;
  let itemsRead = 0;
  let requests = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await client.send(new ScanCommand({
      TableName: table,
      ...expr,
      ExpressionAttributeNames: { ...expr.ExpressionAttributeNames, '#v': 'venue', '#c': 'categories' },
      ProjectionExpression: '#id, #st, #en, #v, #c',
      ReturnConsumedCapacity: 'TOTAL',
      Limit: SCAN_PAGE_LIMIT,
      ExclusiveStartKey,
    }));
    requests++;
    rcu += out.ConsumedCapacity?.CapacityUnits ?? 0;
    itemsRead += out.ScannedCount ?? 0;
    for (const item of out.Items ?? []) matches.push(item as ScanMatch);
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return { matches, rcu, itemsRead, requests };
}

/**
 * The baseline of every query. A Scan is charged for every item it reads, before its filter applies, so the five
 * queries' own Scans (scanList) would each read the whole table at the same cost; one Scan pass per sample with
 * the shared filter therefore stands for each of them (on DynamoDB Local a pass over 100,000 events takes
 * minutes). Each query's latency is the pass's time plus its own in-memory filter, sort and slice.
 */
export async function runBaseline(client: DynamoDBDocumentClient, table: string, queries: BaselineQuery[], bounds: LoopBounds): Promise<BaselineResult[]> {
  if (!queries.length || bounds.maxCount === 0) return [];
  const shared = sharedFilter(queries);
  const ms = new Map<string, number[]>(queries.map((q) => [q.id, []]));
  type Sample = { pass: Awaited<ReturnType<typeof scanPass>>; answers: Map<string, { total: number; ids: number[] }> };
  let last: Sample | null = null;
  await boundedLoop(bounds, async () => {
    const t0 = performance.now();
    const pass = await scanPass(client, table, shared);
    const passMs = performance.now() - t0;
    const answers = new Map<string, { total: number; ids: number[] }>();
    for (const q of queries) {
      const t1 = performance.now();
      answers.set(q.id, answerFromMatches(pass.matches, q));
      ms.get(q.id)!.push(passMs + performance.now() - t1);
    }
    last = { pass, answers };
  });
  const l = last as unknown as Sample;
  return queries.map((q) => ({
    id: q.id, page: q.page, ...l.answers.get(q.id)!, rcu: l.pass.rcu, itemsRead: l.pass.itemsRead, requests: l.pass.requests,
    latency: latencyOf(ms.get(q.id)!),
  }));
}
