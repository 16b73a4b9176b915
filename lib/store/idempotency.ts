/**
 * Where idempotent creates keep their first answers (contract §17): Powertools for AWS Lambda's DynamoDB persistence
 * layer, in the service's own table (PK `IDEMPOTENCY`, SK `create#<hash of user and key>`), expiring through the
 * table's TTL attribute 24 hours after the request. Its conditional put lets exactly one of concurrent requests with
 * one key take it, and lets a request take over a key whose first request died (its in-progress mark lapses at that
 * request's time limit). Keys and costs: lib/store/README.md "Idempotency keys".
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { db, table } from './client.js';
import { TABLE } from './table.js';

/** How long a key's first answer is replayed. */
export const IDEMPOTENCY_SECONDS = 24 * 60 * 60;

/** What identifies a key (who sent it, and the key) and what a repeat must match (the request's hash). */
export type IdempotentRequest = {
  key: string;
  request: string;
};

/** One caller's key (its holder is the caller's token subject) and the hash of the request it was sent with. */
export const idempotentRequest = (sub: string, key: string, request: string): IdempotentRequest =>
  ({ key: JSON.stringify([sub, key]), request });

let layer: DynamoDBPersistenceLayer | null = null;

export const idempotencyStore = (): DynamoDBPersistenceLayer => (layer ??= newIdempotencyStore(table(), db() as never));

/** The persistence layer over a table and client (tests reach the local table with it, as a request would). */
export function newIdempotencyStore(tableName: string, client: DynamoDBClient): DynamoDBPersistenceLayer {
  const store = new DynamoDBPersistenceLayer({
    tableName,
    keyAttr: TABLE.partitionKey,
    sortKeyAttr: TABLE.sortKey,
    staticPkValue: 'IDEMPOTENCY',
    expiryAttr: TABLE.ttlAttribute,
    awsSdkV3Client: client,
  });
  store.configure({
    config: new IdempotencyConfig({ eventKeyJmesPath: 'key', payloadValidationJmesPath: 'request', expiresAfterSeconds: IDEMPOTENCY_SECONDS }),
    // One prefix for every function: a key reused on another collection is the same key (422, not a second create).
    keyPrefix: 'create',
  });
  return store;
}

/** Tests that change the table or the client start again. */
export const resetIdempotencyStore = (): void => {
  layer = null;
};
