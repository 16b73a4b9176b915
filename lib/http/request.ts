import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ApiError } from './errors.js';
import { parseNested, type Nested } from './form.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface ParsedRequest {
  method: string;
  /** Path after the stage, e.g. "/de/calendar/events/v1/events/12" (no trailing slash except "/"). */
  path: string;
  /** Stage path prefix ("" for the $default stage), e.g. "/prod". */
  stagePath: string;
  headers: Record<string, string>;
  query: Nested;
  body: Record<string, unknown>;
  origin: string;
  host: string;
  requestId: string;
}

export function parseRequest(event: APIGatewayProxyEventV2): ParsedRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
  const http = event.requestContext?.http;
  const method = (http?.method ?? 'GET').toUpperCase();
  const stage = event.requestContext?.stage;
  const stagePath = stage && stage !== '$default' ? `/${stage}` : '';
  let path = event.rawPath || http?.path || '/';
  if (stagePath && (path === stagePath || path.startsWith(`${stagePath}/`))) path = path.slice(stagePath.length) || '/';
  if (path.length > 1) path = path.replace(/\/+$/, '') || '/';
  const host = headers['x-forwarded-host'] ?? headers.host ?? event.requestContext?.domainName ?? 'localhost';
  const proto = headers['x-forwarded-proto']?.split(',')[0]?.trim() ?? 'https';
  return {
    method,
    path,
    stagePath,
    headers,
    query: parseNested(event.rawQueryString ?? ''),
    body: method === 'GET' || method === 'OPTIONS' ? {} : parseBody(event, headers),
    origin: `${proto}://${host}`,
    host,
    requestId: event.requestContext?.requestId ?? 'local',
  };
}

function parseBody(event: APIGatewayProxyEventV2, headers: Record<string, string>): Record<string, unknown> {
  if (event.body === undefined || event.body === null || event.body === '') return {};
  const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (raw.byteLength > MAX_BODY_BYTES) {
    throw new ApiError(413, 'rest_payload_too_large', 'The request body is larger than 1 MiB; send less data.');
  }
  const text = raw.toString('utf8');
  const type = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return parseNested(text);
  if (type === 'multipart/form-data') {
    throw new ApiError(415, 'rest_unsupported_media_type', 'Send the body as application/json or application/x-www-form-urlencoded.');
  }
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    if (type === '' || type === 'text/plain') return parseNested(text); // curl -d without a content type
    throw new ApiError(400, 'rest_invalid_json', 'The request body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ApiError(400, 'rest_invalid_json', 'The request body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}
