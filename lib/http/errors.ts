/** The contract's error shape: {code, message, data: {status, ...}} (contract §3). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): { code: string; message: string; data: Record<string, unknown> } {
    return { code: this.code, message: this.message, data: { status: this.status, ...this.data } };
  }
}

/** Thrown by a parameter parser (lib/model/errors.ts); the pipeline collects them into one 400 rest_invalid_param. */
export { ParamError } from '../model/errors.js';

export const noRoute = (): ApiError =>
  new ApiError(404, 'rest_no_route', 'No route was found matching the URL and request method.');

export const methodNotAllowed = (allow: string[]): ApiError =>
  new ApiError(405, 'rest_no_route', 'No route was found matching the URL and request method.', {}, {
    Allow: allow.join(', '),
  });

export const invalidParams = (params: Record<string, string>): ApiError =>
  new ApiError(400, 'rest_invalid_param', `Invalid parameter(s): ${Object.keys(params).join(', ')}`, { params });

export const invalidParam = (name: string, reason: string): ApiError => invalidParams({ [name]: reason });

export const missingParams = (params: string[]): ApiError =>
  new ApiError(400, 'rest_missing_callback_param', `Missing parameter(s): ${params.join(', ')}`, { params });

/** 403 for a signed-in caller without the capability; 401 with a Bearer challenge for an anonymous one (contract §4). */
export const forbidden = (authenticated: boolean): ApiError =>
  new ApiError(authenticated ? 403 : 401, 'rest_forbidden', 'Sorry, you are not allowed to do that.', {},
    authenticated ? {} : { 'WWW-Authenticate': 'Bearer realm="calendar"' });

export const invalidToken = (reason: string): ApiError =>
  new ApiError(401, 'rest_invalid_token', `The access token is invalid: ${reason}`, {}, {
    'WWW-Authenticate': 'Bearer error="invalid_token"',
  });

export const preconditionFailed = (): ApiError =>
  new ApiError(412, 'rest_precondition_failed', 'The record changed since you read it; fetch it again and retry with its new ETag.');

/**
 * 503 for DynamoDB throttling, an unreachable database or a call that ran out of time (contract §3). `outcomeUnknown`
 * when a write may have landed (the client reads the record before it writes again).
 */
export const unavailable = (outcomeUnknown = false): ApiError =>
  new ApiError(503, 'rest_unavailable', outcomeUnknown
    ? 'The service could not confirm whether this write was saved; read the record before writing again.'
    : 'The service is busy; retry shortly.', outcomeUnknown ? { outcome: 'unknown' } : {}, { 'Retry-After': '1' });
