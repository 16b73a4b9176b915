/**
 * What every function of the stack gets for logs, metrics and traces: the Powertools environment (service name,
 * metrics namespace, log level, tracing switch), Lambda's own log filter at the same level, and active X-Ray tracing
 * when the deployer asks for it (context `tracing`). infra/stack.ts applies it in the one place that builds functions.
 */
import { basename, extname } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { CalendarConfig } from './config.js';

/** The namespace of the functions' EMF metrics (POWERTOOLS_METRICS_NAMESPACE). */
export const METRICS_NAMESPACE = 'CalendarEventsApi';

/** A function's service name: its entry file's name, i.e. the route group or job ("events", "horizon", "publish-changes"). */
export const serviceName = (entry: string): string => basename(entry, extname(entry));

export interface FunctionTelemetry {
  environment: Record<string, string>;
  tracing: lambda.Tracing;
  applicationLogLevelV2: lambda.ApplicationLogLevel;
}

export function functionTelemetry(config: CalendarConfig, entry: string): FunctionTelemetry {
  return {
    environment: {
      POWERTOOLS_SERVICE_NAME: serviceName(entry),
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      POWERTOOLS_LOG_LEVEL: config.logLevel,
      POWERTOOLS_TRACE_ENABLED: String(config.tracing),
    },
    // ACTIVE also grants the role xray:PutTraceSegments and xray:PutTelemetryRecords.
    tracing: config.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
    // Lambda drops JSON log lines below this level before Powertools' own filter could matter; keep the two equal.
    applicationLogLevelV2: lambda.ApplicationLogLevel[config.logLevel],
  };
}

/** cdk-nag acknowledgements for what functionTelemetry() chooses. */
export function acknowledgeTelemetry(fn: lambda.Function, role: iam.IRole, config: CalendarConfig): void {
  if (config.tracing) {
    Validations.of(role).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason: 'xray:PutTraceSegments and xray:PutTelemetryRecords, which active tracing grants, have no resource-level ' +
        'permissions; the function writes its traces and nothing else with them.',
    });
  } else {
    Validations.of(fn).acknowledge({
      id: 'Serverless::Serverless-LambdaTracing',
      reason: 'X-Ray tracing is opt-in (deploy with -c tracing=true): traces are billed per recorded trace, and the ' +
        'functions\' JSON logs, EMF metrics and CloudWatch alarms cover a small API without them.',
    });
  }
}
