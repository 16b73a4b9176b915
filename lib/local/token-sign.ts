/** Local HS256 tokens shaped like the stack's Cognito tokens (contract §4): `sub` and `cognito:groups`. */
import { SignJWT } from 'jose';

/** Roles a local token can carry; administrator and editor both map to the editor role. */
export const TOKEN_ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const;
export type TokenRole = (typeof TOKEN_ROLES)[number];

export const isTokenRole = (value: unknown): value is TokenRole => TOKEN_ROLES.includes(value as TokenRole);

export interface LocalTokenOptions {
  secret: string;
  role: TokenRole;
  /** Default `local-<role>`. */
  sub?: string;
  /** A jose time span ("1h", "30m", "7d") or seconds since the epoch; default "12h". */
  expiresIn?: string | number;
  /** More claims, e.g. `cognito:username` or `email` (the username of application passwords). */
  claims?: Record<string, unknown>;
}

export async function signLocalToken({ secret, role, sub, expiresIn = '12h', claims = {} }: LocalTokenOptions): Promise<string> {
  if (!isTokenRole(role)) throw new Error(`Unknown role "${String(role)}"; use one of ${TOKEN_ROLES.join(', ')}.`);
  return new SignJWT({ ...claims, 'cognito:groups': role === 'subscriber' ? [] : [role] })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub || `local-${role}`)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}
