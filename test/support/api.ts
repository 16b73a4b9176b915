/**
 * HTTP helpers for contract tests, against the server started by global-setup.ts.
 *
 *   const res = await api('/events', { method: 'POST', token: await tokenFor('editor'), body: { title: 'x' } });
 *   expect(res.status).toBe(201);
 */
import { signLocalToken, type TokenRole } from '../../lib/local/token-sign.js';
import { responseChecker } from './response-check.js';

type Scalar = string | number | boolean;
/** Query and form values: arrays become repeated `key[]=` pairs, objects nest as `key[sub]=`. */
export type FormValue = Scalar | null | undefined | FormValue[] | { [key: string]: FormValue };

export interface ApiOptions {
  method?: string;
  query?: Record<string, FormValue>;
  /** JSON-encoded (content-type application/json), unless a string or Buffer, which is sent as is. */
  body?: unknown;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, FormValue>;
  /** Bearer token (see tokenFor). */
  token?: string;
  headers?: Record<string, string>;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  /** The parsed body, or undefined when it is not JSON. */
  json: T;
  text: string;
}

/** The API root, e.g. http://127.0.0.1:41234/calendar/events/v1 */
export function apiUrl(): string {
  const url = process.env.CALENDAR_TEST_API;
  if (!url) throw new Error('CALENDAR_TEST_API is not set: run the tests through jest (globalSetup starts the server).');
  return url;
}

/** scheme://host:port of the test server. */
export const serverOrigin = (): string => new URL(apiUrl()).origin;

/** Flattens nested values the way PHP/WordPress forms nest them: a[]=1&a[]=2, venue[city]=X. */
export function encodeForm(values: Record<string, FormValue>): string {
  const out = new URLSearchParams();
  const add = (key: string, value: FormValue): void => {
    if (value === undefined) return;
    if (Array.isArray(value)) value.forEach((v) => add(`${key}[]`, v));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    else out.append(key, value === null ? '' : String(value));
  };
  for (const [k, v] of Object.entries(values)) add(k, v);
  return out.toString();
}

/** `path` is relative to the API root ("/events/3"), or an absolute URL (e.g. a `next_rest_url`). */
export async function api<T = any>(path: string, options: ApiOptions = {}): Promise<ApiResponse<T>> {
  const url = new URL(/^https?:\/\//.test(path) ? path : `${apiUrl()}${path.startsWith('/') || path === '' ? '' : '/'}${path}`);
  if (options.query) {
    const extra = encodeForm(options.query);
    if (extra) url.search = url.search ? `${url.search}&${extra}` : extra;
  }
  const headers: Record<string, string> = {};
  let body: string | Buffer | undefined;
  if (options.form !== undefined) {
    body = encodeForm(options.form);
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) {
    body = options.body;
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  Object.assign(headers, options.headers);
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const res = await fetch(url, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  // Every JSON answer must be one the served OpenAPI document describes (test/support/response-check.ts).
  if (json !== undefined && (res.headers.get('content-type') ?? '').startsWith('application/json')) {
    const problem = (await responseChecker(apiUrl())).check(method, url, res.status, json);
    if (problem) throw new Error(`undocumented response: ${problem}`);
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** A token the test server accepts, like `npm run token -- --role <role> [--sub <sub>]`. */
export function tokenFor(role: TokenRole, sub?: string, expiresIn?: string | number): Promise<string> {
  const secret = process.env.CALENDAR_TEST_JWT_SECRET;
  if (!secret) throw new Error('CALENDAR_TEST_JWT_SECRET is not set: run the tests through jest (globalSetup starts the server).');
  return signLocalToken({ secret, role, sub, expiresIn });
}

/**
 * What the server's DynamoDB meter says a call cost (`X-Calendar-Meter`, sent when it runs with CALENDAR_METER=1):
 * requests, rcu, wcu, items (read), tx (TransactWriteItems among the requests).
 */
export function meterOf(res: { headers: Headers }): Record<string, number> {
  const header = res.headers.get('x-calendar-meter');
  if (!header) throw new Error('no X-Calendar-Meter header: the server must run with CALENDAR_METER=1');
  return Object.fromEntries(header.split(';').map((part) => part.trim().split('=')).map(([k, v]) => [k!, Number(v)]));
}

/** The version part of a record's ETag (`"<version>-<hash of the body>"`, contract §15). */
export function etagVersion(res: { headers: Headers }): string {
  const tag = res.headers.get('etag');
  const m = tag ? /^"(\d+)-[A-Za-z0-9_-]+"$/.exec(tag) : null;
  if (!m) throw new Error(`not a record ETag: ${tag}`);
  return m[1]!;
}
