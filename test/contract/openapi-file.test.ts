/**
 * openapi.json, the repository's copy of the OpenAPI document (contract §10): it is the document the service serves at
 * GET {api}/doc, as parsed JSON, servers aside — under every base and prefix, and whatever the date or the environment
 * of the process that builds it. `npm run openapi` rewrites it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { apiUrl, serverOrigin } from '../support/api.js';

type Json = Record<string, unknown>;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILE = `${ROOT}openapi.json`;
const FIX = 'Run `npm run openapi` and commit openapi.json.';

const withoutServers = ({ servers: _servers, ...rest }: Json): Json => rest;

/** JSON pointers of the first places where two JSON values differ. */
function differences(a: unknown, b: unknown, at = '', out: string[] = []): string[] {
  if (out.length >= 5) return out;
  if (a === b) return out;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    out.push(at || '/');
    return out;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) differences((a as Json)[key], (b as Json)[key], `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
  return out;
}

function expectSameDocument(file: Json, served: Json, what: string): void {
  const found = differences(withoutServers(file), withoutServers(served));
  if (found.length) throw new Error(`openapi.json differs from ${what} at ${found.join(', ')}. ${FIX}`);
}

const fileText = (): string => readFileSync(FILE, 'utf8');

async function served(path: string): Promise<Json> {
  const res = await fetch(`${serverOrigin()}${path}`);
  expect([path, res.status]).toEqual([path, 200]);
  return (await res.json()) as Json;
}

describe('openapi.json', () => {
  it('is the document GET {api}/doc serves, servers aside', async () => {
    expectSameDocument(JSON.parse(fileText()), await served(`${new URL(apiUrl()).pathname}/doc`), 'the document GET {api}/doc serves');
  });

  it('is that document under every base and language prefix too', async () => {
    const file = JSON.parse(fileText()) as Json;
    for (const path of ['/de/calendar/events/v1/doc', '/pt-pt/wp-json/tribe/events/v1/doc']) {
      expectSameDocument(file, await served(path), `GET ${path}`);
    }
  });

  it('does not depend on the date or the environment of the process that builds the document', () => {
    // The generator in a process whose clock says 2041 and whose settings all differ from the test server's.
    const script = [
      "const real = Date; const at = real.UTC(2041, 6, 14, 3, 4, 5);",
      'globalThis.Date = class extends real { constructor(...a) { super(...(a.length ? a : [at])); } static now() { return at; } };',
      "const { buildOpenApiDocument } = await import('./lib/openapi/document.ts');",
      "process.stdout.write(JSON.stringify(buildOpenApiDocument({ apiUrl: 'https://elsewhere.example.org/stage/calendar/events/v1' })));",
    ].join('\n');
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, TZ: 'Pacific/Kiritimati', LANG: 'de_DE.UTF-8', CALENDAR_TIMEZONE: 'America/St_Johns', CALENDAR_CACHE_SECONDS: '86400',
        CALENDAR_RECURRENCE_HORIZON_DAYS: '31', CALENDAR_CHANGES_RETENTION_SECONDS: '3600', CALENDAR_SITE_URL: 'https://site.example.org' },
    });
    if (run.status !== 0) throw new Error(`building the document failed: ${run.stderr}`);
    expectSameDocument(JSON.parse(fileText()), JSON.parse(run.stdout) as Json, 'the document built in 2041 under other settings');
  }, 60_000);

  it('is written as `npm run openapi` writes it: 2-space JSON and a final newline', () => {
    const text = fileText();
    if (text !== `${JSON.stringify(JSON.parse(text), null, 2)}\n`) throw new Error(`openapi.json is not formatted as generated. ${FIX}`);
  });

  it('is a valid OpenAPI 3.0 document whose servers are the local server and a deployment', async () => {
    const file = JSON.parse(fileText()) as { servers: { url: string; variables?: Json }[] };
    const result = await new Validator().validate(file);
    if (!result.valid) throw new Error(`openapi.json is not valid OpenAPI: ${JSON.stringify(result.errors).slice(0, 2000)}`);
    expect(file.servers.map((s) => s.url)).toEqual(['http://127.0.0.1:3000/calendar/events/v1',
      'https://{apiId}.execute-api.{region}.amazonaws.com/calendar/events/v1']);
  });

  it('says what to do when it differs', () => {
    const file = JSON.parse(fileText()) as Json;
    const changed = structuredClone(file) as { paths: Record<string, Json> };
    delete changed.paths['/doc.html'];
    expect(() => expectSameDocument(file, changed, 'a changed document')).toThrow(/\/paths\/~1doc\.html.*npm run openapi/);
  });
});
