/** Records by slug: the bySlug index answers in one request; a miss is confirmed on the guard item. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from './client.js';
import { postKey, slugIndexKey, slugKey, termKey, type PostKind, type Taxonomy } from './keys.js';
import { getItem, type Item } from './records.js';
import { MAX_SLUG_CHARS } from './refs.js';

export async function findBySlug(kind: PostKind | Taxonomy, slug: string, consistent = false): Promise<Item | null> {
  if ([...slug].length > MAX_SLUG_CHARS) return null; // longer than any stored slug (and than a key may be)
  if (!consistent) {
    const out = await db().send(new QueryCommand({
      TableName: table(),
      IndexName: 'bySlug',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': slugIndexKey(kind, slug) },
      Limit: 1,
    }));
    if (out.Items?.[0]) return out.Items[0];
  }
  // The index is eventually consistent: a record renamed a moment ago is found through its guard item.
  const guard = await getItem(slugKey(kind, slug), true);
  if (!guard) return null;
  const id = guard.id as number;
  return getItem(kind === 'category' || kind === 'tag' ? termKey(id) : postKey(id), consistent);
}
