/**
 * The horizon job's Lambda handler (contract §13), invoked once a day by an EventBridge Scheduler schedule (infra/stack.ts).
 * It is not behind the HTTP API. A failure throws, so the schedule retries it and, after its retries, the invocation lands
 * in the schedule's dead-letter queue.
 */
import type { Context } from 'aws-lambda';
import { runHorizonJob, type HorizonReport } from '../lib/events/horizon.js';
import { indexState } from '../lib/events/index-state.js';
import { repairRelocations } from '../lib/geo/relocate.js';
import { repairWordIndex } from '../lib/search/commit.js';
import { observedHandler } from '../lib/observability/handler.js';
import { logger } from '../lib/observability/logger.js';
import { addStoreWork, metrics, MetricUnit } from '../lib/observability/metrics.js';
import { newMeter, runInScope } from '../lib/store/scope.js';

/** Time kept back from the function's limit for the last step's answer. */
const MARGIN_MS = 5_000;

export const handler = observedHandler(async (_event: unknown, context: Context): Promise<HorizonReport> => {
  const deadline = Date.now() + context.getRemainingTimeInMillis() - MARGIN_MS;
  const meter = newMeter();
  try {
    const report = await runInScope({ meter, deadline }, () => runHorizonJob());
    // Venue moves whose requests died before moving every event (lib/geo/relocate.ts); venue writes finish them too.
    const moves = await runInScope({ meter, deadline }, () => repairRelocations(100));
    // Search-index changes whose requests died between chunks (lib/search/commit.ts); the events' next writes finish them too.
    const indexed = await runInScope({ meter, deadline }, () => repairWordIndex(indexState, 100));
    metrics.addMetric('VenueMovesFinished', MetricUnit.Count, moves);
    metrics.addMetric('SearchIndexChangesFinished', MetricUnit.Count, indexed);
    metrics.addMetric('SeriesExtended', MetricUnit.Count, report.extended);
    metrics.addMetric('RegenerationsFinished', MetricUnit.Count, report.finished);
    metrics.addMetric('SeriesLeft', MetricUnit.Count, report.left);
    logger.info('horizon job done', { ...report });
    return report;
  } finally {
    addStoreWork(meter); // a failed run's work too
  }
});
