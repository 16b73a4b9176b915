/**
 * On AWS, API Gateway sends requests its routes don't spell exactly (trailing slash, letter case) to the root
 * function's $default route. The root function redirects them to the canonical URL (308 keeps method and body).
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { handler } from '../../functions/root.js';

const event = (method: string, rawPath: string, rawQueryString = '', stage = '$default'): APIGatewayProxyEventV2 => ({
  version: '2.0', routeKey: '$default', rawPath, rawQueryString, headers: { host: 'api.example.com' }, isBase64Encoded: false,
  requestContext: { accountId: '1', apiId: 'a', domainName: 'api.example.com', domainPrefix: 'api', requestId: 'r',
    routeKey: '$default', stage, time: '', timeEpoch: 0,
    http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' } },
});

const invoke = async (e: APIGatewayProxyEventV2) =>
  (await handler(e, {} as Context)) as { statusCode: number; headers: Record<string, string>; body: string };

test.each([
  ['/calendar/events/v1/events/', 'https://api.example.com/calendar/events/v1/events?page=2'],
  ['/calendar/events/v1/Events/12', 'https://api.example.com/calendar/events/v1/events/12?page=2'],
  ['/DE/calendar/events/v1/events/by-slug/Jazz-Night/', 'https://api.example.com/de/calendar/events/v1/events/by-slug/Jazz-Night?page=2'],
])('%s → 308 to the canonical URL', async (path, location) => {
  const res = await invoke(event('POST', path, 'page=2'));
  expect(res.statusCode).toBe(308);
  expect(res.headers.Location).toBe(location);
});

test('keeps a named stage in the redirect', async () => {
  const res = await invoke(event('GET', '/prod/calendar/events/v1/tags/', '', 'prod'));
  expect(res.headers.Location).toBe('https://api.example.com/prod/calendar/events/v1/tags');
});

test('a canonical path of another group that still reached root (e.g. HEAD) is 404 rest_no_route, not a loop', async () => {
  const res = await invoke(event('HEAD', '/calendar/events/v1/events'));
  expect(res.statusCode).toBe(404);
});

test('the root routes themselves answer', async () => {
  const res = await invoke(event('GET', '/calendar/events/v1'));
  expect(res.statusCode).toBe(200);
  expect(JSON.parse(res.body).namespace).toBe('calendar/events/v1');
});
