/**
 * Verified tokens are remembered until they expire (lib/auth/token.ts): a remembered token is still refused once
 * its expiry has passed, and a token that differs in any byte is verified on its own.
 */
import { jest } from '@jest/globals';
import { InvalidCredentials } from '../../lib/auth/errors.js';
import { resetAuth, authenticateBearer as authenticate } from '../../lib/auth/token.js';
import { resetConfig } from '../../lib/config.js';
import { signLocalToken } from '../../lib/local/token-sign.js';

const SECRET = 'token-cache-secret-0123456789abcdef0123';

beforeAll(() => {
  process.env.CALENDAR_JWT_SECRET = SECRET;
  process.env.CALENDAR_JWT_ISSUER = '';
  resetConfig();
  resetAuth();
});

afterEach(() => jest.useRealTimers());

it('accepts a remembered token until its expiry, then refuses it with 401', async () => {
  const token = await signLocalToken({ secret: SECRET, role: 'editor', sub: 'cache-user', expiresIn: '60s' });
  expect(await authenticate(token)).toEqual({ sub: 'cache-user', role: 'editor', username: 'cache-user' });
  expect(await authenticate(token)).toEqual({ sub: 'cache-user', role: 'editor', username: 'cache-user' });
  // Two minutes later (only the clock is faked; jose and the cache both read it).
  jest.useFakeTimers({ now: Date.now() + 120_000,
    doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'queueMicrotask', 'performance', 'hrtime'] });
  await expect(authenticate(token)).rejects.toBeInstanceOf(InvalidCredentials);
});

it('verifies a token that differs from a remembered one in its signature', async () => {
  const token = await signLocalToken({ secret: SECRET, role: 'author', sub: 'cache-other', expiresIn: '60s' });
  expect(await authenticate(token)).toEqual({ sub: 'cache-other', role: 'author', username: 'cache-other' });
  const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
  await expect(authenticate(forged)).rejects.toBeInstanceOf(InvalidCredentials);
});
