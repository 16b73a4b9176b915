/**
 * X-Ray tracing, only when POWERTOOLS_TRACE_ENABLED=true: Powertools' Tracer pulls in aws-xray-sdk-core, so it is
 * loaded from a file of its own (infra/bundling.ts SIDE_BUNDLES, lib/lazy-module.ts) and never by a function that
 * does not trace. The AWS SDK clients (DynamoDB, EventBridge, Lambda) are captured when they are created.
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj } from '@middy/core';
import { lazyModule } from '../lazy-module.js';

export const tracingEnabled = (env: NodeJS.ProcessEnv = process.env): boolean => env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() === 'true';

let tracer: Tracer | null = null;

function theTracer(): Tracer {
  tracer ??= new (lazyModule<{ Tracer: typeof Tracer }>('@aws-lambda-powertools/tracer').Tracer)();
  return tracer;
}

/** The client itself, with its calls traced when tracing is on. */
export function traced<T extends object>(client: T): T {
  return tracingEnabled() ? theTracer().captureAWSv3Client(client) : client;
}

/** Powertools' handler segment middleware when tracing is on; null otherwise (the pipeline leaves it out). */
export const tracingMiddleware = (): MiddlewareObj | null => (tracingEnabled() ? captureLambdaHandler(theTracer()) : null);
