/**
 * Application passwords (contract §12), WordPress's scheme for API clients: 24 random letters and digits, shown
 * once in groups of four, stored only as a salted scrypt hash (node:crypto, run in libuv's thread pool so the event
 * loop never blocks on it). `Authorization: Basic base64(username:password)` authenticates as the user and role the
 * password was made with. A verified credential is remembered for at most five minutes, keyed by a SHA-256 of the
 * header, so only the first request of a client pays for the slow hash; revoking a password forgets it in this
 * process at once. More than 10 failed attempts in a minute for a username or from an address → 429, checked
 * before any hash is computed, counted in the table so every warm function shares the count.
 */
import { createHash, randomInt, randomUUID, scrypt, timingSafeEqual, randomBytes } from 'node:crypto';
import {
  appPasswordsOf, countFailedAttempt, failedAttempts, touchAppPassword, type AppPasswordItem,
} from '../store/app-passwords.js';
import type { Caller } from './caller.js';
import { InvalidCredentials, TooManyAttempts } from './errors.js';
import { roleFromName } from './roles.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** scrypt cost: N = 2^15 (32 MiB, tens of milliseconds): a slow hash, as the contract asks. */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
export const MAX_PER_USER = 50;
export const MAX_FAILURES_PER_MINUTE = 10;
const REMEMBER_MS = 5 * 60 * 1000;

/** A new password: 24 letters and digits (about 143 bits). */
export function newPassword(): string {
  return Array.from({ length: 24 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
}

/** "abcdefgh…" → "abcd efgh …" (how WordPress shows it; spaces are optional when it is sent back). */
export const grouped = (password: string): string => password.replace(/(.{4})(?=.)/g, '$1 ');

const scryptAsync = (password: string, salt: Buffer, length: number): Promise<Buffer> =>
  new Promise((resolve, reject) => scrypt(password, salt, length, SCRYPT, (e, key) => (e ? reject(e) : resolve(key))));

export async function hashAppPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return `scrypt$${SCRYPT.N}$${salt.toString('base64')}$${(await scryptAsync(password, salt, 32)).toString('base64')}`;
}

async function matches(password: string, stored: string): Promise<boolean> {
  const [scheme, , salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  return timingSafeEqual(await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length), expected);
}

// ------------------------------------------------------------------------------------------------ Basic


interface Remembered {
  caller: Caller;
  uuid: string;
  username: string;
  until: number;
  /** When this process last recorded a use (last_used moves at most once a minute). */
  touched: number;
}

const remembered = new Map<string, Remembered>();
const REMEMBERED_MAX = 1000;

/** Forgets every remembered credential of a password (on revocation). */
export function forgetAppPassword(uuid: string): void {
  for (const [k, v] of remembered) if (v.uuid === uuid) remembered.delete(k);
}

const utcWall = (d: Date): string => d.toISOString().slice(0, 19).replace('T', ' ');

/** `username:password` from a Basic header's credentials, or InvalidCredentials. */
function decode(credentials: string): { username: string; password: string } {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(credentials) || credentials.length > 4096) {
    throw new InvalidCredentials('the Basic credentials are not valid base64');
  }
  const text = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon <= 0) throw new InvalidCredentials('send "Authorization: Basic base64(username:password)"');
  return { username: text.slice(0, colon), password: text.slice(colon + 1).replace(/ /g, '') };
}

/**
 * The caller a Basic credential authenticates, or InvalidCredentials / TooManyAttempts. `sourceIp` is the client
 * address the attempt is counted against.
 */
export async function authenticateBasic(credentials: string, sourceIp: string, now = new Date()): Promise<Caller> {
  const cacheKey = createHash('sha256').update(credentials).digest('hex');
  const known = remembered.get(cacheKey);
  if (known && known.until > now.getTime()) {
    if (now.getTime() - known.touched >= 60_000) {
      known.touched = now.getTime();
      await touchAppPassword(known.caller.username, known.uuid, utcWall(now), utcWall(new Date(now.getTime() - 60_000)));
    }
    return known.caller;
  }
  remembered.delete(cacheKey);

  const { username, password } = decode(credentials);
  const minute = Math.floor(now.getTime() / 60_000);
  const failures = await failedAttempts(username, sourceIp, minute);
  if (failures.user >= MAX_FAILURES_PER_MINUTE || failures.ip >= MAX_FAILURES_PER_MINUTE) {
    throw new TooManyAttempts(60 - Math.floor((now.getTime() % 60_000) / 1000));
  }
  const candidates = /^[A-Za-z0-9]{24}$/.test(password) ? await appPasswordsOf(username) : [];
  let found: AppPasswordItem | null = null;
  for (const candidate of candidates) {
    if (await matches(password, candidate.hash)) {
      found = candidate;
      break;
    }
  }
  if (!found) {
    await countFailedAttempt(username, sourceIp, minute);
    throw new InvalidCredentials('the username or application password is wrong');
  }
  const caller: Caller = { sub: found.sub, role: roleFromName(found.role), username: found.username };
  if (remembered.size >= REMEMBERED_MAX) remembered.delete(remembered.keys().next().value!);
  remembered.set(cacheKey, { caller, uuid: found.uuid, username, until: now.getTime() + REMEMBER_MS, touched: now.getTime() });
  await touchAppPassword(found.username, found.uuid, utcWall(now), utcWall(new Date(now.getTime() - 60_000)));
  return caller;
}

export const newAppPasswordId = (): string => randomUUID();
export { utcWall };
