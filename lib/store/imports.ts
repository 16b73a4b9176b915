/**
 * Imports (contract §20; keys, conditions and costs: lib/store/README.md "Imports"):
 *
 * - the import `IMPORT#<id>`/`IMPORT` (ids from `COUNTER`/`import`), its run `IMPORT#<id>`/`RUN` and, for a file, its text
 *   gzipped in `IMPORT#<id>`/`CONTENT#<n>` items;
 * - the list entry `IMPORTS`/`I#<id, 10 digits>` with `due` (the next scheduled run, UTC), which lists and the dispatcher read
 *   with one Query, and the count `IMPORTS`/`N`, which every create raises on condition that it stays within the limit;
 * - one identity item per source event, `IMPORT#<id>`/`K#<key>`: the event it brought in, the source's hash, what it wrote.
 *
 * A run holds its import through a lease on the run item (`lease`, `until`): taking it is one conditional update, so two
 * workers never run one import at once, and a run whose worker died is taken over once its lease has lapsed.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ImportItem, RunCounts, RunError, RunItem } from '../imports/record.js';
import { db, table } from './client.js';
import { VersionConflict } from './errors.js';
import { transact } from './kit.js';
import { pad } from './keys.js';
import { batchGet, queryAll, type Item } from './records.js';
import type { Key, TransactItem } from './types.js';

/** At most this many imports (contract §20: the 101st is refused). */
export const MAX_IMPORTS = 100;
/** A file's text is kept gzipped in items of at most this many bytes (DynamoDB's item limit is 400 KB). */
const CONTENT_PART_BYTES = 300_000;

export const importKey = (id: number): Key => ({ PK: `IMPORT#${id}`, SK: 'IMPORT' });
export const runKey = (id: number): Key => ({ PK: `IMPORT#${id}`, SK: 'RUN' });
export const contentKey = (id: number, part: number): Key => ({ PK: `IMPORT#${id}`, SK: `CONTENT#${part}` });
export const entryKey = (id: number): Key => ({ PK: 'IMPORTS', SK: `I#${pad(id)}` });
export const COUNT_KEY: Key = { PK: 'IMPORTS', SK: 'N' };
/** A source event's identity item; keys longer than a sort key may be (1,024 bytes) are hashed. */
export const identityKey = (id: number, key: string): Key => ({
  PK: `IMPORT#${id}`, SK: Buffer.byteLength(key) <= 500 ? `K#${key}` : `K#h:${createHash('sha256').update(key).digest('base64url')}`,
});

/** The import's full state as one read shows it. */
export interface ImportState {
  item: ImportItem;
  run: RunItem | null;
  due: string | null;
}

/** Thrown when a create would pass MAX_IMPORTS. */
export class ImportLimitReached extends Error {}
/** Thrown when a run is already queued or running (or the import is being deleted). */
export class RunBusy extends Error {}

const T = () => table();

/** The file's text as content items: gzipped, cut into parts. */
export function contentItems(id: number, text: string): { items: Item[]; bytes: number } {
  const zipped = gzipSync(text);
  const items: Item[] = [];
  for (let at = 0, part = 0; at < zipped.length || part === 0; at += CONTENT_PART_BYTES, part++) {
    items.push({ ...contentKey(id, part), d: zipped.subarray(at, at + CONTENT_PART_BYTES) });
  }
  return { items, bytes: Buffer.byteLength(text) };
}

export async function readContent(id: number, parts: number): Promise<string> {
  const found = await batchGet(Array.from({ length: parts }, (_, i) => contentKey(id, i)), undefined, true);
  if (found.length !== parts) throw new Error('the import\'s file is incomplete in the table');
  return gunzipSync(Buffer.concat(found.map((i) => Buffer.from(i.d as Uint8Array)))).toString('utf8');
}

const entryItem = (id: number, due: string | null): Item => ({ ...entryKey(id), id, ...(due ? { due } : {}) });

export function newRun(id: number, now: number): RunItem {
  return { ...runKey(id), n: 1, state: 'queued', queuedAt: now, processed: 0, total: 0, created: 0, updated: 0, unchanged: 0, removed: 0,
    failed: 0, errors: [], message: '' };
}

/**
 * Creates an import with its queued first run, its content and its list entry, and raises the count on condition that it
 * stays within MAX_IMPORTS — one transaction, so the limit holds however many creates run at once.
 */
export async function createImport(item: ImportItem, run: RunItem, content: Item[], due: string | null): Promise<void> {
  const items: TransactItem[] = [
    { Put: { TableName: T(), Item: { ...item }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { TableName: T(), Item: { ...run }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { TableName: T(), Item: entryItem(item.id, due), ConditionExpression: 'attribute_not_exists(PK)' } },
    { Update: { TableName: T(), Key: COUNT_KEY, UpdateExpression: 'ADD #n :one', ConditionExpression: 'attribute_not_exists(#n) OR #n < :max',
      ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':one': 1, ':max': MAX_IMPORTS } } },
    ...content.map((c): TransactItem => ({ Put: { TableName: T(), Item: c, ConditionExpression: 'attribute_not_exists(PK)' } })),
  ];
  const reasons = await transact(items);
  if (!reasons) return;
  if (reasons[3] === 'ConditionalCheckFailed') throw new ImportLimitReached();
  throw new VersionConflict();
}

export async function readImport(id: number, consistent = false): Promise<ImportState | null> {
  const found = await batchGet([importKey(id), runKey(id), entryKey(id)], undefined, consistent);
  const item = found.find((i) => i.SK === 'IMPORT');
  const run = found.find((i) => i.SK === 'RUN');
  const entry = found.find((i) => i.PK === 'IMPORTS');
  if (item?.kind !== 'import') return null;
  return { item: item as Item & ImportItem, run: run ? (run as Item & RunItem) : null, due: typeof entry?.due === 'string' ? entry.due : null };
}

/** Several imports' state (a list page): one BatchGetItem of their records and runs. */
export async function readImports(entries: { id: number; due: string | null }[]): Promise<ImportState[]> {
  const found = await batchGet(entries.flatMap((e) => [importKey(e.id), runKey(e.id)]));
  const byKey = new Map(found.map((i) => [`${i.PK}|${i.SK}`, i]));
  return entries.flatMap((e) => {
    const item = byKey.get(`IMPORT#${e.id}|IMPORT`);
    const run = byKey.get(`IMPORT#${e.id}|RUN`);
    return item?.kind === 'import' ? [{ item: item as Item & ImportItem, run: run ? (run as Item & RunItem) : null, due: e.due }] : [];
  });
}

export interface ImportEntry {
  id: number;
  due: string | null;
  /** A deleted import whose removal the worker has not finished. */
  deleting: boolean;
}

/** Every import's list entry, in id order (at most MAX_IMPORTS and the deletions in progress: one Query). */
export async function listImportEntries(): Promise<ImportEntry[]> {
  const items = await queryAll({ KeyConditionExpression: 'PK = :pk AND begins_with(SK, :i)', ExpressionAttributeValues: { ':pk': 'IMPORTS', ':i': 'I#' },
    ConsistentRead: true });
  return items.map((i) => ({ id: Number(i.id), due: typeof i.due === 'string' ? i.due : null, deleting: i.deleting === true }));
}

/** Rewrites an import at the version read, with its entry and, when its file changed, its content items. */
export async function updateImport(prev: ImportItem, next: ImportItem, due: string | null, content?: Item[]): Promise<void> {
  const items: TransactItem[] = [
    { Put: { TableName: T(), Item: { ...next }, ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'v' },
      ExpressionAttributeValues: { ':v': prev.v } } },
    { Put: { TableName: T(), Item: entryItem(next.id, due) } },
  ];
  if (content) {
    items.push(...content.map((c): TransactItem => ({ Put: { TableName: T(), Item: c } })));
    for (let part = content.length; part < (prev.source.contentParts ?? 0); part++) items.push({ Delete: { TableName: T(), Key: contentKey(prev.id, part) } });
  }
  if (await transact(items)) throw new VersionConflict();
}

/**
 * Deletes an import at the version read: its record goes and the count falls at once; its entry and run item are marked
 * `deleting`, so that the worker removes its identity items (and trashes its events when `trash`) and then the rest.
 */
export async function deleteImport(prev: ImportItem, trash: boolean): Promise<void> {
  const deleting: NonNullable<RunItem['deleting']> = { trash, parts: prev.source.contentParts ?? 0, owner: prev.owner, language: prev.language };
  const reasons = await transact([
    { Delete: { TableName: T(), Key: importKey(prev.id), ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'v' },
      ExpressionAttributeValues: { ':v': prev.v } } },
    { Update: { TableName: T(), Key: entryKey(prev.id), UpdateExpression: 'SET #deleting = :yes REMOVE #due', ExpressionAttributeNames: { '#deleting': 'deleting',
      '#due': 'due' }, ExpressionAttributeValues: { ':yes': true } } },
    { Update: { TableName: T(), Key: COUNT_KEY, UpdateExpression: 'ADD #n :minus', ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: { ':minus': -1 } } },
    { Update: { TableName: T(), Key: runKey(prev.id), UpdateExpression: 'SET #d = :d', ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#d': 'deleting' }, ExpressionAttributeValues: { ':d': deleting } } },
  ]);
  if (reasons) throw new VersionConflict();
}

/** Attribute names of expressions written `#name` (DynamoDB reserves many words: state, processed, until…). */
const namesIn = (...expressions: string[]): Record<string, string> =>
  Object.fromEntries([...new Set(expressions.join(' ').match(/#\w+/g) ?? [])].map((n) => [n, n.slice(1)]));

const COUNTS = ['processed', 'total', 'created', 'updated', 'unchanged', 'removed', 'failed'] as const;
const RESET = `${COUNTS.map((c) => `#${c} = :zero`).join(', ')}, #errors = :none, #message = :empty`;

/** The run item's update that queues a run: its next number, counts reset; only when none is queued or running. */
function queueUpdate(id: number, now: number) {
  const update = `SET #state = :queued, #queuedAt = :now, ${RESET} ADD #n :one REMOVE #startedUtc, #finishedUtc, #lease, #until`;
  const condition = 'attribute_exists(PK) AND NOT #state IN (:queued, :running) AND attribute_not_exists(#deleting)';
  return { TableName: T(), Key: runKey(id), UpdateExpression: update, ConditionExpression: condition, ExpressionAttributeNames: namesIn(update, condition),
    ExpressionAttributeValues: { ':queued': 'queued', ':running': 'running', ':now': now, ':zero': 0, ':none': [], ':empty': '', ':one': 1 } };
}

/** Queues a run; refused (RunBusy) while one is queued or running, or the import is being deleted. */
export async function queueRun(id: number, now: number): Promise<RunItem> {
  try {
    const out = await db().send(new UpdateCommand({ ...queueUpdate(id, now), ReturnValues: 'ALL_NEW' }));
    return out.Attributes as Item & RunItem;
  } catch (e) {
    if ((e as Error).name === 'ConditionalCheckFailedException') throw new RunBusy();
    throw e;
  }
}

/**
 * Takes the import's run for a worker: a queued run, a running one whose lease has lapsed (its worker died), or the
 * removal of a deleted import. Null when another worker holds it, or there is nothing to run.
 */
export async function takeLease(id: number, token: string, now: number, leaseMs: number): Promise<RunItem | null> {
  const update = 'SET #lease = :token, #until = :until, #state = :running, #startedUtc = if_not_exists(#startedUtc, :started)';
  const condition = '(#state IN (:queued, :running) OR attribute_exists(#deleting)) AND (attribute_not_exists(#until) OR #until < :now)';
  try {
    const out = await db().send(new UpdateCommand({
      TableName: T(), Key: runKey(id), UpdateExpression: update, ConditionExpression: condition, ExpressionAttributeNames: namesIn(update, condition),
      ExpressionAttributeValues: { ':token': token, ':until': now + leaseMs, ':running': 'running', ':queued': 'queued', ':now': now,
        ':started': new Date(now).toISOString().slice(0, 19).replace('T', ' ') },
      ReturnValues: 'ALL_NEW',
    }));
    return out.Attributes as Item & RunItem;
  } catch (e) {
    if ((e as Error).name === 'ConditionalCheckFailedException') return null;
    throw e;
  }
}

/** A run stops at its next save once its import is deleted: the removal takes over when its lease lapses. */
const RUN_GOES_ON = ' AND attribute_not_exists(#deleting)';

const countsSet = COUNTS.map((c) => `#${c} = :${c}`).join(', ');
const countValues = (c: RunCounts): Record<string, number> => Object.fromEntries(COUNTS.map((k) => [`:${k}`, c[k]]));

/** Saves a run's progress and extends its lease; false when the lease is no longer this worker's. */
export async function saveProgress(id: number, token: string, now: number, leaseMs: number, counts: RunCounts, errors: RunError[]): Promise<boolean> {
  return leaseUpdate(id, token, `SET #until = :until, ${countsSet}, #errors = :errors`, { ':until': now + leaseMs, ...countValues(counts), ':errors': errors },
    RUN_GOES_ON);
}

/** Ends a run (done or failed): its final counts, and for a done run the source's validators; the lease is given up. */
export async function finishRun(id: number, token: string, end: { state: 'done' | 'failed'; finishedUtc: string; counts: RunCounts; errors: RunError[];
  message: string; validators?: { etag: string | null; lastModified: string | null; total: number } }): Promise<boolean> {
  const values: Record<string, unknown> = { ':state': end.state, ':finished': end.finishedUtc, ...countValues(end.counts), ':errors': end.errors,
    ':message': end.message };
  let set = `SET #state = :state, #finishedUtc = :finished, ${countsSet}, #errors = :errors, #message = :message`;
  const remove = ['#lease', '#until'];
  if (end.validators) {
    const { etag, lastModified, total } = end.validators;
    set += ', #lastTotal = :lastTotal';
    values[':lastTotal'] = total;
    for (const [name, value] of [['etag', etag], ['lastModified', lastModified]] as const) {
      if (value) {
        set += `, #${name} = :${name}`;
        values[`:${name}`] = value;
      } else remove.push(`#${name}`);
    }
  }
  return leaseUpdate(id, token, `${set} REMOVE ${remove.join(', ')}`, values, RUN_GOES_ON);
}

/** Extends the lease of a worker that writes no progress (a deleted import's removal); false when it is no longer its. */
export const renewLease = (id: number, token: string, now: number, leaseMs: number): Promise<boolean> =>
  leaseUpdate(id, token, 'SET #until = :until', { ':until': now + leaseMs });

/** Gives the lease up without finishing (the worker ran out of time): another worker may continue at once. */
export const releaseLease = (id: number, token: string): Promise<boolean> => leaseUpdate(id, token, 'SET #until = :zero', { ':zero': 0 });

async function leaseUpdate(id: number, token: string, expression: string, values: Record<string, unknown>, condition = ''): Promise<boolean> {
  const full = `#lease = :token${condition}`;
  try {
    await db().send(new UpdateCommand({ TableName: T(), Key: runKey(id), UpdateExpression: expression, ConditionExpression: full,
      ExpressionAttributeNames: namesIn(expression, full), ExpressionAttributeValues: { ':token': token, ...values } }));
    return true;
  } catch (e) {
    if ((e as Error).name === 'ConditionalCheckFailedException') return false;
    throw e;
  }
}

/**
 * Moves a scheduled import's next run from `due` to `next` and queues a run, unless one is queued or running (then only
 * `due` moves: the schedule skips a run rather than stacking them). False when another dispatcher moved it first.
 */
export async function claimDue(id: number, due: string, next: string, now: number): Promise<boolean> {
  const moveDue = { TableName: T(), Key: entryKey(id), UpdateExpression: 'SET #due = :next', ConditionExpression: '#due = :due',
    ExpressionAttributeNames: { '#due': 'due' }, ExpressionAttributeValues: { ':next': next, ':due': due } };
  const reasons = await transact([{ Update: moveDue }, { Update: queueUpdate(id, now) }]);
  if (!reasons) return true;
  if (reasons[0] === 'ConditionalCheckFailed') return false;
  try {
    await db().send(new UpdateCommand(moveDue));
    return true;
  } catch (e) {
    if ((e as Error).name === 'ConditionalCheckFailedException') return false;
    throw e;
  }
}

/** The runs of these imports (the dispatcher looks for queued runs nobody took and lapsed leases). */
export async function readRuns(ids: number[]): Promise<RunItem[]> {
  return (await batchGet(ids.map(runKey), undefined, true)).map((i) => i as Item & RunItem);
}

// ------------------------------------------------------------------------------------------------ identity items

/** What a run knows of one source event it brought in (or tried to). */
export interface Identity {
  key: string;
  /** Bumped by every write of the item: each write is conditioned on the count it read. */
  w: number;
  /** The event (a single event or a series); absent while a create is pending. */
  event?: number;
  /** The source's hash as last written. */
  hash?: string;
  startUtc: string;
  endUtc: string;
  /** The run (its number) that last changed the event, and what it did: created, updated or removed. */
  rn: number;
  act: 'c' | 'u' | 'r';
  /** The event was trashed by a run (cancelled, private, gone from the source). */
  removed?: boolean;
  /** Hashes of the fields as the API showed them after the import wrote them (`preserve` keeps those that differ now). */
  fh?: Record<string, string>;
  /** Hashes of the fields as the import last sent them (a field whose source value is the same is not sent again). */
  sh?: Record<string, string>;
  /** A series' occurrences this import edited or removed, by original start (RECURRENCE-ID). */
  occ?: Record<string, number>;
  /** A create in flight: sent again as it was (same idempotency reference and fields) by a run that takes over. */
  pend?: { ref: string; fields: Record<string, unknown> };
}

type IdentityItem = Omit<Identity, 'pend'> & { pend?: { ref: string; z: Uint8Array } };

export async function readIdentities(id: number): Promise<Map<string, Identity>> {
  const items = await queryAll({ KeyConditionExpression: 'PK = :pk AND begins_with(SK, :k)', ExpressionAttributeValues: { ':pk': `IMPORT#${id}`, ':k': 'K#' },
    ConsistentRead: true });
  return new Map(items.map((i) => {
    const { PK: _pk, SK: _sk, pend, ...rest } = i as Item & IdentityItem;
    const identity: Identity = { ...rest, ...(pend ? { pend: { ref: pend.ref, fields: JSON.parse(gunzipSync(Buffer.from(pend.z)).toString('utf8')) } } : {}) };
    return [identity.key, identity];
  }));
}

/** Lost because another writer changed the identity item since it was read (a second run of the same import). */
export class IdentityTaken extends Error {}

/** Writes an identity item on condition that it is as read (`w`), or absent when `prev` is null; returns what was written. */
export async function saveIdentity(id: number, prev: Identity | null, next: Omit<Identity, 'w'>): Promise<Identity> {
  const written: Identity = { ...next, w: (prev?.w ?? 0) + 1 };
  const { pend, ...rest } = written;
  const item: Item = { ...identityKey(id, next.key), ...rest,
    ...(pend ? { pend: { ref: pend.ref, z: gzipSync(JSON.stringify(pend.fields)) } } : {}) };
  try {
    await db().send(new PutCommand({ TableName: T(), Item: item, ...(prev
      ? { ConditionExpression: '#w = :w', ExpressionAttributeNames: { '#w': 'w' }, ExpressionAttributeValues: { ':w': prev.w } }
      : { ConditionExpression: 'attribute_not_exists(PK)' }) }));
  } catch (e) {
    if ((e as Error).name === 'ConditionalCheckFailedException') throw new IdentityTaken();
    throw e;
  }
  return written;
}

/** The keys of up to `limit` identity items of an import (a deleted import's removal, in rounds). */
export async function identityPage(id: number, limit: number): Promise<Item[]> {
  const out = await db().send(new QueryCommand({ TableName: T(), KeyConditionExpression: 'PK = :pk AND begins_with(SK, :k)',
    ExpressionAttributeValues: { ':pk': `IMPORT#${id}`, ':k': 'K#' }, Limit: limit, ConsistentRead: true }));
  return out.Items ?? [];
}

/** Deletes identity items (at most 99 at once) in one transaction, on condition that the worker still holds the lease. */
export async function deleteIdentities(id: number, token: string, keys: Key[]): Promise<boolean> {
  return !await transact([leaseCheck(id, token), ...keys.map((k): TransactItem => ({ Delete: { TableName: T(), Key: k } }))]);
}

const leaseCheck = (id: number, token: string): TransactItem => ({ ConditionCheck: { TableName: T(), Key: runKey(id), ConditionExpression: '#lease = :token',
  ExpressionAttributeNames: { '#lease': 'lease' }, ExpressionAttributeValues: { ':token': token } } });

/** The last step of a deleted import's removal: its run, entry and content items go, if the worker still holds the lease. */
export async function finishRemoval(id: number, token: string, contentParts: number): Promise<boolean> {
  const reasons = await transact([
    { Delete: { TableName: T(), Key: runKey(id), ConditionExpression: '#lease = :token AND attribute_exists(#deleting)',
      ExpressionAttributeNames: { '#lease': 'lease', '#deleting': 'deleting' }, ExpressionAttributeValues: { ':token': token } } },
    { Delete: { TableName: T(), Key: entryKey(id) } },
    ...Array.from({ length: contentParts }, (_, i): TransactItem => ({ Delete: { TableName: T(), Key: contentKey(id, i) } })),
  ]);
  return !reasons;
}
