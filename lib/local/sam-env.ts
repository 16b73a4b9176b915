/**
 * Prepares `sam local start-api` for the CDK stack: synthesises the app for SAM (`cdk synth -c samLocal=true`, which
 * declares the local-only variables; SAM only overrides variables a template declares) or reads an existing cdk.out,
 * and writes cdk.out/sam-env.json, the --env-vars file mapping each function's logical id to its local settings.
 *
 *   npx tsx lib/local/sam-env.ts --dynamodb-endpoint http://127.0.0.1:8000
 *   sam local start-api -t cdk.out/CalendarEventsApi.template.json --env-vars cdk.out/sam-env.json
 *
 * Run with --help for the options. Docker is required by sam local (not by this script).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEV_JWT_SECRET } from '../config.js';
import { DEFAULT_TABLE_NAME } from '../store/table.js';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Variables a samLocal synth declares only so that this file can set them (see infra/stack.ts). */
export const LOCAL_ONLY_VARIABLES = ['AWS_ENDPOINT_URL_DYNAMODB', 'CALENDAR_JWT_SECRET'] as const;

export interface SamEnvOptions {
  /** DynamoDB as the Lambda containers reach it, e.g. http://host.docker.internal:8000 */
  containerEndpoint: string;
  tableName: string;
  jwtSecret: string;
  timezone?: string;
  siteUrl?: string;
}

export class SamEnvError extends Error {}

interface Template {
  Resources?: Record<string, { Type?: string; Properties?: { Environment?: { Variables?: Record<string, unknown> } } }>;
}

/** The --env-vars content for a template: one entry per calendar function (those with CALENDAR_TABLE_NAME). */
export function samEnvVars(template: Template, options: SamEnvOptions): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const declared = resource.Properties?.Environment?.Variables ?? {};
    if (!('CALENDAR_TABLE_NAME' in declared)) continue;
    const missing = LOCAL_ONLY_VARIABLES.filter((name) => !(name in declared));
    if (missing.length) {
      throw new SamEnvError(
        `Function ${logicalId} does not declare ${missing.join(', ')}: the template was not synthesised for sam local ` +
          '(-c samLocal=true), so SAM would ignore those settings. Run this script without --no-synth.',
      );
    }
    const values: Record<string, string> = {
      CALENDAR_TABLE_NAME: options.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: options.containerEndpoint,
      CALENDAR_JWT_SECRET: options.jwtSecret,
      // Empty issuer/audience: the handlers verify HS256 tokens with the secret (`npm run token`), as `npm start` does.
      CALENDAR_JWT_ISSUER: '',
      CALENDAR_JWT_AUDIENCE: '',
      // No import queue or KMS key under sam local: passwords are sealed with the JWT secret, and runs wait for the dispatcher.
      CALENDAR_IMPORT_QUEUE_URL: '',
      CALENDAR_IMPORT_KEY_ID: '',
      ...(options.timezone ? { CALENDAR_TIMEZONE: options.timezone } : {}),
      ...(options.siteUrl ? { CALENDAR_SITE_URL: options.siteUrl } : {}),
    };
    // SAM only applies variables the template declares; keep the file honest about what takes effect.
    out[logicalId] = Object.fromEntries(Object.entries(values).filter(([name]) => name in declared));
  }
  if (Object.keys(out).length === 0) throw new SamEnvError('The template has no calendar functions (no Lambda function declares CALENDAR_TABLE_NAME).');
  return out;
}

/** http://127.0.0.1:8000 → http://host.docker.internal:8000: containers reach the host under another name. */
export function containerEndpoint(hostEndpoint: string, dockerHost: string): string {
  let url: URL;
  try {
    url = new URL(hostEndpoint);
  } catch {
    throw new SamEnvError(`--dynamodb-endpoint must be a URL such as http://127.0.0.1:8000, not "${hostEndpoint}".`);
  }
  if (['127.0.0.1', 'localhost', '[::1]', '0.0.0.0'].includes(url.hostname)) url.hostname = dockerHost;
  return url.toString().replace(/\/$/, '');
}

/** The stack templates of a cloud assembly directory: { stackName: templatePath }. */
export function stackTemplates(outDir: string): Record<string, string> {
  const manifestFile = join(outDir, 'manifest.json');
  if (!existsSync(manifestFile)) throw new SamEnvError(`${manifestFile} does not exist: synthesise first (run without --no-synth).`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
    artifacts?: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const out: Record<string, string> = {};
  for (const [name, artifact] of Object.entries(manifest.artifacts ?? {})) {
    if (artifact.type === 'aws:cloudformation:stack' && artifact.properties?.templateFile) {
      out[name] = join(outDir, artifact.properties.templateFile);
    }
  }
  return out;
}

const HELP = `Writes the sam local --env-vars file for the Calendar API stack.

Usage: npx tsx lib/local/sam-env.ts [options]

  --dynamodb-endpoint URL  DynamoDB as seen from this machine (default $DYNAMODB_ENDPOINT, else
                           http://127.0.0.1:8000). A loopback host is rewritten to --docker-host for the
                           Lambda containers. The database must hold the table (npm start creates it).
  --docker-host NAME       How containers reach this machine (default host.docker.internal; on Linux also
                           pass --add-host host.docker.internal:host-gateway to sam).
  --table NAME             Table name (default $CALENDAR_TABLE_NAME, else ${DEFAULT_TABLE_NAME}).
  --jwt-secret SECRET      HS256 secret for local tokens (default $CALENDAR_JWT_SECRET, else the development
                           secret that \`npm run token\` uses).
  --timezone ZONE          CALENDAR_TIMEZONE (default $CALENDAR_TIMEZONE, else the stack's siteTimezone).
  --site-url URL           CALENDAR_SITE_URL (default $CALENDAR_SITE_URL; declared only if the stack sets siteUrl).
  --out DIR                Cloud assembly directory (default cdk.out).
  -c, --context KEY=VALUE  Extra CDK context for the synth (repeatable), e.g. -c stackName=CalendarDev.
  --no-synth               Use the existing DIR instead of synthesising (it must come from a samLocal synth).
  --no-check               Do not check that the endpoint answers and the table exists.
  -h, --help               This text.
`;

function synthesise(outDir: string, context: string[]): void {
  const cli = join(projectRoot, 'node_modules', 'aws-cdk', 'bin', 'cdk');
  if (!existsSync(cli)) throw new SamEnvError(`The CDK CLI is not installed (${cli}); run npm install.`);
  const args = [cli, 'synth', '--quiet', '--output', outDir, '-c', 'samLocal=true', ...context.flatMap((c) => ['-c', c])];
  process.stderr.write(`Synthesising for sam local: cdk ${args.slice(1).join(' ')}\n`);
  const run = spawnSync(process.execPath, args, { cwd: projectRoot, stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.status !== 0) throw new SamEnvError(`cdk synth failed (exit status ${run.status ?? run.signal}).`);
}

async function checkTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: process.env.AWS_REGION || 'local',
    credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID || 'local', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || 'local' },
    maxAttempts: 1,
  });
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }), { abortSignal: AbortSignal.timeout(3000) });
    process.stderr.write(`Table ${tableName} found at ${endpoint}.\n`);
  } catch (e) {
    const name = (e as Error).name;
    process.stderr.write(
      name === 'ResourceNotFoundException'
        ? `Warning: no table ${tableName} at ${endpoint}. Create it with \`DYNAMODB_ENDPOINT=${endpoint} npm start\` (it creates the table on start).\n`
        : `Warning: DynamoDB at ${endpoint} did not answer (${name}: ${(e as Error).message}). Start it before sam local (see docs/deploying.md).\n`,
    );
  } finally {
    client.destroy();
  }
}

/** The command-line options of this script (`npm run sam:start` takes them too). */
export const SAM_ENV_OPTIONS = {
  'dynamodb-endpoint': { type: 'string' },
  'docker-host': { type: 'string', default: 'host.docker.internal' },
  table: { type: 'string' },
  'jwt-secret': { type: 'string' },
  timezone: { type: 'string' },
  'site-url': { type: 'string' },
  out: { type: 'string', default: 'cdk.out' },
  context: { type: 'string', short: 'c', multiple: true, default: [] },
  'no-synth': { type: 'boolean', default: false },
  'no-check': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

export type SamEnvValues = ReturnType<typeof parseArgs<{ options: typeof SAM_ENV_OPTIONS }>>['values'];

export async function main(argv: string[] = process.argv.slice(2)): Promise<string> {
  const { values } = parseArgs({ args: argv, options: SAM_ENV_OPTIONS, strict: true });
  if (values.help) {
    process.stdout.write(HELP);
    return '';
  }
  const { template, envFile } = await prepareSamLocal(values);
  const rel = (p: string) => relative(process.cwd(), p) || '.';
  process.stderr.write('Start the API (Docker must be running), or run `npm run sam:start`:\n');
  process.stdout.write(`sam local start-api -t ${rel(template)} --env-vars ${rel(envFile)}\n`);
  return envFile;
}

/** Synthesises for sam local (unless --no-synth), writes <out>/sam-env.json and checks the table (unless --no-check). */
export async function prepareSamLocal(values: SamEnvValues): Promise<{ template: string; envFile: string }> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'; // Node 20 hosts: the SDK's notice is noise here
  const env = process.env;
  const outDir = resolve(projectRoot, values.out!);
  const hostEndpoint = values['dynamodb-endpoint'] || env.DYNAMODB_ENDPOINT || 'http://127.0.0.1:8000';
  const options: SamEnvOptions = {
    containerEndpoint: containerEndpoint(hostEndpoint, values['docker-host']!),
    tableName: values.table || env.CALENDAR_TABLE_NAME || DEFAULT_TABLE_NAME,
    jwtSecret: values['jwt-secret'] || env.CALENDAR_JWT_SECRET || DEV_JWT_SECRET,
    timezone: values.timezone || env.CALENDAR_TIMEZONE || undefined,
    siteUrl: values['site-url'] || env.CALENDAR_SITE_URL || undefined,
  };
  for (const c of values.context!) {
    if (!/^[^=\s]+=/.test(c)) throw new SamEnvError(`-c expects KEY=VALUE, not "${c}".`);
  }

  if (!values['no-synth']) synthesise(outDir, values.context!);
  const templates = stackTemplates(outDir);
  const names = Object.keys(templates);
  if (names.length !== 1) throw new SamEnvError(`Expected one stack in ${outDir}, found ${names.length} (${names.join(', ') || 'none'}).`);
  const stackName = names[0]!;
  const template = JSON.parse(readFileSync(templates[stackName]!, 'utf8')) as Template;
  const vars = samEnvVars(template, options);
  const envFile = join(outDir, 'sam-env.json');
  writeFileSync(envFile, `${JSON.stringify(vars, null, 2)}\n`);

  if (!values['no-check']) await checkTable(hostEndpoint, options.tableName);
  const rel = (p: string) => relative(process.cwd(), p) || '.';
  process.stderr.write(
    `Wrote ${rel(envFile)} for ${Object.keys(vars).length} functions (DynamoDB ${options.containerEndpoint}, table ${options.tableName}).\n`,
  );
  return { template: templates[stackName]!, envFile };
}

/** How a command-line script of sam local reports a failure: known problems as one line, anything else with its stack. */
export function reportFailure(script: string, e: unknown): never {
  const known = e instanceof SamEnvError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  process.stderr.write(`${script}: ${known ? (e as Error).message : String((e as Error)?.stack ?? e)}\n`);
  process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((e: unknown) => reportFailure('sam-env', e));
}
