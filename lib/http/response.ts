import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpResult = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers: Record<string, string> };

/**
 * JSON text whose strings escape `<` and `>` (contract §3), so a response pasted into a `<script>` element cannot
 * close it. Both characters only ever occur inside JSON strings, so replacing them everywhere is exact.
 */
export const jsonText = (body: unknown): string => JSON.stringify(body).replace(/[<>]/g, (c) => (c === '<' ? '\\u003c' : '\\u003e'));

export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
    body: jsonText(body),
  };
}
