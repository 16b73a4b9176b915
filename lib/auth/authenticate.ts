/**
 * The Authorization header (contract §4, §12): none → anonymous; `Bearer <JWT>`; `Basic base64(username:password)`
 * with an application password. Scheme names are case-insensitive; anything else is InvalidCredentials.
 */
import { authenticateBasic } from './app-passwords.js';
import type { Caller } from './caller.js';
import { InvalidCredentials } from './errors.js';
import { authenticateBearer } from './token.js';

export async function authenticate(header: string | undefined, sourceIp: string): Promise<Caller | null> {
  if (header === undefined) return null;
  const m = /^([A-Za-z]+)[ \t]+(\S+)[ \t]*$/.exec(header);
  const scheme = m?.[1]?.toLowerCase();
  if (scheme === 'bearer') return authenticateBearer(m![2]!);
  if (scheme === 'basic') return authenticateBasic(m![2]!, sourceIp);
  throw new InvalidCredentials('send "Authorization: Bearer <token>" or "Authorization: Basic <application password>"');
}
