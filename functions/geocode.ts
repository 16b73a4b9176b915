/**
 * Lambda handler fed by the table's stream with `-c geocoding=true` (the event source's filter passes venue records
 * whose coordinates no client set): geocodes each venue that is due through the stack's place index
 * (lib/geo/geocode.ts). A record whose venue could not be handled (Amazon Location or DynamoDB failing) is reported as
 * the batch's failure, so the stream hands it (and those after it) over again; handling a record twice is harmless.
 */
import { LocationClient } from '@aws-sdk/client-location';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { geocodeVenue, needsGeocoding } from '../lib/geo/geocode.js';
import { placeIndexGeocoder } from '../lib/geo/place-index.js';
import { observedHandler } from '../lib/observability/handler.js';
import { logger } from '../lib/observability/logger.js';
import { addStoreWork, metrics, MetricUnit } from '../lib/observability/metrics.js';
import { traced } from '../lib/observability/tracer.js';
import { newMeter, runInScope } from '../lib/store/scope.js';

/** Time kept back from the function's limit. */
const MARGIN_MS = 2_000;

let client: LocationClient | null = null;

/** Metrics: VenuesPlaced, VenuesUnplaced (an address Amazon Location could not place). */
export const handler = observedHandler(async (event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> => {
  client ??= traced(new LocationClient({}));
  const geocode = placeIndexGeocoder(client, process.env.CALENDAR_PLACE_INDEX ?? '');
  const deadline = Date.now() + context.getRemainingTimeInMillis() - MARGIN_MS;
  const meter = newMeter();
  const counts = { placed: 0, unplaced: 0, skipped: 0 };
  try {
    for (const record of event.Records) {
      const image = record.dynamodb?.NewImage;
      if (!image) continue;
      const item = unmarshall(image as Record<string, AttributeValue>);
      if (!needsGeocoding(item)) continue;
      try {
        counts[await runInScope({ meter, deadline }, () => geocodeVenue(Number(item.id), geocode))]++;
      } catch (e) {
        logger.error('a venue was not geocoded; the stream hands it and the records after it over again', { venue: Number(item.id),
          error: e as Error });
        return { batchItemFailures: [{ itemIdentifier: record.dynamodb!.SequenceNumber! }] };
      }
    }
    return { batchItemFailures: [] };
  } finally {
    metrics.addMetric('VenuesPlaced', MetricUnit.Count, counts.placed);
    metrics.addMetric('VenuesUnplaced', MetricUnit.Count, counts.unplaced);
    addStoreWork(meter);
  }
});
