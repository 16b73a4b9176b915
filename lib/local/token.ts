/** `npm run -s token -- --role editor [--sub NAME] [--expires 1h]`: prints a local HS256 token and nothing else. */
import { parseArgs } from 'node:util';
import { DEV_JWT_SECRET } from '../config.js';
import { isTokenRole, signLocalToken, TOKEN_ROLES } from './token-sign.js';

const USAGE = `Usage: npm run -s token -- --role ROLE [--sub NAME] [--expires SPAN]

Prints a JWT for the local API (HS256, signed with CALENDAR_JWT_SECRET, or the development
secret that \`npm start\` uses by default).

  --role ROLE      ${TOKEN_ROLES.join(' | ')} (required)
  --sub NAME       the user the token identifies (default: local-ROLE)
  --expires SPAN   lifetime such as 30m, 1h, 7d (default: 12h)
  --help           show this text

Example:
  TOKEN=$(npm run -s token -- --role editor)
  curl -H "Authorization: Bearer $TOKEN" -d title=Hello -d start_date=tomorrow \\
       http://127.0.0.1:3000/calendar/events/v1/events
`;

function fail(message: string): never {
  process.stderr.write(`${message}\nRun \`npm run -s token -- --help\` for usage.\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let values: { role?: string; sub?: string; expires?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: { role: { type: 'string' }, sub: { type: 'string' }, expires: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
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
  process.stdout.write(`${token}\n`);
}

await main();
