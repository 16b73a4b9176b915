import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from './client.js';
import { counterKey } from './keys.js';

/**
 * Allocates the next id from an atomic counter (UpdateItem ADD, strongly consistent, no read).
 * Events, venues and organizers share the "post" counter as in the origin; terms and users have their own.
 * A create that fails after allocation leaves a gap, which is harmless.
 */
export async function nextId(name: 'post' | 'term' | 'user'): Promise<number> {
  const out = await db().send(new UpdateCommand({
    TableName: table(),
    Key: counterKey(name),
    UpdateExpression: 'ADD #n :one',
    ExpressionAttributeNames: { '#n': 'n' },
    ExpressionAttributeValues: { ':one': 1 },
    ReturnValues: 'UPDATED_NEW',
  }));
  return Number(out.Attributes!.n);
}
