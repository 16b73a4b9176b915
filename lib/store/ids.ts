import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from './client.js';
import { counterKey } from './keys.js';

export type Counter = 'post' | 'term' | 'user' | 'ticket' | 'attendee' | 'import';

/**
 * Allocates `count` consecutive ids from an atomic counter in one request: `ADD n :count` returns the last id of
 * the block (UpdateItem, strongly consistent, no read). Events, venues and organizers share the "post" counter as
 * in the origin; terms and users have their own. A create that fails after allocation leaves a gap, which is harmless.
 */
export async function nextIds(name: Counter, count: number): Promise<number[]> {
  if (count <= 0) return [];
  const out = await db().send(new UpdateCommand({
    TableName: table(),
    Key: counterKey(name),
    UpdateExpression: 'ADD #n :count',
    ExpressionAttributeNames: { '#n': 'n' },
    ExpressionAttributeValues: { ':count': count },
    ReturnValues: 'UPDATED_NEW',
  }));
  const last = Number(out.Attributes!.n);
  return Array.from({ length: count }, (_, i) => last - count + 1 + i);
}

export const nextId = async (name: Counter): Promise<number> => (await nextIds(name, 1))[0]!;

/**
 * The ids one write request has allocated. A request that plans again (after a lost race) gets the same ids
 * back in the same order, so a retried create keeps its id; ids it no longer needs are left as a gap.
 */
export class IdPool {
  private readonly allocated: Record<Counter, number[]> = { post: [], term: [], user: [], ticket: [], attendee: [], import: [] };
  private readonly used: Record<Counter, number> = { post: 0, term: 0, user: 0, ticket: 0, attendee: 0, import: 0 };

  /** `count` ids: those given back by restart() first, then one new block (at most one request per call). */
  async take(name: Counter, count: number): Promise<number[]> {
    const have = this.allocated[name];
    const missing = this.used[name] + count - have.length;
    if (missing > 0) have.push(...(await nextIds(name, missing)));
    const out = have.slice(this.used[name], this.used[name] + count);
    this.used[name] += count;
    return out;
  }

  /** A new planning pass: every id handed out so far is available again, in the same order. */
  restart(): void {
    this.used.post = this.used.term = this.used.user = 0;
  }
}
