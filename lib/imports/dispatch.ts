/**
 * The dispatcher (contract §20: "Scheduled runs start within 15 minutes of their time"): run every few minutes (in AWS by
 * an EventBridge Scheduler schedule, locally by the server), it queues the runs of imports whose time has come and hands
 * the worker every import with work nobody is doing — a run whose worker died (its lease lapsed), a run queued whose
 * message was lost, a deleted import not yet removed. One Query of the import list and one BatchGetItem of their runs.
 */
import { claimDue, listImportEntries, readImport, readRuns } from '../store/imports.js';
import { sendToWorker } from './queue.js';
import { dueAfter, isDue } from './schedule.js';

/** A run queued this long ago that no worker has taken: its message is taken as lost. */
const LOST_AFTER_MS = 60_000;

export interface Dispatched {
  /** Scheduled runs queued. */
  scheduled: number;
  /** Imports handed to the worker again (a dead worker's run, a lost message, a removal). */
  resumed: number;
}

export async function dispatchImports(now = Date.now()): Promise<Dispatched> {
  const entries = await listImportEntries();
  const runs = new Map((await readRuns(entries.map((e) => e.id))).map((r) => [Number(String(r.PK).split('#')[1]), r]));
  const out: Dispatched = { scheduled: 0, resumed: 0 };
  for (const entry of entries) {
    const run = runs.get(entry.id);
    const lapsed = run !== undefined && (run.until ?? 0) < now;
    const stalled = run !== undefined && lapsed && (run.state === 'running' || run.deleting !== undefined
      || (run.state === 'queued' && run.queuedAt < now - LOST_AFTER_MS));
    if (stalled) {
      await sendToWorker(entry.id);
      out.resumed++;
      continue;
    }
    if (entry.due && !entry.deleting && isDue(entry.due, now)) {
      const state = await readImport(entry.id);
      const next = state && dueAfter(state.item.schedule, entry.due, now);
      if (next && await claimDue(entry.id, entry.due, next, now)) {
        await sendToWorker(entry.id);
        out.scheduled++;
      }
    }
  }
  return out;
}
