/** Single and batched reads of records by key. */
import { BatchGetCommand, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, table } from './client.js';
import { postKey, termKey } from './keys.js';

export type Item = Record<string, unknown>;

export async function getItem(key: { PK: string; SK: string }, consistent = false): Promise<Item | null> {
  const out = await db().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: consistent }));
  return out.Item ?? null;
}

export const getPost = (id: number, consistent = false) => getItem(postKey(id), consistent);
export const getTerm = (id: number, consistent = false) => getItem(termKey(id), consistent);

/**
 * BatchGetItem in chunks of 100, retrying unprocessed keys; returns items in the order of `keys`
 * (missing ones left out).
 */
export async function batchGet(keys: { PK: string; SK: string }[], projection?: string[], consistent = false): Promise<Item[]> {
  const unique = [...new Map(keys.map((k) => [`${k.PK}|${k.SK}`, k])).values()];
  const found = new Map<string, Item>();
  for (let i = 0; i < unique.length; i += 100) {
    let request: Record<string, { Keys: Item[]; ConsistentRead?: boolean; ProjectionExpression?: string;
      ExpressionAttributeNames?: Record<string, string> }> = {
      [table()]: {
        Keys: unique.slice(i, i + 100),
        ...(consistent ? { ConsistentRead: true } : {}),
        ...(projection ? {
          ProjectionExpression: ['PK', 'SK', ...projection].map((_, j) => `#p${j}`).join(','),
          ExpressionAttributeNames: Object.fromEntries(['PK', 'SK', ...projection].map((p, j) => [`#p${j}`, p])),
        } : {}),
      },
    };
    for (let attempt = 0; Object.keys(request).length > 0; attempt++) {
      if (attempt > 8) throw new Error('BatchGetItem kept returning unprocessed keys');
      if (attempt > 0) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
      const out = await db().send(new BatchGetCommand({ RequestItems: request }));
      for (const item of out.Responses?.[table()] ?? []) found.set(`${item.PK}|${item.SK}`, item);
      request = (out.UnprocessedKeys ?? {}) as typeof request;
    }
  }
  return keys.map((k) => found.get(`${k.PK}|${k.SK}`)).filter((x): x is Item => x !== undefined);
}

/** Every item a Query matches, following LastEvaluatedKey (callers bound the key range). */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Item[]> {
  const out: Item[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand({ ...input, TableName: table(), ExclusiveStartKey }));
    out.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}

/**
 * Items of a Query that `keep` accepts (after `map`), in key order, until `need` are found or the range ends
 * (appended to `found`, which is returned). Pages are sized to what is still needed, so reading the first n of a
 * list costs about n items, not the whole range.
 */
export async function queryUntil<T>(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>, need: number,
  map: (item: Item) => T, keep: (t: T) => boolean, found: T[] = []): Promise<T[]> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  while (found.length < need) {
    const page = await db().send(new QueryCommand({
      ...input, TableName: table(), ExclusiveStartKey, Limit: Math.min(1000, Math.ceil((need - found.length) * 1.25) + 5),
    }));
    for (const item of page.Items ?? []) {
      const t = map(item);
      if (keep(t)) found.push(t);
      if (found.length >= need) return found;
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
    if (!ExclusiveStartKey) break;
  }
  return found;
}

/**
 * The entries of a Query's items (each item may hold several, in order) that `accept` takes, until `need` are found
 * or the range ends (appended to `found`, which is returned). `limit` sizes each page to what is still needed; with
 * `need` Infinity every item is read, without a Limit.
 */
export async function queryEntries<T>(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>, need: number,
  limit: (remaining: number) => number, entries: (item: Item) => T[], accept: (t: T) => boolean, found: T[] = []): Promise<T[]> {
  if (need <= found.length) return found;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand({ ...input, TableName: table(), ExclusiveStartKey,
      ...(need === Infinity ? {} : { Limit: limit(need - found.length) }) }));
    for (const item of page.Items ?? []) {
      for (const t of entries(item)) {
        if (!accept(t)) continue;
        found.push(t);
        if (found.length >= need) return found;
      }
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return found;
}
