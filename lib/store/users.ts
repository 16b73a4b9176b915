/** Stable integer user ids per token subject (contract §4). */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from './client.js';
import { nextId } from './ids.js';
import { userIdKey, userKey } from './keys.js';

/** Subjects seen by this process (bounded: a warm function serves many users over its life). */
const known = new Map<string, number>();
const KNOWN_MAX = 10_000;
const remember = (sub: string, id: number): void => {
  if (known.size >= KNOWN_MAX) known.delete(known.keys().next().value!);
  known.set(sub, id);
};

export async function userIdForSub(sub: string): Promise<number> {
  const cached = known.get(sub);
  if (cached !== undefined) return cached;
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = await db().send(new GetCommand({ TableName: table(), Key: userKey(sub), ConsistentRead: true }));
    if (found.Item) {
      remember(sub, found.Item.id as number);
      return found.Item.id as number;
    }
    const id = await nextId('user');
    try {
      await db().send(new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table(), Item: { ...userKey(sub), id }, ConditionExpression: 'attribute_not_exists(PK)' } },
          { Put: { TableName: table(), Item: { ...userIdKey(id), sub }, ConditionExpression: 'attribute_not_exists(PK)' } },
        ],
      }));
      remember(sub, id);
      return id;
    } catch (e) {
      if ((e as Error).name !== 'TransactionCanceledException') throw e;
      // Another request registered this subject first: read its id on the next pass.
    }
  }
  throw new Error(`could not register user ${sub}`);
}

/** The id of a subject seen before; null for one never seen (who is then the author of nothing). Never writes. */
export async function knownUserId(sub: string): Promise<number | null> {
  const cached = known.get(sub);
  if (cached !== undefined) return cached;
  const found = await db().send(new GetCommand({ TableName: table(), Key: userKey(sub), ConsistentRead: true }));
  if (!found.Item) return null;
  remember(sub, found.Item.id as number);
  return found.Item.id as number;
}

export async function userExists(id: number): Promise<boolean> {
  const out = await db().send(new GetCommand({ TableName: table(), Key: userIdKey(id), ProjectionExpression: 'PK' }));
  return Boolean(out.Item);
}
