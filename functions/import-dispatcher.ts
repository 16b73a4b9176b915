/**
 * The import dispatcher (contract §20), invoked every five minutes by an EventBridge Scheduler schedule: it queues the
 * runs of scheduled imports whose time has come and hands the worker the imports whose work stalled
 * (lib/imports/dispatch.ts). Idempotent, so the schedule's retries are safe.
 */
import type { Context } from 'aws-lambda';
import { dispatchImports, type Dispatched } from '../lib/imports/dispatch.js';
import { observedHandler } from '../lib/observability/handler.js';
import { logger } from '../lib/observability/logger.js';
import { addStoreWork, metrics, MetricUnit } from '../lib/observability/metrics.js';
import { newMeter, runInScope } from '../lib/store/scope.js';

export const handler = observedHandler(async (_event: unknown, context: Context): Promise<Dispatched> => {
  const meter = newMeter();
  try {
    const out = await runInScope({ meter, deadline: Date.now() + context.getRemainingTimeInMillis() - 2_000 }, () => dispatchImports());
    metrics.addMetric('ImportRunsScheduled', MetricUnit.Count, out.scheduled);
    metrics.addMetric('ImportRunsResumed', MetricUnit.Count, out.resumed);
    if (out.scheduled || out.resumed) logger.info('imports dispatched', { ...out });
    return out;
  } finally {
    addStoreWork(meter);
  }
});
