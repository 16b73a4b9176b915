/**
 * The /imports routes (contract §20): an editor's imports, their runs queued for the worker (./queue.ts), which writes
 * the events (./run.ts). Answers show an import with its last run; a source's password is kept sealed and never shown.
 */
import { config } from '../config.js';
import type { RequestContext } from '../http/context.js';
import { ApiError, forbidden, invalidParam } from '../http/errors.js';
import { recordJson } from '../http/etag.js';
import { echoQuery, listHeaders, pageLinks } from '../http/pagination.js';
import { json, type HttpResult } from '../http/response.js';
import { logger } from '../observability/logger.js';
import type { ImportDeleteParams, ImportListParams, ImportReadParams, ImportWriteParams, SourceInput } from '../routes/imports.js';
import { nextId } from '../store/ids.js';
import {
  contentItems, createImport, deleteImport, ImportLimitReached, listImportEntries, newRun, queueRun, readImport, readImports, RunBusy, updateImport,
  type ImportState,
} from '../store/imports.js';
import type { Item } from '../store/records.js';
import { afterCommit, retryConflicts } from '../store/retry.js';
import { nowUtcWall } from '../time/format.js';
import { parseWriteDate } from '../time/parse.js';
import { sameOrigin, sourceUrlProblem } from './fetch.js';
import { sendToWorker } from './queue.js';
import { IMPORT_SHAPE, type ImportItem, type StoredSource } from './record.js';
import { nextDue } from './schedule.js';
import { sealPassword } from './secrets.js';
import { tecApiRoot } from './tec.js';

const notFound = (): ApiError => new ApiError(404, 'rest-import-not-found', 'No import has this ID.');

const importJson = (ctx: RequestContext, s: ImportState) => IMPORT_SHAPE.render({ item: s.item, run: s.run, due: s.due, ctx });

/** Queues the import's work for the worker; a message that cannot be sent is found by the dispatcher instead. */
const wakeWorker = (id: number): Promise<void> => afterCommit(`handing import ${id} to the worker`, () => sendToWorker(id));

/** A source as sent, checked as far as can be without fetching: its URL (a literal private address is refused) and type. */
function checkSource(source: SourceInput, schedule: string | undefined): void {
  if (source.url !== undefined) {
    const problem = sourceUrlProblem(source.url, config().importAllowPrivate);
    if (problem) throw invalidParam('source', `url: ${problem}`);
    if (source.type === 'tec') {
      try {
        tecApiRoot(source.url);
      } catch (e) {
        throw invalidParam('source', (e as Error).message);
      }
    }
  }
  if (source.type === 'ics' && source.content !== undefined && schedule !== undefined && schedule !== 'once') {
    throw invalidParam('schedule', 'a file is imported once: give the calendar\'s URL to keep it in step');
  }
}

/** The window bounds as UTC walls (site time zone; a date alone as an end bound is its whole day). */
function windowBound(raw: string | number, end: boolean, name: string): string {
  try {
    const value = end && typeof raw === 'string' && /^\s*\d{4}-\d{2}-\d{2}\s*$/.test(raw) ? `${raw.trim()} 23:59:59` : raw;
    return parseWriteDate(value, config().siteTimezone).utc;
  } catch {
    throw invalidParam(name, 'must be a date, date and time, ISO 8601, Unix timestamp or phrase');
  }
}

/** Applies the fields sent (a create's, or an update's: only those sent change) to an import. */
async function applyImport(ctx: RequestContext<ImportWriteParams>, prev: ImportItem | null, id: number): Promise<{ item: ImportItem; content?: Item[] }> {
  const p = ctx.params;
  const now = nowUtcWall();
  const schedule = p.schedule ?? prev?.schedule ?? 'once';
  let source: StoredSource = prev?.source ?? { type: 'ics' };
  let content: Item[] | undefined;
  if (p.source) {
    if (prev && p.source.type !== prev.source.type) throw invalidParam('source', `the source's type stays ${prev.source.type}: create another import`);
    checkSource(p.source, schedule);
    if (p.source.content !== undefined) {
      const c = contentItems(id, p.source.content);
      content = c.items;
      source = { type: 'ics', contentBytes: c.bytes, contentParts: c.items.length };
    } else if (p.source.type === 'tec') {
      source = await tecSource(id, p.source, prev?.source);
    } else {
      source = { type: 'ics', url: p.source.url };
    }
  } else if (prev && schedule !== 'once' && prev.source.url === undefined) {
    throw invalidParam('schedule', 'a file is imported once: give the calendar\'s URL to keep it in step');
  }
  const item: ImportItem = {
    PK: `IMPORT#${id}`, SK: 'IMPORT', kind: 'import', id, v: (prev?.v ?? 0) + 1, name: p.name ?? prev!.name, source, schedule,
    authority: p.authority ?? prev?.authority ?? 'overwrite', categories: p.categories ?? prev?.categories ?? [], tags: p.tags ?? prev?.tags ?? [],
    language: p.language ?? prev?.language ?? 'en', owner: prev?.owner ?? { sub: ctx.caller!.sub, username: ctx.caller!.username },
    createdUtc: prev?.createdUtc ?? now, modifiedUtc: now,
  };
  const status = p.status === undefined ? prev?.status : p.status || undefined;
  if (status) item.status = status;
  for (const [name, key, end] of [['start_date', 'startUtc', false], ['end_date', 'endUtc', true]] as const) {
    const raw = p[name];
    const value = raw === undefined ? prev?.[key] : raw === '' ? undefined : windowBound(raw, end, name);
    if (value !== undefined) item[key] = value;
  }
  if (item.startUtc && item.endUtc && item.endUtc < item.startUtc) throw invalidParam('end_date', 'end_date must not be before start_date');
  return { item, content };
}

/**
 * A tec source: its credentials both or neither; a password kept sealed, and kept as it was when an update sends none —
 * unless the update moves the source to another origin, which never gets the old one's password.
 */
async function tecSource(id: number, sent: Extract<SourceInput, { type: 'tec' }>, prev: StoredSource | undefined): Promise<StoredSource> {
  const source: StoredSource = { type: 'tec', url: sent.url };
  if (sent.username === '') return source;
  if (prev?.url && !sameOrigin(prev.url, sent.url)) prev = undefined;
  const username = sent.username ?? prev?.username;
  if (sent.password) {
    if (!username) throw invalidParam('source', 'a password needs its username');
    return { ...source, username, sealed: await sealPassword(id, sent.password) };
  }
  if (sent.username !== undefined && !prev?.sealed) throw invalidParam('source', 'a username needs its application password');
  return username && prev?.sealed ? { ...source, username, sealed: prev.sealed } : source;
}

export async function createImportOp(ctx: RequestContext<ImportWriteParams>): Promise<HttpResult> {
  if (!ctx.caller) throw forbidden(false);
  const id = await nextId('import');
  const { item, content } = await applyImport(ctx, null, id);
  const now = Date.now();
  const state: ImportState = { item, run: newRun(id, now), due: nextDue(item.schedule, now) };
  try {
    await createImport(item, state.run!, content ?? [], state.due);
  } catch (e) {
    if (e instanceof ImportLimitReached) throw new ApiError(409, 'rest-import-limit', 'There are 100 imports already, the most there may be: delete one first.');
    throw e;
  }
  await wakeWorker(id);
  return recordJson(202, importJson(ctx, state), item.v, { Location: `${ctx.apiUrl}/imports/${id}` });
}

export async function getImportOp(ctx: RequestContext<ImportReadParams>): Promise<HttpResult> {
  const state = await readImport(ctx.params.id);
  if (!state) throw notFound();
  return recordJson(200, importJson(ctx, state), state.item.v);
}

export async function listImportsOp(ctx: RequestContext<ImportListParams>): Promise<HttpResult> {
  const { page, per_page: perPage } = ctx.params;
  const entries = (await listImportEntries()).filter((e) => !e.deleting);
  const total = entries.length;
  const totalPages = Math.ceil(total / perPage);
  if (page > 1 && page > totalPages) throw new ApiError(404, 'rest-import-archive-page-not-found', 'The requested page does not exist.');
  const shown = await readImports(entries.slice((page - 1) * perPage, page * perPage));
  const base = `${ctx.apiUrl}/imports`;
  const query = echoQuery(page, [['per_page', ctx.raw.per_page]]);
  const links = pageLinks(base, query, page, totalPages);
  return json(200, {
    imports: shown.map((s) => importJson(ctx, s)), rest_url: query.toString() ? `${base}?${query}` : base,
    ...(links.next ? { next_rest_url: links.next } : {}), ...(links.previous ? { previous_rest_url: links.previous } : {}), total, total_pages: totalPages,
  }, listHeaders(total, totalPages, links));
}

export async function updateImportOp(ctx: RequestContext<ImportWriteParams & { id: number }>): Promise<HttpResult> {
  return retryConflicts(async () => {
    const state = await readImport(ctx.params.id, true);
    if (!state) throw notFound();
    const { item, content } = await applyImport(ctx, state.item, state.item.id);
    const due = item.schedule === state.item.schedule ? state.due : nextDue(item.schedule, Date.now());
    await updateImport(state.item, item, due, content);
    return recordJson(200, importJson(ctx, { item, run: state.run, due }), item.v);
  });
}

export async function deleteImportOp(ctx: RequestContext<ImportDeleteParams>): Promise<HttpResult> {
  const state = await retryConflicts(async () => {
    const s = await readImport(ctx.params.id, true);
    if (!s) throw notFound();
    await deleteImport(s.item, ctx.params.delete_events);
    return s;
  });
  await wakeWorker(state.item.id);
  logger.info('import deleted', { import: state.item.id, deleteEvents: ctx.params.delete_events });
  return json(ctx.params.delete_events ? 202 : 200, importJson(ctx, { ...state, due: null }));
}

export async function runImportOp(ctx: RequestContext<ImportReadParams>): Promise<HttpResult> {
  const state = await readImport(ctx.params.id, true);
  if (!state) throw notFound();
  let run: NonNullable<ImportState['run']>;
  try {
    run = await queueRun(state.item.id, Date.now());
  } catch (e) {
    if (e instanceof RunBusy) {
      throw new ApiError(409, 'rest-import-running', 'A run of this import is queued or running; wait for it to finish.', {}, { 'Retry-After': '10' });
    }
    throw e;
  }
  await wakeWorker(state.item.id);
  return recordJson(202, importJson(ctx, { ...state, run }), state.item.v, { Location: `${ctx.apiUrl}/imports/${state.item.id}` });
}
