/**
 * The venues, organizers and terms a run links (lib/imports/linked.ts, contract §20): existing records found by name (an
 * organizer by email first) in a table of this file's own on the harness's DynamoDB; creates counted, at most 1,000 per
 * run, after which an event needing a new one fails with the limit's error while existing records are still found.
 * The API calls are a stand-in that answers as the service's creates do (their own contract tests cover them).
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { resetConfig } from '../../lib/config.js';
import type { ApiAnswer, CallOptions, OwnerApi } from '../../lib/imports/api.js';
import { LinkedLimitReached, LinkedResolver, MAX_NEW_LINKED } from '../../lib/imports/linked.js';
import { ensureTable } from '../../lib/local/dynamodb-local.js';
import { nameKey } from '../../lib/linked/names.js';
import { setClient } from '../../lib/store/client.js';
import { postKey } from '../../lib/store/keys.js';
import { nameGuardKey } from '../../lib/terms/item.js';
import { restoreAndDropTable } from '../support/own-table.js';

const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
if (!endpoint) throw new Error('CALENDAR_TEST_DYNAMODB_ENDPOINT is not set: the global setup did not start DynamoDB Local');

describe('linked records of a run', () => {
  const table = `imports-linked-${randomUUID().slice(0, 8)}`;
  const raw = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const doc = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  const saved = { ...process.env };
  const calls: [string, string, unknown][] = [];
  let nextId = 1000;
  const api: OwnerApi = {
    async call(method: string, rel: string, options: CallOptions = {}): Promise<ApiAnswer> {
      calls.push([method, rel, options.body ?? options.query]);
      if (method === 'POST') return { status: 201, body: { id: nextId++ } };
      return { status: 200, body: { organizers: [{ id: 77, organizer: 'Someone', email: 'Team@Acme.example.org' }] } };
    },
  };

  beforeAll(async () => {
    Object.assign(process.env, { CALENDAR_TABLE_NAME: table });
    resetConfig();
    await ensureTable(raw, table);
    setClient(doc);
    const put = (Item: Record<string, unknown>) => doc.send(new PutCommand({ TableName: table, Item }));
    await put({ ...nameGuardKey('category', 0, 'Music'), id: 7 });
    await put({ ...nameKey('venue', 'town hall'), r42: '', r41: '' });
    await put({ ...postKey(41), kind: 'venue', id: 41, status: 'trash' });
    await put({ ...postKey(42), kind: 'venue', id: 42, status: 'publish' });
  }, 60_000);
  afterAll(() => restoreAndDropTable(raw, table, saved));

  it('finds existing records without writing: a venue by name (not a trashed one), an organizer by email, a term by name', async () => {
    const links = new LinkedResolver(api);
    expect(await links.venue({ venue: 'Town Hall', address: 'elsewhere' })).toBe(42);
    expect(await links.organizer({ organizer: 'Acme', email: 'team@acme.example.org' })).toBe(77);
    expect(await links.term('category', 'music')).toBe(7);
    expect(calls.filter(([method]) => method === 'POST')).toEqual([]);
    expect(links.created).toBe(0);
  });

  it('creates what is missing, each name once per run, and at most 1,000; beyond, the limit, while existing records are still found', async () => {
    const links = new LinkedResolver(api);
    calls.length = 0;
    const venue = await links.venue({ venue: 'Harbour Stage', geo_lat: 53.5, geo_lng: 9.9 });
    expect(await links.venue({ venue: 'harbour stage' })).toBe(venue);
    expect(calls.filter(([m]) => m === 'POST')).toEqual([['POST', '/venues', { venue: 'Harbour Stage', geo_lat: 53.5, geo_lng: 9.9, status: 'publish' }]]);
    for (let i = 1; i < MAX_NEW_LINKED; i++) await links.term('tag', `tag ${i}`);
    expect(links.created).toBe(MAX_NEW_LINKED);
    await expect(links.term('tag', 'one more')).rejects.toBeInstanceOf(LinkedLimitReached);
    await expect(links.organizer({ organizer: 'New People' })).rejects.toThrow(/1000 new venues, organizers and terms/);
    expect(await links.term('category', 'Music')).toBe(7);
    expect(await links.venue({ venue: 'Town Hall' })).toBe(42);
    expect(await links.venue({ venue: 'Harbour Stage' })).toBe(venue);
  }, 60_000);
});
