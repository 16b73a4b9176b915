/**
 * Requests through the CloudFront distribution only (infra/edge.ts, deployed with the `waf` context flag). With
 * CALENDAR_ORIGIN_SECRET set, a request must carry the secret CloudFront adds as an origin header, or it is refused
 * with 403 before anything else happens — so nobody skips the web ACL by calling the execute-api address directly.
 * CloudFront sends API Gateway's own host name, so its viewer-request function passes on the host the client used and
 * the client's address; once the secret proves they came from there, they become the request's `x-forwarded-host`
 * (lib/http/request.ts builds every URL from it) and its source address (the failed sign-in limit counts by it).
 * Without the variable (no distribution, the local server) the step does nothing.
 */
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.js';
import type { Middleware } from './state.js';

export const ORIGIN_SECRET_VARIABLE = 'CALENDAR_ORIGIN_SECRET';

/** Header names as API Gateway delivers them (lower case); infra/edge.ts sets them. */
export const EDGE_HEADERS = {
  secret: 'x-calendar-origin-verify',
  host: 'x-calendar-viewer-host',
  address: 'x-calendar-viewer-address',
} as const;

const directAccess = (): ApiError =>
  new ApiError(403, 'rest_forbidden', 'Send requests to the API\'s public address, not to its origin.');

function sameSecret(given: string, secret: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const edgeOrigin = (): Middleware => ({
  before: (request) => {
    const secret = process.env[ORIGIN_SECRET_VARIABLE];
    if (!secret) return;
    const { event } = request;
    const headers = (event.headers ??= {});
    const given = headers[EDGE_HEADERS.secret];
    if (given === undefined || !sameSecret(given, secret)) throw directAccess();
    const host = headers[EDGE_HEADERS.host];
    const address = headers[EDGE_HEADERS.address];
    // The secret stays: the root function hands some requests on to another function (lib/aws/forward.ts), which checks again.
    delete headers[EDGE_HEADERS.host];
    delete headers[EDGE_HEADERS.address];
    if (host) headers['x-forwarded-host'] = host;
    if (address && event.requestContext?.http) event.requestContext.http.sourceIp = address;
  },
});
