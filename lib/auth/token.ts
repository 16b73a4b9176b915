/**
 * Bearer-token authentication (contract §4): HS256 with CALENDAR_JWT_SECRET locally, RS256 from the Cognito
 * user pool's JWKS when CALENDAR_JWT_ISSUER is set. Verification is jose's; nothing here is hand-rolled crypto.
 */
import { webcrypto } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { config } from '../config.js';
import { InvalidCredentials } from './errors.js';
import type { Caller } from './caller.js';
import { roleFromGroups } from './roles.js';

let jwks: ReturnType<typeof createRemoteJWKSet> | null = null;
/** The HS256 key, imported into WebCrypto once: given raw bytes, jose would import them on every verification. */
let secretKey: Promise<webcrypto.CryptoKey> | null = null;

async function verify(token: string): Promise<JWTPayload> {
  const { jwt } = config();
  // Every token must expire (contract §4): one without `exp` would be valid forever.
  if (jwt.secret) {
    secretKey ??= webcrypto.subtle.importKey('raw', new TextEncoder().encode(jwt.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    return (await jwtVerify(token, await secretKey, { algorithms: ['HS256'], requiredClaims: ['exp'] })).payload;
  }
  if (!jwt.jwksUrl) throw new Error('no token key is configured');
  jwks ??= createRemoteJWKSet(new URL(jwt.jwksUrl));
  const { payload } = await jwtVerify(token, jwks, { algorithms: ['RS256'], issuer: jwt.issuer ?? undefined, requiredClaims: ['exp'] });
  // Cognito ID tokens carry the app client in `aud`, access tokens in `client_id`.
  if (jwt.audience) {
    const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!aud.includes(jwt.audience) && payload.client_id !== jwt.audience) throw new Error('audience mismatch');
  }
  return payload;
}

/**
 * Tokens that verified, with their payload, until they expire: a client sends the same token with every request
 * for its lifetime, and a signature check costs more than the rest of a warm GET. Keyed by the whole token, so
 * only the exact bytes that verified are trusted; the expiry is checked on every use.
 */
const verified = new Map<string, JWTPayload>();
const VERIFIED_MAX = 1000;

async function verifyOnce(token: string): Promise<JWTPayload> {
  const known = verified.get(token);
  if (known && typeof known.exp === 'number' && known.exp * 1000 > Date.now()) return known;
  verified.delete(token);
  const payload = await verify(token);
  if (typeof payload.exp === 'number') {
    if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
    verified.set(token, payload);
  }
  return payload;
}

/** The caller a bearer token (without its scheme) names; InvalidCredentials when it does not verify. */
export async function authenticateBearer(token: string): Promise<Caller> {
  let payload: JWTPayload;
  try {
    payload = await verifyOnce(token);
  } catch (e) {
    const code = (e as { code?: string }).code;
    const claim = (e as { claim?: string }).claim;
    throw new InvalidCredentials(code === 'ERR_JWT_EXPIRED' ? 'the token has expired'
      : code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && claim === 'exp' ? 'the token must have an expiry (exp)'
        : 'the token could not be verified');
  }
  if (typeof payload.sub !== 'string' || payload.sub === '') throw new InvalidCredentials('the token has no subject');
  const named = [payload['cognito:username'], payload.username, payload.email, payload.sub].find((v) => typeof v === 'string' && v !== '');
  return { sub: payload.sub, role: roleFromGroups(payload['cognito:groups']), username: named as string };
}

/** For tests that change the environment. */
export const resetAuth = (): void => {
  jwks = null;
  secretKey = null;
  verified.clear();
};
