/**
 * Headers every response carries, errors included (contract §3, §8): `X-Content-Type-Options: nosniff`,
 * `Content-Language`, CORS (lib/http/cors.ts) and, with CALENDAR_METER=1, the DynamoDB meter of the request; a HEAD
 * request gets the GET's headers without a body.
 */
import { currentMeter } from '../../store/scope.js';
import { CORS } from '../cors.js';
import { stateOf, type Middleware, type PipelineRequest } from './state.js';

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': CORS.allowOrigin,
  'Access-Control-Expose-Headers': CORS.exposeHeaders.join(', '),
};

function finish(request: PipelineRequest): void {
  const response = request.response;
  if (!response) return;
  const state = stateOf(request.event);
  const meter = process.env.CALENDAR_METER === '1' ? currentMeter() : null;
  response.headers = {
    ...CORS_HEADERS,
    'Content-Language': state.lang,
    ...response.headers,
    'X-Content-Type-Options': 'nosniff',
    // Benchmarks and tests read the DynamoDB cost of each call from this header (CALENDAR_METER=1 only).
    ...(meter ? { 'X-Calendar-Meter':
      `requests=${meter.requests}; rcu=${meter.readUnits}; wcu=${meter.writeUnits}; items=${meter.itemsRead}; tx=${meter.transactions}` } : {}),
  };
  if (request.event.requestContext?.http?.method === 'HEAD') response.body = '';
}

export const responseHeaders = (): Middleware => ({ after: finish, onError: finish });
