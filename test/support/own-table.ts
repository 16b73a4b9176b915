/**
 * Teardown for tests that run handlers in process against a table of their own in the harness's DynamoDB Local: the
 * store's default client, the environment and the configuration as they were, and the table dropped. The store and
 * configuration modules are imported here on first use, so a test that sets Powertools variables before importing the
 * handlers can still import this file at its top.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export async function restoreAndDropTable(raw: DynamoDBClient, table: string, savedEnv: NodeJS.ProcessEnv): Promise<void> {
  const [{ setClient }, { resetConfig }] = await Promise.all([import('../../lib/store/client.js'), import('../../lib/config.js')]);
  setClient(null);
  process.env = savedEnv;
  resetConfig();
  await raw.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
  raw.destroy();
}

/**
 * A table of the test's own in the harness's DynamoDB Local, for handlers run in process: created (with the site's
 * time zone UTC) before the file's tests, the store's client swapped for `wrap(real)` (a client that intercepts calls),
 * everything restored and the table dropped after them. `real` is the plain document client on it.
 */
export function useOwnTable(prefix: string, wrap: (real: DynamoDBDocumentClient) => DynamoDBDocumentClient = (real) => real) {
  const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('CALENDAR_TEST_DYNAMODB_ENDPOINT is not set: the global setup did not start DynamoDB Local');
  const table = `${prefix}-${randomUUID().slice(0, 8)}`;
  const raw = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const real = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false } });
  const saved = { ...process.env };
  beforeAll(async () => {
    const [{ setClient }, { resetConfig }, { ensureTable }] = await Promise.all([import('../../lib/store/client.js'),
      import('../../lib/config.js'), import('../../lib/local/dynamodb-local.js')]);
    Object.assign(process.env, { CALENDAR_TABLE_NAME: table, CALENDAR_TIMEZONE: 'UTC', CALENDAR_SITE_URL: '' });
    resetConfig();
    await ensureTable(raw, table);
    setClient(wrap(real));
  }, 60_000);
  afterAll(() => restoreAndDropTable(raw, table, saved));
  return { table, real };
}
