/**
 * An event save whose search-index change is too large for its own transaction (lib/search/commit.ts): the change is
 * applied after it in chunks, each exactly once. Here the request dies between chunks (its DynamoDB calls fail after
 * the event's transaction and one chunk); searches stay exact meanwhile, and the sweeper — or the event's next write —
 * finishes the rest exactly once: the index then holds precisely what one clean write would have left.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, ScanCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { handler as events } from '../../functions/events.js';
import { resetConfig } from '../../lib/config.js';
import { indexState } from '../../lib/events/index-state.js';
import { ensureTable } from '../../lib/local/dynamodb-local.js';
import { signLocalToken } from '../../lib/local/token-sign.js';
import { finishGroup, inGroup, openGroup, repairWordIndex } from '../../lib/search/commit.js';
import { foldChanges, MARKERS, stateChanges } from '../../lib/search/flight.js';
import { setClient } from '../../lib/store/client.js';
import { postKey } from '../../lib/store/keys.js';
import { applyInMemory } from '../bench/seed.js';
import { captureOutput } from '../support/capture-output.js';
import { gatewayEvent, lambdaContext } from '../support/gateway-event.js';
import { restoreAndDropTable } from '../support/own-table.js';

// The harness's DynamoDB (global-setup.ts); a run without it must fail here, not skip these tests.
const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
if (!endpoint) throw new Error('CALENDAR_TEST_DYNAMODB_ENDPOINT is not set: the global setup did not start DynamoDB Local');

const INDEX = /^(W1#|C#W2#|WS1#|WX$)/;

describe('a save that dies between index chunks (real DynamoDB)', () => {
  const table = `chunks-${randomUUID().slice(0, 8)}`;
  const secret = 'chunks-secret-0123456789abcdef0123456789';
  const raw = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION || 'local',
    credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID || 'local', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || 'local' } });
  const real = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false } });

  /** Transactions that may still land before the "process" dies (null: no death planned). */
  let livesLeft: number | null = null;
  let transactions = 0;
  const client = Object.create(real) as DynamoDBDocumentClient;
  client.send = (async (command: Parameters<typeof real.send>[0]) => {
    if (command instanceof TransactWriteCommand) {
      transactions++;
      if (livesLeft !== null && livesLeft-- <= 0) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    }
    return real.send(command as never);
  }) as typeof real.send;

  const saved = { ...process.env };
  let token: string;
  beforeAll(async () => {
    Object.assign(process.env, { CALENDAR_TABLE_NAME: table, CALENDAR_JWT_SECRET: secret, CALENDAR_TIMEZONE: 'UTC', CALENDAR_SITE_URL: '',
      CALENDAR_JWT_ISSUER: '' });
    resetConfig();
    await ensureTable(raw, table);
    setClient(client);
    token = await signLocalToken({ secret, role: 'editor', sub: 'chunks-editor' });
  }, 60_000);

  afterAll(() => restoreAndDropTable(raw, table, saved));

  async function call(method: string, path: string, body?: unknown, query = ''): Promise<{ status: number; json: any }> {
    const res = await events(gatewayEvent(method, `/calendar/events/v1${path}`, { body, query, token }), lambdaContext(20_000)) as
      { statusCode: number; body: string };
    return { status: res.statusCode, json: JSON.parse(res.body) };
  }

  /** Items without their counts that went back to 0, and without items left holding nothing: what readers see alike. */
  const settled = (items: Iterable<[string, Record<string, unknown>]>) => new Map([...items]
    .map(([k, i]): [string, Record<string, unknown>] => [k, Object.fromEntries(Object.entries(i).filter(([, v]) => v !== 0))])
    .filter(([, i]) => Object.keys(i).some((k) => k !== 'PK' && k !== 'SK')));

  /** Every index item of the table (this file's own: only its events are in it), keyed by PK|SK. */
  async function indexItems(): Promise<Map<string, Record<string, unknown>>> {
    const items = (await real.send(new ScanCommand({ TableName: table, ConsistentRead: true }))).Items ?? [];
    return settled(items.filter((i) => INDEX.test(String(i.PK))).map((i) => [`${i.PK}|${i.SK}`, i]));
  }

  /** What one clean write of each event leaves in an empty index, by the product's own plan. */
  async function expectedFor(ids: number[]): Promise<Map<string, Record<string, unknown>>> {
    const out = new Map<string, Record<string, unknown>>();
    for (const id of ids) {
      const record = (await real.send(new GetCommand({ TableName: table, Key: postKey(id), ConsistentRead: true }))).Item ?? null;
      for (const t of stateChanges(id, { words: null, unindexed: null }, indexState(record))) applyInMemory(out, t);
    }
    return settled(out);
  }

  const markers = async () => (await real.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': MARKERS }, ConsistentRead: true }))).Items ?? [];

  // Words of 300 different first two letters: several chunks of count items after the event's transaction.
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const wide = (tag: string) => Array.from({ length: 300 }, (_, k) => `${letters[k % 26]}${letters[Math.floor(k / 26) % 26]}${tag}`).join(' ');
  const search = (q: string) => call('GET', '/events', undefined, `search=${q}&start_date=2051-01-01&end_date=2051-12-31`);

  it.each([
    ['the sweeper', async () => { expect(await repairWordIndex(indexState, 10, 0)).toBe(1); }],
    ['the event\'s next write', async (id: number) => { expect((await call('POST', `/events/${id}`, { title: 'Renamed zebra' })).status).toBe(200); }],
  ])('%s finishes it exactly once; searches are exact meanwhile', async (_who, finish) => {
    const tag = Array.from({ length: 4 }, () => letters[Math.floor(Math.random() * 26)]).join('');
    const before = transactions;
    // The event's transaction and the first chunk land; every transaction after them fails: the request has died.
    livesLeft = 2;
    const warnings = captureOutput();
    let res: { status: number; json: any };
    try {
      res = await call('POST', '/events', { title: `Wide ${tag}`, description: `<p>${wide(tag)} marmalade</p>`, status: 'publish',
        start_date: '2051-05-06 10:00:00', end_date: '2051-05-06 12:00:00' });
    } finally {
      livesLeft = null;
      warnings.restore();
    }
    // The event committed, so the save answers 201; its index is not whole yet.
    expect(res.status).toBe(201);
    expect(transactions - before).toBeGreaterThan(2);
    const id = res.json.id as number;
    expect((await markers()).map((m) => Number(m.id))).toEqual([id]);
    const partial = await indexItems();
    const whole = await expectedFor([id]);
    expect(partial).not.toEqual(whole);
    // Meanwhile searches count and list it from its record, whichever of its chunks have landed.
    for (const q of [`ab${tag.slice(0, 2)}`, `${letters[25]}${letters[0]}${tag}`, 'marmalade', 'wide']) {
      const found = await search(q);
      expect({ q, total: found.json.total, ids: found.json.events.map((e: any) => e.id) }).toEqual({ q, total: 1, ids: [id] });
    }
    await finish(id);
    expect(await markers()).toEqual([]);
    // Exactly what one clean write leaves: no chunk applied twice, none missing.
    expect(await indexItems()).toEqual(await expectedFor([id]));
    expect((await search('marmalade')).json.total).toBe(1);
    // Clean up for the next case (a table of this file's own holds only its events).
    expect((await call('DELETE', `/events/${id}`, undefined, 'force=true')).status).toBe(200);
    expect(await markers()).toEqual([]);
    expect(await indexItems()).toEqual(new Map());
  }, 120_000);

  it('a batch written as a group (an import\'s): folded, searches exact before and between its chunks, finished exactly once', async () => {
    const tag = Array.from({ length: 4 }, () => letters[Math.floor(Math.random() * 26)]).join('');
    const gid = `test-${tag}`;
    await openGroup(gid);
    const ids: number[] = [];
    // Twenty events of two days and varied words: their postings and count items fold into far fewer items.
    await inGroup(gid, async () => {
      for (let i = 0; i < 20; i++) {
        const res = await call('POST', '/events', { title: `Batch ${tag} ${letters[i]}${tag}`, description: `<p>${wide(tag).split(' ').slice(i * 10, i * 10 + 40).join(' ')} quince</p>`,
          status: 'publish', start_date: `2051-06-0${1 + (i % 2)} 10:00:00`, end_date: `2051-06-0${1 + (i % 2)} 12:00:00` });
        expect(res.status).toBe(201);
        ids.push(res.json.id as number);
      }
    });
    // Written, not sealed: every event's marker stands, the index holds nothing of them yet; searches read their records.
    expect((await markers()).filter((m) => m.g === gid).map((m) => Number(m.id)).sort()).toEqual([...ids].sort());
    expect(await indexItems()).toEqual(new Map());
    expect((await search('quince')).json.total).toBe(20);
    expect((await search(`${letters[3]}${tag}`)).json.events.map((e: any) => e.id)).toEqual([ids[3]]);
    // Its writer dies between chunks: the first chunk lands, the rest fail.
    const records = await Promise.all(ids.map(async (id) => (await real.send(new GetCommand({ TableName: table, Key: postKey(id), ConsistentRead: true }))).Item!));
    const apart = ids.flatMap((id, i) => stateChanges(id, { words: null, unindexed: null }, indexState(records[i]!)));
    expect(foldChanges(apart).length).toBeLessThan(apart.length / 2);
    livesLeft = 1;
    const warnings = captureOutput();
    try {
      await expect(finishGroup(gid, indexState)).rejects.toThrow();
    } finally {
      livesLeft = null;
      warnings.restore();
    }
    expect(await indexItems()).not.toEqual(await expectedFor(ids));
    expect((await search('quince')).json.total).toBe(20);
    expect((await search(`${letters[3]}${tag}`)).json.events.map((e: any) => e.id)).toEqual([ids[3]]);
    // The sweeper finishes it exactly once: what twenty clean writes would have left.
    expect(await repairWordIndex(indexState, 50, 0)).toBeGreaterThan(0);
    expect((await markers()).filter((m) => m.g === gid || String(m.SK) === `G#${gid}`)).toEqual([]);
    expect(await indexItems()).toEqual(await expectedFor(ids));
    expect((await search('quince')).json.total).toBe(20);
    for (const id of ids) expect((await call('DELETE', `/events/${id}`, undefined, 'force=true')).status).toBe(200);
    expect(await indexItems()).toEqual(new Map());
  }, 120_000);

  it('an event written again inside its group (created, then edited, as an import edits a new series\' occurrence) is applied once, to its last state', async () => {
    const tag = Array.from({ length: 4 }, () => letters[Math.floor(Math.random() * 26)]).join('');
    const gid = `twice-${tag}`;
    await openGroup(gid);
    const ids: number[] = [];
    await inGroup(gid, async () => {
      for (let i = 0; i < 2; i++) {
        ids.push((await call('POST', '/events', { title: `Draft ${tag} ${i}`, description: '<p>loquat</p>', status: 'publish',
          start_date: '2051-08-01 10:00:00', end_date: '2051-08-01 11:00:00' })).json.id as number);
      }
      expect((await call('POST', `/events/${ids[0]}`, { title: `Final ${tag}`, description: '<p>persimmon</p>' })).status).toBe(200);
    });
    // One marker per event, its before still the empty index.
    expect((await markers()).filter((m) => m.g === gid)).toHaveLength(2);
    expect((await search('loquat')).json.total).toBe(1);
    expect((await search('persimmon')).json.events.map((e: any) => e.id)).toEqual([ids[0]]);
    expect(await finishGroup(gid, indexState)).toBe(true);
    expect(await indexItems()).toEqual(await expectedFor(ids));
    expect((await search('loquat')).json.total).toBe(1);
    expect((await search('persimmon')).json.total).toBe(1);
    for (const id of ids) expect((await call('DELETE', `/events/${id}`, undefined, 'force=true')).status).toBe(200);
    expect(await indexItems()).toEqual(new Map());
  }, 120_000);

  it('a group whose writer died before sealing it is sealed by the sweeper with the events it wrote', async () => {
    const tag = Array.from({ length: 4 }, () => letters[Math.floor(Math.random() * 26)]).join('');
    const gid = `dead-${tag}`;
    await openGroup(gid);
    const ids: number[] = [];
    await inGroup(gid, async () => {
      for (let i = 0; i < 3; i++) {
        ids.push((await call('POST', '/events', { title: `Orphan ${tag} ${i}`, description: '<p>medlar</p>', status: 'publish',
          start_date: '2051-07-01 10:00:00', end_date: '2051-07-01 11:00:00' })).json.id as number);
      }
    });
    // A fresh unsealed group is its writer's: the sweeper leaves it alone…
    await repairWordIndex(indexState, 50, 0);
    expect((await markers()).filter((m) => m.g === gid)).toHaveLength(3);
    expect((await search('medlar')).json.total).toBe(3);
    // …until it is older than a writer can be.
    await real.send(new UpdateCommand({ TableName: table, Key: { PK: MARKERS, SK: `G#${gid}` }, UpdateExpression: 'SET #a = :a',
      ExpressionAttributeNames: { '#a': 'at' }, ExpressionAttributeValues: { ':a': new Date(Date.now() - 120_000).toISOString() } }));
    expect(await repairWordIndex(indexState, 50, 0)).toBeGreaterThan(0);
    expect((await markers()).filter((m) => m.g === gid || String(m.SK) === `G#${gid}`)).toEqual([]);
    expect(await indexItems()).toEqual(await expectedFor(ids));
    for (const id of ids) expect((await call('DELETE', `/events/${id}`, undefined, 'force=true')).status).toBe(200);
  }, 120_000);
});
