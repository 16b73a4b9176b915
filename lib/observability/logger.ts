/**
 * The one Logger of a function (Powertools): JSON lines with the function's service name (POWERTOOLS_SERVICE_NAME),
 * its Lambda context (added by the pipeline's injectLambdaContext) and, for every line written while a request runs,
 * that request's keys: API Gateway's and Lambda's request ids, then the matched route and operation. The level is
 * POWERTOOLS_LOG_LEVEL (INFO when unset).
 *
 * The request keys live in an AsyncLocalStorage rather than in the Logger's own appended keys: the local server
 * runs many requests of one process at once, and appended keys belong to the whole Logger instance.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { LogFormatter, LogItem, Logger } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';

export interface RequestKeys {
  /** API Gateway's request id (requestContext.requestId). */
  request_id?: string;
  /** Lambda's request id (context.awsRequestId). */
  function_request_id?: string;
  /** The function that runs the request (the local server runs every function in one process). */
  function_name?: string;
  /** The matched route's path relative to the API root, e.g. "/events/{id}". */
  route?: string;
  /** The matched operation's id, e.g. "events.get". */
  operation?: string;
}

const requests = new AsyncLocalStorage<RequestKeys>();

/** Runs fn with keys that every log line written inside it carries. */
export const withRequestKeys = <T>(keys: RequestKeys, fn: () => Promise<T>): Promise<T> => requests.run({ ...keys }, fn);

/** Adds keys to the running request's (the route once it matched); nothing outside a request. */
export function addRequestKeys(keys: RequestKeys): void {
  const current = requests.getStore();
  if (current) Object.assign(current, keys);
}

/** Powertools' own line layout, with the running request's keys. */
class RequestLogFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const context = attributes.lambdaContext;
    return new LogItem({
      attributes: {
        level: attributes.logLevel,
        message: attributes.message,
        timestamp: this.formatTimestamp(attributes.timestamp),
        service: attributes.serviceName,
        cold_start: context?.coldStart,
        function_arn: context?.invokedFunctionArn,
        function_memory_size: context?.memoryLimitInMB,
        function_name: context?.functionName,
        function_request_id: context?.awsRequestId,
        sampling_rate: attributes.sampleRateValue,
        xray_trace_id: attributes.xRayTraceId,
        ...Object.fromEntries(Object.entries(requests.getStore() ?? {}).filter(([, v]) => v !== undefined)),
      },
    }).addAttributes(additional);
  }
}

export const logger = new Logger({ logFormatter: new RequestLogFormatter() });
