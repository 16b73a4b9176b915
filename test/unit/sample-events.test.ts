/**
 * The sample events of events/ (for `sam local invoke -e`) are API Gateway HTTP API 2.0 events that the stack's routes
 * and the real handlers answer as docs/deploying.md says: each is run through its function's handler, in process, against
 * the harness's DynamoDB Local (a table of this file's own).
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { httpApiRoutes } from '../../infra/routes.js';
import { resetConfig } from '../../lib/config.js';
import { ensureTable } from '../../lib/local/dynamodb-local.js';
import { groupForPath, type LambdaHandler, lambdaContext } from '../../lib/local/server.js';
import { signLocalToken } from '../../lib/local/token-sign.js';
import { setClient } from '../../lib/store/client.js';
import { restoreAndDropTable } from '../support/own-table.js';

const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
if (!endpoint) throw new Error('CALENDAR_TEST_DYNAMODB_ENDPOINT is not set: the global setup did not start DynamoDB Local');

const dir = new URL('../../events/', import.meta.url);
const TOKEN_PLACEHOLDER = 'REPLACE_WITH_TOKEN';
const sample = (name: string): APIGatewayProxyEventV2 => JSON.parse(readFileSync(new URL(name, dir), 'utf8')) as APIGatewayProxyEventV2;

async function invoke(event: APIGatewayProxyEventV2): Promise<{ status: number; json: any }> {
  const group = groupForPath(event.rawPath);
  const { handler } = (await import(`../../functions/${group}.js`)) as { handler: LambdaHandler };
  const res = (await handler(event, lambdaContext(group))) as APIGatewayProxyStructuredResultV2;
  return { status: res.statusCode!, json: JSON.parse(res.body ?? 'null') };
}

describe('events/*.json', () => {
  const table = `samples-${randomUUID().slice(0, 8)}`;
  const secret = 'samples-secret-0123456789abcdef0123456789';
  const raw = new DynamoDBClient({
    endpoint,
    region: process.env.AWS_REGION || 'local',
    credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID || 'local', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || 'local' },
  });
  const saved = { ...process.env };

  beforeAll(async () => {
    Object.assign(process.env, { CALENDAR_TABLE_NAME: table, CALENDAR_JWT_SECRET: secret, CALENDAR_TIMEZONE: 'UTC', CALENDAR_SITE_URL: '', CALENDAR_JWT_ISSUER: '' });
    resetConfig();
    await ensureTable(raw, table);
    setClient(DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false } }));
  }, 60_000);

  afterAll(() => restoreAndDropTable(raw, table, saved));

  test('are the three documented samples, each an HTTP API 2.0 event on a route the stack declares', () => {
    const names = readdirSync(dir).sort();
    expect(names).toEqual(['create-event.json', 'get-event.json', 'list-events.json']);
    const routeKeys = new Set(httpApiRoutes().map((r) => `ANY ${r.path}`));
    for (const name of names) {
      const event = sample(name);
      expect(event.version).toBe('2.0');
      expect(routeKeys.has(event.routeKey)).toBe(true);
      expect(event.requestContext.routeKey).toBe(event.routeKey);
      expect(event.requestContext.http.path).toBe(event.rawPath);
      expect(new Date(event.requestContext.timeEpoch).toISOString()).toBe('2027-03-01T12:00:00.000Z');
    }
  });

  test('create-event.json is refused until its token placeholder is replaced, then creates the event get-event.json reads', async () => {
    const create = sample('create-event.json');
    expect(create.headers.authorization).toBe(`Bearer ${TOKEN_PLACEHOLDER}`);
    expect((await invoke(create)).status).toBe(401);

    const token = await signLocalToken({ secret, role: 'editor', sub: 'samples-editor' });
    create.headers.authorization = `Bearer ${token}`;
    const created = await invoke(create);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ id: 1, title: 'Jazz night', status: 'publish', timezone: 'Europe/Rome' });

    const read = await invoke(sample('get-event.json'));
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ id: 1, title: 'Jazz night', start_date: '2027-03-01 20:00:00' });
  });

  test('list-events.json lists the published events from its start date', async () => {
    const listed = await invoke(sample('list-events.json'));
    expect(listed.status).toBe(200);
    expect(listed.json.events.map((e: { title: string }) => e.title)).toEqual(['Jazz night']);
    expect(listed.json.total).toBe(1);
  });
});
