/**
 * The one Metrics instance of a function (Powertools, CloudWatch embedded metric format): namespace
 * POWERTOOLS_METRICS_NAMESPACE (default CalendarEventsApi), dimension `service` = POWERTOOLS_SERVICE_NAME (the
 * function's group). POWERTOOLS_METRICS_DISABLED=true turns the output off (the local server does).
 *
 * Every dimension value is a billed metric of its own: only bounded values (service, function name, an error code
 * of the contract) ever become dimensions, never ids, paths or anything a client sends.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

const NAMESPACE = 'CalendarEventsApi';

export const metrics = new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || NAMESPACE });

export { MetricUnit };

/** The DynamoDB work of a request or job, from the store's meter (lib/store/scope.ts). */
export function addStoreWork(meter: { requests: number; readUnits: number; writeUnits: number }): void {
  metrics.addMetric('DynamoDBRequests', MetricUnit.Count, meter.requests);
  metrics.addMetric('ReadUnits', MetricUnit.Count, meter.readUnits);
  metrics.addMetric('WriteUnits', MetricUnit.Count, meter.writeUnits);
}
