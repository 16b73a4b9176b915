/** The local runtime as a client sees it (contract §1, §2, §3, §11), over HTTP against the harness server. */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { api, serverOrigin, tokenFor } from '../support/api.js';

/** The harness server's output (global-setup.ts): its stdout and stderr, as they arrive. */
const serverLog = (): string => {
  const path = process.env.CALENDAR_TEST_SERVER_LOG;
  if (!path) throw new Error('CALENDAR_TEST_SERVER_LOG is not set: run the tests through jest (globalSetup starts the server)');
  return readFileSync(path, 'utf8');
};

/** The server's output once it holds a line matching `line`; fails after `ms` (the log is written as the pipe delivers it). */
async function logLine(line: RegExp, ms = 10_000): Promise<string> {
  const t0 = Date.now();
  for (;;) {
    const m = line.exec(serverLog());
    if (m) return m[0];
    if (Date.now() - t0 > ms) throw new Error(`no line matching ${line} in the server's output:\n${serverLog().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const errorShape = (code: string, status: number) => ({ code, message: expect.any(String), data: expect.objectContaining({ status }) });

describe('local runtime over HTTP', () => {
  test('a path outside the API is 404 rest_no_route with the JSON error shape and CORS', async () => {
    for (const path of ['/', '/nope', '/wp-json/tribe/events/v2/events', '/fr/calendar/events/v1/events']) {
      const res = await api(`${serverOrigin()}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.json).toEqual(errorShape('rest_no_route', 404));
    }
  });

  test('an unknown path inside the API is 404 rest_no_route', async () => {
    const res = await api('/nothing-here');
    expect(res.status).toBe(404);
    expect(res.json).toEqual(errorShape('rest_no_route', 404));
  });

  test('OPTIONS answers the CORS preflight with 204 for any origin', async () => {
    const res = await api('/events', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://example.org',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    // A wildcard does not cover Authorization (Fetch standard): it has to be listed for Bearer tokens to work.
    expect(res.headers.get('access-control-allow-headers') ?? '').toMatch(/authorization/i);
  });

  test('a body over 1 MiB is 413 rest_payload_too_large (from the handler)', async () => {
    const token = await tokenFor('editor');
    const res = await api('/events', {
      method: 'POST',
      token,
      body: { title: 'Too big', description: 'x'.repeat(1024 * 1024 + 10) },
    });
    expect(res.status).toBe(413);
    expect(res.json).toEqual(errorShape('rest_payload_too_large', 413));
  });

  test('a body far over the limit is 413 from the server without reading it all', async () => {
    const res = await api('/events', {
      method: 'POST',
      body: Buffer.alloc(4 * 1024 * 1024, 0x20),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.json).toEqual(errorShape('rest_payload_too_large', 413));
  });

  test('the server prints one line per request: method, path with query string, status and milliseconds', async () => {
    const probe = randomUUID();
    const path = `/calendar/events/v1/events?per_page=5&probe=${probe}`;
    expect((await api(`${serverOrigin()}${path}`)).status).toBe(200);
    expect((await api(`${serverOrigin()}/nope?probe=${probe}`)).status).toBe(404);
    const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    await logLine(new RegExp(`^GET ${escaped(path)} 200 \\d+ ms$`, 'm'));
    await logLine(new RegExp(`^GET /nope\\?probe=${probe} 404 \\d+ ms$`, 'm'));
    expect(serverLog().split('\n').filter((l) => l.includes(probe))).toHaveLength(2); // one line each
  });
});
