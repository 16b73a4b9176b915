/**
 * The part of Powertools' idempotency utility the service uses (with its JMESPath evaluator), bundled as a file of its
 * own for the Lambda functions (infra/bundling.ts). Its DynamoDB classes are the handler's own (./host-client-dynamodb.ts).
 */
export {
  IdempotencyConfig, IdempotencyItemAlreadyExistsError, IdempotencyRecordStatus, IdempotencyValidationError,
} from '@aws-lambda-powertools/idempotency';
export { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
export { useHostClientDynamoDB } from './host-client-dynamodb.js';
