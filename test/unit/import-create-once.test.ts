/**
 * An import's creates happen once for their reference (lib/store/create-once.ts, contract §20 "without duplicates"),
 * through the real event handlers on the harness's DynamoDB: a create sent again answers the event the first send made;
 * so does one whose first send committed while its answer was lost (the worker died just then — the case an
 * Idempotency-Key held "in progress" let through once the hold lapsed); two sends at once make one event.
 */
import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Caller } from '../../lib/auth/caller.js';
import { ownerApi } from '../../lib/imports/api.js';
import { type EventWrite, indexed, writeSourceEvents as writeEvents, type Writer } from '../../lib/imports/write.js';
import { StoreUnavailable } from '../../lib/store/errors.js';
import { useOwnTable } from '../support/own-table.js';

describe('an import create made once for its reference (real DynamoDB)', () => {
  /** When set, the next transaction putting a once-item lands and its answer is lost. */
  let loseNextOnceAnswer = false;
  useOwnTable('create-once', (doc) => {
    const client = Object.create(doc) as DynamoDBDocumentClient;
    client.send = (async (command: Parameters<typeof doc.send>[0]) => {
      const out = await doc.send(command as never);
      const once = command instanceof TransactWriteCommand
        && (command.input.TransactItems ?? []).some((t) => String(t.Put?.Item?.PK ?? '').startsWith('ONCE#'));
      if (once && loseNextOnceAnswer) {
        loseNextOnceAnswer = false;
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      }
      return out;
    }) as typeof doc.send;
    return client;
  });
  const owner: Caller = { sub: 'create-once-editor', role: 'editor', username: 'create-once-editor' };
  const writer = (): Writer => ({ importId: 1, owner, language: 'en', deadline: Date.now() + 60_000 });
  /** One batch of a writer of its own, answered once its search index changes are applied too. */
  const writeSourceEvents = (w: Writer, batch: EventWrite[]) => writeEvents(w, batch).finally(() => indexed(w));
  const create = (ref: string, title: string): EventWrite => ({ op: 'create', key: `uid:${ref}`, ref, occurrences: [],
    fields: { title, start_date: '2034-03-10 10:00:00', end_date: '2034-03-10 11:00:00', timezone: 'UTC', status: 'publish' } });
  /** The ids of the events titled `title`, as the API lists them to the owner. */
  const titled = async (title: string): Promise<number[]> => {
    const answer = await ownerApi(owner, 'en', Date.now() + 60_000).call('GET', '/events', { query: { start_date: '2034-03-01',
      end_date: '2034-03-31', per_page: '50', status: 'publish' } });
    expect(answer.status).toBe(200);
    const events = Array.isArray(answer.body.events) ? answer.body.events : [];
    return events.filter((e) => e.title === title).map((e) => Number(e.id)).sort((a, b) => a - b);
  };

  it('sent again, answers the event the first send made', async () => {
    const ref = `import-1-1-${randomUUID()}`;
    const [first] = await writeSourceEvents(writer(), [create(ref, 'Sent twice')]);
    const [second] = await writeSourceEvents(writer(), [create(ref, 'Sent twice')]);
    expect(first).toMatchObject({ ok: true });
    expect(second).toMatchObject({ ok: true, event: first!.ok ? first!.event : -1, shown: { title: 'Sent twice' } });
    expect(await titled('Sent twice')).toEqual([first!.ok ? first!.event : -1]);
  });

  it('whose first send committed while its answer was lost: the repeat answers that event, and no second one is made', async () => {
    const ref = `import-1-1-${randomUUID()}`;
    loseNextOnceAnswer = true;
    await expect(writeSourceEvents(writer(), [create(ref, 'Answer lost')])).rejects.toBeInstanceOf(StoreUnavailable);
    const made = await titled('Answer lost');
    expect(made).toHaveLength(1);
    const [again] = await writeSourceEvents(writer(), [create(ref, 'Answer lost')]);
    expect(again).toMatchObject({ ok: true, event: made[0] });
    expect(await titled('Answer lost')).toEqual(made);
  });

  it('sent twice at once, makes one event, and both answer it', async () => {
    const ref = `import-1-1-${randomUUID()}`;
    const both = await Promise.all([writeSourceEvents(writer(), [create(ref, 'At once')]), writeSourceEvents(writer(), [create(ref, 'At once')])]);
    const events = both.map(([w]) => (w!.ok ? w!.event : -1));
    expect(events[0]).toBeGreaterThan(0);
    expect(events[1]).toBe(events[0]);
    expect(await titled('At once')).toEqual([events[0]]);
  });

  it('a different reference is a different create', async () => {
    const [a] = await writeSourceEvents(writer(), [create(`import-1-1-${randomUUID()}`, 'Two refs')]);
    const [b] = await writeSourceEvents(writer(), [create(`import-1-1-${randomUUID()}`, 'Two refs')]);
    expect(a!.ok && b!.ok && a!.event !== b!.event).toBe(true);
    expect(await titled('Two refs')).toHaveLength(2);
  });
});
