/**
 * `npm run -s token -- --role editor [--sub NAME] [--expires 1h]`: prints a local HS256 token and nothing else.
 * With `--app-password NAME` it asks the running local API for an application password instead and prints
 * `username:password` (for HTTP Basic, as clients of the origin's API send it).
 */
import { parseArgs } from 'node:util';
import { DEV_JWT_SECRET } from '../config.js';
import { isTokenRole, signLocalToken, TOKEN_ROLES } from './token-sign.js';

const USAGE = `Usage: npm run -s token -- --role ROLE [--sub NAME] [--expires SPAN]

Prints a JWT for the local API (HS256, signed with CALENDAR_JWT_SECRET, or the development
secret that \`npm start\` uses by default).

  --role ROLE      ${TOKEN_ROLES.join(' | ')} (required)
  --sub NAME       the user the token identifies (default: local-ROLE)
  --expires SPAN   lifetime such as 30m, 1h, 7d (default: 12h)
  --app-password NAME
                   instead of a token, create an application password called NAME for that user on
                   the running local API and print "username:password" (for HTTP Basic)
  --url URL        the API for --app-password (default: http://127.0.0.1:\${PORT:-3000}/calendar/events/v1)
  --help           show this text

Examples:
  TOKEN=$(npm run -s token -- --role editor)
  curl -H "Authorization: Bearer $TOKEN" -d title=Hello -d start_date=tomorrow \\
       http://127.0.0.1:3000/calendar/events/v1/events
  CREDENTIALS=$(npm run -s token -- --role editor --sub alice --app-password my-importer)
  curl -u "$CREDENTIALS" http://127.0.0.1:3000/wp-json/tribe/events/v1/events
`;

function fail(message: string): never {
  process.stderr.write(`${message}\nRun \`npm run -s token -- --help\` for usage.\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let values: { role?: string; sub?: string; expires?: string; help?: boolean; 'app-password'?: string; url?: string };
  try {
    ({ values } = parseArgs({
      options: { role: { type: 'string' }, sub: { type: 'string' }, expires: { type: 'string' }, help: { type: 'boolean', short: 'h' },
        'app-password': { type: 'string' }, url: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    fail((e as Error).message);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (!values.role) fail('--role is required.');
  const role = values.role.toLowerCase();
  if (!isTokenRole(role)) fail(`Unknown role "${values.role}"; use one of ${TOKEN_ROLES.join(', ')}.`);
  if (values.sub !== undefined && values.sub.trim() === '') fail('--sub must not be empty.');
  let token: string;
  try {
    token = await signLocalToken({
      secret: process.env.CALENDAR_JWT_SECRET || DEV_JWT_SECRET,
      role,
      sub: values.sub,
      expiresIn: values.expires ?? '12h',
    });
  } catch (e) {
    fail(`Could not sign the token: ${(e as Error).message} (is --expires a span such as 30m, 1h or 7d?)`);
  }
  const name = values['app-password'];
  if (name === undefined) {
    process.stdout.write(`${token}\n`);
    return;
  }
  const api = (values.url ?? `http://127.0.0.1:${process.env.PORT || 3000}/calendar/events/v1`).replace(/\/+$/, '');
  let res: Response;
  try {
    res = await fetch(`${api}/application-passwords`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name }),
    });
  } catch (e) {
    fail(`Could not reach the API at ${api} (is \`npm start\` running?): ${(e as Error).message}`);
  }
  const body = (await res.json().catch(() => ({}))) as { username?: string; password?: string; message?: string };
  if (res.status !== 201 || !body.password) fail(`The API answered ${res.status}: ${body.message ?? 'no password'}`);
  process.stdout.write(`${body.username}:${body.password.replace(/ /g, '')}\n`);
}

await main();
