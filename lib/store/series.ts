/**
 * The items that keep recurring series whole (lib/store/README.md "Recurring series"):
 *
 * - **the busy registry** `PK = SERIES`, `SK = BUSY`: one attribute `s<id>` = "<token> <deadline ms>" per series whose
 *   occurrences are being rewritten (in batches of transactions). Set in the transaction that changes the series record,
 *   removed in the one that ends the work. Lists read it first (one strongly consistent GetItem) and wait while a live
 *   entry is in it, so no reader sees a series half regenerated; an entry whose deadline has passed belongs to a
 *   request that died, and the next write of the series or the horizon job finishes its work.
 * - **the series index** `PK = SERIES`, `SK = <padded id>`: one item per series, with `through` (the wall up to which
 *   occurrences are written) and `open` (whether the rule runs on past it), which the daily horizon job reads.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from './client.js';
import { StoreUnavailable } from './errors.js';
import { pad } from './keys.js';
import { queryAll } from './records.js';
import { timeLeft } from './scope.js';
import type { TransactItem } from './types.js';

export const BUSY_KEY = { PK: 'SERIES', SK: 'BUSY' };
export const seriesIndexKey = (id: number) => ({ PK: 'SERIES', SK: pad(id) });
/** The partition of a series' occurrences (entry items, as relationship items are): lists of one series read it. */
export const seriesPartition = (id: number): string => `REL#series#${id}`;

/** How long a regeneration may hold its series busy before others may take its work over. */
export const BUSY_MS = 60_000;

export const busyValue = (token: string, deadline: number): string => `${token} ${deadline}`;
const deadlineOf = (value: unknown): number => Number(String(value).split(' ')[1] ?? 0);

/** The registry update that marks a series busy (in the series record's transaction). */
export const markBusy = (id: number, value: string): TransactItem => ({
  Update: { TableName: table(), Key: BUSY_KEY, UpdateExpression: 'SET #s = :v', ExpressionAttributeNames: { '#s': `s${id}` },
    ExpressionAttributeValues: { ':v': value } },
});

/** One registry update marking several series busy (a split holds two; a transaction may touch the item once). */
export const markBusyMany = (entries: { id: number; value: string }[]): TransactItem => ({
  Update: { TableName: table(), Key: BUSY_KEY, UpdateExpression: `SET ${entries.map((_, i) => `#s${i} = :v${i}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(entries.map((e, i) => [`#s${i}`, `s${e.id}`])),
    ExpressionAttributeValues: Object.fromEntries(entries.map((e, i) => [`:v${i}`, e.value])) },
});

/** The registry update that ends a series' busy time, only if the entry is still this writer's. */
export const clearBusy = (id: number, value: string): TransactItem => ({
  Update: { TableName: table(), Key: BUSY_KEY, UpdateExpression: 'REMOVE #s', ConditionExpression: '#s = :v',
    ExpressionAttributeNames: { '#s': `s${id}` }, ExpressionAttributeValues: { ':v': value } },
});

/** The series busy now, by id, with their entries' values and deadlines (one strongly consistent read). */
export async function busySeries(): Promise<Map<number, { value: string; deadline: number }>> {
  const out = await db().send(new GetCommand({ TableName: table(), Key: BUSY_KEY, ConsistentRead: true }));
  const busy = new Map<number, { value: string; deadline: number }>();
  for (const [k, v] of Object.entries(out.Item ?? {})) if (/^s\d+$/.test(k)) busy.set(Number(k.slice(1)), { value: String(v), deadline: deadlineOf(v) });
  return busy;
}

/** Without a request deadline (scripts, tests), a reader waits at most this long for a series to be whole. */
const MAX_WAIT_MS = 60_000;

/**
 * Waits until no series is being rewritten by a live request (readers never see half of one, contract §13). Entries
 * past their deadline are ignored. When the request would run out of time first, a 503 (Retry-After) answers.
 */
export async function untilSeriesWhole(): Promise<void> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const now = Date.now();
    const live = [...(await busySeries()).values()].filter((b) => b.deadline > now);
    if (live.length === 0) return;
    const wait = Math.min(250, 20 * 2 ** Math.min(attempt, 4));
    if (timeLeft() < wait + 1500 || now - started > MAX_WAIT_MS) throw new StoreUnavailable(false);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** The series index entry (written when a regeneration ends). */
export const seriesIndexPut = (id: number, through: string, open: boolean): TransactItem => ({
  Put: { TableName: table(), Item: { ...seriesIndexKey(id), id, through, open } },
});

export const seriesIndexDelete = (id: number): TransactItem => ({ Delete: { TableName: table(), Key: seriesIndexKey(id) } });

/** Every series with its `through` and `open` (the horizon job's one Query of the series index). */
export async function allSeries(): Promise<{ id: number; through: string; open: boolean }[]> {
  const items = await queryAll({ KeyConditionExpression: 'PK = :pk AND SK BETWEEN :a AND :b',
    ExpressionAttributeValues: { ':pk': 'SERIES', ':a': '0', ':b': '9~' } });
  return items.map((i) => ({ id: Number(i.id), through: String(i.through), open: i.open === true }));
}
