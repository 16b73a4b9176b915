/**
 * The deployable bundles: synthesises the stack WITH bundling (the one test that runs esbuild through CDK), checks
 * each function's asset against the shared settings in infra/bundling.ts, then imports every bundle in a fresh Node
 * process — an .mjs runner, so there is no global `require` to hide a missing createRequire banner — and invokes it
 * with HTTP API 2.0 events against DynamoDB Local.
 *
 * The invocation part needs the suite's harness (test/support/global-setup.ts), which exports CALENDAR_TEST_API,
 * CALENDAR_TEST_DYNAMODB_ENDPOINT and CALENDAR_TEST_TABLE; without them the file fails (it never skips).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { build } from 'esbuild';
import { gunzipSync } from 'node:zlib';
import {
  BUNDLE, coldStartFiles, CREATE_REQUIRE_BANNER, esbuildBuildOptions, PACKAGE_FILES, SIDE_BUNDLES, sideBuildOptions,
} from '../../infra/bundling.js';
import { buildApp } from '../../infra/build.js';
import { functionGroups } from '../../infra/routes.js';
import { DEV_JWT_SECRET } from '../../lib/config.js';
import { ensureTable } from '../../lib/local/dynamodb-local.js';
import { signLocalToken } from '../../lib/local/token-sign.js';
import { packageFilePath } from '../../lib/package-file.js';
import type { FunctionGroup } from '../../lib/routes/types.js';
import { logicalId, makeApp } from './helpers.js';

const TIMEOUT = 300_000;

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'calendar-bundles-'));
/** Asset directory of each function's bundle in the synthesised cloud assembly (the route groups', and the import worker's). */
const assets = {} as Record<FunctionGroup | 'import-worker', string>;

beforeAll(() => {
  const app = makeApp({ 'aws:cdk:enable-asset-metadata': true }, { bundling: true });
  const { stack } = buildApp(app, { nag: false });
  const assembly = app.synth();
  const template = assembly.getStackArtifact(stack.artifactId).template as {
    Resources: Record<string, { Metadata?: Record<string, string> }>;
  };
  for (const [name, fn] of [...functionGroups().map((g) => [g, stack.functions[g]] as const), ['import-worker', stack.imports.worker] as const]) {
    const metadata = template.Resources[logicalId(stack, fn)]!.Metadata!;
    expect(metadata['aws:asset:is-bundled']).toBe(true);
    assets[name] = join(assembly.directory, metadata['aws:asset:path']!);
  }
}, TIMEOUT);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('bundles built by the stack', () => {
  test.each(functionGroups())('%s: minified ESM with the createRequire banner, external source map, AWS SDK inside', (group) => {
    const dir = assets[group];
    const code = readFileSync(join(dir, BUNDLE.outputFile), 'utf8');
    // index.mjs and its chunks (infra/bundling.ts BUNDLE.splitting): each an ES module with the banner and its own map.
    for (const file of readdirSync(dir).filter((f) => f.endsWith(BUNDLE.extension))) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text.startsWith(CREATE_REQUIRE_BANNER)).toBe(true);
      expect(text.trimEnd().endsWith(`//# sourceMappingURL=${file}.map`)).toBe(true);
      expect(existsSync(join(dir, `${file}.map`))).toBe(true);
    }
    // Minified: a few long lines, not one line per statement (the pages' templates, style sheet and scripts are
    // multi-line strings of a few hundred lines).
    expect(code.split('\n').length).toBeLessThan(group === 'pages' ? 600 : 200);
    expect(statSync(join(dir, BUNDLE.outputFile)).size).toBeLessThan(3 * 1024 * 1024);
    const map = JSON.parse(readFileSync(join(dir, `${BUNDLE.outputFile}.map`), 'utf8')) as { sources: string[]; sourcesContent?: unknown };
    expect(map.sources.some((s) => s.endsWith(`functions/${group}.ts`))).toBe(true);
    expect(map.sourcesContent).toBeUndefined();
    // The packages loaded only when needed (lib/lazy-module.ts) sit next to the handler, as CommonJS.
    for (const side of SIDE_BUNDLES) expect(readFileSync(join(dir, side.outputFile), 'utf8').length).toBeGreaterThan(1000);
    expect(code).not.toContain('ENTimeExpressionParser'); // chrono is not in the handler's own file
    expect(code).not.toContain('X-MICROSOFT-CDO-ALLDAYEVENT'); // nor ical-generator
    // Files served as they are (Redoc's script for the reference page) are copies next to the handler, never inside it.
    const files = PACKAGE_FILES[`functions/${group}.ts`] ?? [];
    expect(files.length > 0).toBe(group === 'root');
    for (const file of files) expect(readFileSync(join(dir, file.outputFile)).equals(readFileSync(packageFilePath(file.spec)))).toBe(true);
    expect(existsSync(join(dir, 'redoc.standalone.js'))).toBe(group === 'root');
    expect(code).not.toContain('API docs by Redocly');
  }, TIMEOUT);

  test.each(functionGroups())(
    '%s: esbuildBuildOptions() reproduces the asset file for file, byte for byte, and nothing but node: built-ins stays external',
    async (group) => {
      // Built next to the asset (the stack builds there too), so the source maps' relative paths, which the chunks'
      // content hashes cover, are the same.
      const outdir = join(dirname(assets[group]), `reproduced-${group}`);
      try {
        const result = await build({ ...esbuildBuildOptions(`functions/${group}.ts`, outdir), metafile: true });
        for (const options of sideBuildOptions(outdir)) await build(options);
        const ours = readdirSync(outdir).sort();
        const copies = (PACKAGE_FILES[`functions/${group}.ts`] ?? []).map((f) => f.outputFile);
        expect(readdirSync(assets[group]).filter((f) => !copies.includes(f)).sort()).toEqual(ours);
        // (not toEqual on the texts: a mismatch would print two half-megabyte strings)
        expect(ours.filter((f) => !readFileSync(join(outdir, f)).equals(readFileSync(join(assets[group], f))))).toEqual([]);
        const external = Object.values(result.metafile!.outputs)
          .flatMap((o) => o.imports)
          .filter((i) => i.external)
          .map((i) => i.path);
        // The AWS SDK and every other package are inside the bundle; only Node built-ins are imported at run time.
        expect(external.filter((p) => !p.startsWith('node:') && !builtinModules.includes(p))).toEqual([]);
      } finally {
        rmSync(outdir, { recursive: true, force: true });
      }
    },
    TIMEOUT,
  );
});

/**
 * What every cold start of a function loads: index.mjs and the chunks it imports statically (coldStartFiles()). Code
 * the handler imports dynamically (chunks loaded by the requests that need it) and the side bundles are not counted.
 */
const HANDLER_BUDGET_BYTES = 400 * 1024;
/**
 * The pages function runs the API's read operations in-process (the events, linked-record and term groups' reads), so
 * it carries their code, plus its templates, messages in three languages and its style sheet and scripts (~55 KB).
 */
const PAGES_BUDGET_BYTES = 520 * 1024;
/**
 * The events function also routes tickets and attendees (contract §19: their route and parameter definitions, ~6 KB in
 * its routing table; their operations are chunks loaded on first use) and its lists read the geo cells (§18, ~5 KB).
 */
const EVENTS_BUDGET_BYTES = 412 * 1024;
/**
 * The import worker runs the API's event writes in-process (the events function's write chunks, loaded at once) with the
 * origin-API reader and the fetcher (the iCalendar reader and ical.js are a chunk of their own): a background function
 * fed by its queue, whose cold start no request waits for.
 */
const IMPORT_WORKER_BUDGET_BYTES = 560 * 1024;
const budgetOf = (file: string): number =>
  file === 'pages.ts' ? PAGES_BUDGET_BYTES : file === 'events.ts' ? EVENTS_BUDGET_BYTES : file === 'import-worker.ts' ? IMPORT_WORKER_BUDGET_BYTES
    : HANDLER_BUDGET_BYTES;
const FUNCTION_FILES = readdirSync(join(projectRoot, 'functions')).filter((f) => f.endsWith('.ts')).sort();

describe('handler budgets', () => {
  test('there is a handler file per function', () => {
    expect(FUNCTION_FILES).toEqual(expect.arrayContaining([...functionGroups().map((g) => `${g}.ts`), 'horizon.ts', 'publish-changes.ts',
      'import-worker.ts', 'import-dispatcher.ts']));
  });

  test.each(FUNCTION_FILES)('functions/%s: index.mjs with its static chunks is at most 400 KB (events: 412 KB, pages: 520 KB, import-worker: 560 KB) and holds no tracer (aws-xray-sdk-core)', async (file) => {
    const outdir = join(work, `budget-${file}`);
    const result = await build({ ...esbuildBuildOptions(`functions/${file}`, outdir), metafile: true });
    const inputs = Object.keys(result.metafile!.inputs);
    expect(inputs.filter((i) => i.includes('node_modules/aws-xray-sdk-core/') || i.includes('@aws-lambda-powertools/tracer/lib/esm/Tracer'))).toEqual([]);
    const loaded = coldStartFiles(result.metafile!);
    expect(loaded.reduce((bytes, f) => bytes + statSync(join(projectRoot, f)).size, 0))
      .toBeLessThanOrEqual(budgetOf(file));
  }, TIMEOUT);

  test('events: the writes (with recurrence and series) and the iCalendar feeds are chunks a cold start does not load', async () => {
    const outdir = join(work, 'budget-events-chunks');
    const result = await build({ ...esbuildBuildOptions('functions/events.ts', outdir), metafile: true });
    const coldInputs = coldStartFiles(result.metafile!).flatMap((f) => Object.keys(result.metafile!.outputs[f]!.inputs));
    const lazy = ['lib/events/operations.ts', 'lib/events/recurrence.ts', 'lib/events/series.ts', 'lib/events/feed.ts', 'lib/events/feed-calendar.ts'];
    expect(lazy.filter((f) => coldInputs.includes(f))).toEqual([]);
    expect(coldInputs).toEqual(expect.arrayContaining(['lib/events/list.ts', 'lib/events/read.ts']));
  }, TIMEOUT);

  test('the tracer is a side bundle of its own, with aws-xray-sdk-core inside', async () => {
    const outdir = join(work, 'budget-side');
    const tracer = sideBuildOptions(outdir).find((o) => String(o.outfile).endsWith('/tracer.cjs'))!;
    const result = await build({ ...tracer, metafile: true });
    expect(Object.keys(result.metafile!.inputs).some((i) => i.includes('node_modules/aws-xray-sdk-core/'))).toBe(true);
  }, TIMEOUT);
});

// ------------------------------------------------------------------------------------------------ invocation

// The harness (global-setup.ts) provides DynamoDB Local; without it these tests fail, they never skip.
const harness = process.env.CALENDAR_TEST_API;
if (!harness || !process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT) {
  throw new Error('CALENDAR_TEST_API / CALENDAR_TEST_DYNAMODB_ENDPOINT are not set: run the tests through `npm test`');
}

/** Written as .mjs: run as an ES module there is no global `require`, exactly as in the Lambda runtime. */
const RUNNER = `
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
const [bundle, eventsFile, resultsFile] = process.argv.slice(2);
const events = JSON.parse(readFileSync(eventsFile, 'utf8'));
const globalRequire = typeof require !== 'undefined';
const { handler } = await import(pathToFileURL(bundle).href);
const results = [];
for (const event of events) {
  const deadline = Date.now() + 10000;
  const context = {
    awsRequestId: event.requestContext?.requestId ?? 'bundle-test', functionName: 'bundle-test', functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:bundle-test', memoryLimitInMB: '1024',
    logGroupName: 'bundle-test', logStreamName: 'bundle-test', callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  results.push(await handler(event, context));
}
// The side bundles the handler loaded (lib/lazy-module.ts requires them; require's cache is the process's).
const loaded = Object.keys(createRequire(import.meta.url).cache);
writeFileSync(resultsFile, JSON.stringify({ globalRequire, results, loaded }));
process.exit(0);
`;

interface HttpResult {
  statusCode: number;
  headers?: Record<string, string>;
  body?: string;
}

function httpEvent(method: string, path: string, options: { query?: string; body?: unknown; token?: string } = {}) {
  const headers: Record<string, string> = { host: 'bundle.test', 'x-forwarded-proto': 'https', 'user-agent': 'bundles.test' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const requestId = randomUUID();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: options.query ?? '',
    headers,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: 'bundle.test',
      domainPrefix: 'bundle',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bundles.test' },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  };
}

/** Imports a bundle in a fresh `node` process and runs the events through its handler, in order. */
async function invoke(group: FunctionGroup | 'import-worker', env: Record<string, string>, events: unknown[]): Promise<HttpResult[]> {
  return (await run(group, env, events)).results;
}

/** invoke(), with what the process wrote (the handler's log lines and metrics) and the side bundles it loaded. */
async function run(group: FunctionGroup | 'import-worker', env: Record<string, string>, events: unknown[]):
  Promise<{ results: HttpResult[]; stdout: string; loaded: string[] }> {
  const runner = join(work, 'runner.mjs');
  if (!existsSync(runner)) writeFileSync(runner, RUNNER);
  const eventsFile = join(work, `${group}-${randomUUID()}.json`);
  const resultsFile = `${eventsFile}.out`;
  writeFileSync(eventsFile, JSON.stringify(events));
  const child = spawn(process.execPath, [runner, join(assets[group], BUNDLE.outputFile), eventsFile, resultsFile], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((ok) => child.on('close', ok));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`the ${group} bundle failed (exit ${code}):\n${stderr}`);
  const out = JSON.parse(readFileSync(resultsFile, 'utf8')) as { globalRequire: boolean; results: HttpResult[]; loaded: string[] };
  expect(out.globalRequire).toBe(false);
  return { results: out.results, stdout, loaded: out.loaded.map((p) => basename(p)) };
}

const header = (res: HttpResult, name: string): string | undefined =>
  Object.entries(res.headers ?? {}).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
const body = (res: HttpResult): any => JSON.parse(res.body ?? 'null');

describe('bundled functions against DynamoDB Local', () => {
  const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
  const sharedTable = process.env.CALENDAR_TEST_TABLE;
  const secret = process.env.CALENDAR_JWT_SECRET || DEV_JWT_SECRET;
  /** A table of our own for the write checks, so the contract tests' data is never touched. */
  const ownTable = `bundles-${randomUUID().slice(0, 8)}`;
  let client: DynamoDBClient;

  const envFor = (table: string): Record<string, string> => ({
    PATH: process.env.PATH ?? '',
    AWS_REGION: process.env.AWS_REGION || 'local',
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID || 'local',
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY || 'local',
    AWS_ENDPOINT_URL_DYNAMODB: endpoint!,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    CALENDAR_TABLE_NAME: table,
    CALENDAR_TIMEZONE: 'UTC',
    CALENDAR_JWT_SECRET: secret,
    NODE_OPTIONS: '--enable-source-maps',
  });

  beforeAll(async () => {
    if (!endpoint || !sharedTable) {
      throw new Error('CALENDAR_TEST_API is set but CALENDAR_TEST_DYNAMODB_ENDPOINT / CALENDAR_TEST_TABLE are not: the harness must export them.');
    }
    client = new DynamoDBClient({
      endpoint,
      region: process.env.AWS_REGION || 'local',
      credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID || 'local', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || 'local' },
    });
    await ensureTable(client, ownTable);
  }, TIMEOUT);

  afterAll(async () => {
    await client?.send(new DeleteTableCommand({ TableName: ownTable })).catch(() => undefined);
    client?.destroy();
  });

  test('root: namespace index, OpenAPI document, and the API\'s own 404/405 for the $default route', async () => {
    const [index, doc, unknown, wrongMethod] = await invoke('root', envFor(sharedTable!), [
      httpEvent('GET', '/calendar/events/v1'),
      httpEvent('GET', '/de/calendar/events/v1/doc'),
      httpEvent('GET', '/calendar/events/v1/no-such-route'),
      httpEvent('DELETE', '/calendar/events/v1'),
    ]);
    expect(index!.statusCode).toBe(200);
    expect(header(index!, 'content-type')).toMatch(/^application\/json/);
    expect(body(index!).namespace).toBe('calendar/events/v1');
    expect(doc!.statusCode).toBe(200);
    expect(String(body(doc!).openapi)).toMatch(/^3\./);
    expect(unknown!.statusCode).toBe(404);
    expect(body(unknown!).code).toBe('rest_no_route');
    expect(wrongMethod!.statusCode).toBe(405);
    expect(header(wrongMethod!, 'allow')).toContain('GET');
  }, TIMEOUT);

  test('root: the reference page, and Redoc\'s script read from its copy next to the bundle (gzip-compressed when accepted)', async () => {
    const gzip = httpEvent('GET', '/calendar/events/v1/doc.html/redoc.standalone.js');
    gzip.headers['accept-encoding'] = 'gzip, deflate, br';
    const [page, plain, compressed] = await invoke('root', envFor(sharedTable!), [
      httpEvent('GET', '/calendar/events/v1/doc.html'),
      httpEvent('GET', '/calendar/events/v1/doc.html/redoc.standalone.js'),
      gzip,
    ]);
    expect([page!.statusCode, header(page!, 'content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(page!.body).toContain('<redoc spec-url="/calendar/events/v1/doc"');
    const script = readFileSync(packageFilePath('redoc/bundles/redoc.standalone.js'), 'utf8');
    expect([plain!.statusCode, header(plain!, 'content-type'), plain!.body === script]).toEqual([200, 'application/javascript; charset=utf-8', true]);
    expect(page!.body).toContain(`redoc.standalone.js?v=${JSON.parse(header(plain!, 'etag')!)}"`);
    expect([compressed!.statusCode, header(compressed!, 'content-encoding'), (compressed as { isBase64Encoded?: boolean }).isBase64Encoded])
      .toEqual([200, 'gzip', true]);
    expect(gunzipSync(Buffer.from(compressed!.body!, 'base64')).toString('utf8') === script).toBe(true);
    // Lambda answers at most 6 MB: the script's answer, either way, is far below it.
    expect(JSON.stringify(plain).length).toBeLessThan(2 * 1024 * 1024);
  }, TIMEOUT);

  test('pages: the list page and its script from the bundle (the templates and the API operations inside it)', async () => {
    const [page, script, missing] = await invoke('pages', { ...envFor(sharedTable!), CALENDAR_SITE_NAME: 'Bundled Calendar' }, [
      httpEvent('GET', '/de/events/'),
      httpEvent('GET', '/events/assets/site.js'),
      httpEvent('GET', '/event/no-such-event-anywhere/'),
    ]);
    expect([page!.statusCode, header(page!, 'content-type'), header(page!, 'content-language')]).toEqual([200, 'text/html; charset=utf-8', 'de']);
    expect(page!.body).toMatch(/^<!doctype html>/i);
    expect(page!.body).toContain('Bundled Calendar');
    expect([script!.statusCode, header(script!, 'content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect([missing!.statusCode, header(missing!, 'content-type')]).toEqual([404, 'text/html; charset=utf-8']);
  }, TIMEOUT);

  test('events: the list against the harness table (200, events array, X-TEC-Total)', async () => {
    const [list] = await invoke('events', envFor(sharedTable!), [httpEvent('GET', '/calendar/events/v1/events')]);
    expect(list!.statusCode).toBe(200);
    const b = body(list!);
    expect(Array.isArray(b.events)).toBe(true);
    expect(header(list!, 'X-TEC-Total')).toBe(String(b.total));
  }, TIMEOUT);

  test('events: JSON log lines with the request ids and route, EMF metrics; the tracer loads only with tracing on', async () => {
    const list = httpEvent('GET', '/calendar/events/v1/events');
    const quiet = await run('events', envFor(sharedTable!), [list]);
    expect(quiet.results[0]!.statusCode).toBe(200);
    expect(quiet.loaded).not.toContain('tracer.cjs');
    const lines = quiet.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    expect(lines).toContainEqual(expect.objectContaining({ level: 'INFO', message: 'request answered', status: 200,
      request_id: list.requestContext.requestId, function_request_id: list.requestContext.requestId, route: '/events', operation: 'events.list' }));
    const emf = lines.find((l) => l._aws?.CloudWatchMetrics?.[0]?.Metrics?.some((m: { Name: string }) => m.Name === 'Requests'));
    expect(emf).toMatchObject({ _aws: { CloudWatchMetrics: [{ Namespace: 'CalendarEventsApi' }] }, Requests: 1, ServerErrors: 0 });
    expect(emf.ReadUnits).toBeGreaterThan(0);

    const traced = await run('events', { ...envFor(sharedTable!), POWERTOOLS_TRACE_ENABLED: 'true' }, [list]);
    expect(traced.results[0]!.statusCode).toBe(200);
    expect(traced.loaded).toContain('tracer.cjs');
  }, TIMEOUT);

  test('events: create as an editor, then read it back (transactions and JWT verification inside the bundle)', async () => {
    const token = await signLocalToken({ secret, role: 'editor', sub: 'bundle-test-editor' });
    const [created, list] = await invoke('events', envFor(ownTable), [
      httpEvent('POST', '/calendar/events/v1/events', {
        token,
        body: { title: 'Bundled launch', start_date: '2031-05-04 10:00:00', end_date: '2031-05-04 12:00:00', status: 'publish' },
      }),
      httpEvent('GET', '/calendar/events/v1/events', { query: 'start_date=2031-05-01&end_date=2031-05-31' }),
    ]);
    expect(created!.statusCode).toBe(201);
    expect(header(created!, 'location')).toMatch(/^https:\/\/bundle\.test\/calendar\/events\/v1\/events\/\d+$/);
    expect(list!.statusCode).toBe(200);
    expect(header(list!, 'X-TEC-Total')).toBe('1');
    expect(body(list!).events.map((e: { title: string }) => e.title)).toEqual(['Bundled launch']);
  }, TIMEOUT);

  test('events: a token loads jose, a recurrence rrule, an Idempotency-Key the idempotency utility, each from its own file', async () => {
    const token = await signLocalToken({ secret, role: 'editor', sub: 'bundle-test-editor' });
    const anonymous = await run('events', envFor(ownTable), [httpEvent('GET', '/calendar/events/v1/events')]);
    expect(anonymous.loaded.filter((f) => ['jose.cjs', 'rrule.cjs', 'idempotency.cjs'].includes(f))).toEqual([]);
    const create = httpEvent('POST', '/calendar/events/v1/events', { token, body: { title: 'Weekly', start_date: '2027-07-01 18:00:00',
      end_date: '2027-07-01 19:00:00', status: 'publish', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] } });
    const key = randomUUID();
    create.headers['idempotency-key'] = key;
    const { results: [first, again], loaded } = await run('events', envFor(ownTable), [create, { ...create,
      requestContext: { ...create.requestContext, requestId: randomUUID() } }]);
    expect(first!.statusCode).toBe(201);
    expect(again!.statusCode).toBe(201);
    expect(header(again!, 'idempotent-replayed')).toBe('true');
    expect(body(again!).id).toBe(body(first!).id);
    expect(loaded).toEqual(expect.arrayContaining(['jose.cjs', 'rrule.cjs', 'idempotency.cjs']));
    const [occurrences] = await invoke('events', envFor(ownTable), [httpEvent('GET', `/calendar/events/v1/events/${body(first!).id}/occurrences`,
      { query: 'start_date=2027-07-01&end_date=2027-07-31' })]);
    expect(body(occurrences!).events).toHaveLength(3);
  }, TIMEOUT);

  test('events: phrases load chrono, HTML loads the tokenizer and the entity decoder, each from its own file', async () => {
    const token = await signLocalToken({ secret, role: 'editor', sub: 'bundle-test-editor' });
    const [created] = await invoke('events', envFor(ownTable), [
      httpEvent('POST', '/calendar/events/v1/events', { token, body: { title: 'Phrased', start_date: 'tomorrow 10am', end_date: 'tomorrow noon',
        status: 'publish', description: '<p onclick="steal()">Caf&eacute; <script>bad()</script>ok</p>' } }),
    ]);
    expect(created!.statusCode).toBe(201);
    const event = body(created!);
    expect(event.start_date).toMatch(/ 10:00:00$/);
    expect(event.end_date).toMatch(/ 12:00:00$/);
    expect(event.description).toBe('<p>Caf&eacute; ok</p>');
    const [single] = await invoke('events', envFor(ownTable), [httpEvent('GET', `/calendar/events/v1/events/${event.id}`)]);
    expect(body(single!).json_ld.description).toBe('Café ok');
  }, TIMEOUT);

  test('events: a feed loads ical-generator and the VTIMEZONE data from their own files', async () => {
    const token = await signLocalToken({ secret, role: 'editor', sub: 'bundle-test-editor' });
    const [created] = await invoke('events', envFor(ownTable), [
      httpEvent('POST', '/calendar/events/v1/events', { token, body: { title: 'Fed', start_date: '2031-06-04 18:00:00', end_date:
        '2031-06-04 19:00:00', timezone: 'Europe/Berlin', status: 'publish' } }),
    ]);
    const id = body(created!).id as number;
    const [list, one] = await invoke('events', envFor(ownTable), [
      httpEvent('GET', '/calendar/events/v1/events.ics', { query: 'start_date=2031-06-01&end_date=2031-06-30' }),
      httpEvent('GET', `/calendar/events/v1/events/${id}.ics`),
    ]);
    for (const feed of [list!, one!]) {
      expect(feed.statusCode).toBe(200);
      expect(header(feed, 'content-type')).toBe('text/calendar; charset=utf-8');
      expect(feed.body).toContain('BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n');
      expect(feed.body).toContain(`UID:event-${id}@calendar\r\n`);
      expect(feed.body).toContain('DTSTART;TZID=Europe/Berlin:20310604T180000\r\n');
    }
  }, TIMEOUT);

  test('root: a path in another letter case, an API path or a page path, is forwarded to its function with the Lambda client loaded from its own file', async () => {
    const seen: string[] = [];
    const lambda = createServer((req, res) => {
      let payload = '';
      req.on('data', (c: Buffer) => (payload += c.toString()));
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${JSON.parse(payload).rawPath}`);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"forwarded":true}' }));
      });
    });
    await new Promise<void>((ok) => lambda.listen(0, '127.0.0.1', ok));
    try {
      const port = (lambda.address() as { port: number }).port;
      const [res, page, unknown] = await invoke('root', { ...envFor(sharedTable!),
        CALENDAR_FUNCTIONS: JSON.stringify({ events: 'events-function', pages: 'pages-function' }), AWS_ENDPOINT_URL_LAMBDA: `http://127.0.0.1:${port}` },
      [httpEvent('GET', '/calendar/events/v1/EVENTS'), httpEvent('GET', '/DE/Events/Month/'), httpEvent('GET', '/no-such-page/')]);
      expect(res!.statusCode).toBe(200);
      expect(body(res!)).toEqual({ forwarded: true });
      expect(page!.statusCode).toBe(200);
      expect([unknown!.statusCode, body(unknown!).code]).toEqual([404, 'rest_no_route']);
      expect(seen).toEqual(['POST /2015-03-31/functions/events-function/invocations /calendar/events/v1/EVENTS',
        'POST /2015-03-31/functions/pages-function/invocations /DE/Events/Month/']);
    } finally {
      lambda.close();
    }
  }, TIMEOUT);

  test('imports and the import worker: an import created, then run by the worker from its queue message (a refused address fails it)', async () => {
    const token = await signLocalToken({ secret, role: 'editor', sub: 'bundle-test-editor' });
    // The imports function admits a loopback source only where private addresses are allowed; the worker here is not.
    const [created] = await invoke('imports', { ...envFor(ownTable), CALENDAR_IMPORT_ALLOW_PRIVATE: '1' }, [httpEvent('POST', '/calendar/events/v1/imports',
      { token, body: { name: 'Bundled', source: { type: 'tec', url: 'http://127.0.0.1:9/wp-json/tribe/events/v1', username: 'u', password: 'p' } } })]);
    expect(created!.statusCode).toBe(202);
    const id = body(created!).id;
    const [worked] = await invoke('import-worker', envFor(ownTable), [{ Records: [{ messageId: 'm1', body: JSON.stringify({ import: id }) }] }]);
    expect(worked).toEqual({ batchItemFailures: [] });
    const [read] = await invoke('imports', envFor(ownTable), [httpEvent('GET', `/calendar/events/v1/imports/${id}`, { token })]);
    expect(body(read!).last_run).toMatchObject({ state: 'failed', message: 'address not allowed' });
  }, TIMEOUT);

  test.each(['venues', 'organizers', 'categories', 'tags'] as const)('%s: the list route answers 200 with its records array', async (group) => {
    const [list] = await invoke(group, envFor(ownTable), [httpEvent('GET', `/calendar/events/v1/${group}`)]);
    expect({ status: list!.statusCode, body: body(list!) }).toEqual({
      status: 200,
      body: expect.objectContaining({ [group]: expect.any(Array) }),
    });
  }, TIMEOUT);
});
