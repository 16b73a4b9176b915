/**
 * Deployment configuration, read from CDK context: defaults in cdk.json, overrides with `-c key=value`.
 * Values given with -c arrive as strings, so numbers and booleans are parsed here and every value is validated
 * before a construct is created (a typo fails the synth with a message, not the deployment).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Node } from 'constructs';
import type { FunctionGroup } from '../lib/routes/types.js';

/** What reserved concurrency is set for: each route group's function, the pages' and the change publisher. */
export type ConcurrencyKey = FunctionGroup | 'publishChanges';

/** Log levels both Lambda's log filter and Powertools' logger understand. */
export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Alarm thresholds (infra/monitoring.ts). */
export interface AlarmThresholds {
  /** Share of the API's requests answered 5xx, percent (context `alarmApi5xxRatePercent`). */
  api5xxRatePercent: number;
  /** Share of the API's requests answered 4xx, 429s included, percent (context `alarmApi4xxRatePercent`). */
  api4xxRatePercent: number;
  /** p99 duration of an HTTP function, milliseconds (context `alarmLatencyP99Ms`). */
  latencyP99Ms: number;
  /** Age of the oldest stream record the change publisher has not processed, seconds (context `alarmIteratorAgeSeconds`). */
  iteratorAgeSeconds: number;
}
import type { TrafficClass } from './routes.js';

export interface CalendarConfig {
  /** CloudFormation stack name (context `stackName`). */
  stackName: string;
  /**
   * HTTP API stage (context `stageName`); `$default` (the default) serves the API at the root of the endpoint. Keep it
   * with a custom domain: the handlers put the stage path into the URLs they emit.
   */
  stageName: string;
  /** IANA zone for CALENDAR_TIMEZONE (context `siteTimezone`). */
  siteTimezone: string;
  /** Public site origin for CALENDAR_SITE_URL (context `siteUrl`); unset = the request's origin. */
  siteUrl: string | null;
  /** The calendar's name in the pages' titles and headers, CALENDAR_SITE_NAME (context `siteName`, contract §21). */
  siteName: string;
  /** Stage-wide steady-state request rate, requests per second (context `throttlingRateLimit`). */
  throttlingRateLimit: number;
  /** Stage-wide burst bucket, requests (context `throttlingBurstLimit`). */
  throttlingBurstLimit: number;
  /**
   * Per-route throttles by traffic class (infra/routes.ts decides each route key's class): public reads, writes (and
   * whatever else the `ANY` keys of paths with writes receive), the documentation routes. Each route key has its own
   * bucket of this size, capped at the stage-wide values, which stay the ceiling (and apply to `$default`).
   * Sizing (defaults): a public read is one short function invocation of a few DynamoDB reads, which the calendar's
   * readers and their sites' caches send in bursts: 50 rps, burst 100 per route key. A write is a DynamoDB transaction
   * (a series up to 1,000 occurrences) sent by a few editors and synchronising tools: 5 rps, burst 10. The documentation
   * (index, OpenAPI document) is a large generated body that people and tooling fetch now and then: 10 rps, burst 20.
   */
  routeThrottles: Record<TrafficClass, { rateLimit: number; burstLimit: number }>;
  /**
   * Put a CloudFront distribution with an AWS WAF web ACL (a rate-based rule per client address) in front of the API
   * (context `waf`, default false: the web ACL costs money every month). The ACL lives in a companion stack in
   * us-east-1, where CloudFront's web ACLs must be.
   */
  waf: boolean;
  /** Requests one client address may send in 5 minutes before the web ACL blocks it (context `wafRateLimit`). */
  wafRateLimit: number;
  /** Add the AWS managed rule groups Common and KnownBadInputs to the web ACL (context `wafManagedRules`). */
  wafManagedRules: boolean;
  /** Custom domain (contexts `domainName` + `certificateArn`, a regional ACM certificate); both or neither. */
  customDomain: { domainName: string; certificateArn: string } | null;
  /** Create a Cognito user pool (context `createUserPool`, default true) or trust an existing issuer. */
  createUserPool: boolean;
  /** Existing OIDC issuer and audience (contexts `jwtIssuer`, `jwtAudience`); required when createUserPool is false. */
  jwtIssuer: string | null;
  jwtAudience: string | null;
  /** How long anonymous reads may be cached by browsers and shared caches, seconds (context `cacheSeconds`, default 0). */
  cacheSeconds: number;
  /** How long the changes feed keeps changes, seconds (context `changesRetentionSeconds`, default 30 days). */
  changesRetentionSeconds: number;
  /** The default radius of a geo filter and its unit: CALENDAR_GEOLOC_RADIUS / _UNIT (contexts `geolocRadius`, `geolocUnit`). */
  geolocRadius: number;
  geolocUnit: 'mi' | 'km';
  /**
   * Geocode venues through Amazon Location Service (context `geocoding`, default false: each request costs money): a
   * place index and a function on the table's stream (infra/geocoding.ts).
   */
  geocoding: boolean;
  /** CloudWatch Logs retention for function and access logs, days (context `logRetentionDays`). */
  logRetentionDays: number;
  /** Application log level: Lambda's log filter and POWERTOOLS_LOG_LEVEL (context `logLevel`, default INFO). */
  logLevel: LogLevel;
  /** Active X-Ray tracing on every function and POWERTOOLS_TRACE_ENABLED (context `tracing`, default false). */
  tracing: boolean;
  /** Reserved concurrent executions per function (context `reservedConcurrency`); 0 = unreserved. */
  reservedConcurrency: Record<ConcurrencyKey, number>;
  alarms: AlarmThresholds;
  /**
   * Synthesise for `sam local` (context `samLocal`, set by lib/local/sam-env.ts): declares the local-only variables
   * so SAM's --env-vars file can set them, and adds a CloudFormation rule that refuses to deploy the template.
   */
  samLocal: boolean;
}

/** The values cdk.json ships with (kept equal to its "context" block; test/infra checks that). */
export const DEFAULTS = {
  stackName: 'CalendarEventsApi',
  stageName: '$default',
  siteTimezone: 'UTC',
  siteUrl: '',
  siteName: 'Calendar',
  throttlingRateLimit: 100,
  throttlingBurstLimit: 200,
  throttlingReadRateLimit: 50,
  throttlingReadBurstLimit: 100,
  throttlingWriteRateLimit: 5,
  throttlingWriteBurstLimit: 10,
  throttlingDocsRateLimit: 10,
  throttlingDocsBurstLimit: 20,
  waf: false,
  wafRateLimit: 1000,
  wafManagedRules: false,
  domainName: '',
  certificateArn: '',
  createUserPool: true,
  jwtIssuer: '',
  jwtAudience: '',
  logRetentionDays: 30,
  cacheSeconds: 0,
  changesRetentionSeconds: 2_592_000,
  geolocRadius: 25,
  geolocUnit: 'mi',
  geocoding: false,
  logLevel: 'INFO',
  tracing: false,
  // About 200 of a standard account's 1,000: room for a busy events function, the others sized by their traffic.
  reservedConcurrency: { root: 10, events: 100, venues: 25, organizers: 25, categories: 20, tags: 20, pages: 50, imports: 10, publishChanges: 5 },
  alarmApi5xxRatePercent: 1,
  alarmApi4xxRatePercent: 25,
  alarmLatencyP99Ms: 3000,
  alarmIteratorAgeSeconds: 300,
} as const;

/** Lambda keeps 100 of an account's concurrency unreserved, so reservations of a 1,000 account may total 900 at most. */
export const MAX_RESERVED_CONCURRENCY = 900;

/** The values CloudWatch Logs accepts for a retention period. */
export const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

export class ConfigError extends Error {}

type Raw = (key: string) => unknown;

const text = (raw: Raw, key: string, fallback: string): string => {
  const v = raw(key);
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
    throw new ConfigError(`Context "${key}" must be a string, not ${JSON.stringify(v)}.`);
  }
  return String(v).trim();
};

const optional = (raw: Raw, key: string): string | null => text(raw, key, '') || null;

function bool(raw: Raw, key: string, fallback: boolean): boolean {
  const v = raw(key);
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v === 'boolean') return v;
  const s = String(v).trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(s)) return true;
  if (['false', '0', 'no', 'off'].includes(s)) return false;
  throw new ConfigError(`Context "${key}" must be true or false, not "${String(v)}".`);
}

function int(raw: Raw, key: string, fallback: number, min: number, max: number): number {
  const v = raw(key);
  if (v === undefined || v === null || v === '') return fallback;
  const n = typeof v === 'number' ? v : Number(String(v).trim());
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`Context "${key}" must be a whole number from ${min} to ${max}, not "${String(v)}".`);
  }
  return n;
}

/** A decimal number greater than 0 and at most `max`. */
function decimal(raw: Raw, key: string, fallback: number, max: number): number {
  const v = raw(key);
  if (v === undefined || v === null || v === '') return fallback;
  const n = typeof v === 'number' ? v : Number(String(v).trim());
  if (!Number.isFinite(n) || n <= 0 || n > max) {
    throw new ConfigError(`Context "${key}" must be a number greater than 0 and at most ${max}, not "${String(v)}".`);
  }
  return n;
}

/**
 * `reservedConcurrency`: a map per function (cdk.json, or JSON given with -c) over the defaults, or one number for
 * every function (`-c reservedConcurrency=0` reserves nothing, for accounts with a small concurrency quota).
 */
function reservedConcurrency(raw: Raw): Record<ConcurrencyKey, number> {
  const key = 'reservedConcurrency';
  const defaults = DEFAULTS.reservedConcurrency;
  const names = Object.keys(defaults) as ConcurrencyKey[];
  let v = raw(key);
  if (typeof v === 'string' && v.trim().startsWith('{')) {
    try {
      v = JSON.parse(v);
    } catch {
      throw new ConfigError(`Context "${key}" must be a number or a JSON object such as {"events":50}, not "${v}".`);
    }
  }
  let out: Record<ConcurrencyKey, number>;
  if (v === undefined || v === null || v === '') {
    out = { ...defaults };
  } else if (typeof v === 'object' && !Array.isArray(v)) {
    const given = v as Record<string, unknown>;
    for (const name of Object.keys(given)) {
      if (!names.includes(name as ConcurrencyKey)) {
        throw new ConfigError(`Context "${key}" has no function "${name}"; the functions are ${names.join(', ')}.`);
      }
    }
    out = Object.fromEntries(names.map((name) => [name, int(() => given[name], `${key}.${name}`, defaults[name], 0, 1000)])) as Record<ConcurrencyKey, number>;
  } else {
    const all = int(() => v, key, 0, 0, 1000);
    out = Object.fromEntries(names.map((name) => [name, all])) as Record<ConcurrencyKey, number>;
  }
  const total = Object.values(out).reduce((a, b) => a + b, 0);
  if (total > MAX_RESERVED_CONCURRENCY) {
    throw new ConfigError(`Context "${key}" reserves ${total} concurrent executions in all; at most ${MAX_RESERVED_CONCURRENCY} ` +
      'fit a standard account (Lambda keeps 100 unreserved).');
  }
  return out;
}

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function httpsUrl(value: string, key: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`Context "${key}" must be an absolute URL, not "${value}".`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`Context "${key}" must be an http(s) URL, not "${value}".`);
  }
  return value.replace(/\/+$/, '');
}

/**
 * A deployment's settings, `deploy/<name>.context.json` (context `deployment`, e.g. `-c deployment=production`). The
 * CDK CLI gives cdk.json's context precedence over cdk.context.json, and cdk.json carries every default, so a
 * deployment's own values could not live in cdk.context.json; a file named on the command line can, and its values win
 * over cdk.json and over -c. Only the keys of DEFAULTS are accepted (a typo fails the synth).
 */
export const deploymentPath = (name: string): string => fileURLToPath(new URL(`../deploy/${name}.context.json`, import.meta.url));

function deploymentFile(name: string | null): Record<string, unknown> | null {
  if (name === null) return null;
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) {
    throw new ConfigError(`Context "deployment" must name a file deploy/<name>.context.json by its lower-case name, not "${name}".`);
  }
  let values: unknown;
  try {
    values = JSON.parse(readFileSync(deploymentPath(name), 'utf8'));
  } catch (e) {
    throw new ConfigError(`Context "deployment": cannot read deploy/${name}.context.json (${(e as Error).message}).`);
  }
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw new ConfigError(`deploy/${name}.context.json must hold one JSON object of context keys and values.`);
  }
  const unknown = Object.keys(values).filter((k) => !(k in DEFAULTS));
  if (unknown.length) {
    throw new ConfigError(`deploy/${name}.context.json sets keys this app does not read: ${unknown.join(', ')} (known: ${Object.keys(DEFAULTS).join(', ')}).`);
  }
  return values as Record<string, unknown>;
}

/** Reads and validates the configuration from any context lookup (a construct node, or a plain object in tests). */
export function readConfig(source: Node | Record<string, unknown>): CalendarConfig {
  const context: Raw =
    'tryGetContext' in source && typeof source.tryGetContext === 'function'
      ? (key) => (source as Node).tryGetContext(key)
      : (key) => (source as Record<string, unknown>)[key];
  const file = deploymentFile(optional(context, 'deployment'));
  const raw: Raw = (key) => (file && key in file ? file[key] : context(key));

  const stackName = text(raw, 'stackName', DEFAULTS.stackName);
  if (!/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(stackName)) {
    throw new ConfigError(`Context "stackName" must start with a letter and contain only letters, digits and hyphens (max 128), not "${stackName}".`);
  }

  const stageName = text(raw, 'stageName', DEFAULTS.stageName);
  if (stageName !== '$default' && !/^[A-Za-z0-9_-]{1,128}$/.test(stageName)) {
    throw new ConfigError(`Context "stageName" must be $default or letters, digits, "-" and "_" (max 128), not "${stageName}".`);
  }

  const siteTimezone = text(raw, 'siteTimezone', DEFAULTS.siteTimezone);
  if (!validTimeZone(siteTimezone)) {
    throw new ConfigError(`Context "siteTimezone" must be an IANA time zone such as Europe/Berlin or UTC, not "${siteTimezone}".`);
  }

  const siteUrlRaw = optional(raw, 'siteUrl');
  const siteUrl = siteUrlRaw ? httpsUrl(siteUrlRaw, 'siteUrl') : null;
  const siteName = text(raw, 'siteName', DEFAULTS.siteName).trim();
  if (!siteName || siteName.length > 100 || [...siteName].some((c) => c.charCodeAt(0) < 32)) {
    throw new ConfigError(`Context "siteName" must be a name of 1 to 100 characters without control characters, not "${siteName}".`);
  }

  // API Gateway accepts up to the account's regional limit (10,000 rps / 5,000 burst by default).
  const throttlingRateLimit = int(raw, 'throttlingRateLimit', DEFAULTS.throttlingRateLimit, 1, 10_000);
  const throttlingBurstLimit = int(raw, 'throttlingBurstLimit', DEFAULTS.throttlingBurstLimit, 1, 5_000);

  // A route's own limit is capped at the stage-wide one, the ceiling (lowering -c throttlingRateLimit lowers them all).
  const routeThrottle = (name: 'Read' | 'Write' | 'Docs') => ({
    rateLimit: Math.min(int(raw, `throttling${name}RateLimit`, DEFAULTS[`throttling${name}RateLimit`], 1, 10_000), throttlingRateLimit),
    burstLimit: Math.min(int(raw, `throttling${name}BurstLimit`, DEFAULTS[`throttling${name}BurstLimit`], 1, 5_000), throttlingBurstLimit),
  });
  const routeThrottles = { read: routeThrottle('Read'), write: routeThrottle('Write'), docs: routeThrottle('Docs') };

  const domainName = optional(raw, 'domainName');
  const certificateArn = optional(raw, 'certificateArn');
  if (Boolean(domainName) !== Boolean(certificateArn)) {
    throw new ConfigError('Contexts "domainName" and "certificateArn" go together: give both for a custom domain, or neither.');
  }
  if (domainName && !/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(domainName)) {
    throw new ConfigError(`Context "domainName" must be a host name such as api.example.org, not "${domainName}".`);
  }
  if (certificateArn && !/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[A-Za-z0-9-]+$/.test(certificateArn)) {
    throw new ConfigError(`Context "certificateArn" must be an ACM certificate ARN (in the stack's region), not "${certificateArn}".`);
  }

  const createUserPool = bool(raw, 'createUserPool', DEFAULTS.createUserPool);
  const jwtIssuerRaw = optional(raw, 'jwtIssuer');
  const jwtAudience = optional(raw, 'jwtAudience');
  const jwtIssuer = jwtIssuerRaw ? httpsUrl(jwtIssuerRaw, 'jwtIssuer') : null;
  if (createUserPool && (jwtIssuer || jwtAudience)) {
    throw new ConfigError('Contexts "jwtIssuer"/"jwtAudience" are for an existing issuer: also pass -c createUserPool=false.');
  }
  if (!createUserPool && (!jwtIssuer || !jwtAudience)) {
    throw new ConfigError('With -c createUserPool=false, give the existing issuer: -c jwtIssuer=https://… -c jwtAudience=<client id>.');
  }
  if (jwtIssuer && !jwtIssuer.startsWith('https://')) {
    throw new ConfigError('Context "jwtIssuer" must be an https:// URL (API Gateway fetches its JWKS over HTTPS).');
  }

  const waf = bool(raw, 'waf', DEFAULTS.waf);
  // AWS WAF's rate-based rules accept 100 and more (older accounts' minimum; newer ones allow 10).
  const wafRateLimit = int(raw, 'wafRateLimit', DEFAULTS.wafRateLimit, 100, 2_000_000_000);
  const wafManagedRules = bool(raw, 'wafManagedRules', DEFAULTS.wafManagedRules);
  if (waf && domainName) {
    throw new ConfigError('Contexts "waf" and "domainName" do not go together: the custom domain points at API Gateway, which then '
      + 'refuses requests that did not come through the distribution. Use one of them.');
  }

  const logRetentionDays = int(raw, 'logRetentionDays', DEFAULTS.logRetentionDays, 1, 3653);
  if (!RETENTION_DAYS.includes(logRetentionDays)) {
    throw new ConfigError(`Context "logRetentionDays" must be one of ${RETENTION_DAYS.join(', ')}, not ${logRetentionDays}.`);
  }

  const cacheSeconds = int(raw, 'cacheSeconds', DEFAULTS.cacheSeconds, 0, 31_536_000);
  const changesRetentionSeconds = int(raw, 'changesRetentionSeconds', DEFAULTS.changesRetentionSeconds, 3600, 31_536_000);

  const geolocRadius = decimal(raw, 'geolocRadius', DEFAULTS.geolocRadius, 25_000);
  const geolocUnit = text(raw, 'geolocUnit', DEFAULTS.geolocUnit).toLowerCase();
  if (geolocUnit !== 'mi' && geolocUnit !== 'km') throw new ConfigError(`Context "geolocUnit" must be mi or km, not "${geolocUnit}".`);

  const logLevel = text(raw, 'logLevel', DEFAULTS.logLevel).toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`Context "logLevel" must be one of ${LOG_LEVELS.join(', ')}, not "${logLevel}".`);
  }

  return {
    stackName,
    stageName,
    siteTimezone,
    siteUrl,
    siteName,
    throttlingRateLimit,
    throttlingBurstLimit,
    routeThrottles,
    waf,
    wafRateLimit,
    wafManagedRules,
    customDomain: domainName && certificateArn ? { domainName, certificateArn } : null,
    createUserPool,
    jwtIssuer,
    jwtAudience,
    logRetentionDays,
    cacheSeconds,
    changesRetentionSeconds,
    geolocRadius,
    geolocUnit,
    geocoding: bool(raw, 'geocoding', DEFAULTS.geocoding),
    logLevel: logLevel as LogLevel,
    tracing: bool(raw, 'tracing', DEFAULTS.tracing),
    reservedConcurrency: reservedConcurrency(raw),
    alarms: {
      api5xxRatePercent: int(raw, 'alarmApi5xxRatePercent', DEFAULTS.alarmApi5xxRatePercent, 1, 100),
      api4xxRatePercent: int(raw, 'alarmApi4xxRatePercent', DEFAULTS.alarmApi4xxRatePercent, 1, 100),
      latencyP99Ms: int(raw, 'alarmLatencyP99Ms', DEFAULTS.alarmLatencyP99Ms, 100, 30_000),
      iteratorAgeSeconds: int(raw, 'alarmIteratorAgeSeconds', DEFAULTS.alarmIteratorAgeSeconds, 60, 86_400),
    },
    samLocal: bool(raw, 'samLocal', false),
  };
}
