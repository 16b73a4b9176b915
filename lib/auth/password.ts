/** Record passwords (reference §11.3) are stored as salted scrypt hashes (node:crypto), never returned. */
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

// Cost kept low: one list may compare a password against 50 records, and these protect content, not accounts.
const PARAMS = { N: 1024, r: 8, p: 1 };

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `s1$${salt.toString('base64')}$${scryptSync(password, salt, 32, PARAMS).toString('base64')}`;
}

export function checkPassword(password: string, stored: string): boolean {
  const [, salt, hash] = stored.split('$');
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = scryptSync(password, Buffer.from(salt, 'base64'), expected.length, PARAMS);
  return timingSafeEqual(actual, expected);
}
