/**
 * The stored import and its run, and their wire shape (contract §20): keys, conditions and costs in lib/store/README.md
 * "Imports". The import holds what an editor set; its run item what the worker does (state, counts, lease), so that a
 * run's progress never conflicts with an editor's change of the import.
 */
import type { RequestContext } from '../http/context.js';
import type { Language } from '../model/language.js';
import { always, apiLink, arr, dateTime, int, obj, str, wireShape, type OpenApiSchema } from '../openapi/shape.js';
import type { Authority, ImportStatus, Schedule } from '../routes/imports.js';
import type { Item } from '../store/records.js';
import { siteWall } from '../time/format.js';

export type SourceType = 'ics' | 'tec';

/** The source as stored: a tec password only sealed (lib/imports/secrets.ts), a file's text in content items of its own. */
export interface StoredSource {
  type: SourceType;
  url?: string;
  username?: string;
  /** The sealed application password (never the password itself). */
  sealed?: string;
  /** A file's text: its size in bytes and how many content items hold it, gzipped. */
  contentBytes?: number;
  contentParts?: number;
}

export interface ImportItem {
  PK: string;
  SK: string;
  kind: 'import';
  id: number;
  v: number;
  name: string;
  source: StoredSource;
  schedule: Schedule;
  authority: Authority;
  /** The status of created events; absent: publish for ics, the source event's own for tec. */
  status?: ImportStatus;
  categories: (number | string)[];
  tags: (number | string)[];
  /** The window, UTC walls; absent: the source type's default. */
  startUtc?: string;
  endUtc?: string;
  language: Language;
  /** The editor who created it: runs act as them (contract §4 roles: editors only). */
  owner: { sub: string; username: string };
  createdUtc: string;
  modifiedUtc: string;
}

export type RunState = 'queued' | 'running' | 'done' | 'failed';

export interface RunError {
  uid: string;
  message: string;
}

export interface RunCounts {
  processed: number;
  total: number;
  created: number;
  updated: number;
  unchanged: number;
  removed: number;
  failed: number;
}

export const NO_COUNTS: RunCounts = { processed: 0, total: 0, created: 0, updated: 0, unchanged: 0, removed: 0, failed: 0 };

/** The import's run item: the last (or current) run, the lease of the worker running it, the source's validators. */
export interface RunItem extends RunCounts {
  PK: string;
  SK: string;
  /** The run's number: each queued run takes the next one (identity items name the run that wrote them). */
  n: number;
  state: RunState;
  /** When it was queued, ms. */
  queuedAt: number;
  startedUtc?: string;
  finishedUtc?: string;
  errors: RunError[];
  message: string;
  /** The worker holding the run, and until when (ms): another takes it over only after that. */
  lease?: string;
  until?: number;
  /** The source's validators as of the last finished run (a rerun sends them), and how many events it listed then. */
  etag?: string;
  lastModified?: string;
  lastTotal?: number;
  /**
   * Set by DELETE: the worker removes what is left of the import (its `parts` content items), trashing its events first
   * when `trash`, as the import's owner in its language (the import itself is gone by then).
   */
  deleting?: { trash: boolean; parts: number; owner: { sub: string; username: string }; language: Language };
}

export const isImport = (i: Item | null | undefined): i is Item & ImportItem => i?.kind === 'import';

/** An import as the API shows it: the record, its run, and when its next scheduled run is due. */
export interface ImportView {
  item: ImportItem;
  run: RunItem | null;
  /** UTC wall, or null when no run is scheduled (once). */
  due: string | null;
  ctx: RequestContext;
}

const count = (what: string): OpenApiSchema => int(what, { minimum: 0 });

const LAST_RUN: OpenApiSchema = obj({
  state: str('queued, running, done or failed', { enum: ['queued', 'running', 'done', 'failed'] }),
  started_utc: { ...dateTime('when it started, UTC; null while queued'), nullable: true },
  finished_utc: { ...dateTime('when it finished, UTC; null until then'), nullable: true },
  processed: count('source events handled so far'),
  total: count('source events the source lists (a series with its edited occurrences is one)'),
  created: count('events created'),
  updated: count('events updated'),
  unchanged: count('source events that needed no write'),
  removed: count('events trashed: gone from the source within the window, cancelled or made private'),
  failed: count('source events that could not be imported (see errors)'),
  errors: arr(obj({ uid: str('the source event\'s UID (tec: its id); "" when unknown'), message: str('what went wrong') }, ['uid', 'message'],
    'one source event\'s failure'), 'the first 100 failures'),
  message: str('why the run failed, or what it noted; "" when nothing'),
}, ['state', 'started_utc', 'finished_utc', 'processed', 'total', 'created', 'updated', 'unchanged', 'removed', 'failed', 'errors', 'message'],
'The import\'s last (or current) run; its counts grow while it runs');

const SOURCE: OpenApiSchema = obj({
  type: str('ics or tec', { enum: ['ics', 'tec'] }),
  url: str('the source\'s address; absent for a file', { format: 'uri' }),
  content_length: int('a file: its size in bytes (its text is not shown)', { minimum: 0 }),
  username: str('tec: the user name of the source\'s application password, when one is kept (the password is never shown)'),
}, ['type'], 'Where the events come from');

const terms = (what: string): OpenApiSchema =>
  arr({ anyOf: [{ type: 'integer' }, { type: 'string' }] }, `${what} ids, slugs or names added to every imported event, as sent`);

export function lastRunJson(run: RunItem | null): Record<string, unknown> | null {
  if (!run) return null;
  return {
    state: run.state, started_utc: run.startedUtc ?? null, finished_utc: run.finishedUtc ?? null, processed: run.processed, total: run.total,
    created: run.created, updated: run.updated, unchanged: run.unchanged, removed: run.removed, failed: run.failed,
    errors: run.errors.map((e) => ({ uid: e.uid, message: e.message })), message: run.message,
  };
}

function sourceJson(s: StoredSource): Record<string, unknown> {
  if (s.url === undefined) return { type: s.type, content_length: s.contentBytes ?? 0 };
  return { type: s.type, url: s.url, ...(s.username ? { username: s.username } : {}) };
}

export const IMPORT_SHAPE = wireShape<ImportView>('An import: a calendar brought in from another source and kept in step with it (contract §20)', {
  id: always(int('the import ID', { minimum: 1 }), (v) => v.item.id),
  name: always(str('what the import is called'), (v) => v.item.name),
  source: always(SOURCE, (v) => sourceJson(v.item.source)),
  schedule: always(str('once, hourly, daily or weekly', { enum: ['once', 'hourly', 'daily', 'weekly'] }), (v) => v.item.schedule),
  authority: always(str('overwrite, retain or preserve', { enum: ['overwrite', 'retain', 'preserve'] }), (v) => v.item.authority),
  status: always({ type: 'string', nullable: true, description: 'the status of the events it creates; null: publish for ics, each source '
    + 'event\'s own for tec' }, (v) => v.item.status ?? null),
  categories: always(terms('category'), (v) => v.item.categories),
  tags: always(terms('tag'), (v) => v.item.tags),
  start_date: always(str('the window\'s start in the site time zone (YYYY-MM-DD HH:MM:SS); "" for the default'),
    (v) => (v.item.startUtc ? siteWall(v.item.startUtc) : '')),
  end_date: always(str('the window\'s end in the site time zone (YYYY-MM-DD HH:MM:SS); "" for the default'),
    (v) => (v.item.endUtc ? siteWall(v.item.endUtc) : '')),
  created_utc: always(dateTime('when the import was created, UTC'), (v) => v.item.createdUtc),
  next_run_utc: always({ ...dateTime('when its next scheduled run is due, UTC; null for a one-time import'), nullable: true }, (v) => v.due),
  last_run: always({ ...LAST_RUN, nullable: true }, (v) => lastRunJson(v.run)),
  rest_url: always(apiLink('this import'), (v) => `${v.ctx.apiUrl}/imports/${v.item.id}`),
});
