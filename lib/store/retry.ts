/**
 * The one retry policy for writes that lose a race (lib/store/README.md "Concurrency"): a read-modify-write that
 * failed its version condition, or whose linked records changed meanwhile, is planned again on fresh reads until it
 * lands or the request runs out of time — concurrent writers end as if applied one after another (contract §7). With
 * If-Match a version change is final (412), as the client asked for exactly that version.
 */
import { GuardTaken, LinkConflict, StoreUnavailable, VersionConflict } from './errors.js';
import { timeLeft } from './scope.js';
import { logger } from '../observability/logger.js';

/** Exponential backoff with full jitter: up to 10 ms, 20 ms … capped at 200 ms. */
export const backoff = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 10 * 2 ** attempt)));

/** Time a retry needs at least (a consistent read, a planning read and a transaction, with margin). */
const ATTEMPT_MS = 300;
/** Without a deadline (scripts, tests outside a request) the attempts are still bounded. */
const MAX_ATTEMPTS = 200;

/**
 * Runs `write` until it lands. `attempt` counts the tries (0 first: later ones read consistently); `contended` counts
 * those that lost a slug or name to another record (GuardTaken). Slug choices spread only after such a loss
 * (ReadSet.freeSlug): a write that lost a race for any other reason (another writer changed the record) still takes the
 * first free slug, as if the writes had been applied one after another (contract §7).
 */
export async function retryConflicts<T>(write: (attempt: number, contended: number) => Promise<T>, opts: { ifMatch?: boolean } = {}):
  Promise<T> {
  let contended = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      return await write(attempt, contended);
    } catch (e) {
      if (!(e instanceof VersionConflict) && !(e instanceof LinkConflict)) throw e;
      if (e instanceof GuardTaken) contended++;
      if (e instanceof VersionConflict && opts.ifMatch) throw e;
      if (attempt + 1 >= MAX_ATTEMPTS || timeLeft() < ATTEMPT_MS) throw new StoreUnavailable(false, { cause: e });
      await backoff(attempt);
    }
  }
}

/**
 * Follow-up work of a write that has committed (e.g. unlinking a trashed venue from its events). Once the write has
 * landed its answer must not become an error (contract §3), so a failure here is logged, not thrown; the work is
 * idempotent and the next attempt at the record (a retried DELETE answers 410 and finishes it) completes it.
 */
export async function afterCommit(what: string, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (e) {
    logger.warn(`${what} did not finish; the next write of the record finishes it`, { error: e as Error });
  }
}
