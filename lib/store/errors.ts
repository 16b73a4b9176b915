/** What the store reports to the layers above it; lib/http/pipeline maps each to the contract's answer. */

/**
 * DynamoDB throttled, failed, was unreachable or did not answer in time (after the SDK's and the store's own
 * retries). `outcomeUnknown` when a write call may have landed: it was sent and its answer was lost.
 */
export class StoreUnavailable extends Error {
  constructor(readonly outcomeUnknown: boolean, options?: { cause?: unknown }) {
    super(outcomeUnknown ? 'a DynamoDB write may or may not have been applied' : 'DynamoDB is unavailable', options);
    this.name = 'StoreUnavailable';
  }
}

/** The record changed since it was read (its version condition failed). */
export class VersionConflict extends Error {}

/** A linked record, guard or counter changed or vanished while the write was prepared. */
export class LinkConflict extends Error {}

/** A slug or name guard the write meant to take was taken by another record meanwhile. */
export class GuardTaken extends LinkConflict {}

/** An item the write changes would pass DynamoDB's item size limit (planned again, the write may choose otherwise). */
export class ItemTooLarge extends LinkConflict {}

/** A create that happens once (lib/store/create-once.ts) was made before: its once-item names the record it made. */
export class CreatedBefore extends Error {}

/** The write would need more than the 100 actions one transaction can hold. */
export class TooManyChanges extends Error {}

/** A record would be larger than the contract allows (350 KB of stored text; DynamoDB's own limit is 400 KB). */
export class RecordTooLarge extends Error {}

/** No free slug among the candidates of a base. */
export class NoFreeSlug extends Error {}

const THROTTLED = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded',
  'LimitExceededException']);
/** Errors raised before a request left this process (nothing can have been applied). */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const LOST = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED']);

/**
 * What a DynamoDB (SDK) error means for the client: StoreUnavailable for throttling after retries, 5xx, network
 * failures and timeouts — `outcomeUnknown` when the call was a write that was sent and whose answer was lost —
 * and null for everything else (a failed condition, a validation error: a bug or a decision of the caller).
 */
export function unavailability(error: unknown, isWrite: boolean): StoreUnavailable | null {
  if (error instanceof StoreUnavailable) return error;
  const e = error as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number }; cause?: unknown } | null;
  if (!e || typeof e !== 'object') return null;
  const code = e.code ?? (e.cause as { code?: string } | undefined)?.code ?? '';
  if (THROTTLED.has(e.name ?? '')) return new StoreUnavailable(false, { cause: error });
  // A retried transaction (same ClientRequestToken) whose earlier attempt DynamoDB is still applying: it may land.
  if (e.name === 'TransactionInProgressException') return new StoreUnavailable(true, { cause: error });
  if (NOT_SENT.has(code)) return new StoreUnavailable(false, { cause: error });
  const status = e.$metadata?.httpStatusCode ?? 0;
  const lost = LOST.has(code) || e.name === 'AbortError' || e.name === 'TimeoutError' || e.name === 'RequestTimeout'
    || e.name === 'InternalServerError' || e.name === 'ServiceUnavailable' || status >= 500
    || /socket hang up|ECONNRESET|EPIPE/i.test(String(e.message ?? ''));
  return lost ? new StoreUnavailable(isWrite, { cause: error }) : null;
}
