/**
 * `npm run import -- <url|file>` (contract §11, §20): imports a calendar through the running local service's /imports,
 * with a progress bar, as a local editor. A file is sent as its text (`{"type": "ics", "content"}`), a URL ending in
 * /wp-json/tribe/events/v1 as a site of the origin (`tec`), any other URL as an iCalendar feed. The bar follows the run's
 * `last_run` counts; the summary goes to stdout, and the exit status says whether the run finished (0) or failed (1).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { SingleBar } from 'cli-progress';
import { DEV_JWT_SECRET } from '../config.js';
import { signLocalToken } from './token-sign.js';

const USAGE = `Usage: npm run import -- <url|file> [options]

Imports a calendar into the running local API (npm start) and shows its progress.

  <url|file>         an iCalendar file (.ics), an iCalendar feed's URL (Google's secret address in iCal
                     format, Outlook's published calendar, any .ics link), or a site running The Events
                     Calendar: https://example.org/wp-json/tribe/events/v1
  --name NAME        what the import is called (default: the file's or the site's name)
  --schedule S       once (default), hourly, daily or weekly: keep a URL's calendar in step
  --authority A      overwrite (default), retain or preserve (see docs/importing.md)
  --start DATE       import events from this date (default: everything in a file or feed; for a site, 30 days ago)
  --end DATE         … up to this date (default: everything; for a site, two years ahead)
  --username U       a site's user name, with --password: an application password of that site
  --password P
  --api URL          the API (default: http://127.0.0.1:\${PORT:-3000}/calendar/events/v1)
  --help             show this text

The token is a local editor's, signed with CALENDAR_JWT_SECRET (or the development secret npm start uses).
`;

type Options = { name?: string; schedule?: string; authority?: string; start?: string; end?: string; username?: string; password?: string;
  api?: string; help?: boolean };

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function sourceOf(target: string, o: Options): { source: Record<string, unknown>; name: string } {
  if (existsSync(target) && statSync(target).isFile()) {
    return { source: { type: 'ics', content: readFileSync(target, 'utf8') }, name: basename(target) };
  }
  const url = URL.parse(target);
  if (!url || !/^https?:$/.test(url.protocol)) fail(`${target} is neither a file nor an http(s) URL.`);
  if (/\/wp-json\/tribe\/events\/v1\/?$/.test(url.pathname)) {
    const credentials = o.username || o.password ? { username: o.username ?? '', password: o.password ?? '' } : {};
    return { source: { type: 'tec', url: target.replace(/\/+$/, ''), ...credentials }, name: url.host };
  }
  return { source: { type: 'ics', url: target }, name: url.host };
}

/** What the API answers: an import, or an error. */
interface Answer {
  id?: number;
  rest_url?: string;
  last_run?: Run;
  message?: string;
  data?: { params?: Record<string, string> };
}

interface Run {
  state: string;
  processed: number;
  total: number;
  created: number;
  updated: number;
  unchanged: number;
  removed: number;
  failed: number;
  errors: { uid: string; message: string }[];
  message: string;
}

async function main(): Promise<void> {
  let values: Options;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      options: { name: { type: 'string' }, schedule: { type: 'string' }, authority: { type: 'string' }, start: { type: 'string' }, end: { type: 'string' },
        username: { type: 'string' }, password: { type: 'string' }, api: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true, strict: true,
    }));
  } catch (e) {
    fail(`${(e as Error).message}\nRun \`npm run import -- --help\` for usage.`);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (positionals.length !== 1) fail(`Give one URL or file.\n\n${USAGE}`);
  const api = (values.api ?? `http://127.0.0.1:${process.env.PORT || 3000}/calendar/events/v1`).replace(/\/+$/, '');
  const token = await signLocalToken({ secret: process.env.CALENDAR_JWT_SECRET || DEV_JWT_SECRET, role: 'editor', expiresIn: '2h' });
  const { source, name } = sourceOf(positionals[0]!, values);
  const body = { name: values.name ?? name, source, ...(values.schedule ? { schedule: values.schedule } : {}),
    ...(values.authority ? { authority: values.authority } : {}), ...(values.start ? { start_date: values.start } : {}),
    ...(values.end ? { end_date: values.end } : {}) };
  const call = async (method: string, path: string, payload?: unknown): Promise<{ status: number; json: Answer }> => {
    let res: Response;
    try {
      res = await fetch(`${api}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: payload === undefined ? undefined : JSON.stringify(payload) });
    } catch (e) {
      fail(`Could not reach the API at ${api} (is \`npm start\` running?): ${(e as Error).message}`);
    }
    const text = await res.text();
    let json: Answer = {};
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: an empty answer says what went wrong through its status
    }
    return { status: res.status, json };
  };

  const created = await call('POST', '/imports', body);
  if (created.status !== 202 || !created.json.last_run) {
    const params = created.json.data?.params;
    const reasons = params ? ` (${Object.entries(params).map(([k, v]) => `${k}: ${v}`).join('; ')})` : '';
    fail(`The API answered ${created.status}: ${created.json.message ?? 'no answer'}${reasons}`, 1);
  }
  const id = created.json.id!;
  process.stderr.write(`Import ${id} (${created.json.rest_url}) queued.\n`);
  const bar = new SingleBar({ format: 'Importing [{bar}] {value}/{total} events | {created} created, {updated} updated, {failed} failed',
    stream: process.stderr, hideCursor: true });
  let started = false;
  let run: Run = created.json.last_run;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const res = await call('GET', `/imports/${id}`);
    if (res.status !== 200 || !res.json.last_run) fail(`Reading import ${id}: the API answered ${res.status}.`, 1);
    run = res.json.last_run;
    if (run.total > 0 && !started) {
      bar.start(run.total, 0, run);
      started = true;
    }
    if (started) {
      bar.setTotal(Math.max(run.total, 1));
      bar.update(run.processed, run);
    }
    if (run.state === 'done' || run.state === 'failed') break;
  }
  if (started) bar.stop();
  const counts = `${run.total} ${run.total === 1 ? 'event' : 'events'}: ${run.created} created, ${run.updated} updated, ${run.unchanged} unchanged, ${run.removed} removed, ${run.failed} failed`;
  process.stdout.write(`Import ${id} ${run.state}: ${counts}${run.message ? `\n${run.message}` : ''}\n`);
  for (const e of run.errors.slice(0, 10)) process.stdout.write(`  ${e.uid || '(no UID)'}: ${e.message}\n`);
  if (run.errors.length > 10) process.stdout.write(`  … and ${run.errors.length - 10} more (GET ${created.json.rest_url})\n`);
  if (run.state === 'failed') process.exit(1);
}

await main();
