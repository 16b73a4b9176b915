/**
 * The DynamoDB document client, created once per cold start. Every call is metered (lib/store/scope.ts), bounded by
 * the request's deadline, and its failures that mean "unavailable" (throttling after the
 * SDK's retries, 5xx, network errors, timeouts) become StoreUnavailable, flagged when a write's outcome is unknown.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.js';
import { traced } from '../observability/tracer.js';
import { unavailability } from './errors.js';
import { currentMeter, deadlineSignal } from './scope.js';

type Capacity = { CapacityUnits?: number };

const READS = new Set(['GetCommand', 'BatchGetCommand', 'QueryCommand', 'GetItemCommand', 'BatchGetItemCommand', 'QueryItemCommand']);

function record(command: string, output: Record<string, unknown>): void {
  const meter = currentMeter();
  if (!meter) return;
  meter.requests += 1;
  if (command === 'TransactWriteCommand' || command === 'TransactWriteItemsCommand') meter.transactions += 1;
  const consumed = output.ConsumedCapacity as Capacity | Capacity[] | undefined;
  const units = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
  if (READS.has(command)) meter.readUnits += units;
  else meter.writeUnits += units;
  const scanned = output.ScannedCount as number | undefined;
  if (scanned !== undefined) meter.itemsRead += scanned;
  else if (output.Item) meter.itemsRead += 1;
  else if (output.Responses && !Array.isArray(output.Responses)) {
    for (const items of Object.values(output.Responses as Record<string, unknown[]>)) meter.itemsRead += items.length;
  }
}

let client: DynamoDBDocumentClient | null = null;

export function db(): DynamoDBDocumentClient {
  if (client) return client;
  const base = traced(new DynamoDBClient({
    maxAttempts: 3,
    // A call that hangs is abandoned at the request's deadline (deadlineSignal below). The SDK only logs a call slower
    // than requestTimeout: a slow answer is still an answer, and only the deadline decides that there is none.
    requestHandler: { connectionTimeout: 1000, requestTimeout: 2000 },
  }));
  const doc = DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const command = String(context.commandName);
      try {
        const result = await next(args);
        record(command, result.output as Record<string, unknown>);
        return result;
      } catch (e) {
        throw unavailability(e, !READS.has(command)) ?? e;
      }
    },
    { step: 'initialize', name: 'calendarMeter' },
  );
  // Every call carries the request's deadline signal unless the caller passes its own options.
  const send = doc.send.bind(doc) as (command: unknown, options?: unknown) => Promise<unknown>;
  (doc as { send: (command: unknown, options?: unknown) => Promise<unknown> }).send = (command, options) =>
    send(command, options ?? { abortSignal: deadlineSignal() });
  client = doc;
  return client;
}

export const table = (): string => config().tableName;

/** Tests swap in a client (e.g. aws-sdk-client-mock) or reset after changing the environment. */
export const setClient = (c: DynamoDBDocumentClient | null): void => {
  client = c;
};
