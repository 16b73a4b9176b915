/**
 * Indexing the events of a table written before the word index's present layout (lib/search/README.md "Tables written
 * before"): every listed event whose record does not say that the index holds its words by INDEX_RULES is indexed as
 * a write of it would, through the same plan, on its version. The local server runs it at start when the table's
 * marker item says the layout changed; a deployed table runs `npm run search:reindex` once after deploying.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from '../store/client.js';
import { readMeta } from '../store/events.js';
import { eventYearPartition, postKey } from '../store/keys.js';
import { commit, rewriteItem } from '../store/kit.js';
import { batchGet, getItem, getPost } from '../store/records.js';
import { retryConflicts } from '../store/retry.js';
import { isEvent } from './record.js';
import { INDEX_RULES, planWords } from './words.js';

const LAYOUT_KEY = { PK: 'META', SK: 'WORDINDEX' };

/** Whether the table's events were last indexed by the present rules (a new table: no events to index). */
export async function wordIndexCurrent(): Promise<boolean> {
  return (await getItem(LAYOUT_KEY, true))?.rules === INDEX_RULES;
}

/** Indexes one event by the present rules, unless a write did meanwhile. */
async function reindexOne(id: number): Promise<boolean> {
  return retryConflicts(async () => {
    const prev = await getPost(id, true);
    if (!isEvent(prev) || prev.ws === INDEX_RULES) return false;
    const plan = await planWords(prev, prev, 99);
    const stored = plan.record(prev);
    await plan.commit(() => commit([rewriteItem(postKey(id), prev, stored, prev.v), ...plan.items], { ownFirst: true }));
    return true;
  });
}

/** Indexes every listed event not yet indexed by the present rules, then notes the layout. Returns how many it indexed. */
export async function reindexEvents(onProgress?: (done: number) => void): Promise<number> {
  let done = 0;
  for (const year of (await readMeta()).years) {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await db().send(new QueryCommand({ TableName: table(), IndexName: 'byStart', KeyConditionExpression: 'GSI2PK = :pk',
        ExpressionAttributeValues: { ':pk': eventYearPartition(year) }, ProjectionExpression: 'PK, SK', ExclusiveStartKey }));
      const ids = (page.Items ?? []).map((i) => Number(String(i.PK).slice('POST#'.length)));
      const records = await batchGet(ids.map(postKey), ['ws', 'kind']);
      for (const r of records) {
        if (r.kind === 'event' && r.ws !== INDEX_RULES && await reindexOne(Number(String(r.PK).slice('POST#'.length)))) onProgress?.(++done);
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }
  await db().send(new UpdateCommand({ TableName: table(), Key: LAYOUT_KEY, UpdateExpression: 'SET #r = :r', ExpressionAttributeNames: { '#r': 'rules' },
    ExpressionAttributeValues: { ':r': INDEX_RULES } }));
  return done;
}
