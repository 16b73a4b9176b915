/**
 * The one place where failures become the contract's error responses (contract §3): ApiErrors as they are, the
 * store's unavailability as 503 `rest_unavailable` (with `outcome: "unknown"` when a write may have landed), a
 * request that ran out of time as the same 503, anything else as 500 `rest_internal_error` with the request id.
 */
import { NoFreeSlug, RecordTooLarge, StoreUnavailable, TooManyChanges, unavailability, VersionConflict } from '../../store/errors.js';
import { committedInRequest } from '../../store/scope.js';
import { InvalidCredentials, TooManyAttempts } from '../../auth/errors.js';
import { ApiError, invalidParam, invalidToken, preconditionFailed, unavailable } from '../errors.js';
import { logger } from '../../observability/logger.js';
import { json, type HttpResult } from '../response.js';
import { stateOf, type Middleware } from './state.js';

/** Raised by the pipeline's own timer when the function is about to run out of time. */
export class OutOfTime extends Error {
  override name = 'OutOfTime';
}

/** A response decided before the operation (preflight, redirect): thrown so the outgoing steps still add headers. */
export class Reply extends Error {
  constructor(readonly response: HttpResult) {
    super('reply');
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function errorResponse(error: unknown, method: string, requestId: string): HttpResult {
  if (error instanceof Reply) return error.response;
  if (error instanceof ApiError) return json(error.status, error.body(), error.headers);
  if (error instanceof InvalidCredentials) return respond(invalidToken(error.message));
  if (error instanceof TooManyAttempts) {
    return respond(new ApiError(429, 'rest_too_many_attempts', 'Too many failed sign-in attempts; wait a minute and try again.', {},
      { 'Retry-After': String(error.retryAfter) }));
  }
  const write = !READ_METHODS.has(method);
  const down = error instanceof StoreUnavailable ? error : unavailability(error, write);
  // A write that had already committed part of its work (e.g. a forced delete's unlinking) cannot say "nothing changed".
  if (down) return respond(unavailable(write && (down.outcomeUnknown || committedInRequest())));
  if (error instanceof OutOfTime) return respond(unavailable(write));
  if (error instanceof VersionConflict) return respond(preconditionFailed());
  if (error instanceof RecordTooLarge) {
    return respond(new ApiError(413, 'rest_payload_too_large', 'The record would hold more than 350 KB of text; shorten its texts.'));
  }
  if (error instanceof NoFreeSlug) return respond(invalidParam('slug', 'slug is taken; send a different slug'));
  if (error instanceof TooManyChanges) {
    return respond(new ApiError(400, 'rest_too_many_changes', 'This request changes too many linked records at once; split it into smaller ones.'));
  }
  logger.error('unexpected failure: answered 500 rest_internal_error', { error: error instanceof Error ? error : String(error) });
  return json(500, {
    code: 'rest_internal_error', message: 'The server failed to answer; the request id identifies the failure in the logs.',
    data: { status: 500, request_id: requestId },
  });
}

const respond = (e: ApiError): HttpResult => json(e.status, e.body(), e.headers);

export const errors = (): Middleware => ({
  onError: (request) => {
    const state = stateOf(request.event);
    request.response = errorResponse(request.error, state.line?.method ?? request.event.requestContext?.http?.method ?? 'GET',
      state.line?.requestId ?? request.event.requestContext?.requestId ?? 'local');
  },
});
