/**
 * A per-request meter of DynamoDB requests and consumed capacity. The document client (client.ts) records every
 * call into the meter of the request it runs for; benchmarks and tests read it. No AWS SDK here, so code that
 * never talks to DynamoDB (the root function) can run requests under a meter without bundling the SDK.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Meter {
  requests: number;
  readUnits: number;
  writeUnits: number;
  /** Items DynamoDB evaluated (Query ScannedCount, BatchGet/Get items returned). */
  itemsRead: number;
  /** TransactWriteItems requests (among `requests`). */
  transactions: number;
}

const meters = new AsyncLocalStorage<Meter>();

export const newMeter = (): Meter => ({ requests: 0, readUnits: 0, writeUnits: 0, itemsRead: 0, transactions: 0 });
/** Runs fn with a fresh meter; every DynamoDB call inside it is counted there. */
export const withMeter = <T>(meter: Meter, fn: () => Promise<T>): Promise<T> => meters.run(meter, fn);

export const currentMeter = (): Meter | undefined => meters.getStore();
