/** Environment configuration, read once per cold start. Names: docs/operating.md "Environment variables". */
import { DEFAULT_TABLE_NAME } from './store/table.js';

/** Development-only HS256 secret; `npm start` prints a warning when it is in use. */
export const DEV_JWT_SECRET = 'calendar-dev-secret-change-me-0123456789abcdef';

export interface Config {
  tableName: string;
  siteTimezone: string;
  siteUrl: string | null;
  /** How many days ahead recurring series' occurrences are written (contract §13). */
  recurrenceHorizonDays: number;
  /** How long anonymous reads may be cached, seconds (contract §15). */
  cacheSeconds: number;
  /** How long the change log keeps changes, seconds (contract §16). */
  changesRetentionSeconds: number;
  /** The default radius of a geo filter and its unit (contract §18). */
  geolocRadius: number;
  geolocUnit: 'mi' | 'km';
  /** Reservations a minute for one ticket from one client address (contract §19); 0 turns the limit off. */
  rsvpRateLimit: number;
  /** The default currency of tickets (ISO 4217). */
  currency: string;
  /** Imports may fetch from loopback, private and unique-local addresses (contract §20); the stack never sets it. */
  importAllowPrivate: boolean;
  jwt: { secret: string | null; issuer: string | null; audience: string | null; jwksUrl: string | null };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const issuer = env.CALENDAR_JWT_ISSUER || null;
  return {
    tableName: env.CALENDAR_TABLE_NAME || DEFAULT_TABLE_NAME,
    siteTimezone: env.CALENDAR_TIMEZONE || 'UTC',
    siteUrl: env.CALENDAR_SITE_URL ? env.CALENDAR_SITE_URL.replace(/\/+$/, '') : null,
    recurrenceHorizonDays: wholeNumber(env.CALENDAR_RECURRENCE_HORIZON_DAYS, 1, 3660, 730),
    cacheSeconds: wholeNumber(env.CALENDAR_CACHE_SECONDS, 0, 31_536_000, 0),
    changesRetentionSeconds: wholeNumber(env.CALENDAR_CHANGES_RETENTION_SECONDS, 1, 31_536_000, 2_592_000),
    geolocRadius: positiveNumber(env.CALENDAR_GEOLOC_RADIUS, 25_000, 25),
    geolocUnit: env.CALENDAR_GEOLOC_UNIT?.trim().toLowerCase() === 'km' ? 'km' : 'mi',
    rsvpRateLimit: wholeNumber(env.CALENDAR_RSVP_RATE_LIMIT, 0, 1_000_000, 10),
    currency: /^[A-Z]{3}$/.test(env.CALENDAR_CURRENCY ?? '') ? env.CALENDAR_CURRENCY! : 'USD',
    importAllowPrivate: env.CALENDAR_IMPORT_ALLOW_PRIVATE === '1',
    jwt: {
      // RS256 via JWKS when an issuer is configured (Cognito); HS256 with the shared secret otherwise. The development
      // secret is never used inside Lambda: a deployment without an issuer or a secret accepts no token at all.
      secret: issuer ? null : env.CALENDAR_JWT_SECRET || (env.AWS_LAMBDA_FUNCTION_NAME ? null : DEV_JWT_SECRET),
      issuer,
      audience: env.CALENDAR_JWT_AUDIENCE || null,
      jwksUrl: env.CALENDAR_JWKS_URL || (issuer ? `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json` : null),
    },
  };
}

/** A whole number from min to max, else the default. */
function wholeNumber(raw: string | undefined, min: number, max: number, fallback: number): number {
  const n = Number(raw);
  return raw && Number.isInteger(n) && n >= min && n <= max ? n : fallback;
}

/** A number greater than 0 and at most max, else the default. */
function positiveNumber(raw: string | undefined, max: number, fallback: number): number {
  const n = Number(raw);
  return raw && Number.isFinite(n) && n > 0 && n <= max ? n : fallback;
}

let cached: Config | null = null;
export const config = (): Config => (cached ??= loadConfig());
/** Tests and the local runtime change the environment before the first request. */
export const resetConfig = (): void => {
  cached = null;
};
