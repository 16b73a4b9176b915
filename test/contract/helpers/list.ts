/**
 * Helpers for the GET /events contract tests (events-list, events-dates).
 *
 * The database is shared by every test file of a run and never reset, so each test places its events on a
 * day range of its own, far in the future, and filters explicitly around it. `DayAllocator` hands out such
 * ranges: a random base day per file (inside the file's span of years) and consecutive, non-overlapping blocks
 * after it, so two tests of one file never share a day and other files are very unlikely to.
 */
import { api, apiUrl, tokenFor, type ApiResponse, type FormValue } from '../../support/api.js';

export type Json = Record<string, any>;

const DAY_MS = 86_400_000;

/** 'YYYY-MM-DD' of a Date, in UTC. */
export const ymd = (d: Date): string => d.toISOString().slice(0, 10);

/** 'YYYY-MM-DD HH:MM:SS' of a Date, in UTC. */
export const wall = (d: Date): string => d.toISOString().slice(0, 19).replace('T', ' ');

/** The day `n` days after 'YYYY-MM-DD' (n may be negative). */
export const addDays = (day: string, n: number): string => ymd(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));

/** 'YYYY-MM-DD' + 'HH:MM[:SS]' → 'YYYY-MM-DD HH:MM:SS'. */
export const at = (day: string, time: string): string => `${day} ${time.length === 5 ? `${time}:00` : time}`;

/** Unix timestamp (seconds) of a UTC wall-clock 'YYYY-MM-DD HH:MM:SS'. */
export const unix = (utcWall: string): number => Date.parse(`${utcWall.replace(' ', 'T')}Z`) / 1000;

export class DayAllocator {
  private next: number;

  /** Days are drawn from [fromYear-01-01, toYear-01-01). */
  constructor(fromYear: number, toYear: number) {
    const from = Date.UTC(fromYear, 0, 1);
    const to = Date.UTC(toYear, 0, 1);
    // Leave room for ~3 years of blocks after the base.
    const span = Math.floor((to - from) / DAY_MS) - 1100;
    this.next = from + Math.floor(Math.random() * span) * DAY_MS;
  }

  /** A fresh block of `days` days; returns its first day. A gap of a few days separates blocks. */
  block(days = 10): string {
    const first = ymd(new Date(this.next));
    this.next += (days + 5) * DAY_MS;
    return first;
  }
}

let editorToken: Promise<string> | undefined;
/** The token of the shared editor who creates most test events. */
export const editor = (): Promise<string> => (editorToken ??= tokenFor('editor', 'contract-list-editor'));

/** A random lowercase word nobody else uses, for `search`. */
export const uniqueWord = (prefix = 'zq'): string => `${prefix}${Math.random().toString(36).slice(2, 10).replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!)}`;

/** POST /events (as the shared editor unless a token is given); fails the test unless 201. */
export async function createEvent(fields: Json, token?: string): Promise<Json> {
  const res = await api('/events', { method: 'POST', token: token ?? (await editor()), body: { title: 'List test event', ...fields } });
  if (res.status !== 201) {
    throw new Error(`POST /events ${JSON.stringify(fields)} → ${res.status} ${res.text}`);
  }
  return res.json;
}

/** Creates events one after another (so ids ascend in the given order). */
export async function createEvents(list: Json[], token?: string): Promise<Json[]> {
  const out: Json[] = [];
  for (const fields of list) out.push(await createEvent(fields, token));
  return out;
}

/** An event on `day` from `from` to `to` (HH:MM[:SS]); `to` may be on the next day via toDay. */
export const onDay = (day: string, from: string, to: string, extra: Json = {}, toDay = day): Json => ({
  start_date: at(day, from), end_date: at(toDay, to), ...extra,
});

/** GET /events with a query; returns the response. */
export const list = (query: Record<string, FormValue> = {}, token?: string): Promise<ApiResponse> =>
  api('/events', { query, token });

/** GET /events, expecting 200, and returns the ids of the page in order. */
export async function listIds(query: Record<string, FormValue> = {}, token?: string): Promise<number[]> {
  const res = await list(query, token);
  if (res.status !== 200) throw new Error(`GET /events ${JSON.stringify(query)} → ${res.status} ${res.text}`);
  return (res.json.events as Json[]).map((e) => e.id as number);
}

/** The ids of every page (following next_rest_url), for finding one event in a big window. */
export async function allIds(query: Record<string, FormValue> = {}, token?: string): Promise<number[]> {
  const ids: number[] = [];
  let res = await list({ per_page: 50, ...query }, token);
  for (;;) {
    if (res.status !== 200) throw new Error(`GET /events → ${res.status} ${res.text}`);
    ids.push(...(res.json.events as Json[]).map((e) => e.id as number));
    if (!res.json.next_rest_url) return ids;
    res = await api(res.json.next_rest_url, { token });
  }
}

/** The query parameters of an emitted URL, as a plain object. */
export const queryOf = (url: string): Record<string, string> => Object.fromEntries(new URL(url).searchParams.entries());

/** `{api}/events/` — the base every list URL starts with. */
export const eventsBase = (): string => `${apiUrl()}/events/`;

/** Asserts a 400 rest_invalid_param naming `name` in data.params. */
export function expectInvalidParam(res: ApiResponse, name: string): void {
  const summary = `${res.status} ${res.text}`;
  if (res.status !== 400 || res.json?.code !== 'rest_invalid_param' || !(name in (res.json?.data?.params ?? {}))) {
    throw new Error(`expected 400 rest_invalid_param naming "${name}", got ${summary}`);
  }
  if (res.json.data.status !== 400) throw new Error(`expected data.status 400, got ${summary}`);
}
