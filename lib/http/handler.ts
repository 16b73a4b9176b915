/**
 * The request pipeline every function runs (contract §3 order), as middy middlewares, one concern each:
 *   observability (logs, metrics, traces: outermost, so it sees the final response) → edge origin (403 when the optional
 *   CloudFront distribution was skipped) → routing (404/405/OPTIONS) →
 *   authentication (401) → body (413/415/400) → idempotency (400/409/422, or a replayed answer) → validation (400) →
 *   authorization (401/403) → the operation; errors, CORS and the common headers on the way out. The Lambda handlers and the local
 *   server (lib/local/server.ts, which invokes the same handlers) run exactly this.
 */
import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import httpCors from '@middy/http-cors';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { routeMatcher } from '../routes/matcher.js';
import type { Group, RouteSpec } from '../routes/types.js';
import { withRequestKeys } from '../observability/logger.js';
import { currentMeter, newMeter, runInScope } from '../store/scope.js';
import type { RequestContext } from './context.js';
import { CORS } from './cors.js';
import { authentication, type InProcessCaller } from './middleware/authentication.js';
import { conditional } from './middleware/conditional.js';
import { authorization } from './middleware/authorization.js';
import { body } from './middleware/body.js';
import { edgeOrigin } from './middleware/edge-origin.js';
import { errorResponse, errors, OutOfTime } from './middleware/errors.js';
import { idempotency } from './middleware/idempotency.js';
import { observability, requestKeysOf, routeKeys } from './middleware/observability.js';
import { responseHeaders } from './middleware/headers.js';
import { routing, type Forward } from './middleware/routing.js';
import { stateOf } from './middleware/state.js';
import { validation, type PipelineStore } from './middleware/validation.js';
import type { HttpResult } from './response.js';

export type { PipelineStore } from './middleware/validation.js';
/** An operation's implementation, typed by its route definition's parameters (RequestContext<ParamValues<…>>). */
export type Operation = (ctx: RequestContext<never>) => Promise<HttpResult>;

/** The pipeline answers 503 itself this long before the function's time limit (contract §3). */
const TIMEOUT_EARLY_MS = 500;
/** DynamoDB calls are abandoned this long before the time limit, so their failure still reaches the error step. */
const STORE_MARGIN_MS = 1000;

/**
 * Builds the Lambda handler of one route group from its operation implementations (keyed by operation id).
 * `routes` are the routes the function serves, and the only ones it matches: a group's own routes (API Gateway
 * sends a function nothing else, and neither does the local server), or every route for the root function,
 * which gets all other requests through $default (redirects to canonical paths, 405 for other methods).
 * `inProcess` gives the caller of each event instead of its Authorization header: only for handlers that run API operations
 * inside this process (lib/imports/api.ts), which no function exposes to HTTP requests.
 */
export function createGroupHandler(group: Group, routes: readonly RouteSpec[], operations: Record<string, Operation>,
  store: PipelineStore | null, options: { forward?: Forward; nested?: boolean; inProcess?: InProcessCaller } = {}) {
  const foreign = routes.find((r) => r.group !== group);
  if (group !== 'root' && foreign) throw new Error(`the ${group} function was given a route of ${foreign.group}: ${foreign.path}`);
  const served = new Set(routes.flatMap((r) => (r.group === group ? r.operations.map((o) => o.id) : [])));
  const unrouted = Object.keys(operations).filter((id) => !served.has(id));
  if (unrouted.length) throw new Error(`the ${group} function implements operations none of its routes has: ${unrouted.join(', ')}`);

  const pipeline = middy<APIGatewayProxyEventV2, HttpResult, Error, Context>({
    timeoutEarlyInMillis: TIMEOUT_EARLY_MS,
    timeoutEarlyResponse: () => {
      throw new OutOfTime();
    },
  })
    // A nested call (the calendar pages run API operations in-process, lib/pages/api.ts) is part of the page's request:
    // the page logs one line and counts one request, with this call's DynamoDB work in its meter.
    .use(options.nested ? [] : observability())
    .use(responseHeaders())
    .use(conditional())
    .use(httpCors({ origin: CORS.allowOrigin, exposeHeaders: CORS.exposeHeaders.join(', ') }))
    .use(errors())
    .use(httpHeaderNormalizer({ canonical: false }))
    .use(edgeOrigin())
    .use(routing(group, routeMatcher(routes), options.forward))
    .use(routeKeys())
    .use(authentication(options.inProcess))
    .use(body())
    .use(idempotency())
    .use(validation(store))
    .use(authorization())
    .handler((event) => {
      const { ctx, match } = stateOf(event);
      // The validation step parsed ctx.params with exactly this operation's own parameter definitions.
      return operations[match!.operation.id]!(ctx! as RequestContext<never>);
    });

  return async (event: APIGatewayProxyEventV2, context: Context): Promise<HttpResult> => {
    const remaining = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : null;
    const scope = { meter: (options.nested && currentMeter()) || newMeter(), deadline: remaining === null ? null : Date.now() + remaining - STORE_MARGIN_MS };
    try {
      return await runInScope(scope, () => withRequestKeys(requestKeysOf(event, context), () => pipeline(event, context)));
    } catch (error) {
      // Only a failure of the error step itself reaches here.
      return errorResponse(error, event.requestContext?.http?.method ?? 'GET', event.requestContext?.requestId ?? randomUUID());
    }
  };
}
