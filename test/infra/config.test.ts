/** infra/config.ts: context parsing, defaults and validation. */
import { ConfigError, DEFAULTS, readConfig } from '../../infra/config.js';
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
      throttlingRateLimit: 100,
      throttlingBurstLimit: 200,
      customDomain: null,
      createUserPool: true,
      jwtIssuer: null,
      jwtAudience: null,
      logRetentionDays: 30,
      cacheSeconds: 0,
      changesRetentionSeconds: 2_592_000,
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
    [{ stageName: 'has space' }, /stageName/],
    [{ stackName: '1stack' }, /stackName/],
  ])('rejects %j', (context, message) => {
    expect(() => readConfig(context)).toThrow(ConfigError);
    expect(() => readConfig(context)).toThrow(message);
  });
});
