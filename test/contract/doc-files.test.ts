/**
 * The reference page and the files it loads, over HTTP (contract §10, §15): the page's HTML and policy, Redoc's
 * script as the package ships it (gzip-compressed when the client accepts it, cached for a year under its version),
 * and the license notices its first line points at. test/contract/doc-page.test.ts renders the page in a browser.
 */
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { api, apiUrl, tokenFor } from '../support/api.js';

const packageFile = (spec: string): string => readFileSync(createRequire(import.meta.url).resolve(spec), 'utf8');
const SCRIPT = packageFile('redoc/bundles/redoc.standalone.js');
const LICENSE = packageFile('redoc/bundles/redoc.standalone.js.LICENSE.txt');

/** A GET whose body is returned as received (fetch would decompress it). */
function rawGet(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${apiUrl()}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers as Record<string, string>, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET {api}/doc.html', () => {
  it('is an HTML page that loads Redoc and the document from under its own API root, with a policy against other hosts', async () => {
    for (const url of [apiUrl(), apiUrl().replace('/calendar/events/v1', '/pt-pt/wp-json/tribe/events/v1')]) {
      const page = await api(`${url}/doc.html/`);
      const root = new URL(url).pathname; // paths, not URLs: the page works on whatever host it was loaded from
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(page.text).toMatch(/^<!DOCTYPE html>/);
      expect(page.text).toContain(`<redoc spec-url="${root}/doc"`);
      expect(page.text).toMatch(new RegExp(`<script src="${root}/doc\\.html/redoc\\.standalone\\.js\\?v=[A-Za-z0-9_-]+"></script>`));
      expect(page.text).toMatch(/<noscript>[\s\S]*href="[^"]+\/doc"[\s\S]*openapi\.json[\s\S]*<\/noscript>/);
      expect(page.text).not.toMatch(/<script>|\son\w+=/); // no inline script, no handlers: the policy allows neither
      const policy = page.headers.get('content-security-policy')!;
      for (const directive of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "img-src 'self' data:", "font-src 'self' data:"]) {
        expect(policy).toContain(directive);
      }
    }
  });

  it('is the same page whatever host it is asked on', async () => {
    const plain = await rawGet('/doc.html');
    const other = await rawGet('/doc.html', { 'x-forwarded-host': 'evil.example"><script>alert(1)</script>' });
    expect(other.status).toBe(200);
    expect(other.body.toString('utf8')).not.toContain('evil.example');
    expect(other.headers.etag).toBe(plain.headers.etag);
  });
});

describe('GET {api}/doc.html/redoc.standalone.js', () => {
  it('is Redoc\'s script as the package ships it, license comment first, gzip-compressed when the client accepts gzip', async () => {
    const plain = await rawGet('/doc.html/redoc.standalone.js', { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString('utf8') === SCRIPT).toBe(true);
    expect(SCRIPT.startsWith('/*! For license information please see redoc.standalone.js.LICENSE.txt */')).toBe(true);

    const gzip = await rawGet('/doc.html/redoc.standalone.js', { 'accept-encoding': 'br;q=1, gzip;q=0.8' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toBe('Authorization, Accept-Encoding');
    expect(gzip.body.length).toBeLessThan(plain.body.length / 2);
    expect(gunzipSync(gzip.body).toString('utf8') === SCRIPT).toBe(true);
    // Another representation, another tag (RFC 9110 §8.8.3); each one's tag answers 304.
    expect(gzip.headers.etag).not.toBe(plain.headers.etag);
    for (const [encoding, tag] of [['identity', plain.headers.etag!], ['gzip', gzip.headers.etag!]]) {
      const again = await rawGet('/doc.html/redoc.standalone.js', { 'accept-encoding': encoding!, 'if-none-match': tag! });
      expect([encoding, again.status, again.body.length]).toEqual([encoding, 304, 0]);
    }

    const refused = await rawGet('/doc.html/redoc.standalone.js', { 'accept-encoding': 'gzip;q=0, *' });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it('is cached like every other anonymous read (the deployment\'s max-age, then revalidated by its ETag); a read with credentials may not be', async () => {
    const anonymous = await api('/doc.html/redoc.standalone.js?v=any');
    expect(anonymous.headers.get('cache-control')).toBe('public, max-age=0');
    const signedIn = await api('/doc.html/redoc.standalone.js', { token: await tokenFor('subscriber') });
    expect(signedIn.headers.get('cache-control')).toBe('private, no-store');
    const page = await api('/doc.html');
    expect(page.headers.get('cache-control')).toBe('public, max-age=0');
    // The version is the tag of the script as it is (uncompressed).
    const plain = await rawGet('/doc.html/redoc.standalone.js', { 'accept-encoding': 'identity' });
    expect(page.text).toContain(`redoc.standalone.js?v=${JSON.parse(plain.headers.etag!)}"`);
  });

  it('answers HEAD with the headers and no body, and other methods with 405', async () => {
    const head = await api('/doc.html/redoc.standalone.js', { method: 'HEAD' });
    expect([head.status, head.text, head.headers.get('content-type')]).toEqual([200, '', 'application/javascript; charset=utf-8']);
    const post = await api('/doc.html/redoc.standalone.js', { method: 'POST', body: {} });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, OPTIONS']);
  });
});

describe('GET {api}/doc.html/redoc.standalone.js.LICENSE.txt', () => {
  it('is the license notices the script\'s first line points at, next to the script', async () => {
    const scriptUrl = new URL(`${apiUrl()}/doc.html/redoc.standalone.js`);
    const res = await api(new URL('redoc.standalone.js.LICENSE.txt', scriptUrl).href);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe(LICENSE);
    expect(res.text).toMatch(/ReDoc/);
  });
});
