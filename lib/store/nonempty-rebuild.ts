/**
 * Builds the non-empty counts (lib/store/nonempty.ts) of a table written before they existed, or written in bulk
 * without them (the benchmark's seeder): reads each kind's index partition once, sets every category's `linked`, and
 * writes the kind's count item with `built`. Lists use a count item only once it is built (until then they read and
 * count as before). Idempotent: running it again recomputes the same values.
 *
 * The count item is replaced only if no write moved it since before the partition was read (otherwise the kind is
 * read again), but the partition is an eventually consistent index: a write that landed just before the read may not
 * show in it yet. So it runs while nothing writes: the local server runs it at start, before it listens, for each kind
 * whose count item is not built; a deployed table runs `npm run counts:rebuild` (lib/local/rebuild-counts.ts) with
 * writes stopped.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from './client.js';
import { termKey } from './keys.js';
import { nonEmptyKey, renderConds } from './nonempty.js';
import { getItem, queryAll, type Item } from './records.js';
import type { LinkKind } from './event-sources.js';
import { POST_STATUSES } from '../model/status.js';
import { termsPartition } from '../terms/item.js';
import { collectionPartition } from '../linked/item.js';

export const NON_EMPTY_KINDS: readonly LinkKind[] = ['venue', 'organizer', 'category', 'tag'];

const partition = (kind: LinkKind): string =>
  (kind === 'venue' || kind === 'organizer' ? collectionPartition(kind) : termsPartition(kind));

const readPartition = (kind: LinkKind): Promise<Item[]> => queryAll({
  IndexName: 'byStart',
  KeyConditionExpression: 'GSI2PK = :pk',
  ExpressionAttributeValues: { ':pk': partition(kind) },
  ProjectionExpression: '#id, #st, #parent, #cnt, #linked',
  ExpressionAttributeNames: { '#id': 'id', '#st': 'status', '#parent': 'parent', '#cnt': 'cnt', '#linked': 'linked' },
});

/** A category changed while its `linked` was being set: the kind is read again. */
class Moved extends Error {}

/** Categories: each one's `linked` (own count, plus non-empty children) set where it differs; returns the counts. */
async function rebuildCategories(items: Item[], changed: number[]): Promise<Record<string, number>> {
  const parent = new Map(items.map((i) => [Number(i.id), Number(i.parent ?? 0)]));
  const filled = new Set<number>();
  for (const i of items) {
    if (Number(i.cnt ?? 0) <= 0) continue;
    for (let id = Number(i.id), depth = 0; id && !filled.has(id) && depth < 100; id = parent.get(id) ?? 0, depth++) filled.add(id);
  }
  const linked = new Map(items.map((i) => [Number(i.id), Number(Number(i.cnt ?? 0) > 0)]));
  for (const id of filled) {
    const p = parent.get(id) ?? 0;
    if (p && linked.has(p)) linked.set(p, linked.get(p)! + 1);
  }
  for (const i of items) {
    const id = Number(i.id);
    if (Number(i.linked ?? 0) === linked.get(id)) continue;
    if ((Number(i.linked ?? 0) > 0) !== (linked.get(id)! > 0)) changed.push(id);
    // Only on the facts it was computed from: a category whose count or parent moved meanwhile is read again.
    const { expression, names, values } = renderConds([{ exists: true }, { attr: 'cnt', op: '=', value: Number(i.cnt ?? 0) },
      { attr: 'parent', op: '=', value: Number(i.parent ?? 0) }], 'c');
    try {
      await db().send(new UpdateCommand({
        TableName: table(), Key: termKey(id), UpdateExpression: 'SET #linked = :linked', ConditionExpression: expression,
        ExpressionAttributeNames: { ...names, '#linked': 'linked' }, ExpressionAttributeValues: { ...values, ':linked': linked.get(id) },
      }));
    } catch (e) {
      if ((e as Error).name === 'ConditionalCheckFailedException') throw new Moved();
      throw e;
    }
  }
  return { all: items.length, filled: filled.size };
}

/** Every attribute a write may ADD to the kind's count item. */
const countAttributes = (kind: LinkKind): readonly string[] => (kind === 'venue' || kind === 'organizer' ? POST_STATUSES : ['all', 'filled']);

async function rebuildKind(kind: LinkKind): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    // The count item as it was before the partition is read: it is replaced only if no write moved it meanwhile.
    const before = await getItem(nonEmptyKey(kind), true);
    const items = await readPartition(kind);
    let counts: Record<string, number>;
    // Categories whose emptiness this changes: their search entries are flagged behind (lib/terms/words.ts), as an
    // event write's crossing flags them; the flags already there are kept.
    const changed: number[] = [];
    try {
      if (kind === 'category') counts = await rebuildCategories(items, changed);
      else if (kind === 'tag') counts = { all: items.length, filled: items.filter((i) => Number(i.cnt ?? 0) > 0).length };
      else {
        counts = {};
        for (const i of items) if (Number(i.linked ?? 0) > 0) counts[String(i.status)] = (counts[String(i.status)] ?? 0) + 1;
      }
    } catch (e) {
      if (e instanceof Moved && attempt < 5) continue;
      throw e;
    }
    const unchanged = renderConds(before
      ? countAttributes(kind).map((attr) => ({ attr, op: '=' as const, value: Number(before[attr] ?? 0) }))
      : [{ exists: false }], 'c');
    try {
      const flags = Object.fromEntries(Object.entries(before ?? {}).filter(([attr]) => /^d\d+$/.test(attr)));
      for (const id of changed) flags[`d${id}`] = Number(flags[`d${id}`] ?? 0) + 1;
      await db().send(new PutCommand({ TableName: table(), Item: { ...nonEmptyKey(kind), ...flags, ...counts, built: true },
        ConditionExpression: unchanged.expression,
        ...(Object.keys(unchanged.names).length ? { ExpressionAttributeNames: unchanged.names, ExpressionAttributeValues: unchanged.values } : {}) }));
      return;
    } catch (e) {
      if ((e as Error).name !== 'ConditionalCheckFailedException' || attempt >= 5) throw e;
    }
  }
}

/**
 * Builds the count items of `kinds` (all by default) — with `onlyMissing`, only those not built yet — and returns the
 * kinds it built.
 */
export async function rebuildNonEmpty(opts: { kinds?: readonly LinkKind[]; onlyMissing?: boolean } = {}): Promise<LinkKind[]> {
  const built: LinkKind[] = [];
  for (const kind of opts.kinds ?? NON_EMPTY_KINDS) {
    if (opts.onlyMissing && (await getItem(nonEmptyKey(kind), true))?.built) continue;
    await rebuildKind(kind);
    built.push(kind);
  }
  return built;
}
