/**
 * Contract tests for the HTTP layer shared by every route: routing, methods, trailing slashes, CORS, content types,
 * body parsing and limits, language prefixes, and the error body. CONTRACT.md §1, §2, §3, §8; reference §1, §2.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { api, apiUrl, serverOrigin, tokenFor, type ApiResponse } from '../support/api.js';
import { createEvent, eventBody, eventPath, expectError, expectInvalid, expectStatus, futureDay, uid } from './helpers/events.js';

let editor: string;
beforeAll(async () => {
  editor = await tokenFor('editor');
});

/** A list request that matches (almost) nothing: a random far-future day. */
const narrow = () => {
  const day = futureDay();
  return { start_date: day, end_date: day };
};

/** `/de/calendar/events/v1/events` etc.: the API root with a language prefix. */
const prefixed = (prefix: string, path: string) => `${serverOrigin()}/${prefix}${new URL(apiUrl()).pathname}${path}`;

function expectCors(res: ApiResponse): void {
  expect(res.headers.get('access-control-allow-origin')).toBe('*');
  const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
  for (const h of ['x-tec-total', 'x-tec-totalpages', 'link', 'etag', 'content-language']) expect([h, exposed.includes(h)]).toEqual([h, true]);
}

function expectJson(res: ApiResponse): void {
  expect(res.headers.get('content-type')?.toLowerCase()).toBe('application/json; charset=utf-8');
  expect(res.json).toBeDefined();
}

describe('routing', () => {
  it('an unknown path is 404 rest_no_route', async () => {
    for (const path of [`/nope-${uid()}`, '/events/1/extra', '/events/by-slug', '/events/by-slug/a/b', '/venue', '/event']) {
      const res = await api(path);
      expectError(res, 404, 'rest_no_route');
      expect(res.json.message).toBe('No route was found matching the URL and request method.');
    }
    expectError(await api(`${serverOrigin()}/not-the-api`), 404, 'rest_no_route');
    expectError(await api(`${serverOrigin()}/calendar/events/v2/events`), 404, 'rest_no_route');
  });

  it('a non-digit id is 404 rest_no_route', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      expectError(await api('/events/abc', { method, token: editor, body: method === 'PATCH' ? { title: 'x' } : undefined }), 404,
        'rest_no_route');
    }
  });

  it('a known path with an unsupported method is 405 rest_no_route with an Allow header', async () => {
    for (const method of ['PATCH', 'PUT', 'DELETE']) {
      const res = await api('/events', { method, token: editor, body: method === 'DELETE' ? undefined : {} });
      expectError(res, 405, 'rest_no_route');
      const allow = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim());
      expect(allow).toEqual(expect.arrayContaining(['GET', 'POST']));
      expect(allow).not.toContain(method);
      expectCors(res);
    }
    const doc = await api('/doc', { method: 'POST', body: {} });
    expectError(doc, 405, 'rest_no_route');
    expect(doc.headers.get('allow')).toMatch(/\bGET\b/);
  });

  it('a trailing slash is ignored', async () => {
    const ev = await createEvent();
    const byId = await api(`/events/${ev.id}/`);
    expectStatus(byId, 200);
    expect(byId.json.id).toBe(ev.id);
    const bySlug = await api(`/events/by-slug/${ev.slug}/`);
    expect(bySlug.json.id).toBe(ev.id);
    expectStatus(await api('/events/', { query: narrow() }), 200);
    expectStatus(await api('/'), 200);
    const created = await api('/events/', { method: 'POST', token: editor, body: eventBody() });
    expectStatus(created, 201);
    expectStatus(await api(`/events/${created.json.id}/`, { method: 'PATCH', token: editor, body: { excerpt: 'slash' } }), 200);
    expectStatus(await api(`/events/${created.json.id}/`, { method: 'DELETE', token: editor }), 200);
  });

  it('HEAD answers like GET without a body', async () => {
    const ev = await createEvent();
    const res = await api(eventPath(ev.id), { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(res.headers.get('etag')).toBeTruthy();
  });
});

describe('CORS', () => {
  it('OPTIONS answers the preflight of every route with the allowed origin and methods', async () => {
    const ev = await createEvent();
    const cases: [string, string[]][] = [
      ['/events', ['GET', 'POST']],
      [eventPath(ev.id), ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']],
      [`/events/by-slug/${ev.slug}`, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']],
      ['', ['GET']],
      ['/doc', ['GET']],
      ['/venues', ['GET', 'POST']],
      ['/categories/3', ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']],
    ];
    for (const [path, methods] of cases) {
      const res = await api(path, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.org', 'access-control-request-method': methods.at(-1)!,
          'access-control-request-headers': 'authorization, content-type, if-match' },
      });
      expect([path, res.status >= 200 && res.status < 300]).toEqual([path, true]);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const allowed = (res.headers.get('access-control-allow-methods') ?? '').split(',').map((m) => m.trim().toUpperCase());
      expect([path, allowed]).toEqual([path, expect.arrayContaining(methods)]);
      const headers = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      for (const h of ['authorization', 'content-type', 'if-match']) expect(headers).toContain(h);
    }
  });

  it('OPTIONS on a language-prefixed route works too', async () => {
    const res = await api(prefixed('de', '/events'), { method: 'OPTIONS', headers: { origin: 'https://x.example', 'access-control-request-method': 'POST' } });
    expect(res.status).toBeGreaterThanOrEqual(200);
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('every response carries Access-Control-Allow-Origin * and exposes the API headers', async () => {
    const ev = await createEvent();
    const responses: [string, ApiResponse][] = [
      ['list', await api('/events', { query: narrow() })],
      ['single', await api(eventPath(ev.id))],
      ['root', await api('')],
      ['create', await api('/events', { method: 'POST', token: editor, body: eventBody() })],
      ['update', await api(eventPath(ev.id), { method: 'PATCH', token: editor, body: { excerpt: 'cors' } })],
      ['400', await api('/events', { method: 'POST', token: editor, body: {} })],
      ['401', await api('/events', { method: 'POST', body: eventBody() })],
      ['401 token', await api('/events', { headers: { authorization: 'Bearer x' } })],
      ['403', await api('/events', { method: 'POST', token: await tokenFor('subscriber'), body: eventBody() })],
      ['404', await api(`/nope-${uid()}`)],
      ['404 outside', await api(`${serverOrigin()}/elsewhere`)],
      ['404 record', await api('/events/987654321')],
      ['405', await api('/events', { method: 'PATCH', token: editor, body: {} })],
      ['de', await api(prefixed('de', '/events'), { query: narrow() })],
      ['tags', await api('/tags')],
      ['delete', await api(eventPath(ev.id), { method: 'DELETE', token: editor })],
    ];
    for (const [name, res] of responses) {
      expect([name, res.headers.get('access-control-allow-origin')]).toEqual([name, '*']);
      expectCors(res);
      expectJson(res);
    }
  });
});

describe('responses', () => {
  it('are JSON with Content-Type application/json; charset=utf-8 and a Content-Language', async () => {
    const ev = await createEvent();
    for (const res of [await api(eventPath(ev.id)), await api('/events', { query: narrow() }), await api('/nope')]) {
      expectJson(res);
      expect(res.headers.get('content-language')).toBe('en');
    }
  });

  it('every error body is exactly {code, message, data: {status, ...}} with data.status = the HTTP status', async () => {
    const ev = await createEvent();
    expectStatus(await api(eventPath(ev.id), { method: 'DELETE', token: editor }), 200);
    const errors: [ApiResponse, number, string][] = [
      [await api('/nope'), 404, 'rest_no_route'],
      [await api('/events', { method: 'PUT', body: {} }), 405, 'rest_no_route'],
      [await api('/events', { method: 'POST', token: editor, body: {} }), 400, 'rest_missing_callback_param'],
      [await api('/events', { query: { per_page: 'many' } }), 400, 'rest_invalid_param'],
      [await api('/events', { method: 'POST', token: editor, body: '{bad', headers: { 'content-type': 'application/json' } }), 400,
        'rest_invalid_json'],
      [await api('/events', { method: 'POST', body: eventBody() }), 401, 'rest_forbidden'],
      [await api('/events', { headers: { authorization: 'Basic abc' } }), 401, 'rest_invalid_token'],
      [await api('/events', { method: 'POST', token: await tokenFor('subscriber'), body: eventBody() }), 403, 'rest_forbidden'],
      [await api(eventPath(ev.id)), 403, 'event-no-longer-available'],
      [await api('/events/987654321'), 404, 'rest-event-not-found'],
      [await api(eventPath(ev.id), { method: 'DELETE', token: editor }), 410, 'event-is-in-trash'],
      [await api(eventPath(ev.id), { method: 'PATCH', token: editor, body: {}, headers: { 'if-match': '"0-0"' } }), 412,
        'rest_precondition_failed'],
    ];
    for (const [res, status, code] of errors) {
      expectError(res, status, code);
      expectJson(res);
    }
  });

  it('a create answers 201 with an absolute Location', async () => {
    const res = await api('/events', { method: 'POST', token: editor, body: eventBody() });
    expectStatus(res, 201);
    expect(res.headers.get('location')).toBe(`${apiUrl()}/events/${res.json.id}`);
    const follow = await api(res.headers.get('location')!);
    expect(follow.json.id).toBe(res.json.id);
  });
});

describe('request bodies', () => {
  it('malformed JSON → 400 rest_invalid_json', async () => {
    for (const body of ['{"title": ', '{title: "x"}', '{"title":"x",}', "{'a':1}"]) {
      const res = await api('/events', { method: 'POST', token: editor, body, headers: { 'content-type': 'application/json' } });
      expectError(res, 400, 'rest_invalid_json');
    }
    const upd = await api('/events/1', { method: 'PATCH', token: editor, body: '{"x"', headers: { 'content-type': 'application/json; charset=utf-8' } });
    expectError(upd, 400, 'rest_invalid_json');
  });

  it('a JSON body that is not an object → 400, never 5xx', async () => {
    for (const body of ['[1,2]', '"title"', '42', 'null', 'true']) {
      const res = await api('/events', { method: 'POST', token: editor, body, headers: { 'content-type': 'application/json' } });
      expect([body, res.status]).toEqual([body, 400]);
      expectError(res, 400, res.json.code);
    }
  });

  it('JSON with a charset parameter in the Content-Type is accepted', async () => {
    const res = await api('/events', {
      method: 'POST', token: editor, body: JSON.stringify(eventBody({ title: `Charset ${uid()} – ünïcödé` })),
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    });
    expectStatus(res, 201);
    expect(res.json.title).toMatch(/ünïcödé$/);
  });

  it('a body over 1 MiB → 413 rest_payload_too_large', async () => {
    const big = JSON.stringify(eventBody({ description: 'a'.repeat(1024 * 1024 + 10) }));
    const res = await api('/events', { method: 'POST', token: editor, body: big, headers: { 'content-type': 'application/json' } });
    expectError(res, 413, 'rest_payload_too_large');
    expectCors(res);
    const form = await api('/events', { method: 'POST', token: editor, form: { ...eventBody(), description: 'b'.repeat(1100 * 1024) } });
    expectError(form, 413, 'rest_payload_too_large');
  });

  it('a body just under 1 MiB is processed (field limits answer 400, not 413)', async () => {
    const res = await api('/events', { method: 'POST', token: editor, body: eventBody({ description: 'c'.repeat(1000 * 1000) }) });
    expectInvalid(res, 'description');
  });

  it('form-encoded bodies are accepted on create and update', async () => {
    const day = futureDay();
    const res = await api('/events', { method: 'POST', token: editor,
      form: { title: `Form ${uid()}`, start_date: `${day} 10:00`, end_date: `${day} 12:00`, sticky: 'true' } });
    expectStatus(res, 201);
    expect(res.json.sticky).toBe(true);
    const upd = await api(eventPath(res.json.id), { method: 'PATCH', token: editor, form: { excerpt: 'a & b = c' } });
    expect(upd.json.excerpt).toMatch(/^a (&|&amp;) b = c$/);
  });

  it('malformed query strings and paths never produce a 5xx', async () => {
    const queries = [
      'start_date[]=x', 'include[a][b]=1', 'status[]=publish&status=draft', 'search[]=x', 'page=1e3', 'per_page=-1',
      'translation_language[]=de', 'page=%ZZ', '%E0%A4%A=1', 'categories[][][][][][][]=1', 'venue=abc',
      // __proto__ keys are tested against a private server below: while the bug exists they poison the process.
    ];
    for (const q of queries) {
      const res = await api(`/events?${q}`);
      expect([q, res.status < 500]).toEqual([q, true]);
      if (res.status >= 400) expectError(res, res.status, res.json.code);
    }
    for (const path of ['/events/by-slug/%E0%A4%A', '/events/by-slug/%00', '/events/%31', `/events/by-slug/${'x'.repeat(3000)}`]) {
      const res = await api(path);
      expect([path, res.status < 500]).toEqual([path, true]);
      if (res.status >= 400) expectError(res, res.status, res.json.code);
    }
  });
});

describe('__proto__ keys in queries and bodies (contract §2: no input produces a 5xx)', () => {
  // A private server: if the parser lets "__proto__[x]=1" reach Object.prototype, the whole process is poisoned
  // (every later DynamoDB read fails), and the shared harness server must not be.
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const SECRET = 'proto-test-secret-0123456789abcdef0123';
  let child: ReturnType<typeof spawn> | undefined;
  let base = '';
  let output = '';

  beforeAll(async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/start.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', CALENDAR_DATA_DIR: ':memory:', CALENDAR_JWT_SECRET: SECRET,
        CALENDAR_TIMEZONE: 'UTC', DYNAMODB_ENDPOINT: '', CALENDAR_SITE_URL: '', CALENDAR_TABLE_NAME: '', CALENDAR_JWT_ISSUER: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    base = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const m = /Calendar API listening on (http:\/\/\S+)/.exec(output);
        if (m) resolve(m[1]!);
      };
      child!.stdout!.on('data', onData);
      child!.stderr!.on('data', onData);
      child!.once('exit', (code) => reject(new Error(`the private server exited (${code}) before it was ready:\n${output}`)));
    });
  }, 120_000);

  afterAll(async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM'); // a clean stop also stops its DynamoDB Local
    await exited;
  }, 60_000);

  it('a __proto__ or constructor key never pollutes the server: later requests still work', async () => {
    const token = await new SignJWT({ 'cognito:groups': ['editor'] }).setProtectedHeader({ alg: 'HS256' }).setSubject('proto-editor')
      .setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    const call = (path: string, init: RequestInit = {}) => api(`${base}${path}`, { method: init.method, body: init.body,
      headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) } });
    const day = futureDay();
    const good = () => ({ title: `Proto ${uid()}`, start_date: `${day} 10:00:00`, end_date: `${day} 11:00:00` });

    const before = await call('/events', { method: 'POST', body: JSON.stringify(good()), headers: { 'content-type': 'application/json' } });
    expectStatus(before, 201);

    const attacks: [string, RequestInit][] = [
      ['/events?__proto__[polluted]=1', {}],
      ['/events?constructor[prototype][polluted2]=1', {}],
      [`/events/${before.json.id}?__proto__[x]=1`, {}],
      ['/events', { method: 'POST', body: `${new URLSearchParams(good())}&__proto__[polluted3]=1&constructor[prototype][p4]=1`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
      ['/events', { method: 'POST', body: JSON.stringify({ ...good(), ['__proto__']: { polluted5: 1 } }).replace('"title"', '"__proto__":{"p6":1},"title"'),
        headers: { 'content-type': 'application/json' } }],
    ];
    for (const [path, init] of attacks) {
      const res = await call(path, init);
      expect([path, res.status < 500, res.text.slice(0, 200)]).toEqual([path, true, res.text.slice(0, 200)]);
    }
    // The process is still healthy.
    const read = await call(`/events/${before.json.id}`);
    expectStatus(read, 200);
    expect(read.json).not.toHaveProperty('polluted');
    const list = await call('/events', {});
    expectStatus(list, 200);
    const after = await call('/events', { method: 'POST', body: JSON.stringify(good()), headers: { 'content-type': 'application/json' } });
    expectStatus(after, 201);
  }, 60_000);
});

describe('languages (contract §1, §8)', () => {
  it('/de, /pt-pt and /en prefixes serve the API; any other prefix is 404', async () => {
    for (const prefix of ['de', 'pt-pt', 'en']) {
      const res = await api(prefixed(prefix, '/events'), { query: narrow() });
      expectStatus(res, 200);
      expect(res.headers.get('content-language')).toBe(prefix);
      expect(Array.isArray(res.json.events)).toBe(true);
    }
    for (const prefix of ['fr', 'pt', 'xx', 'de-de']) {
      const res = await api(prefixed(prefix, '/events'), { query: narrow() });
      expectError(res, 404, 'rest_no_route');
    }
  });

  it('URLs emitted under a prefix keep it (rest_url, Location)', async () => {
    const res = await api(prefixed('de', '/events'), { method: 'POST', token: editor, body: eventBody() });
    expectStatus(res, 201);
    const id = res.json.id;
    expect(res.headers.get('location')).toBe(prefixed('de', `/events/${id}`));
    expect(res.json.rest_url).toBe(prefixed('de', `/events/${id}`));
    const read = await api(prefixed('pt-pt', `/events/${id}`));
    expectStatus(read, 200);
    expect(read.json.rest_url).toBe(prefixed('pt-pt', `/events/${id}`));
    expect(read.headers.get('content-language')).toBe('pt-pt');
  });

  it('translation_language selects the language; an unknown one → 400 rest_invalid_param', async () => {
    const ev = await createEvent();
    const de = await api(eventPath(ev.id), { query: { translation_language: 'de' } });
    expectStatus(de, 200);
    expect(de.headers.get('content-language')).toBe('de');
    for (const [path, method, body] of [
      ['/events', 'GET', undefined], [eventPath(ev.id), 'GET', undefined], ['/events', 'POST', eventBody()],
      [eventPath(ev.id), 'PATCH', { excerpt: 'x' }],
    ] as const) {
      for (const lang of ['fr', 'xx', '']) {
        const res = await api(path, { method, body, token: editor, query: { translation_language: lang } });
        expectInvalid(res, 'translation_language');
      }
    }
    const bodyLang = await api(eventPath(ev.id), { method: 'PATCH', token: editor, body: { translation_language: 'klingon' } });
    expectInvalid(bodyLang, 'translation_language');
  });
});
