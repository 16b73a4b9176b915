/** Small helpers shared by the events contract tests (fixtures with unique names, error-shape checks). */
import { randomBytes } from 'node:crypto';
import { api, apiUrl, tokenFor, type ApiResponse } from '../../support/api.js';

/** A random lower-case suffix, so that titles and slugs never collide between tests or runs. */
export const uid = (): string => randomBytes(5).toString('hex');

const pad = (n: number): string => String(n).padStart(2, '0');

/** A random day far in the future ("2031-04-17" … "2089-…"), so that date windows contain only our events. */
export function futureDay(): string {
  const year = 2031 + Math.floor(Math.random() * 58);
  const month = 1 + Math.floor(Math.random() * 12);
  const day = 1 + Math.floor(Math.random() * 28);
  return `${year}-${pad(month)}-${pad(day)}`;
}

/** A fresh user of the role (a unique `sub`), so that ownership tests never share users. */
export const freshToken = (role: Parameters<typeof tokenFor>[0]): Promise<string> => tokenFor(role, `${role}-${uid()}`);

/** The minimal valid create body: unique title, one evening on a random far-future day. */
export function eventBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const day = futureDay();
  return { title: `Contract event ${uid()}`, start_date: `${day} 20:00:00`, end_date: `${day} 22:00:00`, ...extra };
}

/** Creates an event (editor by default) and returns its JSON; fails the test unless the answer is 201. */
export async function createEvent(extra: Record<string, unknown> = {}, token?: string): Promise<any> {
  const res = await api('/events', { method: 'POST', token: token ?? (await tokenFor('editor')), body: eventBody(extra) });
  if (res.status !== 201) throw new Error(`creating a fixture event failed: ${res.status} ${res.text}`);
  return res.json;
}

/** The integer user id the API assigned to the token's subject (read from a draft event the user creates). */
export async function userIdOf(token: string): Promise<number> {
  const ev = await createEvent({ status: 'draft' }, token);
  return ev.author as number;
}

/** Checks the contract §3 error shape: exactly {code, message, data: {status, ...}}, data.status = HTTP status. */
export function expectError(res: ApiResponse, status: number, code: string): void {
  const body = res.text.slice(0, 600);
  expect({ status: res.status, code: res.json?.code, body }).toEqual({ status, code, body });
  expect(Object.keys(res.json).sort()).toEqual(['code', 'data', 'message']);
  expect(typeof res.json.message).toBe('string');
  expect(res.json.message.length).toBeGreaterThan(0);
  expect(res.json.data).toEqual(expect.objectContaining({ status }));
  expect(res.json.data.status).toBe(res.status);
}

/** Expects 400 rest_invalid_param naming exactly these parameters in data.params (an object name → reason). */
export function expectInvalid(res: ApiResponse, ...params: string[]): void {
  expectError(res, 400, 'rest_invalid_param');
  expect(typeof res.json.data.params).toBe('object');
  expect(Array.isArray(res.json.data.params)).toBe(false);
  expect(Object.keys(res.json.data.params).sort()).toEqual([...params].sort());
  for (const p of params) {
    expect(typeof res.json.data.params[p]).toBe('string');
    expect(res.json.data.params[p].length).toBeGreaterThan(0);
  }
}

/** Expects a 2xx answer with a readable failure message. */
export function expectStatus(res: ApiResponse, status: number): void {
  const body = res.text.slice(0, 600);
  expect({ status: res.status, body }).toEqual({ status, body });
}

export const eventPath = (id: number): string => `/events/${id}`;
export const eventUrl = (id: number): string => `${apiUrl()}/events/${id}`;
