/**
 * Teardown for tests that run handlers in process against a table of their own in the harness's DynamoDB Local: the
 * store's default client, the environment and the configuration as they were, and the table dropped. The store and
 * configuration modules are imported here on first use, so a test that sets Powertools variables before importing the
 * handlers can still import this file at its top.
 */
import { DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

export async function restoreAndDropTable(raw: DynamoDBClient, table: string, savedEnv: NodeJS.ProcessEnv): Promise<void> {
  const [{ setClient }, { resetConfig }] = await Promise.all([import('../../lib/store/client.js'), import('../../lib/config.js')]);
  setClient(null);
  process.env = savedEnv;
  resetConfig();
  await raw.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
  raw.destroy();
}
