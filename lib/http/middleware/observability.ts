/**
 * Logs, metrics and traces of every request (lib/observability): Powertools' own middlewares around the function's
 * Logger, Metrics and (when tracing is on) Tracer, and this pipeline's per-request figures, taken once the response is
 * final — so they are the outermost steps. `routeKeys` follows routing and adds the matched route to every later line.
 *
 * Metrics of a request (dimension `service`): Requests, ClientErrors and ServerErrors (0 or 1, so their average is
 * the rate), DynamoDBRequests, ReadUnits and WriteUnits; and Errors with the one dimension `code` (the contract's
 * error code, a fixed set written in the code, never a client's value).
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { addRequestKeys, logger, type RequestKeys } from '../../observability/logger.js';
import { addStoreWork, metrics, MetricUnit } from '../../observability/metrics.js';
import { tracingMiddleware } from '../../observability/tracer.js';
import { currentMeter } from '../../store/scope.js';
import type { HttpResult } from '../response.js';
import { stateOf, type Middleware, type PipelineRequest } from './state.js';

/** The keys every line of a request carries from its start (lib/observability/logger.ts). */
export const requestKeysOf = (event: APIGatewayProxyEventV2, context: Context | undefined): RequestKeys => ({
  request_id: event.requestContext?.requestId,
  function_request_id: context?.awsRequestId,
  function_name: context?.functionName,
});

/** An error code as a dimension: the codes the service writes are lower-case words joined by _ or -. */
const CODE = /^[a-z][a-z_-]{0,63}$/;

function errorCode(response: HttpResult): string {
  try {
    const code = (JSON.parse(response.body ?? '') as { code?: unknown }).code;
    return typeof code === 'string' && CODE.test(code) ? code : 'unknown';
  } catch {
    return 'unknown';
  }
}

const started = new WeakMap<APIGatewayProxyEventV2, number>();

function record(request: PipelineRequest): void {
  const response = request.response;
  const status = response?.statusCode ?? 500;
  metrics.addMetric('Requests', MetricUnit.Count, 1);
  metrics.addMetric('ClientErrors', MetricUnit.Count, status >= 400 && status < 500 ? 1 : 0);
  metrics.addMetric('ServerErrors', MetricUnit.Count, status >= 500 ? 1 : 0);
  const meter = currentMeter();
  if (meter) addStoreWork(meter);
  if (status >= 400) {
    const code = response ? errorCode(response) : 'rest_internal_error';
    // By code alone, not per function: one billed metric per code the service answers, however many functions say it.
    const errors = metrics.singleMetric();
    errors.clearDefaultDimensions();
    errors.addDimension('code', code).addMetric('Errors', MetricUnit.Count, 1);
  }
  const { line } = stateOf(request.event);
  logger.info('request answered', {
    method: line?.method, path: line?.path, status,
    duration_ms: Date.now() - (started.get(request.event) ?? Date.now()),
    ...(meter ? { dynamodb: { requests: meter.requests, read_units: meter.readUnits, write_units: meter.writeUnits } } : {}),
  });
}

const requestFigures = (): Middleware => ({
  before: (request) => {
    started.set(request.event, Date.now());
  },
  after: record,
  onError: record,
});

/** The outermost steps: Lambda context for the logger, the cold start metric, the handler's trace segment, the figures. */
export function observability(): Middleware[] {
  const tracing = tracingMiddleware() as Middleware | null;
  return [
    injectLambdaContext(logger),
    logMetrics(metrics, { captureColdStartMetric: true }),
    ...(tracing ? [tracing] : []),
    requestFigures(),
  ];
}

/** Right after routing: the matched route and operation on every later line. */
export const routeKeys = (): Middleware => ({
  before: (request) => {
    const { match } = stateOf(request.event);
    if (match) addRequestKeys({ route: match.route.path, operation: match.operation.id });
  },
});
