/**
 * The DynamoDB document client, created once per cold start, plus a per-request meter of DynamoDB requests
 * and consumed capacity (benchmarks and tests read it; ReturnConsumedCapacity is set on every call).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.js';
import { currentMeter } from './meter.js';

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
  const base = new DynamoDBClient({ maxAttempts: 3 });
  client = DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const result = await next(args);
      record(String(context.commandName), result.output as Record<string, unknown>);
      return result;
    },
    { step: 'initialize', name: 'calendarMeter' },
  );
  return client;
}

export const table = (): string => config().tableName;

/** Tests swap in a client (e.g. aws-sdk-client-mock) or reset after changing the environment. */
export const setClient = (c: DynamoDBDocumentClient | null): void => {
  client = c;
};
