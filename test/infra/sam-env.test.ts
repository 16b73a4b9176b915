/** lib/local/sam-env.ts: the sam local --env-vars file derived from the synthesised template. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { containerEndpoint, main, SamEnvError, samEnvVars, stackTemplates } from '../../lib/local/sam-env.js';
import { synth } from './helpers.js';

const TIMEOUT = 60_000; // each test synthesises the stack

const options = { containerEndpoint: 'http://host.docker.internal:8000', tableName: 'calendar-events', jwtSecret: 's3cret' };

test('maps every function of a samLocal template to the local settings', () => {
  const { stack, json } = synth({ samLocal: 'true' });
  const vars = samEnvVars(json, options);
  const ids = [...Object.values(stack.functions), stack.horizon.fn, stack.changeEvents.fn].map((fn) => stack.getLogicalId(fn.node.defaultChild as never));
  expect(Object.keys(vars).sort()).toEqual(ids.sort());
  for (const id of ids) {
    expect(vars[id]).toEqual({
      CALENDAR_TABLE_NAME: 'calendar-events',
      AWS_ENDPOINT_URL_DYNAMODB: 'http://host.docker.internal:8000',
      CALENDAR_JWT_SECRET: 's3cret',
      CALENDAR_JWT_ISSUER: '',
      CALENDAR_JWT_AUDIENCE: '',
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
  expect(Object.keys(vars)).toHaveLength(8); // six route groups, the horizon job and the change publisher
  for (const v of Object.values(vars)) {
    expect(v).toMatchObject({ AWS_ENDPOINT_URL_DYNAMODB: 'http://host.docker.internal:45678', CALENDAR_TABLE_NAME: 't1', CALENDAR_JWT_SECRET: 'k' });
  }
  expect(stdout.text).toMatch(/^sam local start-api -t .*CalendarEventsApi\.template\.json --env-vars .*sam-env\.json\n$/);
}, TIMEOUT);

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
