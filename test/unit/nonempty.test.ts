/**
 * The planning of non-empty counts (lib/store/nonempty.ts) on its own: the conditions a counter ADD carries, the
 * category cascade on an in-memory tree, and — with a mocked DynamoDB, for the error paths only — what a record write
 * does when its counter condition fails, and a rebuild that finds its count item moved.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { setClient } from '../../lib/store/client.js';
import { LinkConflict, VersionConflict } from '../../lib/store/errors.js';
import { rewriteRecord } from '../../lib/store/kit.js';
import { crossing, ItemActions, planCategoryChanges, sideConds, type CategoryChange } from '../../lib/store/nonempty.js';
import { rebuildNonEmpty } from '../../lib/store/nonempty-rebuild.js';
import type { Item } from '../../lib/store/records.js';

describe('counter conditions', () => {
  it('crossing: +1 into positive, −1 out of it, 0 otherwise', () => {
    expect([crossing(0, 1), crossing(1, -1), crossing(2, -1), crossing(0, 0), crossing(3, 2), crossing(1, 0)]).toEqual([1, -1, 0, 0, 0, 0]);
  });

  it('sideConds: the value read when it crosses, its side of zero before and after when not', () => {
    expect(sideConds('cnt', 0, 1)).toEqual([{ attr: 'cnt', op: '=', value: 0 }]);
    expect(sideConds('cnt', 1, -1)).toEqual([{ attr: 'cnt', op: '=', value: 1 }]);
    expect(sideConds('cnt', 3, -1)).toEqual([{ attr: 'cnt', op: '>=', value: 2 }]);
    expect(sideConds('cnt', 3, 1)).toEqual([{ attr: 'cnt', op: '>=', value: 1 }]);
    expect(sideConds('linked', 0, 0)).toEqual([{ attr: 'linked', op: '<=', value: 0 }]);
    expect(sideConds('linked', 4, 0)).toEqual([{ attr: 'linked', op: '>=', value: 1 }]);
  });

  it('one action per item: ADDs and conditions on a key merge, a zero value also accepts a missing attribute', () => {
    setClient(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local' })));
    const a = new ItemActions();
    const key = { PK: 'TERM#1', SK: 'TERM' };
    a.add(key, 'cnt', 1);
    a.require(key, { exists: true }, ...sideConds('cnt', 0, 1));
    a.add(key, 'linked', 1);
    a.require(key, { exists: true }, { attr: 'parent', op: '=', value: 0 });
    a.count('tag', 'filled', 1);
    a.count('tag', 'filled', 1);
    const [update, counter] = a.items();
    expect(update!.Update).toMatchObject({
      Key: key, UpdateExpression: 'ADD #a0 :a0, #a1 :a1',
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(#c1) OR #c1 = :c1) AND (attribute_not_exists(#c2) OR #c2 = :c2)',
    });
    expect(counter!.Update).toMatchObject({ Key: { PK: 'NONEMPTY', SK: 'tag' }, ExpressionAttributeValues: { ':c0': 2 } });
    setClient(null);
  });
});

describe('the category cascade', () => {
  /** A tree: id → [parent, cnt]; `linked` as the invariant makes it. */
  function tree(spec: Record<number, [number, number]>): Map<number, Item> {
    const items = new Map<number, Item>(Object.entries(spec).map(([id, [parent, cnt]]) => [Number(id), { id: Number(id), parent, cnt, linked: 0 }]));
    const filled = (id: number): boolean => Number(items.get(id)!.cnt) > 0 || [...items.values()].some((c) => c.parent === id && filled(Number(c.id)));
    for (const [id, item] of items) {
      item.linked = Number(Number(item.cnt) > 0) + [...items.values()].filter((c) => c.parent === id && filled(Number(c.id))).length;
    }
    return items;
  }
  async function plan(items: Map<number, Item>, changes: CategoryChange[], own: number[] = []) {
    const reads: number[][] = [];
    const actions = new ItemActions();
    const ownConds = await planCategoryChanges(changes, async (ids) => {
      reads.push(ids);
      return new Map(ids.map((id) => [id, items.get(id) ?? null]));
    }, actions, new Set(own));
    const raw = actions as unknown as { byKey: Map<string, { key: { PK: string }; add: Map<string, number>; conds: Map<string, unknown> }>;
      counts: Map<string, Map<string, number>> };
    const linked = Object.fromEntries([...raw.byKey.values()].filter((e) => e.add.get('linked')).map((e) => [e.key.PK, e.add.get('linked')]));
    return { reads, linked, filled: raw.counts.get('category')?.get('filled') ?? 0, ownConds, actions: raw };
  }
  beforeAll(() => setClient(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local' }))));
  afterAll(() => setClient(null));

  it('a leaf filling climbs until a category that was not empty; one read per level', async () => {
    // 1 > 2 > 3 > 4; 2 is not empty through 5.
    const items = tree({ 1: [0, 0], 2: [1, 0], 3: [2, 0], 4: [3, 0], 5: [2, 1] });
    const r = await plan(items, [{ id: 4, own: 1 }]);
    expect(r.linked).toEqual({ 'TERM#4': 1, 'TERM#3': 1, 'TERM#2': 1 });
    expect(r.filled).toBe(2);
    expect(r.reads).toEqual([[4], [3], [2]]);
  });

  it('a category and its parent filling in one write count once each', async () => {
    const items = tree({ 1: [0, 0], 2: [1, 0] });
    const r = await plan(items, [{ id: 2, own: 1 }, { id: 1, own: 1 }]);
    expect(r.linked).toEqual({ 'TERM#2': 1, 'TERM#1': 2 });
    expect(r.filled).toBe(2);
  });

  it('moving a non-empty category empties its old chain and fills its new one; its own item takes a condition', async () => {
    const items = tree({ 1: [0, 0], 2: [1, 0], 3: [2, 1], 4: [0, 0] });
    const r = await plan(items, [{ id: 3, parent: 4 }], [3]);
    expect(r.linked).toEqual({ 'TERM#2': -1, 'TERM#1': -1, 'TERM#4': 1 });
    expect(r.filled).toBe(-1);
    expect(r.ownConds).toEqual([{ attr: 'linked', op: '>=', value: 1 }]);
  });

  it('deleting a non-empty category takes its count off its parent', async () => {
    const items = tree({ 1: [0, 0], 2: [1, 1] });
    const r = await plan(items, [{ id: 2, deleted: true }], [2]);
    expect(r.linked).toEqual({ 'TERM#1': -1 });
    expect(r.filled).toBe(-2);
  });

  it('a parent that is gone stops the cascade and must still be gone', async () => {
    const items = tree({ 2: [9, 0] });
    const r = await plan(items, [{ id: 2, own: 1 }]);
    expect(r.filled).toBe(1);
    expect([...r.actions.byKey.get('TERM#9\u0000TERM')!.conds.values()]).toEqual([{ exists: false }]);
  });

  it('parent links that seem to form a cycle (read across concurrent moves) make the write plan again', async () => {
    const items = new Map<number, Item>([[1, { id: 1, parent: 2, cnt: 0, linked: 0 }], [2, { id: 2, parent: 1, cnt: 0, linked: 0 }]]);
    await expect(plan(items, [{ id: 1, own: 1 }])).rejects.toBeInstanceOf(LinkConflict);
  });
});

describe('with a mocked DynamoDB (error paths)', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  beforeAll(() => setClient(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local' }))));
  afterAll(() => setClient(null));
  beforeEach(() => {
    ddb.reset();
    // The change log's numbers (lib/store/changes.ts), taken before every record write's transaction.
    ddb.on(UpdateCommand).resolves({ Attributes: { n: 1, d20260101: 1 } });
  });

  const venue = { PK: 'POST#5', SK: 'POST', id: 5, v: 3, slug: 'hall', kind: 'venue', status: 'publish', linked: 2 };
  const cancelled = () => Object.assign(new Error('cancelled'), { name: 'TransactionCanceledException',
    CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }] });

  it('a record write whose counter moved (version unchanged) plans again instead of answering a version conflict', async () => {
    const moved = { ...venue, v: 4, status: 'draft' } as typeof venue;
    ddb.on(TransactWriteCommand).rejects(cancelled());
    ddb.on(GetCommand).resolves({ Item: { ...venue, linked: 0 } });
    await expect(rewriteRecord('venue', venue, moved, [], sideConds('linked', 2, 0)))
      .rejects.toBeInstanceOf(LinkConflict);
    ddb.on(GetCommand).resolves({ Item: { ...venue, v: 4 } });
    await expect(rewriteRecord('venue', venue, moved, [], sideConds('linked', 2, 0)))
      .rejects.toBeInstanceOf(VersionConflict);
    // Without counter conditions nothing is re-read: the record's own condition is its version.
    ddb.resetHistory();
    await expect(rewriteRecord('venue', venue, moved)).rejects.toBeInstanceOf(VersionConflict);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('a rebuild whose count item moved while it read starts over, then writes the counts it read', async () => {
    let counted = 0;
    ddb.on(GetCommand).callsFake(() => ({ Item: { PK: 'NONEMPTY', SK: 'tag', all: 1, filled: counted++ } }));
    ddb.on(QueryCommand).resolves({ Items: [{ id: 1, cnt: 2 }, { id: 2, cnt: 0 }, { id: 3, cnt: 1 }] });
    ddb.on(PutCommand).rejectsOnce(Object.assign(new Error('moved'), { name: 'ConditionalCheckFailedException' })).resolves({});
    expect(await rebuildNonEmpty({ kinds: ['tag'] })).toEqual(['tag']);
    const puts = ddb.commandCalls(PutCommand).map((c) => c.args[0].input);
    expect(puts).toHaveLength(2);
    expect(puts[1]!.Item).toEqual({ PK: 'NONEMPTY', SK: 'tag', all: 3, filled: 2, built: true });
    expect(puts[1]!.ExpressionAttributeValues).toEqual({ ':c0': 1, ':c1': 1 });
  });
});
