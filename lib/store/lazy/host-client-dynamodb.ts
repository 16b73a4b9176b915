/**
 * Stands in for @aws-sdk/client-dynamodb inside the idempotency side bundle (infra/bundling.ts): the persistence layer
 * sends its commands through the function's own client and recognises a failed condition with `instanceof`, so it
 * must use the handler's copy of the SDK, not one of its own. The stand-in in the handler (./idempotency.ts) hands
 * the classes over before anything in the side bundle runs.
 */
import type * as Sdk from '@aws-sdk/client-dynamodb';

export type HostClientDynamoDB = Pick<typeof Sdk, 'ConditionalCheckFailedException' | 'DeleteItemCommand' | 'DynamoDBClient'
  | 'GetItemCommand' | 'PutItemCommand' | 'UpdateItemCommand'>;

// Live bindings: the bundled persistence layer reads them when it runs, after useHostClientDynamoDB().
export let ConditionalCheckFailedException: HostClientDynamoDB['ConditionalCheckFailedException'];
export let DeleteItemCommand: HostClientDynamoDB['DeleteItemCommand'];
export let DynamoDBClient: HostClientDynamoDB['DynamoDBClient'];
export let GetItemCommand: HostClientDynamoDB['GetItemCommand'];
export let PutItemCommand: HostClientDynamoDB['PutItemCommand'];
export let UpdateItemCommand: HostClientDynamoDB['UpdateItemCommand'];

export function useHostClientDynamoDB(host: HostClientDynamoDB): void {
  ({ ConditionalCheckFailedException, DeleteItemCommand, DynamoDBClient, GetItemCommand, PutItemCommand, UpdateItemCommand } = host);
}
