/**
 * In AWS, a request whose path API Gateway's routes do not spell exactly (API Gateway matches paths case-sensitively;
 * the contract matches fixed segments case-insensitively) reaches the root function through `$default`. The root
 * function hands such a request to the function of its route group, so it is answered exactly as its canonical
 * spelling would be — as the local server answers it directly. The stack names the functions in
 * CALENDAR_FUNCTIONS (`{"events": "<function name>", …}`); without it (tests, sam local) nothing is forwarded.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { HttpResult } from '../http/response.js';
import type { FunctionGroup } from '../routes/types.js';

export type Forwarder = (group: FunctionGroup, event: APIGatewayProxyEventV2) => Promise<HttpResult>;

let client: LambdaClient | null = null;

export function lambdaForwarder(env: NodeJS.ProcessEnv = process.env): Forwarder | undefined {
  if (!env.CALENDAR_FUNCTIONS) return undefined;
  const names = JSON.parse(env.CALENDAR_FUNCTIONS) as Partial<Record<FunctionGroup, string>>;
  return async (group, event) => {
    const name = names[group];
    if (!name) throw new Error(`no function is configured for the ${group} routes`);
    client ??= new LambdaClient({});
    const out = await client.send(new InvokeCommand({ FunctionName: name, Payload: Buffer.from(JSON.stringify(event)) }));
    if (out.FunctionError) throw new Error(`the ${group} function failed: ${Buffer.from(out.Payload ?? []).toString('utf8').slice(0, 500)}`);
    return JSON.parse(Buffer.from(out.Payload ?? []).toString('utf8')) as HttpResult;
  };
}
