/**
 * Fetches an import source (contract §20 "Fetching"), for the iCalendar and origin-API readers:
 *
 *   fetchSource(url, { headers, credentials, etag, lastModified, maxBytes, timeoutMs, allowPrivate, resolve })
 *     → { notModified: false, status, body, contentType, etag, lastModified, url }   a 2xx answer, decompressed
 *     | { notModified: true, status: 304, etag, lastModified, url }                    the caller's copy is current
 *   FetchError: everything else (a refused URL or address, a non-2xx answer, too many redirects, a limit, the network)
 *   sourceUrlProblem(url, allowPrivate): why a URL is refused before any lookup (scheme, credentials, literal address)
 *   sameOrigin(a, b): whether two http(s) URLs share scheme, host and port (paging never leaves the source's origin)
 *
 * Only http and https. Every address the host resolves to, at every hop, must pass `addressAllowed` (./addresses.ts),
 * else the fetch fails with exactly `address not allowed` before connecting; the connection then goes to those checked
 * addresses (a `lookup` that answers with them: no second DNS query). At most 5 redirects, each hop checked again; at
 * most `maxBytes` (20 MB) read and decompressed (gzip, deflate, br), counted as they stream; `timeoutMs` (60 s) bounds
 * the whole fetch, lookups and redirects included. Caller headers (Accept…) are sent as given, except Authorization,
 * Cookie and Host, which are refused. Basic credentials go only to the origin of `url`, and over plain http only to a
 * private address that `allowPrivate` admits (otherwise the fetch fails); the first redirect to another origin drops
 * them for good. `allowPrivate` defaults to CALENDAR_IMPORT_ALLOW_PRIVATE=1. `resolve` replaces the DNS lookup (tests
 * point names at any address).
 */
import { promises as dns } from 'node:dns';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { config } from '../config.js';
import { addressAllowed, privateAddress } from './addresses.js';

export const MAX_BYTES = 20 * 1024 * 1024;
export const TIMEOUT_MS = 60_000;
export const MAX_REDIRECTS = 5;
const USER_AGENT = 'calendar-events-api-import/1.0';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface FetchOptions {
  /** Extra request headers (Accept, Accept-Language…); credentials go in `credentials`, never here. */
  headers?: Record<string, string>;
  /** HTTP Basic credentials of the source (an application password). */
  credentials?: { username: string; password: string };
  /** The previous answer's validators: sent as If-None-Match and If-Modified-Since. */
  etag?: string | null;
  lastModified?: string | null;
  maxBytes?: number;
  timeoutMs?: number;
  allowPrivate?: boolean;
  resolve?: (host: string) => Promise<ResolvedAddress[]>;
}

interface Validators {
  /** The final URL, after redirects. */
  url: string;
  etag: string | null;
  lastModified: string | null;
}

export interface SourceBody extends Validators {
  notModified: false;
  status: number;
  body: Buffer;
  contentType: string | null;
}

export interface SourceNotModified extends Validators {
  notModified: true;
  status: 304;
}

export type FetchResult = SourceBody | SourceNotModified;

export class FetchError extends Error {
  /** The source's HTTP status when it answered with an error. */
  readonly status: number | null;
  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'FetchError';
    this.status = options.status ?? null;
  }
}

/** Why the URL cannot be fetched before any lookup (its scheme, credentials in it, a literal address), or null. */
export function sourceUrlProblem(url: string, allowPrivate: boolean): string | null {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') return 'only http and https URLs can be fetched';
  if (parsed.username || parsed.password) return 'credentials in the URL are not accepted';
  const literal = hostAddress(parsed);
  return literal && !addressAllowed(literal, allowPrivate) ? 'address not allowed' : null;
}

/** Whether two http(s) URLs have the same scheme, host and port. */
export function sameOrigin(a: string, b: string): boolean {
  if (!URL.canParse(a) || !URL.canParse(b)) return false;
  const [x, y] = [new URL(a), new URL(b)];
  return /^https?:$/.test(x.protocol) && x.origin === y.origin;
}

export async function fetchSource(url: string, options: FetchOptions = {}): Promise<FetchResult> {
  const { maxBytes = MAX_BYTES, timeoutMs = TIMEOUT_MS, allowPrivate = config().importAllowPrivate } = options;
  const reserved = Object.keys(options.headers ?? {}).find((name) => /^(authorization|proxy-authorization|cookie|host)$/i.test(name));
  if (reserved) throw new FetchError(`the ${reserved} header cannot be set`);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    return await follow(url, options, { maxBytes, allowPrivate, signal: deadline.signal });
  } catch (err) {
    if (deadline.signal.aborted) throw new FetchError(`the fetch took longer than its limit of ${timeoutMs} ms`, { cause: err });
    throw err instanceof FetchError ? err : new FetchError(`fetch failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

interface Limits {
  maxBytes: number;
  allowPrivate: boolean;
  signal: AbortSignal;
}

async function follow(start: string, options: FetchOptions, limits: Limits): Promise<FetchResult> {
  let href = start;
  let credentials = options.credentials;
  for (let redirects = 0; ; redirects++) {
    const problem = sourceUrlProblem(href, limits.allowPrivate);
    if (problem) throw new FetchError(problem);
    const url = new URL(href);
    if (!sameOrigin(href, start)) credentials = undefined;
    const addresses = await checkedAddresses(url, options.resolve, limits);
    if (credentials && url.protocol !== 'https:' && !addresses.every((a) => privateAddress(a.address))) {
      throw new FetchError('credentials are only sent over https');
    }
    const res = await request(url, addresses, requestHeaders(options, credentials), limits.signal);
    try {
      const status = res.statusCode ?? 0;
      const etag = header(res.headers, 'etag');
      const lastModified = header(res.headers, 'last-modified');
      if (status >= 200 && status < 300) {
        const body = await readBody(res, limits);
        return { notModified: false, status, body, contentType: header(res.headers, 'content-type'), url: url.href, etag, lastModified };
      }
      if (status === 304) {
        // A 304 need not repeat the validators: the caller's stay current.
        return {
          notModified: true,
          status,
          url: url.href,
          etag: etag ?? options.etag ?? null,
          lastModified: lastModified ?? options.lastModified ?? null,
        };
      }
      if (!REDIRECTS.has(status)) throw new FetchError(`the source answered HTTP ${status}`, { status });
      const location = header(res.headers, 'location');
      if (!location || !URL.canParse(location, href)) throw new FetchError(`HTTP ${status} without a valid Location`, { status });
      if (redirects === MAX_REDIRECTS) throw new FetchError(`more than ${MAX_REDIRECTS} redirects`, { status });
      href = new URL(location, url).href;
    } finally {
      res.destroy(); // a redirect's or an error's body is never read; a read body is over already
    }
  }
}

/** The URL's host when it is a literal address ([::1] → ::1), else null. */
function hostAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) ? host : null;
}

/** The addresses the fetch may connect to: all that the host resolves to, each allowed, else `address not allowed`. */
async function checkedAddresses(url: URL, resolve: FetchOptions['resolve'], limits: Limits): Promise<ResolvedAddress[]> {
  const literal = hostAddress(url);
  const found = literal ? [{ address: literal }] : await untilAborted((resolve ?? lookupAll)(url.hostname), limits.signal);
  if (found.length === 0) throw new FetchError(`${url.hostname} has no address`);
  if (!found.every((a) => addressAllowed(a.address, limits.allowPrivate))) throw new FetchError('address not allowed');
  return found.map((a) => ({ address: a.address, family: isIP(a.address) }));
}

const lookupAll = (host: string): Promise<ResolvedAddress[]> => dns.lookup(host, { all: true, verbatim: true });

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

function requestHeaders(options: FetchOptions, credentials: FetchOptions['credentials']): Record<string, string> {
  const headers: Record<string, string> = { 'User-Agent': USER_AGENT, Accept: '*/*', ...options.headers, 'Accept-Encoding': 'gzip, deflate, br' };
  if (options.etag) headers['If-None-Match'] = options.etag;
  if (options.lastModified) headers['If-Modified-Since'] = options.lastModified;
  if (credentials) {
    headers.Authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  }
  return headers;
}

function request(url: URL, addresses: ResolvedAddress[], headers: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
  // Node asks for every address (`all`, when it races IPv6 and IPv4) or for one; either way only the checked ones.
  const lookup: LookupFunction = (_host, opts, callback) =>
    opts.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family);
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    // agent: false: a socket of this request's own, never a pooled one opened for another lookup.
    send(url, { headers, lookup, signal, agent: false }, resolve).on('error', reject).end();
  });
}

async function readBody(res: IncomingMessage, { maxBytes, signal }: Limits): Promise<Buffer> {
  if (Number(res.headers['content-length']) > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  await pipeline(
    res,
    byteLimit(maxBytes), // what arrives: an endless run of empty deflate blocks decodes to nothing
    decoder(res.headers['content-encoding']),
    byteLimit(maxBytes), // what it decodes to
    async (decoded: AsyncIterable<Buffer>) => {
      for await (const chunk of decoded) chunks.push(chunk);
    },
    { signal },
  );
  return Buffer.concat(chunks);
}

function byteLimit(maxBytes: number): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      done(size > maxBytes ? tooLarge(maxBytes) : null, chunk);
    },
  });
}

function decoder(encoding: string | undefined): Transform {
  switch (encoding?.trim().toLowerCase() || 'identity') {
    case 'identity':
      return new PassThrough();
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      throw new FetchError(`unsupported Content-Encoding ${encoding}`);
  }
}

const tooLarge = (maxBytes: number) => new FetchError(`the source is larger than its limit of ${maxBytes} bytes`);

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' ? value : null;
}
