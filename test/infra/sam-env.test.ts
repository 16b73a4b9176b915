/** lib/local/sam-env.ts: the sam local --env-vars file derived from the synthesised template. */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { containerEndpoint, main, SamEnvError, samEnvVars, stackTemplates } from '../../lib/local/sam-env.js';
import { checkSamCli, compareVersions, main as samStart, MIN_SAM_CLI_VERSION } from '../../lib/local/sam-start.js';
import { synth } from './helpers.js';

const TIMEOUT = 60_000; // each test synthesises the stack

const options = { containerEndpoint: 'http://host.docker.internal:8000', tableName: 'calendar-events', jwtSecret: 's3cret' };

test('maps every function of a samLocal template to the local settings', () => {
  const { stack, json } = synth({ samLocal: 'true' });
  const vars = samEnvVars(json, options);
  const ids = [...Object.values(stack.functions), stack.horizon.fn, stack.changeEvents.fn, stack.imports.worker, stack.imports.dispatcher]
    .map((fn) => stack.getLogicalId(fn.node.defaultChild as never));
  expect(Object.keys(vars).sort()).toEqual(ids.sort());
  const importing = [stack.functions.imports, stack.imports.worker, stack.imports.dispatcher].map((fn) => stack.getLogicalId(fn.node.defaultChild as never));
  for (const id of ids) {
    expect(vars[id]).toEqual({
      CALENDAR_TABLE_NAME: 'calendar-events',
      AWS_ENDPOINT_URL_DYNAMODB: 'http://host.docker.internal:8000',
      CALENDAR_JWT_SECRET: 's3cret',
      CALENDAR_JWT_ISSUER: '',
      CALENDAR_JWT_AUDIENCE: '',
      // The functions that know the import queue (and the key): neither under sam local.
      ...(importing.includes(id) ? { CALENDAR_IMPORT_QUEUE_URL: '' } : {}),
      ...(importing.includes(id) && id !== importing[2] ? { CALENDAR_IMPORT_KEY_ID: '' } : {}),
    });
  }
  // Only variables the template declares (SAM ignores the others): no site URL unless the stack sets one.
  expect(samEnvVars(json, { ...options, siteUrl: 'https://x.example', timezone: 'Europe/Berlin' })[ids[0]!]).toMatchObject({
    CALENDAR_TIMEZONE: 'Europe/Berlin',
  });
  expect(samEnvVars(json, { ...options, siteUrl: 'https://x.example' })[ids[0]!]!.CALENDAR_SITE_URL).toBeUndefined();
}, TIMEOUT);

test('refuses a template that was not synthesised for sam local', () => {
  const { json } = synth();
  expect(() => samEnvVars(json, options)).toThrow(SamEnvError);
  expect(() => samEnvVars(json, options)).toThrow(/samLocal=true/);
}, TIMEOUT);

test('loopback endpoints are rewritten to the Docker host; others are kept', () => {
  expect(containerEndpoint('http://127.0.0.1:8000', 'host.docker.internal')).toBe('http://host.docker.internal:8000');
  expect(containerEndpoint('http://localhost:41234/', 'host.docker.internal')).toBe('http://host.docker.internal:41234');
  expect(containerEndpoint('http://dynamodb:8000', 'host.docker.internal')).toBe('http://dynamodb:8000');
  expect(() => containerEndpoint('not a url', 'h')).toThrow(SamEnvError);
}, TIMEOUT);

test('CLI with --no-synth writes <out>/sam-env.json from an existing cloud assembly', async () => {
  const { app } = synth({ samLocal: 'true' });
  const dir = app.synth().directory;
  expect(Object.keys(stackTemplates(dir))).toEqual(['CalendarEventsApi']);
  const stdout = captureOutput();
  let file: string;
  try {
    file = await main(['--no-synth', '--no-check', '--out', dir, '--dynamodb-endpoint', 'http://127.0.0.1:45678', '--table', 't1', '--jwt-secret', 'k']);
  } finally {
    stdout.restore();
  }
  expect(file).toBe(join(dir, 'sam-env.json'));
  const vars = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>;
  expect(Object.keys(vars)).toHaveLength(12); // seven route groups, the pages, the horizon job, the change publisher, the import worker and dispatcher
  for (const v of Object.values(vars)) {
    expect(v).toMatchObject({ AWS_ENDPOINT_URL_DYNAMODB: 'http://host.docker.internal:45678', CALENDAR_TABLE_NAME: 't1', CALENDAR_JWT_SECRET: 'k' });
  }
  expect(stdout.text).toMatch(/^sam local start-api -t .*CalendarEventsApi\.template\.json --env-vars .*sam-env\.json\n$/);
}, TIMEOUT);

describe('npm run sam:start', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'sam-start-'));
    dirs.push(dir);
    return dir;
  };
  /** A directory holding a fake `sam` that reports `version` and writes the arguments of any other call to argsFile. */
  const fakeSam = (version: string) => {
    const dir = tempDir();
    const argsFile = join(dir, 'args.txt');
    const script = `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "SAM CLI, version ${version}"; exit 0; fi\nprintf '%s\\n' "$@" > '${argsFile}'\n`;
    writeFileSync(join(dir, 'sam'), script);
    chmodSync(join(dir, 'sam'), 0o755);
    return { env: { ...process.env, PATH: `${dir}:/usr/bin:/bin` }, argsFile };
  };

  test('compares dotted versions numerically', () => {
    expect(compareVersions('1.147.0', '1.147.0')).toBe(0);
    expect(compareVersions('1.146.9', '1.147.0')).toBe(-1);
    expect(compareVersions('1.150.1', '1.147.0')).toBe(1);
    expect(compareVersions('2.0.0', '1.999.0')).toBe(1);
  });

  test('fails with a clear message when there is no sam on PATH', () => {
    expect(() => checkSamCli({ PATH: tempDir() })).toThrow(SamEnvError);
    expect(() => checkSamCli({ PATH: tempDir() })).toThrow(/not installed \(no `sam` on PATH\).*1\.147\.0 or later/);
  });

  test('fails with a clear message when sam is older than the first release with nodejs24.x', () => {
    expect(() => checkSamCli(fakeSam('1.146.0').env)).toThrow(/SAM CLI 1\.146\.0 is too old: .*nodejs24\.x.* from 1\.147\.0/);
    expect(checkSamCli(fakeSam(MIN_SAM_CLI_VERSION).env)).toBe(MIN_SAM_CLI_VERSION);
    expect(checkSamCli(fakeSam('1.164.0').env)).toBe('1.164.0');
  });

  test('an old sam stops it before anything is synthesised or written', async () => {
    const out = tempDir();
    const { env, argsFile } = fakeSam('1.120.0');
    await expect(samStart(['--out', out, '--no-check'], env)).rejects.toThrow(/too old/);
    expect(existsSync(join(out, 'sam-env.json'))).toBe(false);
    expect(existsSync(argsFile)).toBe(false);
  });

  test('writes the env file and runs sam local start-api on the template with it', async () => {
    const { app } = synth({ samLocal: 'true' });
    const dir = app.synth().directory;
    const { env, argsFile } = fakeSam('1.150.0');
    const output = captureOutput();
    let status: number;
    try {
      status = await samStart(['--no-synth', '--no-check', '--out', dir, '--port', '3002', '--', '--warm-containers', 'EAGER'], env);
    } finally {
      output.restore();
    }
    expect(status).toBe(0);
    expect(existsSync(join(dir, 'sam-env.json'))).toBe(true);
    const args = readFileSync(argsFile, 'utf8').trimEnd().split('\n');
    expect(args.slice(0, 2)).toEqual(['local', 'start-api']);
    expect(args[args.indexOf('--template') + 1]).toMatch(/CalendarEventsApi\.template\.json$/);
    expect(args[args.indexOf('--env-vars') + 1]).toMatch(/sam-env\.json$/);
    expect(args[args.indexOf('--port') + 1]).toBe('3002');
    expect(args.slice(-2)).toEqual(['--warm-containers', 'EAGER']);
    if (process.platform === 'linux') expect(args[args.indexOf('--add-host') + 1]).toBe('host.docker.internal:host-gateway');
  }, TIMEOUT);
});

/** Captures process.stdout/stderr writes during the CLI call (ESM Jest has no jest.spyOn global here). */
function captureOutput() {
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const captured = {
    text: '',
    restore: () => {
      process.stdout.write = out;
      process.stderr.write = err;
    },
  };
  process.stdout.write = ((chunk: string | Uint8Array) => {
    captured.text += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  return captured;
}
