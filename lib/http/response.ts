import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpResult = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers: Record<string, string> };

/**
 * JSON text whose strings escape `<` and `>` (contract §3), so a response pasted into a `<script>` element cannot
 * close it. Both characters only ever occur inside JSON strings, so replacing them everywhere is exact.
 */
export const jsonText = (body: unknown): string => JSON.stringify(body).replaceAll('<', '\\u003c').replaceAll('>', '\\u003e');

/** JSON already written by jsonText (a list's records, lib/http/pagination.ts), placed into a body as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** Where a JsonText goes while the rest of the body is written (a string no serialised value can contain). */
const SLOT = '\u0000json-text\u0000';
const SLOT_JSON = JSON.stringify(SLOT);

/** A body's JSON text, with its top-level JsonText values written once, not serialised again. */
function bodyText(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return jsonText(body);
  const values = Object.values(body);
  if (!values.some((v) => v instanceof JsonText)) return jsonText(body);
  const texts: string[] = [];
  const shaped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value instanceof JsonText) texts.push(value.text);
    shaped[key] = value instanceof JsonText ? SLOT : value;
  }
  const pieces = jsonText(shaped).split(SLOT_JSON);
  return pieces.map((piece, i) => (i < texts.length ? piece + texts[i] : piece)).join('');
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
    body: bodyText(body),
  };
}

/** An iCalendar feed (contract §14): with the reference page and its files, the only successful bodies that are not JSON. */
export function calendarText(body: string): HttpResult {
  return { statusCode: 200, headers: { 'Content-Type': 'text/calendar; charset=utf-8' }, body };
}

/** An HTML page (the reference page, contract §10). */
export function htmlText(body: string, headers: Record<string, string> = {}): HttpResult {
  return { statusCode: 200, headers: { 'Content-Type': 'text/html; charset=utf-8', ...headers }, body };
}
