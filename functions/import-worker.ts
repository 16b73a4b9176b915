/**
 * The import worker (contract §20): fed by the stack's import queue, each message names an import with work to do — a
 * queued run, a run whose worker died, a deleted import to remove — and the run item decides what (lib/imports/run.ts).
 * A run near the function's time limit gives its lease up and queues the rest; a failure (the store, the service) fails
 * the message, which SQS delivers again and, after its retries, moves to the dead-letter queue.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { WorkerMessage } from '../lib/imports/queue.js';
import { runImport } from '../lib/imports/run.js';
import { observedHandler } from '../lib/observability/handler.js';
import { logger } from '../lib/observability/logger.js';
import { addStoreWork, metrics, MetricUnit } from '../lib/observability/metrics.js';
import { newMeter, runInScope } from '../lib/store/scope.js';

/** Time kept back from the function's limit for the last answer. */
const MARGIN_MS = 5_000;

export const handler = observedHandler(async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  const deadline = Date.now() + context.getRemainingTimeInMillis() - MARGIN_MS;
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  const meter = newMeter();
  try {
    for (const record of event.Records) {
      let id: number;
      try {
        id = Number((JSON.parse(record.body) as WorkerMessage).import);
      } catch {
        id = Number.NaN;
      }
      if (!Number.isSafeInteger(id) || id < 1) {
        logger.error('an import queue message without an import id', { messageId: record.messageId });
        continue;
      }
      try {
        const outcome = await runInScope({ meter, deadline }, () => runImport(id, deadline));
        metrics.addMetric(outcome === 'failed' ? 'ImportRunsFailed' : outcome === 'done' ? 'ImportRunsDone' : 'ImportTurns', MetricUnit.Count, 1);
      } catch (error) {
        logger.error('an import run stopped; it is taken up again', { import: id, error: error as Error });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
  } finally {
    addStoreWork(meter);
  }
  return { batchItemFailures: failures };
});
