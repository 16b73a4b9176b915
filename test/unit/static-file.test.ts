/** Files served as they are (lib/http/static-file.ts): Accept-Encoding negotiation, one read, versions and tags. */
import { gunzipSync } from 'node:zlib';
import { acceptsGzip, staticFile } from '../../lib/http/static-file.js';

describe('acceptsGzip (RFC 9110 §12.5.3)', () => {
  it.each([
    ['gzip', true], ['gzip, deflate, br', true], ['GZIP;Q=0.5', true], ['x-gzip', true], ['*', true], ['br, *;q=0.1', true],
    [undefined, false], ['', false], ['identity', false], ['br', false], ['gzip;q=0', false], ['gzip;q=0.000', false],
    ['gzip;q=0, *', false], ['*;q=0', false], ['deflate, gzip;q=0', false], ['gzip;q=nonsense', false],
  ])('%j → %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});

describe('staticFile', () => {
  it('reads the file once, tags each representation, and compresses only when declared and accepted', () => {
    let reads = 0;
    const text = 'console.log("x");\n'.repeat(1000);
    const load = () => {
      reads += 1;
      return Buffer.from(text);
    };
    const file = staticFile(load, 'application/javascript; charset=utf-8', { gzip: true });
    const plain = file.response(undefined);
    const gzip = file.response('gzip');
    expect(reads).toBe(1);
    expect(plain).toMatchObject({ statusCode: 200, body: text, isBase64Encoded: false,
      headers: { 'Content-Type': 'application/javascript; charset=utf-8' } });
    expect(plain.headers['Content-Encoding']).toBeUndefined();
    expect(gzip).toMatchObject({ isBase64Encoded: true, headers: { 'Content-Encoding': 'gzip' } });
    expect(gunzipSync(Buffer.from(gzip.body!, 'base64')).toString()).toBe(text);
    expect(gzip.headers.ETag).not.toBe(plain.headers.ETag);
    expect(file.version()).toBe(plain.headers.ETag!.slice(1, -1));
    expect(file.response('gzip').body).toBe(gzip.body);
    expect(reads).toBe(1);
    expect(staticFile(load, 'text/plain; charset=utf-8').response('gzip').headers['Content-Encoding']).toBeUndefined();
  });
});
