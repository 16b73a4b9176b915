/** An API Gateway HTTP API (payload 2.0) request for a handler called in process, as the stage would send it. */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

export function gatewayEvent(method: string, rawPath: string, opts: { body?: unknown; query?: string; token?: string } = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0', routeKey: '$default', rawPath, rawQueryString: opts.query ?? '',
    headers: { host: 'api.example.com', 'content-type': 'application/json', ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body), isBase64Encoded: false,
    requestContext: { accountId: '1', apiId: 'a', domainName: 'api.example.com', domainPrefix: 'api', requestId: randomUUID(),
      routeKey: '$default', stage: '$default', time: '', timeEpoch: 0,
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' } },
  };
}

/** A Lambda context whose time limit is `ms` from now. */
export function lambdaContext(ms: number): Context {
  const deadline = Date.now() + ms;
  return { getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
}
