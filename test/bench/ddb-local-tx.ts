/**
 * How DynamoDB Local spends its time on writes (test/bench/README.md "Writes"): `node --import tsx
 * test/bench/ddb-local-tx.ts` times TransactWriteItems of 25 one-attribute updates, BatchWriteItem of 25 puts and single
 * UpdateItem calls, one at a time and 8 in flight, against a fresh in-memory DynamoDB Local. It shows why a save's
 * rate on the local server follows the items its transactions write: DynamoDB Local applies transactions one at a
 * time, at about 0.7–1 ms per item, however many are in flight.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable, startDynamoDbLocal } from '../../lib/local/dynamodb-local.js';

const TABLE = 'ddb-local-tx';
const local = await startDynamoDbLocal({ dataDir: ':memory:' });
const raw = new DynamoDBClient({ endpoint: local.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
await ensureTable(raw, TABLE);
const doc = DynamoDBDocumentClient.from(raw);
let seq = 0;
const update = (pk: string) => ({ TableName: TABLE, Key: { PK: pk, SK: 'a' }, UpdateExpression: 'ADD #a :one',
  ExpressionAttributeNames: { '#a': 'x' }, ExpressionAttributeValues: { ':one': 1 } });
const kinds: [string, number, () => Promise<unknown>][] = [
  ['TransactWriteItems, 25 updates', 25, () => doc.send(new TransactWriteCommand({ TransactItems: Array.from({ length: 25 }, () => ({ Update: update(`t${seq++}`) })) }))],
  ['BatchWriteItem, 25 puts', 25, () => doc.send(new BatchWriteCommand({ RequestItems: { [TABLE]: Array.from({ length: 25 }, () => ({ PutRequest: { Item: { PK: `b${seq++}`, SK: 'a', x: 1 } } })) } }))],
  ['UpdateItem', 1, () => doc.send(new UpdateCommand(update(`u${seq++}`)))],
];
try {
  for (const round of ['warm-up', 'measured']) {
    for (const [name, items, call] of kinds) {
      for (const inFlight of [1, 8]) {
        const calls = items > 1 ? 40 : 300;
        let next = 0;
        const t0 = performance.now();
        await Promise.all(Array.from({ length: inFlight }, async () => {
          while (next++ < calls) await call();
        }));
        const ms = (performance.now() - t0) / calls;
        if (round === 'measured') console.log(`${name}, ${inFlight} in flight: ${ms.toFixed(2)} ms per call, ${(ms / items).toFixed(2)} ms per item`);
      }
    }
  }
} finally {
  raw.destroy();
  await local.stop();
}
