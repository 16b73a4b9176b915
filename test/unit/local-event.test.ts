/** The local runtime's API Gateway emulation: the payload 2.0 event builder, routing, and result writing. */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { createLocalServer, groupForPath, toHttpApiEvent, type LambdaHandler, type LocalRequest } from '../../lib/local/server.js';
import { MAX_BODY_BYTES } from '../../lib/http/request.js';

const request = (over: Partial<LocalRequest> = {}): LocalRequest => ({
  method: 'GET',
  url: '/calendar/events/v1/events',
  rawHeaders: ['Host', '127.0.0.1:3000', 'User-Agent', 'jest'],
  body: Buffer.alloc(0),
  remoteAddress: '::ffff:127.0.0.1',
  httpVersion: '1.1',
  ...over,
});

describe('toHttpApiEvent', () => {
  test('has the payload format 2.0 envelope of the $default stage and route', () => {
    const now = new Date(Date.UTC(2020, 2, 12, 19, 3, 58));
    const e = toHttpApiEvent(request({ requestId: 'req-1', now }));
    expect(e.version).toBe('2.0');
    expect(e.routeKey).toBe('$default');
    expect(e.rawPath).toBe('/calendar/events/v1/events');
    expect(e.rawQueryString).toBe('');
    expect(e.queryStringParameters).toBeUndefined();
    expect(e.cookies).toBeUndefined();
    expect(e.body).toBeUndefined();
    expect(e.isBase64Encoded).toBe(false);
    expect(e.requestContext).toEqual({
      accountId: expect.any(String),
      apiId: expect.any(String),
      domainName: '127.0.0.1:3000',
      domainPrefix: '127',
      http: { method: 'GET', path: '/calendar/events/v1/events', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' },
      requestId: 'req-1',
      routeKey: '$default',
      stage: '$default',
      time: '12/Mar/2020:19:03:58 +0000',
      timeEpoch: now.getTime(),
    });
  });

  test('keeps the query string exactly as sent and decodes queryStringParameters, joining repeats with commas', () => {
    const raw = 'categories%5B%5D=1&categories%5B%5D=2&search=caf%C3%A9+bar&empty=&flag';
    const e = toHttpApiEvent(request({ url: `/calendar/events/v1/events?${raw}` }));
    expect(e.rawPath).toBe('/calendar/events/v1/events');
    expect(e.rawQueryString).toBe(raw);
    expect(e.queryStringParameters).toEqual({ 'categories[]': '1,2', search: 'café bar', empty: '', flag: '' });
  });

  test('a malformed %-escape does not throw', () => {
    const e = toHttpApiEvent(request({ url: '/x?a=%E0%A4%A&b=%' }));
    expect(e.rawQueryString).toBe('a=%E0%A4%A&b=%');
    expect(e.queryStringParameters).toEqual({ a: '%E0%A4%A', b: '%' });
  });

  test('lower-cases header names, joins repeated headers with commas and moves cookies out of the headers', () => {
    const e = toHttpApiEvent(
      request({
        rawHeaders: ['Host', 'example.test', 'X-Thing', 'a', 'x-thing', 'b', 'Cookie', 'one=1; two=2', 'Accept', 'application/json'],
      }),
    );
    expect(e.headers['x-thing']).toBe('a,b');
    expect(e.headers.accept).toBe('application/json');
    expect(e.headers.host).toBe('example.test');
    expect(e.headers.cookie).toBeUndefined();
    expect(e.cookies).toEqual(['one=1', 'two=2']);
    expect(Object.keys(e.headers).every((k) => k === k.toLowerCase())).toBe(true);
  });

  test('adds x-forwarded-proto: http unless the client sent one', () => {
    expect(toHttpApiEvent(request()).headers['x-forwarded-proto']).toBe('http');
    const e = toHttpApiEvent(request({ rawHeaders: ['Host', 'h', 'X-Forwarded-Proto', 'https'] }));
    expect(e.headers['x-forwarded-proto']).toBe('https');
  });

  test('text bodies are utf-8 strings, everything else base64', () => {
    const json = toHttpApiEvent(
      request({ method: 'POST', rawHeaders: ['Content-Type', 'application/json; charset=utf-8'], body: Buffer.from('{"title":"Café"}') }),
    );
    expect(json.body).toBe('{"title":"Café"}');
    expect(json.isBase64Encoded).toBe(false);

    const form = toHttpApiEvent(request({ method: 'POST', rawHeaders: ['Content-Type', 'application/x-www-form-urlencoded'], body: Buffer.from('a=1') }));
    expect(form).toMatchObject({ body: 'a=1', isBase64Encoded: false });

    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]);
    const png = toHttpApiEvent(request({ method: 'PUT', rawHeaders: ['Content-Type', 'image/png'], body: bytes }));
    expect(png.isBase64Encoded).toBe(true);
    expect(Buffer.from(png.body!, 'base64').equals(bytes)).toBe(true);

    const untyped = toHttpApiEvent(request({ method: 'POST', rawHeaders: [], body: Buffer.from('a=1') }));
    expect(untyped).toMatchObject({ body: Buffer.from('a=1').toString('base64'), isBase64Encoded: true });

    // Invalid UTF-8 under a text type is kept byte-exact (base64) rather than mangled.
    const latin1 = toHttpApiEvent(request({ method: 'POST', rawHeaders: ['Content-Type', 'text/plain'], body: Buffer.from([0x63, 0x61, 0x66, 0xe9]) }));
    expect(latin1.isBase64Encoded).toBe(true);
  });

  test('header and query names such as __proto__ are plain keys', () => {
    const e = toHttpApiEvent(request({ url: '/x?__proto__=1', rawHeaders: ['__proto__', 'x'] }));
    expect(Object.getPrototypeOf(e.headers)).toBe(Object.prototype);
    expect(Object.hasOwn(e.headers, '__proto__')).toBe(true);
    expect(Object.hasOwn(e.queryStringParameters!, '__proto__')).toBe(true);
  });
});

describe('groupForPath', () => {
  test.each([
    ['/calendar/events/v1', 'root'],
    ['/calendar/events/v1/doc', 'root'],
    ['/calendar/events/v1/events', 'events'],
    ['/calendar/events/v1/events/12/', 'events'],
    ['/calendar/events/v1/events/by-slug/party', 'events'],
    ['/de/calendar/events/v1/venues/3', 'venues'],
    ['/pt-pt/calendar/events/v1/organizers', 'organizers'],
    ['/en/calendar/events/v1/categories/5', 'categories'],
    ['/calendar/events/v1/tags', 'tags'],
    ['/calendar/events/v1/events/abc', 'root'],
    ['/calendar/events/v1/nope', 'root'],
    ['/fr/calendar/events/v1/events', 'root'],
    ['/', 'root'],
    ['/favicon.ico', 'root'],
  ])('%s → %s', (path, group) => {
    expect(groupForPath(path)).toBe(group);
  });
});

describe('createLocalServer with stub handlers', () => {
  let server: Server;
  let base: string;
  const calls: { group: string; event: APIGatewayProxyEventV2; context: Context }[] = [];
  const stubs: Record<string, LambdaHandler> = {
    root: async (event) => ({ statusCode: 404, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path: event.rawPath }) }),
    events: async (event): Promise<APIGatewayProxyStructuredResultV2> => {
      if (event.rawPath.endsWith('/events/1')) throw new Error('boom: secret stack detail');
      if (event.rawPath.endsWith('/events/2'))
        return { statusCode: 200, headers: { 'content-type': 'image/png' }, body: Buffer.from([1, 2, 3]).toString('base64'), isBase64Encoded: true };
      if (event.rawPath.endsWith('/events/3')) return { statusCode: 201, cookies: ['a=1; Path=/', 'b=2'], headers: { Location: 'x', 'X-Num': 5 }, body: '' };
      return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ bodyLength: event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8').byteLength : 0 }) };
    },
  };

  /** The server's one line per request, and a wait for the next one (written once the answer has left). */
  const requestLines: string[] = [];
  let onLine: (() => void) | null = null;
  const nextLine = () => new Promise<void>((resolve) => (onLine = resolve));

  beforeAll(async () => {
    server = createLocalServer({
      requestLog: (line) => {
        requestLines.push(line);
        onLine?.();
      },
      loadHandler: async (group) => async (event, context) => {
        calls.push({ group, event, context });
        const stub = stubs[group];
        if (!stub) throw new Error(`no stub for ${group}`);
        return stub(event, context);
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('routes by group and passes a Lambda context', async () => {
    calls.length = 0;
    const line = nextLine();
    const res = await fetch(`${base}/de/calendar/events/v1/events?page=2`);
    expect(res.status).toBe(200);
    await line;
    expect(requestLines.at(-1)).toMatch(/^GET \/de\/calendar\/events\/v1\/events\?page=2 200 \d+ ms$/);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.group).toBe('events');
    expect(calls[0]!.event.rawQueryString).toBe('page=2');
    expect(calls[0]!.context.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls[0]!.context.getRemainingTimeInMillis()).toBeGreaterThan(0);
    const outside = await fetch(`${base}/elsewhere`);
    expect(outside.status).toBe(404);
    expect(calls[1]!.group).toBe('root');
  });

  test('a handler crash is a 500 rest_internal_error with the request id and no stack', async () => {
    const original = console.error;
    const logged: unknown[][] = [];
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      const res = await fetch(`${base}/calendar/events/v1/events/1`);
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const text = await res.text();
      expect(text).not.toMatch(/boom|secret|at /);
      const body = JSON.parse(text);
      expect(body).toEqual({ code: 'rest_internal_error', message: expect.any(String), data: { status: 500, request_id: expect.any(String) } });
      expect(calls.at(-1)!.event.requestContext.requestId).toBe(body.data.request_id);
      expect(String(logged[0]?.[0])).toContain(body.data.request_id); // the details go to stderr instead
    } finally {
      console.error = original;
    }
  });

  test('base64 results are decoded; cookies become Set-Cookie headers', async () => {
    const png = await fetch(`${base}/calendar/events/v1/events/2`);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect([...new Uint8Array(await png.arrayBuffer())]).toEqual([1, 2, 3]);
    const res = await fetch(`${base}/calendar/events/v1/events/3`, { method: 'POST' });
    expect(res.status).toBe(201);
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2']);
    expect(res.headers.get('location')).toBe('x');
    expect(res.headers.get('x-num')).toBe('5');
  });

  test('bodies over 1 MiB reach the handler cut at 1 MiB + 1 byte; over the read cap the server answers 413', async () => {
    const small = await fetch(`${base}/calendar/events/v1/events`, { method: 'POST', body: 'x'.repeat(1000), headers: { 'content-type': 'text/plain' } });
    expect(await small.json()).toEqual({ bodyLength: 1000 });

    const big = await fetch(`${base}/calendar/events/v1/events`, {
      method: 'POST',
      body: 'x'.repeat(MAX_BODY_BYTES + 100_000),
      headers: { 'content-type': 'text/plain' },
    });
    expect(await big.json()).toEqual({ bodyLength: MAX_BODY_BYTES + 1 });

    const huge = await fetch(`${base}/calendar/events/v1/events`, {
      method: 'POST',
      body: Buffer.alloc(3 * 1024 * 1024, 0x61),
      headers: { 'content-type': 'application/json' },
    });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toEqual({ code: 'rest_payload_too_large', message: expect.any(String), data: { status: 413 } });
  });
});
