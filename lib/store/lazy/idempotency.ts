/**
 * Stands in for @aws-lambda-powertools/idempotency (and its /dynamodb persistence layer) in the Lambda bundles
 * (infra/bundling.ts): only creates sent with an Idempotency-Key use it (lib/http/middleware/idempotency.ts,
 * lib/store/idempotency.ts), so it loads from a file of its own on the first of them, with the handler's own DynamoDB
 * classes handed over (./host-client-dynamodb.ts). Its classes are the side bundle's: what is made here is made by
 * them, and `instanceof` asks them.
 */
import {
  ConditionalCheckFailedException, DeleteItemCommand, DynamoDBClient, GetItemCommand, PutItemCommand, UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type * as Entry from './idempotency-entry.js';
import { lazyModule } from '../../lazy-module.js';

let ready = false;

const real = (): typeof Entry => {
  const lib = lazyModule<typeof Entry>('@aws-lambda-powertools/idempotency');
  if (!ready) {
    lib.useHostClientDynamoDB({ ConditionalCheckFailedException, DeleteItemCommand, DynamoDBClient, GetItemCommand, PutItemCommand,
      UpdateItemCommand });
    ready = true;
  }
  return lib;
};

type Constructor = new (...args: never[]) => object;

/** The side bundle's class of that name (its constructors' parameters differ: each stand-in passes its arguments on). */
const classOf = (name: keyof typeof Entry): Constructor => real()[name] as unknown as Constructor;

/** A class whose `new` makes, and whose `instanceof` asks, the side bundle's class of that name. */
function standIn<K extends keyof typeof Entry>(name: K): (typeof Entry)[K] {
  const target = function (this: unknown, ...args: never[]) {
    return new (classOf(name))(...args);
  };
  Object.defineProperty(target, Symbol.hasInstance, { value: (value: unknown) => value instanceof classOf(name) });
  return target as unknown as (typeof Entry)[K];
}

export const IdempotencyConfig = standIn('IdempotencyConfig');
export const DynamoDBPersistenceLayer = standIn('DynamoDBPersistenceLayer');
export const IdempotencyItemAlreadyExistsError = standIn('IdempotencyItemAlreadyExistsError');
export const IdempotencyValidationError = standIn('IdempotencyValidationError');
/** Read only once the utility is in use (a stored record's status). */
export const IdempotencyRecordStatus = new Proxy({} as (typeof Entry)['IdempotencyRecordStatus'], {
  get: (_, key) => real().IdempotencyRecordStatus[key as keyof (typeof Entry)['IdempotencyRecordStatus']],
});
