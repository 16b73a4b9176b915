/**
 * A Lambda handler that is not behind the HTTP API (the horizon job, the change publisher) with the same
 * observability as the HTTP pipeline: the Lambda context on its log lines, the cold start metric, its own metrics
 * flushed when it returns or throws, and its trace segment when tracing is on.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { logger } from './logger.js';
import { metrics } from './metrics.js';
import { tracingMiddleware } from './tracer.js';

export function observedHandler<E, R>(handler: (event: E, context: Context) => Promise<R>): (event: E, context: Context) => Promise<R> {
  const tracing = tracingMiddleware();
  return middy<E, R, Error, Context>(handler)
    .use([injectLambdaContext(logger), logMetrics(metrics, { captureColdStartMetric: true }), ...(tracing ? [tracing] : [])]);
}
