/**
 * `npm run sam:start`: checks that the AWS SAM CLI is installed and recent enough, prepares the template and the
 * --env-vars file as `npm run sam:env` does (lib/local/sam-env.ts), then runs `sam local start-api` with them.
 *
 *   npm run sam:start -- --dynamodb-endpoint http://127.0.0.1:8000 [--port 3001] [-- <more sam local start-api options>]
 *
 * Docker is required by sam local (not by this script).
 */
import { spawn, spawnSync } from 'node:child_process';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { prepareSamLocal, reportFailure, SAM_ENV_OPTIONS, SamEnvError } from './sam-env.js';

/**
 * The oldest SAM CLI that runs the stack's functions: nodejs24.x on arm64 came with SAM CLI 1.147 (aws-sam-cli
 * "feat: add nodejs24.x runtime support", November 2025); older releases refuse the runtime.
 */
export const MIN_SAM_CLI_VERSION = '1.147.0';

const INSTALL_HINT = 'Install or upgrade it as the AWS SAM developer guide describes ("Installing the AWS SAM CLI"); Docker is needed too.';

/** -1, 0 or 1 as dotted version a is lower than, equal to or higher than b (missing parts count as 0). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** Runs `sam --version` with the given environment (its PATH decides which sam) and returns the version it reports. */
export function checkSamCli(env: NodeJS.ProcessEnv = process.env): string {
  const run = spawnSync('sam', ['--version'], { env, encoding: 'utf8', shell: process.platform === 'win32' });
  if (run.error) {
    if ((run.error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new SamEnvError(`The AWS SAM CLI is not installed (no \`sam\` on PATH). SAM CLI ${MIN_SAM_CLI_VERSION} or later is needed. ${INSTALL_HINT}`);
    }
    throw new SamEnvError(`Could not run \`sam --version\`: ${run.error.message}`);
  }
  const output = `${run.stdout}${run.stderr}`;
  // "SAM CLI, version 1.147.1"
  const version = /version\s+(\d+\.\d+\.\d+)/i.exec(output)?.[1];
  if (run.status !== 0 || !version) {
    throw new SamEnvError(`\`sam --version\` did not report a version (exit status ${run.status}): ${output.trim() || 'no output'}`);
  }
  if (compareVersions(version, MIN_SAM_CLI_VERSION) < 0) {
    throw new SamEnvError(
      `SAM CLI ${version} is too old: the functions run on nodejs24.x (arm64), which SAM CLI supports from ${MIN_SAM_CLI_VERSION}. ${INSTALL_HINT}`,
    );
  }
  return version;
}

/** The `sam` arguments that start the API on the prepared template. */
export function startApiArgs(template: string, envFile: string, port: string, platform: NodeJS.Platform, extra: string[]): string[] {
  return [
    'local',
    'start-api',
    '--template',
    template,
    '--env-vars',
    envFile,
    '--port',
    port,
    // Docker on Linux has no host.docker.internal unless it is mapped to the host's gateway (Docker Desktop has it).
    ...(platform === 'linux' ? ['--add-host', 'host.docker.internal:host-gateway'] : []),
    ...extra,
  ];
}

const HELP = `Starts the Calendar API under sam local start-api (Docker and the AWS SAM CLI ${MIN_SAM_CLI_VERSION}+ are required).

Usage: npm run sam:start -- [options] [-- <more sam local start-api options>]

  --port PORT              The port sam local listens on (default 3001, beside npm start's 3000).
  Every option of npm run sam:env (run it with --help): --dynamodb-endpoint, --table, --jwt-secret, --timezone,
  --site-url, --docker-host, --out, -c KEY=VALUE, --no-synth, --no-check.
  -h, --help               This text.
`;

/** Checks sam, prepares the files, and runs sam local start-api until it exits; resolves with its exit status. */
export async function main(argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const extra = split === -1 ? [] : argv.slice(split + 1);
  const { values } = parseArgs({ args: own, options: { ...SAM_ENV_OPTIONS, port: { type: 'string', default: '3001' } }, strict: true });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535) throw new SamEnvError(`--port must be a port number, not "${values.port}".`);

  const version = checkSamCli(env);
  process.stderr.write(`SAM CLI ${version}.\n`);
  const { template, envFile } = await prepareSamLocal(values);
  const args = startApiArgs(relative(process.cwd(), template), relative(process.cwd(), envFile), values.port, process.platform, extra);
  process.stderr.write(`sam ${args.join(' ')}\n`);

  const child = spawn('sam', args, { env, stdio: 'inherit', shell: process.platform === 'win32' });
  // Ctrl-C reaches sam through the terminal; a signal sent to this process alone is passed on.
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, forward);
  return new Promise((done, fail) => {
    child.once('error', (e) => fail(new SamEnvError(`Could not start sam: ${e.message}`)));
    child.once('exit', (code, signal) => {
      for (const s of ['SIGINT', 'SIGTERM'] as const) process.off(s, forward);
      done(code ?? (signal ? 1 : 0));
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().then(
    (status) => process.exit(status),
    (e: unknown) => reportFailure('sam-start', e),
  );
}
