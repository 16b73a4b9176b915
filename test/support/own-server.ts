/**
 * A local API of a test file's own (its own table and token secret), for tests that must see only their own records
 * or that put something between the service and DynamoDB: on the suite's DynamoDB Local, or on `dynamodb` (a proxy).
 */
import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalApi, stopLocalApi } from './global-setup.js';

export interface OwnServer {
  /** The API root, e.g. http://127.0.0.1:41234/calendar/events/v1 */
  url: string;
  /** scheme://host:port */
  origin: string;
  stop(): Promise<void>;
}

export async function startOwnServer(name: string, opts: { secret: string; dynamodb?: string; env?: Record<string, string> }):
  Promise<OwnServer> {
  const dynamodb = opts.dynamodb ?? process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
  if (!dynamodb) throw new Error('CALENDAR_TEST_DYNAMODB_ENDPOINT is not set: the global setup did not start DynamoDB Local');
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const { child, url } = await startLocalApi(root, {
    PORT: '0', HOST: '127.0.0.1', CALENDAR_DATA_DIR: ':memory:', DYNAMODB_ENDPOINT: dynamodb,
    CALENDAR_TABLE_NAME: `${name}-${Date.now()}`, CALENDAR_JWT_SECRET: opts.secret, CALENDAR_JWT_ISSUER: '', CALENDAR_TIMEZONE: 'UTC',
    CALENDAR_SITE_URL: '', CALENDAR_METER: '', ...opts.env,
  }, createWriteStream(join(tmpdir(), `${name}-${process.pid}.log`)));
  return { url, origin: new URL(url).origin, stop: () => stopLocalApi(child as ChildProcess) };
}

/** An HTTP answer with its body as text and, when it parses, as JSON; `ms` from sending to the end of the body. */
export interface Answer {
  status: number;
  headers: Headers;
  json: any;
  text: string;
  ms: number;
}

export async function send(url: string, init: { method?: string; authorization?: string; body?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.authorization) headers.authorization = init.authorization;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const t0 = Date.now();
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text, ms: Date.now() - t0 };
}
