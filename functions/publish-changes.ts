/**
 * Lambda handler fed by the table's stream (only new change-log entries reach it: the event source's filter): publishes
 * each as an EventBridge event (lib/changes/events.ts), ten per PutEvents. A record whose event was refused is reported
 * as the batch's failure, so the stream hands it (and those after it) over again; events are published at least once.
 */
import { EventBridgeClient, PutEventsCommand, type PutEventsCommandOutput, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { changeEvent } from '../lib/changes/events.js';
import { observedHandler } from '../lib/observability/handler.js';
import { logger } from '../lib/observability/logger.js';
import { metrics, MetricUnit } from '../lib/observability/metrics.js';
import { traced } from '../lib/observability/tracer.js';
import { entryOf } from '../lib/store/changes.js';

let client: EventBridgeClient | null = null;
/** Tests hand in a client of their own. */
export const setEventBridgeClient = (c: EventBridgeClient | null): void => {
  client = c;
};

async function put(eventBridge: EventBridgeClient, entries: PutEventsRequestEntry[]): Promise<PutEventsCommandOutput | null> {
  try {
    return await eventBridge.send(new PutEventsCommand({ Entries: entries }));
  } catch (e) {
    logger.error('PutEvents failed', { error: e as Error });
    return null;
  }
}

/** Metrics: EventsPublished (accepted by EventBridge), EventsFailed (handed back to the stream: refused, or after a refused one). */
export const handler = observedHandler(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  let published = 0;
  try {
    return await publish(event, (n) => (published += n));
  } finally {
    metrics.addMetric('EventsPublished', MetricUnit.Count, published);
  }
});

async function publish(event: DynamoDBStreamEvent, count: (published: number) => void): Promise<DynamoDBBatchResponse> {
  const bus = process.env.CALENDAR_CHANGE_BUS ?? 'default';
  const apiUrl = process.env.CALENDAR_API_URL ?? '';
  const pending: { sequence: string; entry: PutEventsRequestEntry }[] = [];
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image) continue;
    const item = unmarshall(image as Record<string, AttributeValue>);
    if (!String(item.PK).startsWith('CHG#')) continue;
    const published = changeEvent(entryOf(item), bus, apiUrl);
    if (published) pending.push({ sequence: record.dynamodb!.SequenceNumber!, entry: published });
  }
  client ??= traced(new EventBridgeClient({}));
  for (let i = 0; i < pending.length; i += 10) {
    const batch = pending.slice(i, i + 10);
    const out = await put(client, batch.map((p) => p.entry));
    const failed = out ? batch.findIndex((_, j) => out.Entries?.[j]?.ErrorCode) : 0;
    count(failed >= 0 ? failed : batch.length);
    // The first refused event and everything after it is handed over again (in order).
    if (failed >= 0) {
      const handedBack = pending.length - i - failed;
      metrics.addMetric('EventsFailed', MetricUnit.Count, handedBack);
      logger.warn('an event was not published; the stream hands it and those after it over again', { handed_back: handedBack,
        error_code: out?.Entries?.[failed]?.ErrorCode });
      return { batchItemFailures: [{ itemIdentifier: batch[failed]!.sequence }] };
    }
  }
  return { batchItemFailures: [] };
}
