/**
 * Imports as they run in AWS (contract §20), in process against a table of this file's own on the harness's DynamoDB:
 * the imports function seals a tec source's password with KMS (bound to the import by its encryption context) and hands
 * the run to the import queue; the worker function, fed that message as SQS would, opens the password and runs the
 * import; the dispatcher queues a due run. KMS and SQS, which have no local stand-ins, are aws-sdk-client-mocks; the source
 * is a loopback server of crafted answers. Also: the in-process caller of lib/imports/api.ts is never an HTTP request's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyEventV2, Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handler as dispatcher } from '../../functions/import-dispatcher.js';
import { handler as worker } from '../../functions/import-worker.js';
import { handler as imports } from '../../functions/imports.js';
import { handler as events } from '../../functions/events.js';
import { resetConfig } from '../../lib/config.js';
import { createGroupHandler } from '../../lib/http/handler.js';
import { openPassword, resetKmsClient, sealPassword } from '../../lib/imports/secrets.js';
import { resetQueueClient } from '../../lib/imports/queue.js';
import { dueAfter, nextDue } from '../../lib/imports/schedule.js';
import { ensureTable } from '../../lib/local/dynamodb-local.js';
import { signLocalToken } from '../../lib/local/token-sign.js';
import { importRoutes } from '../../lib/routes/imports.js';
import { setClient } from '../../lib/store/client.js';
import { captureOutput } from '../support/capture-output.js';
import { restoreAndDropTable } from '../support/own-table.js';

const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
if (!endpoint) throw new Error('CALENDAR_TEST_DYNAMODB_ENDPOINT is not set: the global setup did not start DynamoDB Local');

const KEY = 'arn:aws:kms:eu-west-1:123456789012:key/0a1b2c3d-1234-4abc-9def-0123456789ab';
const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/calendar-imports';
const kms = mockClient(KMSClient);
const sqs = mockClient(SQSClient);

/** The crafted source: one event, listed only to the right application password. */
let source: Server;
let sourceUrl: string;
const seen: (string | undefined)[] = [];
const RECORD = { id: 41, title: 'Members night', description: '<p>Members only</p>', excerpt: '', slug: 'members-night', status: 'private',
  start_date: '2034-01-10 19:00:00', end_date: '2034-01-10 21:00:00', utc_start_date: '2034-01-10 19:00:00', utc_end_date: '2034-01-10 21:00:00',
  all_day: false, timezone: 'UTC', featured: false, cost: '', website: '', venue: [], organizer: [], categories: [], tags: [],
  url: 'http://127.0.0.1/event/members-night/' };

describe('imports in AWS: the imports function, the worker and the dispatcher (KMS and SQS mocked)', () => {
  const table = `imports-aws-${randomUUID().slice(0, 8)}`;
  const secret = 'imports-aws-secret-0123456789abcdef0123';
  const raw = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const doc = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false } });
  const saved = { ...process.env };
  let token: string;

  beforeAll(async () => {
    source = createServer((req, res) => {
      seen.push(req.headers.authorization);
      const ok = req.headers.authorization === `Basic ${Buffer.from('importer:abcd1234efgh5678ijkl9012').toString('base64')}`;
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { events: [RECORD], total: 1, total_pages: 1 } : { code: 'rest_forbidden', message: 'no' }));
    });
    await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
    sourceUrl = `http://127.0.0.1:${(source.address() as AddressInfo).port}/wp-json/tribe/events/v1`;
    Object.assign(process.env, { CALENDAR_TABLE_NAME: table, CALENDAR_JWT_SECRET: secret, CALENDAR_TIMEZONE: 'UTC', CALENDAR_SITE_URL: '',
      CALENDAR_JWT_ISSUER: '', CALENDAR_IMPORT_ALLOW_PRIVATE: '1', CALENDAR_IMPORT_KEY_ID: KEY, CALENDAR_IMPORT_QUEUE_URL: QUEUE, AWS_REGION: 'eu-west-1' });
    resetConfig();
    resetKmsClient();
    resetQueueClient();
    await ensureTable(raw, table);
    setClient(doc);
    token = await signLocalToken({ secret, role: 'editor', sub: 'imports-aws-editor' });
  }, 60_000);

  afterAll(async () => {
    await new Promise((resolve) => source.close(resolve));
    await restoreAndDropTable(raw, table, saved);
  });

  beforeEach(() => {
    kms.reset();
    sqs.reset();
    // A stand-in cipher: the blob says which import it belongs to, as KMS's encryption context does.
    kms.on(EncryptCommand).callsFake((input) => ({ CiphertextBlob: Buffer.from(`${JSON.stringify(input.EncryptionContext)}|${Buffer.from(input.Plaintext).toString()}`) }));
    kms.on(DecryptCommand).callsFake((input) => {
      const [context, plain] = Buffer.from(input.CiphertextBlob).toString().split('|');
      if (context !== JSON.stringify(input.EncryptionContext)) throw Object.assign(new Error('bad context'), { name: 'InvalidCiphertextException' });
      return { Plaintext: Buffer.from(plain!) };
    });
    sqs.on(SendMessageCommand).resolves({ MessageId: randomUUID() });
  });

  const context = (ms = 60_000) => {
    const deadline = Date.now() + ms;
    return { functionName: 'calendar-imports', awsRequestId: randomUUID(), getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
  };
  async function call(fn: typeof imports, method: string, path: string, body?: unknown, bearer = token): Promise<{ status: number; json: any }> {
    const [rel, query = ''] = path.split('?');
    const rawPath = `/calendar/events/v1${rel}`;
    const res = await fn({
      version: '2.0', routeKey: '$default', rawPath, rawQueryString: query,
      headers: { host: 'api.example.com', 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
      body: body === undefined ? undefined : JSON.stringify(body), isBase64Encoded: false,
      requestContext: { accountId: '1', apiId: 'a', domainName: 'api.example.com', domainPrefix: 'api', requestId: randomUUID(),
        routeKey: '$default', stage: '$default', time: '', timeEpoch: 0,
        http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' } },
    } as APIGatewayProxyEventV2, context()) as { statusCode: number; body: string };
    return { status: res.statusCode, json: JSON.parse(res.body) };
  }
  const sqsEvent = (bodies: string[]): SQSEvent => ({ Records: bodies.map((body) => ({ messageId: randomUUID(), body, receiptHandle: 'r',
    attributes: {} as never, messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:eu-west-1:1:q', awsRegion: 'eu-west-1' })) });
  const sentMessages = () => sqs.commandCalls(SendMessageCommand).map((c) => [c.args[0].input.QueueUrl, JSON.parse(c.args[0].input.MessageBody!)]);

  it('POST /imports seals the password with the stack\'s key for that import and queues the run; the worker opens it and runs it', async () => {
    const created = await call(imports, 'POST', '/imports', { name: 'Members', source: { type: 'tec', url: sourceUrl, username: 'importer',
      password: 'abcd 1234 efgh 5678 ijkl 9012' }, start_date: '2034-01-01', end_date: '2034-01-31' });
    expect(created.status).toBe(202);
    const id = created.json.id;
    const encrypt = kms.commandCalls(EncryptCommand).map((c) => c.args[0].input);
    expect(encrypt).toEqual([{ KeyId: KEY, Plaintext: Buffer.from('abcd1234efgh5678ijkl9012'), EncryptionContext: { import: String(id) } }]);
    expect(sentMessages()).toEqual([[QUEUE, { import: id }]]);
    const stored = (await doc.send(new GetCommand({ TableName: table, Key: { PK: `IMPORT#${id}`, SK: 'IMPORT' } }))).Item!;
    expect(stored.source.sealed).toMatch(/^kms:/);
    expect(JSON.stringify(stored)).not.toContain('abcd1234');

    const out = captureOutput();
    let result: SQSBatchResponse | undefined;
    try {
      result = await worker(sqsEvent([JSON.stringify({ import: id }), 'not json']), context(120_000));
    } finally {
      out.restore();
    }
    expect(result).toEqual({ batchItemFailures: [] });
    expect(kms.commandCalls(DecryptCommand).map((c) => c.args[0].input.EncryptionContext)).toEqual([{ import: String(id) }]);
    expect(seen.at(-1)).toBe(`Basic ${Buffer.from('importer:abcd1234efgh5678ijkl9012').toString('base64')}`);
    expect(out.text()).not.toContain('abcd1234');
    expect(out.lines().some((l) => l.message === 'an import queue message without an import id')).toBe(true);
    const after = await call(imports, 'GET', `/imports/${id}`);
    expect(after.json.last_run).toMatchObject({ state: 'done', total: 1, created: 1, failed: 0 });
    const listed = await call(events, 'GET', '/events?start_date=2034-01-01&end_date=2034-01-31&status=private');
    expect(listed.json.events.map((e: any) => [e.title, e.status, e.slug])).toEqual([['Members night', 'private', 'members-night']]);
  }, 120_000);

  it('a failing run fails its message (SQS delivers it again, then to the dead-letter queue); a finished one is not run twice', async () => {
    const created = await call(imports, 'POST', '/imports', { name: 'Other', source: { type: 'tec', url: sourceUrl, username: 'importer',
      password: 'abcd1234efgh5678ijkl9012' }, start_date: '2034-01-01', end_date: '2034-01-31' });
    const id = created.json.id;
    kms.on(DecryptCommand).rejects(Object.assign(new Error('KMS is down'), { name: 'KMSInternalException', $metadata: { httpStatusCode: 500 } }));
    const out = captureOutput();
    let failed: SQSBatchResponse | undefined;
    try {
      failed = await worker(sqsEvent([JSON.stringify({ import: id })]), context(120_000));
    } finally {
      out.restore();
    }
    expect(failed!.batchItemFailures).toHaveLength(1);
    expect(out.lines().some((l) => l.message === 'an import run stopped; it is taken up again' && l.import === id)).toBe(true);
    // The lease of the failed worker lapses; the next delivery runs it.
    await doc.send(new UpdateCommand({ TableName: table, Key: { PK: `IMPORT#${id}`, SK: 'RUN' }, UpdateExpression: 'SET #u = :z',
      ExpressionAttributeNames: { '#u': 'until' }, ExpressionAttributeValues: { ':z': 0 } }));
    kms.on(DecryptCommand).callsFake((input) => ({ Plaintext: Buffer.from(Buffer.from(input.CiphertextBlob).toString().split('|')[1]!) }));
    expect(await worker(sqsEvent([JSON.stringify({ import: id })]), context(120_000))).toEqual({ batchItemFailures: [] });
    expect((await call(imports, 'GET', `/imports/${id}`)).json.last_run).toMatchObject({ state: 'done', created: 1 });
    const before = seen.length;
    expect(await worker(sqsEvent([JSON.stringify({ import: id })]), context())).toEqual({ batchItemFailures: [] });
    expect(seen.length).toBe(before);
  }, 120_000);

  it('an event the source still lists but that cannot be read this time is an error, not a removal', async () => {
    let listed: unknown[] = [];
    const crafted = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ events: listed, total: listed.length, total_pages: 1 }));
    });
    await new Promise<void>((resolve) => crafted.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(crafted.address() as AddressInfo).port}/wp-json/tribe/events/v1`;
      const other = { ...RECORD, id: 42, title: 'Second', slug: 'second', status: 'publish' };
      listed = [{ ...RECORD, status: 'publish' }, other];
      const id = (await call(imports, 'POST', '/imports', { name: 'Crafted', source: { type: 'tec', url }, start_date: '2034-01-01', end_date: '2034-01-31' })).json.id;
      const turn = () => worker(sqsEvent([JSON.stringify({ import: id })]), context(120_000));
      await turn();
      expect((await call(imports, 'GET', `/imports/${id}`)).json.last_run).toMatchObject({ state: 'done', created: 2 });
      listed = [{ ...RECORD, status: 'publish' }, { ...other, start_date: 'soon' }];
      await call(imports, 'POST', `/imports/${id}/run`);
      await turn();
      expect((await call(imports, 'GET', `/imports/${id}`)).json.last_run).toMatchObject({ state: 'done', unchanged: 1, failed: 1, removed: 0,
        errors: [{ uid: '42', message: 'start_date is not a date YYYY-MM-DD HH:MM:SS' }] });
      listed = [{ ...RECORD, status: 'publish' }];
      await call(imports, 'POST', `/imports/${id}/run`);
      await turn();
      expect((await call(imports, 'GET', `/imports/${id}`)).json.last_run).toMatchObject({ state: 'done', unchanged: 1, removed: 1 });
    } finally {
      await new Promise((resolve) => crafted.close(resolve));
    }
  }, 120_000);

  it('the dispatcher queues a due scheduled run on the queue and moves its time on', async () => {
    const created = await call(imports, 'POST', '/imports', { name: 'Daily', source: { type: 'tec', url: sourceUrl }, schedule: 'daily' });
    const id = created.json.id;
    await worker(sqsEvent([JSON.stringify({ import: id })]), context(120_000)); // the first run (refused by the source: failed)
    sqs.reset();
    sqs.on(SendMessageCommand).resolves({ MessageId: randomUUID() });
    const entry = { PK: 'IMPORTS', SK: `I#${String(id).padStart(10, '0')}` };
    await doc.send(new UpdateCommand({ TableName: table, Key: entry, UpdateExpression: 'SET #d = :d', ExpressionAttributeNames: { '#d': 'due' },
      ExpressionAttributeValues: { ':d': '2020-01-01 00:00:00' } }));
    const out = await dispatcher({}, context());
    expect(out).toEqual({ scheduled: 1, resumed: 0 });
    expect(sentMessages()).toEqual([[QUEUE, { import: id }]]);
    const due = (await doc.send(new GetCommand({ TableName: table, Key: entry }))).Item!.due;
    expect(Date.parse(`${due.replace(' ', 'T')}Z`)).toBeGreaterThan(Date.now());
    expect((await call(imports, 'GET', `/imports/${id}`)).json.last_run.state).toBe('queued');
    // Nothing else is due: the next tick queues nothing.
    expect(await dispatcher({}, context())).toEqual({ scheduled: 0, resumed: 0 });
  }, 120_000);
});

describe('sealed passwords (lib/imports/secrets.ts) without KMS', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    resetConfig();
  });

  it('opens only for the import it was sealed for, and only with the secret it was sealed with', async () => {
    process.env = { ...saved, CALENDAR_IMPORT_KEY_ID: '', CALENDAR_IMPORT_SECRET: 'one-secret' };
    const sealed = await sealPassword(5, 'abcd1234');
    expect(sealed).toMatch(/^aes:/);
    expect(sealed).not.toContain('abcd1234');
    expect(await openPassword(5, sealed)).toBe('abcd1234');
    await expect(openPassword(6, sealed)).rejects.toThrow(/cannot be opened/);
    process.env.CALENDAR_IMPORT_SECRET = 'another-secret';
    await expect(openPassword(5, sealed)).rejects.toThrow(/cannot be opened/);
  });

  it('inside Lambda there is no development secret to fall back on', async () => {
    process.env = { ...saved, CALENDAR_IMPORT_KEY_ID: '', CALENDAR_IMPORT_SECRET: '', CALENDAR_JWT_SECRET: '', CALENDAR_JWT_ISSUER: 'https://issuer.example.org',
      AWS_LAMBDA_FUNCTION_NAME: 'calendar-imports' };
    resetConfig();
    await expect(sealPassword(5, 'abcd1234')).rejects.toThrow(/CALENDAR_IMPORT_KEY_ID/);
  });
});

describe('schedules (lib/imports/schedule.ts)', () => {
  it('the next run an interval after the last; runs missed while nothing ran are skipped, not stacked', () => {
    const at = Date.parse('2031-05-04T10:00:00Z');
    expect([nextDue('once', at), nextDue('hourly', at), nextDue('daily', at), nextDue('weekly', at)])
      .toEqual([null, '2031-05-04 11:00:00', '2031-05-05 10:00:00', '2031-05-11 10:00:00']);
    expect(dueAfter('hourly', '2031-05-04 11:00:00', Date.parse('2031-05-04T11:00:05Z'))).toBe('2031-05-04 12:00:00');
    expect(dueAfter('hourly', '2031-05-04 11:00:00', Date.parse('2031-05-04T15:30:00Z'))).toBe('2031-05-04 16:00:00');
    expect(dueAfter('weekly', '2031-05-11 10:00:00', Date.parse('2031-05-11T10:00:00Z'))).toBe('2031-05-18 10:00:00');
  });
});

describe('the in-process caller (lib/imports/api.ts)', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));

  it('no function hands an HTTP request to a handler that takes its caller in-process: only lib/imports/api.ts builds one', () => {
    const files = (dir: string): string[] => readdirSync(join(root, dir), { withFileTypes: true })
      .flatMap((d) => (d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
    const users = [...files('functions'), ...files('lib')].filter((f) => /inProcess\s*:/.test(readFileSync(join(root, f), 'utf8')));
    expect(users).toEqual(['lib/imports/api.ts']);
  });

  it('a handler built with it ignores the Authorization header: the caller is the one given for the event', async () => {
    const seenCallers: unknown[] = [];
    const handler = createGroupHandler('imports', importRoutes, { 'imports.list': async (ctx) => {
      seenCallers.push(ctx.caller);
      return { statusCode: 200, headers: {}, body: '{"imports":[],"rest_url":"x","total":0,"total_pages":0}' };
    } }, null, { nested: true, inProcess: () => ({ sub: 'given', role: 'subscriber', username: 'given' }) });
    const editor = await signLocalToken({ secret: 'anything-0123456789abcdef0123456789', role: 'editor' });
    const res = await handler({ version: '2.0', routeKey: '$default', rawPath: '/calendar/events/v1/imports', rawQueryString: '',
      headers: { host: 'h', authorization: `Bearer ${editor}` }, isBase64Encoded: false,
      requestContext: { accountId: '1', apiId: 'a', domainName: 'h', domainPrefix: 'h', requestId: 'r', routeKey: '$default', stage: '$default',
        time: '', timeEpoch: 0, http: { method: 'GET', path: '/calendar/events/v1/imports', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'j' } },
    } as APIGatewayProxyEventV2, { getRemainingTimeInMillis: () => 10_000 } as Context);
    // A subscriber may not list imports: the token's editor role was never looked at (nor its signature).
    expect(res.statusCode).toBe(403);
    expect(seenCallers).toEqual([]);
  });
});
