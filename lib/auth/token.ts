/**
 * Bearer-token authentication (contract §4): HS256 with CALENDAR_JWT_SECRET locally, RS256 from the Cognito
 * user pool's JWKS when CALENDAR_JWT_ISSUER is set. Verification is jose's; nothing here is hand-rolled crypto.
 */
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { config } from '../config.js';
import { invalidToken } from '../http/errors.js';
import type { Caller } from '../http/context.js';
import { roleFromGroups } from './roles.js';

let jwks: ReturnType<typeof createRemoteJWKSet> | null = null;
let secretKey: Uint8Array | null = null;

async function verify(token: string): Promise<JWTPayload> {
  const { jwt } = config();
  if (jwt.secret) {
    secretKey ??= new TextEncoder().encode(jwt.secret);
    return (await jwtVerify(token, secretKey, { algorithms: ['HS256'] })).payload;
  }
  jwks ??= createRemoteJWKSet(new URL(jwt.jwksUrl!));
  const { payload } = await jwtVerify(token, jwks, { algorithms: ['RS256'], issuer: jwt.issuer ?? undefined });
  // Cognito ID tokens carry the app client in `aud`, access tokens in `client_id`.
  if (jwt.audience) {
    const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!aud.includes(jwt.audience) && payload.client_id !== jwt.audience) throw new Error('audience mismatch');
  }
  return payload;
}

/** No header → anonymous (null). Anything else that is not a valid bearer token → 401 rest_invalid_token. */
export async function authenticate(header: string | undefined): Promise<Caller | null> {
  if (header === undefined) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw invalidToken('send "Authorization: Bearer <token>"');
  let payload: JWTPayload;
  try {
    payload = await verify(m[1]!);
  } catch (e) {
    const code = (e as { code?: string }).code;
    throw invalidToken(code === 'ERR_JWT_EXPIRED' ? 'the token has expired' : 'the token could not be verified');
  }
  if (typeof payload.sub !== 'string' || payload.sub === '') throw invalidToken('the token has no subject');
  return { sub: payload.sub, role: roleFromGroups(payload['cognito:groups']) };
}

/** For tests that change the environment. */
export const resetAuth = (): void => {
  jwks = null;
  secretKey = null;
};
