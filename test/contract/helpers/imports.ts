/**
 * Two local instances for import tests (contract §20): a source, which speaks the origin's API under
 * /wp-json/tribe/events/v1, and a target that imports from it (CALENDAR_IMPORT_ALLOW_PRIVATE=1: its sources are on
 * loopback addresses). Every request goes to 127.0.0.1.
 */
import { signLocalToken } from '../../../lib/local/token-sign.js';
import { send, startOwnServer, type Answer, type OwnServer } from '../../support/own-server.js';

export const SOURCE_SECRET = 'imports-source-secret-0123456789abcdef';
export const TARGET_SECRET = 'imports-target-secret-0123456789abcdef';
export const THEIRS = '/wp-json/tribe/events/v1';

/** What the target's own server is started with: quick leases and dispatcher ticks, so taken-over runs finish in seconds. */
export const TARGET_ENV = { CALENDAR_IMPORT_ALLOW_PRIVATE: '1', CALENDAR_IMPORT_TICK_SECONDS: '1', CALENDAR_IMPORT_LEASE_SECONDS: '4' };

export interface Instance {
  server: OwnServer;
  /** `Bearer <editor token>` of this instance. */
  editor: string;
  call(method: string, path: string, body?: unknown, authorization?: string): Promise<Answer>;
  /** The body of a 2xx answer, else throws with the answer. */
  ok(method: string, path: string, body?: unknown): Promise<any>;
}

export async function startInstance(name: string, secret: string, env: Record<string, string> = {}, sub = `${name}-editor`): Promise<Instance> {
  const server = await startOwnServer(name, { secret, env });
  return instanceOf(server, secret, sub);
}

export async function instanceOf(server: OwnServer, secret: string, sub: string): Promise<Instance> {
  const editor = `Bearer ${await signLocalToken({ secret, role: 'editor', sub })}`;
  const call = (method: string, path: string, body?: unknown, authorization = editor) =>
    send(/^https?:/.test(path) ? path : `${server.url}${path}`, { method, authorization, body });
  return {
    server, editor, call,
    async ok(method, path, body) {
      const res = await call(method, path, body);
      if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 400)}`);
      return res.json;
    },
  };
}

/** The source's API root as an import names it. */
export const tecUrl = (source: Instance): string => `${source.server.origin}${THEIRS}`;

/** Polls an import until its last run has finished (done or failed). */
export async function finished(target: Instance, id: number, ms = 60_000): Promise<any> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 150))) {
    const imp = await target.ok('GET', `/imports/${id}`);
    if (['done', 'failed'].includes(imp.last_run.state)) return imp;
  }
  throw new Error(`import ${id} did not finish within ${ms} ms`);
}

/** Queues a run (202) and waits for it. */
export async function rerun(target: Instance, id: number): Promise<any> {
  const res = await target.call('POST', `/imports/${id}/run`);
  if (res.status !== 202) throw new Error(`POST /imports/${id}/run: ${res.status} ${res.text.slice(0, 300)}`);
  return finished(target, id);
}

/** Every event of a window at an instance, as an editor sees them (all statuses but trash), in start order. */
export async function eventsIn(instance: Instance, start: string, end: string, extra = ''): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const res = await instance.call('GET', `/events?start_date=${start}&end_date=${end}&per_page=50&page=${page}${extra}`);
    if (res.status === 404 && page > 1) return out;
    if (res.status !== 200) throw new Error(`GET /events: ${res.status} ${res.text.slice(0, 300)}`);
    out.push(...res.json.events);
    if (!res.json.next_rest_url) return out;
  }
}

/** The changes feed's current cursor, and then what changed since it (contract §16). */
export async function changesCursor(instance: Instance): Promise<string> {
  return (await instance.ok('GET', '/changes?since=latest')).next_cursor;
}
export async function changesSince(instance: Instance, cursor: string): Promise<{ kind: string; id: number; action: string }[]> {
  const out: { kind: string; id: number; action: string }[] = [];
  for (let since = cursor; ;) {
    const page = await instance.ok('GET', `/changes?since=${encodeURIComponent(since)}&per_page=500`);
    out.push(...page.changes.map((c: any) => ({ kind: c.kind, id: c.id, action: c.action })));
    if (!page.more) return out;
    since = page.next_cursor;
  }
}
