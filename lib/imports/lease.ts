/** How long a worker holds an import (lib/store/imports.ts `takeLease`), and what one turn of the worker ends with. */

/** How long a lease lasts: CALENDAR_IMPORT_LEASE_SECONDS (tests shorten it), else two minutes; each batch renews it. */
export const leaseMs = (): number => {
  const s = Number(process.env.CALENDAR_IMPORT_LEASE_SECONDS);
  return Number.isInteger(s) && s >= 1 && s <= 3600 ? s * 1000 : 120_000;
};

/** A worker starts no more work this long before its deadline: it gives the lease up and queues the rest. */
export const STOP_BEFORE_MS = 60_000;

/**
 * `done`/`failed`: the run finished; `removed`: a deleted import's removal finished; `continued`: the worker ran out of
 * time and queued the rest; `busy`: another worker holds the import, or there was nothing to do.
 */
export type RunOutcome = 'done' | 'failed' | 'busy' | 'continued' | 'removed';
