/**
 * Change events for other systems: the stream publisher (functions/publish-changes.ts) turns the change-log entries a
 * real write left in the table into EventBridge events with the changes feed's fields. The entries are read from the
 * test server's table and handed over as the stream would (INSERT records with their new image); EventBridge itself,
 * which has no local stand-in, is a mock that records what would be sent and refuses on demand.
 */
import { DynamoDBClient, QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import type { Context, DynamoDBRecord } from 'aws-lambda';
import { handler, setEventBridgeClient } from '../../functions/publish-changes.js';
import { api, tokenFor } from '../support/api.js';
import { captureOutput } from '../support/capture-output.js';
import { uid } from './helpers/events.js';

const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
if (!endpoint) throw new Error('CALENDAR_TEST_DYNAMODB_ENDPOINT is not set: the global setup did not start DynamoDB Local');
const raw = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const bus = mockClient(EventBridgeClient);
const context = { functionName: 'calendar-publish-changes', awsRequestId: 'stream-batch-1' } as Context;

beforeAll(() => {
  process.env.CALENDAR_CHANGE_BUS = 'calendar-changes';
  process.env.CALENDAR_API_URL = 'https://api.example.org/calendar/events/v1';
  setEventBridgeClient(new EventBridgeClient({ region: 'us-east-1' }));
});
afterAll(() => {
  setEventBridgeClient(null);
  raw.destroy();
});
beforeEach(() => bus.reset());

/** The stream records of every change-log item in the table, in number order (as the stream would deliver them). */
async function streamOfLog(): Promise<DynamoDBRecord[]> {
  const items: Record<string, AttributeValue>[] = [];
  for (let block = 0; block < 2; block++) {
    let start: Record<string, AttributeValue> | undefined;
    do {
      const res = await raw.send(new QueryCommand({ TableName: process.env.CALENDAR_TEST_TABLE, KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': { S: `CHG#${block}` } }, ExclusiveStartKey: start }));
      items.push(...(res.Items ?? []));
      start = res.LastEvaluatedKey;
    } while (start);
  }
  return items.map((NewImage, i) => ({ eventName: 'INSERT', dynamodb: { NewImage, SequenceNumber: String(1000 + i) } }) as DynamoDBRecord);
}

const sent = () => bus.commandCalls(PutEventsCommand).flatMap((c) => c.args[0].input.Entries ?? []);

describe('change events on EventBridge', () => {
  it('each committed change becomes one event: source, detail-type <kind>.<action>, the feed\'s fields; ten per PutEvents', async () => {
    const editor = await tokenFor('editor', 'events-editor');
    const word = uid();
    const made = await api('/events', { method: 'POST', token: editor,
      body: { title: `Bus ${word}`, start_date: '2027-08-01 10:00', end_date: '2027-08-01 11:00', venue: { venue: `Hall ${word}` } } });
    expect(made.status).toBe(201);
    expect((await api(`/events/${made.json.id}`, { method: 'DELETE', token: editor })).status).toBe(200);
    bus.on(PutEventsCommand).callsFake((input) => ({ FailedEntryCount: 0, Entries: input.Entries.map(() => ({ EventId: 'e' })) }));

    const records = await streamOfLog();
    // Records that are not new change-log entries pass by (the event source filters them out in AWS).
    const noise = [{ eventName: 'MODIFY', dynamodb: records[0]!.dynamodb }, { eventName: 'INSERT', dynamodb: { NewImage: {
      PK: { S: 'POST#1' }, SK: { S: 'POST' } }, SequenceNumber: '1' } }] as DynamoDBRecord[];
    expect(await handler({ Records: [...noise, ...records] }, context)).toEqual({ batchItemFailures: [] });

    const events = sent();
    const details = events.map((e) => JSON.parse(e.Detail!));
    const mine = details.filter((d) => (d.kind === 'event' && d.id === made.json.id) || (d.kind === 'venue' && d.id === made.json.venue.id));
    expect(mine).toEqual([
      { kind: 'event', id: made.json.id, action: 'created', modified_utc: made.json.modified_utc,
        rest_url: `https://api.example.org/calendar/events/v1/events/${made.json.id}` },
      { kind: 'venue', id: made.json.venue.id, action: 'created', modified_utc: made.json.modified_utc,
        rest_url: `https://api.example.org/calendar/events/v1/venues/${made.json.venue.id}` },
      { kind: 'event', id: made.json.id, action: 'deleted', modified_utc: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        rest_url: `https://api.example.org/calendar/events/v1/events/${made.json.id}` },
    ]);
    const first = events[details.indexOf(mine[0])]!;
    expect(first).toMatchObject({ EventBusName: 'calendar-changes', Source: 'calendar.events', DetailType: 'event.created' });
    expect(events[details.indexOf(mine[2])]!.DetailType).toBe('event.deleted');
    for (const e of events) expect(e.DetailType).toMatch(/^(event|venue|organizer|category|tag|ticket)\.(created|updated|deleted)$/);
    // Void numbers (refused writes) publish nothing; everything else does.
    const published = records.filter((r) => !r.dynamodb!.NewImage!.void);
    expect(events).toHaveLength(published.length);
    for (const call of bus.commandCalls(PutEventsCommand)) expect(call.args[0].input.Entries!.length).toBeLessThanOrEqual(10);
  });

  it('a refused event makes the batch fail from that record on, so the stream hands it over again', async () => {
    const editor = await tokenFor('editor', 'events-editor');
    const word = uid();
    for (let i = 0; i < 15; i++) expect((await api('/tags', { method: 'POST', token: editor, body: { name: `Bus ${word} ${i}` } })).status).toBe(201);
    const records = (await streamOfLog()).filter((r) => !r.dynamodb!.NewImage!.void).slice(0, 15);
    expect(records.length).toBe(15);
    let calls = 0;
    bus.on(PutEventsCommand).callsFake((input) => {
      calls += 1;
      // The second batch: its fourth event is refused.
      return { FailedEntryCount: calls === 2 ? 1 : 0,
        Entries: input.Entries.map((_: unknown, i: number) => (calls === 2 && i === 3 ? { ErrorCode: 'InternalFailure' } : { EventId: 'e' })) };
    });
    const refusal = captureOutput();
    try {
      expect(await handler({ Records: records }, context)).toEqual({ batchItemFailures: [{ itemIdentifier: records[13]!.dynamodb!.SequenceNumber }] });
    } finally {
      refusal.restore();
    }
    // The refused event and the one after it go back to the stream.
    expect(refusal.lines()).toContainEqual(expect.objectContaining({ level: 'WARN', handed_back: 2, error_code: 'InternalFailure' }));
    bus.reset();
    bus.on(PutEventsCommand).rejects(new Error('EventBridge is down'));
    const output = captureOutput();
    try {
      expect(await handler({ Records: records }, context)).toEqual({ batchItemFailures: [{ itemIdentifier: records[0]!.dynamodb!.SequenceNumber }] });
    } finally {
      output.restore();
    }
    const failure = output.lines().find((l) => l.message === 'PutEvents failed');
    expect(failure).toMatchObject({ level: 'ERROR', function_request_id: 'stream-batch-1', error: { message: 'EventBridge is down' } });
  });
});
