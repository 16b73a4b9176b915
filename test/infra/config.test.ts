/** infra/config.ts: context parsing, defaults and validation. */
import { ConfigError, DEFAULTS, deploymentPath, MAX_RESERVED_CONCURRENCY, readConfig } from '../../infra/config.js';
import { functionGroups } from '../../infra/routes.js';
import { readFileSync } from 'node:fs';
import { CDK_JSON } from './helpers.js';

describe('readConfig()', () => {
  test('cdk.json carries the defaults and the recommended feature flags', () => {
    expect(CDK_JSON.app).toBe('npx tsx infra/app.ts');
    for (const [key, value] of Object.entries(DEFAULTS)) expect(CDK_JSON.context[key]).toEqual(value);
    const flags = Object.keys(CDK_JSON.context).filter((k) => k.startsWith('@aws-cdk'));
    expect(flags.length).toBeGreaterThan(50);
  });

  test('defaults', () => {
    expect(readConfig({})).toEqual({
      stackName: 'CalendarEventsApi',
      stageName: '$default',
      siteTimezone: 'UTC',
      siteUrl: null,
      siteName: 'Calendar',
      throttlingRateLimit: 100,
      throttlingBurstLimit: 200,
      routeThrottles: { read: { rateLimit: 50, burstLimit: 100 }, write: { rateLimit: 5, burstLimit: 10 }, docs: { rateLimit: 10, burstLimit: 20 } },
      waf: false,
      wafRateLimit: 1000,
      wafManagedRules: false,
      customDomain: null,
      createUserPool: true,
      jwtIssuer: null,
      jwtAudience: null,
      logRetentionDays: 30,
      cacheSeconds: 0,
      changesRetentionSeconds: 2_592_000,
      geolocRadius: 25,
      geolocUnit: 'mi',
      geocoding: false,
      logLevel: 'INFO',
      tracing: false,
      reservedConcurrency: { root: 10, events: 100, venues: 25, organizers: 25, categories: 20, tags: 20, pages: 50, imports: 10, publishChanges: 5 },
      alarms: { api5xxRatePercent: 1, api4xxRatePercent: 25, latencyP99Ms: 3000, iteratorAgeSeconds: 300 },
      samLocal: false,
    });
    expect(readConfig(CDK_JSON.context)).toEqual(readConfig({}));
  });

  test('-c values arrive as strings and are parsed', () => {
    const c = readConfig({
      stackName: 'Cal-Prod',
      stageName: 'prod',
      siteTimezone: 'Europe/Berlin',
      siteUrl: 'https://example.org/',
      siteName: ' Stadtkalender ',
      throttlingRateLimit: '25',
      throttlingBurstLimit: '50',
      domainName: 'api.example.org',
      certificateArn: 'arn:aws:acm:eu-central-1:123456789012:certificate/0a1b2c3d-1234-4abc-9def-0123456789ab',
      createUserPool: 'false',
      jwtIssuer: 'https://issuer.example.org',
      jwtAudience: 'client-1',
      logRetentionDays: '90',
      cacheSeconds: '600',
      samLocal: 'true',
    });
    expect(c).toMatchObject({
      stackName: 'Cal-Prod',
      stageName: 'prod',
      siteTimezone: 'Europe/Berlin',
      siteUrl: 'https://example.org',
      siteName: 'Stadtkalender',
      throttlingRateLimit: 25,
      throttlingBurstLimit: 50,
      customDomain: { domainName: 'api.example.org' },
      createUserPool: false,
      jwtIssuer: 'https://issuer.example.org',
      jwtAudience: 'client-1',
      logRetentionDays: 90,
      cacheSeconds: 600,
      samLocal: true,
    });
  });

  test('logging, tracing, reserved concurrency and alarm thresholds from -c strings', () => {
    const c = readConfig({ logLevel: 'debug', tracing: 'true', reservedConcurrency: '{"events":50,"tags":0}', alarmApi5xxRatePercent: '5',
      alarmApi4xxRatePercent: '50', alarmLatencyP99Ms: '1500', alarmIteratorAgeSeconds: '900' });
    expect(c).toMatchObject({ logLevel: 'DEBUG', tracing: true,
      alarms: { api5xxRatePercent: 5, api4xxRatePercent: 50, latencyP99Ms: 1500, iteratorAgeSeconds: 900 } });
    // A map overrides the functions it names; the others keep their defaults.
    expect(c.reservedConcurrency).toEqual({ ...DEFAULTS.reservedConcurrency, events: 50, tags: 0 });
    // One number for every function: 0 reserves nothing (accounts with a small concurrency quota).
    expect(Object.values(readConfig({ reservedConcurrency: '0' }).reservedConcurrency)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  test('reserved concurrency: every function group and the change publisher have a default, and they fit a standard account', () => {
    expect(Object.keys(DEFAULTS.reservedConcurrency).sort()).toEqual([...functionGroups(), 'publishChanges'].sort());
    const total = Object.values(DEFAULTS.reservedConcurrency).reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(MAX_RESERVED_CONCURRENCY);
    // Of the route groups, the events function serves most traffic, root (index, documents) the least.
    const { events, root, publishChanges: _publisher, ...others } = DEFAULTS.reservedConcurrency;
    for (const n of Object.values(others)) expect(n).toBeLessThan(events);
    for (const n of Object.values(others)) expect(n).toBeGreaterThanOrEqual(root);
  });

  test('per-route throttles: from context, capped at the stage-wide limits', () => {
    expect(readConfig({ throttlingReadRateLimit: '20', throttlingWriteBurstLimit: '3', throttlingDocsRateLimit: 2 }).routeThrottles).toEqual({
      read: { rateLimit: 20, burstLimit: 100 }, write: { rateLimit: 5, burstLimit: 3 }, docs: { rateLimit: 2, burstLimit: 20 },
    });
    expect(readConfig({ throttlingRateLimit: '25', throttlingBurstLimit: '8', throttlingReadRateLimit: 400 }).routeThrottles).toEqual({
      read: { rateLimit: 25, burstLimit: 8 }, write: { rateLimit: 5, burstLimit: 8 }, docs: { rateLimit: 10, burstLimit: 8 },
    });
  });

  test('-c deployment=production reads deploy/production.context.json, whose values win over cdk.json and -c', () => {
    const production = JSON.parse(readFileSync(deploymentPath('production'), 'utf8')) as Record<string, unknown>;
    expect(production.waf).toBe(true);
    const c = readConfig({ ...CDK_JSON.context, deployment: 'production', waf: false, stageName: 'live' });
    expect(c).toMatchObject({ waf: true, wafManagedRules: production.wafManagedRules, wafRateLimit: production.wafRateLimit,
      logRetentionDays: production.logRetentionDays, stageName: 'live' });
    expect(() => readConfig({ deployment: '../cdk' })).toThrow(/deployment/);
    expect(() => readConfig({ deployment: 'nowhere' })).toThrow(/cannot read deploy\/nowhere\.context\.json/);
  });

  test('waf: off by default; -c waf=true with its rate limit and managed rules', () => {
    expect(readConfig({ waf: 'true', wafRateLimit: '2000', wafManagedRules: 'yes' })).toMatchObject({
      waf: true, wafRateLimit: 2000, wafManagedRules: true,
    });
  });

  test.each([
    [{ siteTimezone: 'Mars/Olympus' }, /siteTimezone/],
    [{ throttlingRateLimit: 'fast' }, /throttlingRateLimit/],
    [{ throttlingBurstLimit: 0 }, /throttlingBurstLimit/],
    [{ domainName: 'api.example.org' }, /domainName.*certificateArn/],
    [{ createUserPool: 'maybe' }, /createUserPool/],
    [{ createUserPool: false }, /jwtIssuer/],
    [{ jwtIssuer: 'https://issuer.example.org', jwtAudience: 'x' }, /createUserPool=false/],
    [{ createUserPool: false, jwtIssuer: 'http://issuer.example.org', jwtAudience: 'x' }, /https/],
    [{ logRetentionDays: 31 }, /logRetentionDays/],
    [{ cacheSeconds: -1 }, /cacheSeconds/],
    [{ changesRetentionSeconds: 60 }, /changesRetentionSeconds/],
    [{ geolocRadius: '0' }, /geolocRadius/],
    [{ geolocRadius: '30000' }, /geolocRadius/],
    [{ geolocUnit: 'miles' }, /geolocUnit/],
    [{ geocoding: 'maybe' }, /geocoding/],
    [{ stageName: 'has space' }, /stageName/],
    [{ siteName: '   ' }, /siteName/],
    [{ siteName: 'x'.repeat(101) }, /siteName/],
    [{ stackName: '1stack' }, /stackName/],
    [{ logLevel: 'verbose' }, /logLevel/],
    [{ tracing: 'sometimes' }, /tracing/],
    [{ reservedConcurrency: { docs: 5 } }, /no function "docs"/],
    [{ reservedConcurrency: { events: -1 } }, /reservedConcurrency\.events/],
    [{ reservedConcurrency: '{"events":' }, /JSON object/],
    [{ reservedConcurrency: '200' }, /at most 900/],
    [{ reservedConcurrency: { events: 900 } }, /reserves 1065/],
    [{ alarmApi5xxRatePercent: 0 }, /alarmApi5xxRatePercent/],
    [{ alarmLatencyP99Ms: 'slow' }, /alarmLatencyP99Ms/],
    [{ throttlingReadRateLimit: 10_001 }, /throttlingReadRateLimit/],
    [{ throttlingWriteBurstLimit: 'ten' }, /throttlingWriteBurstLimit/],
    [{ throttlingDocsRateLimit: 0 }, /throttlingDocsRateLimit/],
    [{ waf: 'sometimes' }, /waf/],
    [{ wafRateLimit: 99 }, /wafRateLimit/],
    [{ waf: true, domainName: 'api.example.org', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc' }, /waf.*domainName/],
  ])('rejects %j', (context, message) => {
    expect(() => readConfig(context)).toThrow(ConfigError);
    expect(() => readConfig(context)).toThrow(message);
  });
});
