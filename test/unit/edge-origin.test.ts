/**
 * With the CloudFront distribution (infra/edge.ts), the functions answer only requests that carry the origin secret
 * CloudFront adds (lib/http/middleware/edge-origin.ts): a direct call to the execute-api address is 403 in the
 * contract's error shape, and the URLs a response emits name the address the client used, not API Gateway's.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { handler } from '../../functions/root.js';
import { EDGE_HEADERS, edgeOrigin, ORIGIN_SECRET_VARIABLE } from '../../lib/http/middleware/edge-origin.js';
import type { PipelineRequest } from '../../lib/http/middleware/state.js';

const SECRET = 'a-secret-of-the-right-length-0123456789abcdefgh';
const ORIGIN_HOST = 'abc123.execute-api.eu-west-1.amazonaws.com';

const event = (headers: Record<string, string>): APIGatewayProxyEventV2 => ({
  version: '2.0', routeKey: 'ANY /calendar/events/v1', rawPath: '/calendar/events/v1', rawQueryString: '',
  headers: { host: ORIGIN_HOST, ...headers }, isBase64Encoded: false,
  requestContext: { accountId: '1', apiId: 'abc123', domainName: ORIGIN_HOST, domainPrefix: 'abc123', requestId: 'r',
    routeKey: 'ANY /calendar/events/v1', stage: '$default', time: '', timeEpoch: 0,
    http: { method: 'GET', path: '/calendar/events/v1', protocol: 'HTTP/1.1', sourceIp: '130.176.1.1', userAgent: 'jest' } },
});

const invoke = async (e: APIGatewayProxyEventV2) =>
  (await handler(e, {} as Context)) as { statusCode: number; headers: Record<string, string>; body: string };

const viaCloudFront = (secret = SECRET) => ({
  [EDGE_HEADERS.secret]: secret, [EDGE_HEADERS.host]: 'd111111abcdef8.cloudfront.net', [EDGE_HEADERS.address]: '2001:db8::7',
});

afterEach(() => {
  delete process.env[ORIGIN_SECRET_VARIABLE];
});

describe('with CALENDAR_ORIGIN_SECRET set', () => {
  beforeEach(() => {
    process.env[ORIGIN_SECRET_VARIABLE] = SECRET;
  });

  test.each([
    ['without the header', {}],
    ['with a wrong secret', { [EDGE_HEADERS.secret]: SECRET.replace(/.$/, 'x') }],
    ['with a secret of another length', { [EDGE_HEADERS.secret]: 'short' }],
  ])('a request %s is 403 rest_forbidden, with CORS', async (_, headers) => {
    const res = await invoke(event(headers));
    expect(res.statusCode).toBe(403);
    expect(JSON.parse(res.body)).toEqual({ code: 'rest_forbidden', message: expect.any(String), data: { status: 403 } });
    expect(res.headers['Access-Control-Allow-Origin']).toBe('*');
  });

  test('a request through CloudFront is answered, with URLs on the host the client used', async () => {
    const res = await invoke(event(viaCloudFront()));
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('https://d111111abcdef8.cloudfront.net/calendar/events/v1');
    expect(res.body).not.toContain(ORIGIN_HOST);
  });

  test('the client\'s address replaces CloudFront\'s; the viewer headers are consumed, the secret stays for forwarded calls', async () => {
    const e = event({ ...viaCloudFront(), 'x-forwarded-host': 'spoofed.example.org' });
    await edgeOrigin().before!({ event: e } as PipelineRequest);
    expect(e.requestContext.http.sourceIp).toBe('2001:db8::7');
    expect(e.headers['x-forwarded-host']).toBe('d111111abcdef8.cloudfront.net');
    expect(e.headers[EDGE_HEADERS.host]).toBeUndefined();
    expect(e.headers[EDGE_HEADERS.address]).toBeUndefined();
    expect(e.headers[EDGE_HEADERS.secret]).toBe(SECRET);
  });
});

test('without the variable (no distribution, the local server) nothing is checked or changed', async () => {
  const res = await invoke(event({}));
  expect(res.statusCode).toBe(200);
  expect(res.body).toContain(`https://${ORIGIN_HOST}/calendar/events/v1`);
  const e = event(viaCloudFront('anything'));
  await edgeOrigin().before!({ event: e } as PipelineRequest);
  expect(e.requestContext.http.sourceIp).toBe('130.176.1.1');
  expect(e.headers[EDGE_HEADERS.host]).toBe('d111111abcdef8.cloudfront.net');
});
