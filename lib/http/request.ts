/**
 * What the pipeline reads from an API Gateway HTTP API (payload 2.0) event: the request line and headers first
 * (routing and authentication need nothing else), the body only when the pipeline gets to it (contract §3 order:
 * route → credentials → body size → body type → body syntax → parameters).
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ApiError } from './errors.js';
import { cleanJson, parseForm, TooDeep, type ParsedForm } from './form.js';
import { stripStage, trimTrailingSlashes } from './paths.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface RequestLine {
  method: string;
  /** Path after the stage, e.g. "/de/calendar/events/v1/events/12" (no trailing slash except "/"). */
  path: string;
  /** Stage path prefix ("" for the $default stage), e.g. "/prod". */
  stagePath: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  origin: string;
  host: string;
  requestId: string;
  sourceIp: string;
}

export function requestLine(event: APIGatewayProxyEventV2): RequestLine {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
  const http = event.requestContext?.http;
  const { stagePath, path } = stripStage(event.rawPath || http?.path || '/', event.requestContext?.stage);
  const host = headers['x-forwarded-host'] ?? headers.host ?? event.requestContext?.domainName ?? 'localhost';
  const proto = headers['x-forwarded-proto']?.split(',')[0]?.trim() ?? 'https';
  return {
    method: (http?.method ?? 'GET').toUpperCase(),
    path: trimTrailingSlashes(path),
    stagePath,
    headers,
    origin: `${proto}://${host}`,
    host,
    requestId: event.requestContext?.requestId ?? 'local',
    sourceIp: http?.sourceIp ?? '',
  };
}

export const parseQuery = (event: APIGatewayProxyEventV2): ParsedForm => parseForm(event.rawQueryString ?? '');

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;
const FORM_TYPE = 'application/x-www-form-urlencoded';

export const payloadTooLarge = (): ApiError =>
  new ApiError(413, 'rest_payload_too_large', 'The request body is larger than 1 MiB; send less data.');

const invalidJson = (message: string): ApiError => new ApiError(400, 'rest_invalid_json', message);

/**
 * The body of a write: JSON (`application/json`, `…+json`) or a form (`application/x-www-form-urlencoded`); without
 * a content type, or as `text/plain` (what `curl -d` and `fetch` with a string send), JSON when it parses as JSON,
 * else a form. Any other type is 415; over 1 MiB is 413; malformed JSON is 400.
 */
export function parseBody(event: APIGatewayProxyEventV2, headers: Record<string, string>): ParsedForm {
  const empty: ParsedForm = { values: {}, invalid: {} };
  if (event.body === undefined || event.body === null || event.body === '') return empty;
  const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (raw.byteLength > MAX_BODY_BYTES) throw payloadTooLarge();
  const type = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const sniff = type === '' || type === 'text/plain';
  if (!sniff && type !== FORM_TYPE && !JSON_TYPE.test(type)) {
    throw new ApiError(415, 'rest_unsupported_media_type', 'Send the body as application/json or application/x-www-form-urlencoded.');
  }
  const text = raw.toString('utf8');
  if (type === FORM_TYPE) return parseForm(text);
  if (text.trim() === '') return empty;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    if (sniff) return parseForm(text);
    throw invalidJson('The request body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalidJson('The request body must be a JSON object.');
  }
  try {
    return { values: cleanJson(parsed as Record<string, unknown>), invalid: {} };
  } catch (e) {
    if (e instanceof TooDeep) throw invalidJson('The request body nests objects or arrays too deeply.');
    throw e;
  }
}
