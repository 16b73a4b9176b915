/**
 * The one CORS definition (contract §1): the request pipeline adds it to every response and answers preflight
 * with it locally; the CDK stack configures the HTTP API's own preflight handling from the same lists.
 */
export const CORS = {
  allowOrigin: '*',
  allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  allowHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key'],
  exposeHeaders: [
    'X-TEC-Total', 'X-TEC-TotalPages', 'Link', 'ETag', 'Content-Language', 'Location', 'Allow', 'Retry-After',
    'WWW-Authenticate', 'Idempotent-Replayed',
  ],
  maxAgeSeconds: 86_400,
} as const;
