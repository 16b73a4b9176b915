/**
 * A text file served as it is (the reference page's script and its license notices): its ETag computed once, so a
 * browser revalidating it gets 304 (it is cached like every anonymous read, lib/http/middleware/conditional.ts), and
 * gzip-compressed when the client accepts it. The compressed body is base64 (`isBase64Encoded`), which API Gateway and the local server decode; a megabyte of
 * script is about 450 KB that way, far below Lambda's 6 MB answer limit.
 */
import { gzipSync } from 'node:zlib';
import { bodyTag } from './etag.js';
import type { HttpResult } from './response.js';

/** Whether an Accept-Encoding header allows gzip (RFC 9110 §12.5.3: `gzip`, `x-gzip` or `*`, with a weight above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let any = false;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return allowed;
    if (coding === '*') any = allowed;
  }
  return any;
}

interface Variant {
  body: string;
  base64: boolean;
  tag: string;
}

export interface StaticFile {
  /** A short hash of the file, for the URL that asks for this version of it. */
  version(): string;
  /** The answer to a GET, gzip-compressed when `acceptEncoding` allows it and the file was declared compressible. */
  response(acceptEncoding: string | undefined): HttpResult;
}

/** `load` reads the file (lib/package-file.ts); it is called once, on first use. */
export function staticFile(load: () => Buffer, contentType: string, options: { gzip?: boolean } = {}): StaticFile {
  let identity: Variant | null = null;
  let compressed: Variant | null = null;
  const plain = (): Variant => {
    if (!identity) {
      const body = load().toString('utf8');
      identity = { body, base64: false, tag: bodyTag(body) };
    }
    return identity;
  };
  const gzipped = (): Variant => {
    if (!compressed) {
      const body = gzipSync(Buffer.from(plain().body, 'utf8'), { level: 9 }).toString('base64');
      compressed = { body, base64: true, tag: bodyTag(body) };
    }
    return compressed;
  };
  return {
    version: () => plain().tag.slice(1, -1),
    response(acceptEncoding) {
      const gzip = options.gzip === true && acceptsGzip(acceptEncoding);
      const variant = gzip ? gzipped() : plain();
      return {
        statusCode: 200,
        headers: {
          'Content-Type': contentType,
          ETag: variant.tag,
          ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
        },
        body: variant.body,
        isBase64Encoded: variant.base64,
      };
    },
  };
}
