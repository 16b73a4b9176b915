/**
 * An import's batches overlap (lib/imports/write.ts): a batch's folded search index change is applied while the next
 * batch is written, one batch's change at a time and in order, and `indexed` waits for the last. Through the real event
 * handlers on the harness's DynamoDB, with the first batch's index transaction held back until the second batch is written.
 */
import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Caller } from '../../lib/auth/caller.js';
import { ownerApi } from '../../lib/imports/api.js';
import { type EventWrite, indexed, writeSourceEvents, type Writer } from '../../lib/imports/write.js';
import { useOwnTable } from '../support/own-table.js';

describe('an import\'s batches, their search index applied while the next is written (real DynamoDB)', () => {
  /** The events whose postings each index transaction wrote, in the order they were sent. */
  const indexWrites: number[][] = [];
  /** While set, index transactions wait for it. */
  let gate: Promise<void> | null = null;
  const { table, real } = useOwnTable('import-batches', (doc) => {
    const client = Object.create(doc) as DynamoDBDocumentClient;
    client.send = (async (command: Parameters<typeof doc.send>[0]) => {
      if (command instanceof TransactWriteCommand) {
        const events = (command.input.TransactItems ?? []).flatMap((t) => (String(t.Update?.Key?.PK ?? '').startsWith('W1#')
          ? Object.values(t.Update?.ExpressionAttributeNames ?? {}).flatMap((n) => (/^e\d+$/.test(n) ? [Number(n.slice(1))] : [])) : []));
        if (events.length) {
          indexWrites.push([...new Set(events)]);
          await gate;
        }
      }
      return doc.send(command as never);
    }) as typeof doc.send;
    return client;
  });
  const owner: Caller = { sub: 'import-batches-editor', role: 'editor', username: 'import-batches-editor' };
  const api = () => ownerApi(owner, 'en', Date.now() + 60_000);
  const batch = (word: string): EventWrite[] => Array.from({ length: 3 }, (_, i) => ({ op: 'create', key: `uid:${word}-${i}`,
    ref: `import-1-1-${randomUUID()}`, occurrences: [], fields: { title: `${word} ${i}`, start_date: `2034-04-1${i} 10:00:00`,
      end_date: `2034-04-1${i} 11:00:00`, timezone: 'UTC', status: 'publish' } }));
  const eventsOf = (written: Awaited<ReturnType<typeof writeSourceEvents>>): number[] => written.map((w) => (w.ok ? w.event : -1));
  const searched = async (word: string) => {
    const answer = await api().call('GET', '/events', { query: { search: word, start_date: '2034-04-01', end_date: '2034-04-30' } });
    expect(answer.status).toBe(200);
    return { total: answer.body.total, ids: (Array.isArray(answer.body.events) ? answer.body.events : []).map((e) => Number(e.id)).sort((a, b) => a - b) };
  };

  it('writes the next batch while the one before is being indexed, indexes them in order, and `indexed` waits for the last', async () => {
    const writer: Writer = { importId: 1, owner, language: 'en', deadline: Date.now() + 60_000 };
    let open = (): void => undefined;
    gate = new Promise((resolve) => { open = resolve; });
    const first = eventsOf(await writeSourceEvents(writer, batch('quokka')));
    // The first batch's index change is held back: the second batch is written all the same.
    const second = eventsOf(await writeSourceEvents(writer, batch('wombat')));
    expect([...first, ...second].every((id) => id > 0)).toBe(true);
    // Only the first batch's change was sent so far: the second waits for it.
    expect(indexWrites.flat().every((id) => first.includes(id))).toBe(true);
    // Searches are exact meanwhile (they read the events in flight from their records).
    expect(await searched('wombat')).toEqual({ total: 3, ids: [...second].sort((a, b) => a - b) });
    gate = null;
    open();
    await indexed(writer);
    const order = indexWrites.flat();
    expect(order.lastIndexOf(first[0]!)).toBeLessThan(order.indexOf(second[0]!));
    expect(new Set(order)).toEqual(new Set([...first, ...second]));
    // Nothing is left in flight: every marker and group item is gone, and the postings alone answer the searches.
    const markers = await real.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'WIDX' },
      ConsistentRead: true }));
    expect(markers.Items ?? []).toEqual([]);
    expect(await searched('quokka')).toEqual({ total: 3, ids: [...first].sort((a, b) => a - b) });
    expect(await searched('wombat')).toEqual({ total: 3, ids: [...second].sort((a, b) => a - b) });
  });
});
