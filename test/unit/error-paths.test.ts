/**
 * Failure paths a real DynamoDB cannot produce on demand: throttling must surface as 503 with Retry-After,
 * anything unexpected as 500 rest_internal_error with the request id and no internals.
 */
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { handler } from '../../functions/events.js';
import { setClient } from '../../lib/store/client.js';
import { captureOutput } from '../support/capture-output.js';

const ddb = mockClient(DynamoDBDocumentClient);

const event = (rawPath: string, rawQueryString = ''): APIGatewayProxyEventV2 => ({
  version: '2.0', routeKey: '$default', rawPath, rawQueryString, headers: { host: 'api.example.com' },
  isBase64Encoded: false,
  requestContext: { accountId: '1', apiId: 'a', domainName: 'api.example.com', domainPrefix: 'api', requestId: 'req-42',
    routeKey: '$default', stage: '$default', time: '', timeEpoch: 0,
    http: { method: 'GET', path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' } },
});

const invoke = (e: APIGatewayProxyEventV2) => handler(e, {} as Context) as Promise<{ statusCode: number; headers: Record<string, string>; body: string }>;

beforeAll(() => setClient(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local' }))));
afterAll(() => setClient(null));
beforeEach(() => ddb.reset());

const throttled = (name: string) => Object.assign(new Error('Rate exceeded'), { name });

test.each(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded'])(
  'DynamoDB %s → 503 rest_unavailable with Retry-After', async (name) => {
    ddb.on(GetCommand).rejects(throttled(name));
    const res = await invoke(event('/calendar/events/v1/events/7'));
    expect(res.statusCode).toBe(503);
    expect(res.headers['Retry-After']).toBe('1');
    expect(JSON.parse(res.body)).toEqual({ code: 'rest_unavailable', message: expect.any(String), data: { status: 503 } });
  });

test('a list whose index query is throttled → 503', async () => {
  ddb.on(GetCommand).resolves({ Item: { PK: 'META', SK: 'EVENTS', years: new Set([2030]), durs: new Set([2]) } });
  ddb.on(QueryCommand).rejects(throttled('ThrottlingException'));
  const res = await invoke(event('/calendar/events/v1/events', 'start_date=2030-01-01&end_date=2030-02-01'));
  expect(res.statusCode).toBe(503);
});

test('an unexpected failure → 500 rest_internal_error with the request id and no stack trace', async () => {
  ddb.on(GetCommand).rejects(new TypeError("Cannot read properties of undefined (reading 'id') at /var/task/index.mjs:1:2"));
  const output = captureOutput();
  let res: Awaited<ReturnType<typeof invoke>>;
  try {
    res = await invoke(event('/calendar/events/v1/events/7'));
  } finally {
    output.restore();
  }
  expect(res.statusCode).toBe(500);
  const body = JSON.parse(res.body);
  expect(body).toEqual({ code: 'rest_internal_error', message: expect.any(String), data: { status: 500, request_id: 'req-42' } });
  expect(res.body).not.toContain('index.mjs');
  expect(res.headers['Access-Control-Allow-Origin']).toBe('*');
  // The failure is logged, with the request id the answer names and the route it was for.
  expect(output.lines().filter((l) => l.level === 'ERROR')).toEqual([expect.objectContaining({
    request_id: 'req-42', route: '/events/{id}', operation: 'events.get',
    error: expect.objectContaining({ name: 'TypeError', message: expect.stringContaining("reading 'id'") }) })]);
});

test('a record that is not an event → 404 rest-event-not-found', async () => {
  ddb.on(GetCommand).resolves({ Item: { PK: 'POST#7', SK: 'POST', id: 7, kind: 'venue' } });
  const res = await invoke(event('/calendar/events/v1/events/7'));
  expect(res.statusCode).toBe(404);
  expect(JSON.parse(res.body).code).toBe('rest-event-not-found');
});
