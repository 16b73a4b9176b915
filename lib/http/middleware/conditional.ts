/**
 * Conditional reads and caching (contract §15). Every successful GET or HEAD gets a strong ETag (records set their
 * own, `"<version>-<hash>"`, lib/http/etag.ts; every other body is tagged by its hash), and `If-None-Match` naming it
 * (or `*`) turns the answer into a 304 without a body. Reads without credentials may be cached by anyone for
 * CALENDAR_CACHE_SECONDS; reads with credentials and all writes are `private, no-store`.
 */
import { config } from '../../config.js';
import { bodyTag, noneMatch } from '../etag.js';
import type { HttpResult } from '../response.js';
import { stateOf, type Middleware, type PipelineRequest } from './state.js';

const READS = new Set(['GET', 'HEAD']);
const VARY = 'Authorization, Accept-Encoding';

function cacheHeaders(request: PipelineRequest, response: HttpResult): void {
  const method = stateOf(request.event).line?.method ?? request.event.requestContext?.http?.method ?? 'GET';
  if (method === 'OPTIONS') return;
  const read = READS.has(method);
  const anonymous = !request.event.headers?.authorization;
  // Answers holding personal data, and requests carrying a reservation token, are never shared (contract §19).
  const personal = response.headers['Cache-Control'] === 'private, no-store' || /(?:^|&)token=/.test(request.event.rawQueryString ?? '');
  const shareable = read && anonymous && !personal && response.statusCode < 500;
  response.headers['Cache-Control'] = shareable ? `public, max-age=${config().cacheSeconds}` : 'private, no-store';
  if (read) {
    const vary = response.headers.Vary ? `${response.headers.Vary}, ${VARY}` : VARY;
    response.headers.Vary = vary;
  }
}

function after(request: PipelineRequest): void {
  const response = request.response;
  if (!response) return;
  const method = stateOf(request.event).line?.method ?? request.event.requestContext?.http?.method;
  if (READS.has(method ?? '') && response.statusCode === 200 && typeof response.body === 'string') {
    response.headers.ETag ??= bodyTag(response.body);
    if (noneMatch(request.event.headers?.['if-none-match'], response.headers.ETag)) {
      const { 'Content-Type': _type, ...headers } = response.headers;
      request.response = { statusCode: 304, headers, body: '' };
    }
  }
  cacheHeaders(request, request.response!);
}

function onError(request: PipelineRequest): void {
  if (request.response) cacheHeaders(request, request.response);
}

export const conditional = (): Middleware => ({ after, onError });
