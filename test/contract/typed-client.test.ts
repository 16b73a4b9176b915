/**
 * The typed-client recipe (examples/typed-client, docs/using-the-api.md "Typed client") works as written: its scripts generate the
 * types from the repository's openapi.json with openapi-typescript, type-check the example with the workspace's own
 * TypeScript (a type error, in the example or in the generated types, fails this test), and run it against the test
 * server with a token; it creates an event and reads it back through those types.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { apiUrl, tokenFor } from '../support/api.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = `${ROOT}examples/typed-client/`;

/** `npm run -s <script> -w examples/typed-client`, as docs/using-the-api.md says; resolves with its output, fails on a non-zero exit. */
function workspaceScript(script: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '-s', script, '-w', 'examples/typed-client'], {
      cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`npm run ${script} exited with ${code}:\n${output}`))));
  });
}

describe('the typed client example', () => {
  it('generates its types from openapi.json, type-checks, and creates and reads back an event', async () => {
    const started = Date.now();
    await workspaceScript('generate');
    expect(statSync(`${EXAMPLE}schema.ts`).mtimeMs).toBeGreaterThanOrEqual(started - 1000);
    expect(existsSync(`${EXAMPLE}tsconfig.json`)).toBe(true);
    await workspaceScript('typecheck');

    const output = await workspaceScript('start', { CALENDAR_API: apiUrl(), CALENDAR_TOKEN: await tokenFor('editor') });
    const lines = output.trim().split('\n');
    const word = /^listed 0 events matching "([0-9a-f]{8})"$/.exec(lines[0] ?? '')?.[1];
    if (!word) throw new Error(`unexpected output:\n${output}`);
    const id = /^created event (\d+) /.exec(lines[1] ?? '')?.[1];
    expect(lines).toEqual([
      `listed 0 events matching "${word}"`,
      `created event ${id} "Typed client launch ${word}" from 2031-05-04 10:00:00 to 2031-05-04 12:00:00 (Europe/Lisbon)`,
      `read back event ${id}: "Typed client launch ${word}", publish, at Typed Hall ${word}, in Examples`,
      `listed 1 event matching "${word}" in examples: ${id}`,
    ]);
  }, 180_000);
});
