/**
 * Stands in for `@smithy/core/event-streams` in the Lambda bundles (infra/bundling.ts): the AWS SDK loads that module
 * only for operations that stream events, which DynamoDB's and Lambda's calls made here never do; it would add about
 * 15 KB to every bundle. Anything that reached it would fail loudly.
 */
const unused = (): never => {
  throw new Error('event streams are not bundled (lib/aws/no-event-streams.ts)');
};

export class EventStreamSerde {
  constructor() {
    unused();
  }
}
export const eventStreamSerdeProvider = unused;
/** Client configuration without an event-stream marshaller (only streaming operations use one). */
export const resolveEventStreamSerdeConfig = <T>(input: T): T => input;
