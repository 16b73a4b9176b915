import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpResult = APIGatewayProxyStructuredResultV2 & { headers: Record<string, string> };

export const CORS_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'X-TEC-Total, X-TEC-TotalPages, Link, ETag, Content-Language, Location, Allow',
};

export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}
