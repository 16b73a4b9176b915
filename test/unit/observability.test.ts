/**
 * Logs, metrics and traces of real handlers (lib/observability, lib/http/middleware/observability.ts) against the
 * harness's DynamoDB Local, with Powertools configured as the stack configures it (INFO, metrics on, a service name):
 * every line a request writes is JSON with its request ids and, once routed, its route; the EMF metrics count the
 * request, its error code and the DynamoDB work its store meter measured; the tracer is never loaded with tracing off.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { captureOutput } from '../support/capture-output.js';
import { restoreAndDropTable } from '../support/own-table.js';

const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
if (!endpoint) throw new Error('CALENDAR_TEST_DYNAMODB_ENDPOINT is not set: the global setup did not start DynamoDB Local');

const table = `observability-${randomUUID().slice(0, 8)}`;
const saved = { ...process.env };
// Set before the handlers are imported: the Logger and Metrics read them when they are created.
Object.assign(process.env, {
  POWERTOOLS_SERVICE_NAME: 'events', POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false',
  CALENDAR_TABLE_NAME: table, AWS_ENDPOINT_URL_DYNAMODB: endpoint, AWS_REGION: process.env.AWS_REGION || 'local',
  AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID || 'local', AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY || 'local',
  CALENDAR_TIMEZONE: 'UTC', CALENDAR_SITE_URL: '', CALENDAR_JWT_ISSUER: '',
});
delete process.env.POWERTOOLS_METRICS_NAMESPACE;
delete process.env.POWERTOOLS_TRACE_ENABLED;
delete process.env.POWERTOOLS_DEV;

const { handler } = await import('../../functions/events.js');
const { handler: horizon } = await import('../../functions/horizon.js');
const { resetConfig } = await import('../../lib/config.js');
const { ensureTable } = await import('../../lib/local/dynamodb-local.js');
const { loadedModules } = await import('../../lib/lazy-module.js');
const { setClient } = await import('../../lib/store/client.js');
const { tracingMiddleware } = await import('../../lib/observability/tracer.js');

const raw = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION,
  credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID!, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY! } });

beforeAll(async () => {
  resetConfig();
  setClient(null); // the store's own client, with its meter
  await ensureTable(raw, table);
}, 60_000);

afterAll(() => restoreAndDropTable(raw, table, saved));

const context = (awsRequestId: string): Context => {
  const deadline = Date.now() + 10_000;
  return { functionName: 'calendar-events', awsRequestId, invokedFunctionArn: 'arn:aws:lambda:local:1:function:calendar-events',
    memoryLimitInMB: '512', getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
};

const event = (rawPath: string, requestId: string, rawQueryString = ''): APIGatewayProxyEventV2 => ({
  version: '2.0', routeKey: '$default', rawPath, rawQueryString, headers: { host: 'api.example.com' }, isBase64Encoded: false,
  requestContext: { accountId: '1', apiId: 'a', domainName: 'api.example.com', domainPrefix: 'api', requestId,
    routeKey: '$default', stage: '$default', time: '', timeEpoch: 0,
    http: { method: 'GET', path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' } },
});

/** Runs one request and returns its answer with every JSON line it wrote. */
async function request(rawPath: string, query = '') {
  const apiId = `api-${randomUUID()}`;
  const lambdaId = `lambda-${randomUUID()}`;
  const output = captureOutput();
  let res: { statusCode: number; body: string };
  try {
    res = await handler(event(rawPath, apiId, query), context(lambdaId)) as typeof res;
  } finally {
    output.restore();
  }
  const lines = output.lines();
  const metrics = lines.filter((l) => l._aws);
  const logs = lines.filter((l) => !l._aws);
  /** The EMF blob that holds a metric, with its dimension names. */
  const emf = (name: string): Record<string, any> | undefined => {
    const blob = metrics.find((m) => m._aws.CloudWatchMetrics[0].Metrics.some((x: { Name: string }) => x.Name === name));
    return blob && { ...blob, dimensions: blob._aws.CloudWatchMetrics[0].Dimensions[0] as string[] };
  };
  return { res, apiId, lambdaId, logs, metrics, emf };
}

test('a list read: JSON lines with both request ids, the route and the service; Requests=1 and its DynamoDB work', async () => {
  const r = await request('/calendar/events/v1/events', 'per_page=5');
  expect(r.res.statusCode).toBe(200);
  expect(r.logs.length).toBeGreaterThan(0);
  for (const line of r.logs) {
    expect(line).toMatchObject({ service: 'events', request_id: r.apiId, function_request_id: r.lambdaId, function_name: 'calendar-events' });
  }
  expect(r.logs).toContainEqual(expect.objectContaining({ level: 'INFO', message: 'request answered', method: 'GET',
    path: '/calendar/events/v1/events', status: 200, route: '/events', operation: 'events.list' }));
  const requests = r.emf('Requests');
  expect(requests).toMatchObject({ _aws: { CloudWatchMetrics: [{ Namespace: 'CalendarEventsApi' }] }, service: 'events',
    dimensions: ['service'], Requests: 1, ClientErrors: 0, ServerErrors: 0 });
  expect(requests!.ReadUnits).toBeGreaterThan(0);
  expect(requests!.DynamoDBRequests).toBeGreaterThan(0);
  expect(requests!.WriteUnits).toBe(0);
  expect(r.emf('Errors')).toBeUndefined();
  // Nothing a client sends becomes a dimension.
  for (const m of r.metrics) expect(m._aws.CloudWatchMetrics[0].Dimensions[0]).not.toContain('route');
});

test('an unknown path: 404 rest_no_route counted as Errors with its code, and as a client error', async () => {
  const r = await request('/calendar/events/v1/events/not-an-id');
  expect(r.res.statusCode).toBe(404);
  expect(JSON.parse(r.res.body).code).toBe('rest_no_route');
  expect(r.emf('Errors')).toMatchObject({ dimensions: ['code'], code: 'rest_no_route', Errors: 1 });
  expect(r.emf('Requests')).toMatchObject({ Requests: 1, ClientErrors: 1, ServerErrors: 0 });
  // Routing did not match: the lines carry the request ids, and no route.
  const answered = r.logs.find((l) => l.message === 'request answered');
  expect(answered).toMatchObject({ status: 404, request_id: r.apiId, function_request_id: r.lambdaId });
  expect(answered).not.toHaveProperty('route');
});

test('the horizon job publishes its own metrics and its DynamoDB work', async () => {
  const output = captureOutput();
  try {
    expect(await horizon({}, context(`lambda-${randomUUID()}`))).toEqual({ finished: 0, extended: 0, left: 0 });
  } finally {
    output.restore();
  }
  const blob = output.lines().find((l) => l._aws && 'SeriesExtended' in l);
  expect(blob).toMatchObject({ SeriesExtended: 0, RegenerationsFinished: 0, SeriesLeft: 0, service: 'events' });
  expect(blob!.DynamoDBRequests).toBeGreaterThan(0);
  expect(output.lines()).toContainEqual(expect.objectContaining({ level: 'INFO', message: 'horizon job done', extended: 0 }));
});

test('with tracing off the tracer is never loaded', () => {
  expect(tracingMiddleware()).toBeNull();
  expect(loadedModules()).not.toContain('@aws-lambda-powertools/tracer');
});
