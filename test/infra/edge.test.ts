/**
 * Abuse limits (infra/routes.ts, infra/edge.ts): every route key carries the throttle of its traffic class; without
 * `waf` there is no web ACL and no distribution; with `-c waf=true` a us-east-1 stack holds a CLOUDFRONT web ACL with
 * the rate-based rule per client address, and the API's stack puts a distribution using it in front of the API, with
 * the origin secret the functions check. cdk-nag (AwsSolutions and Serverless) accepts both configurations.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../infra/build.js';
import { WAF_REGION, webAclParameterName } from '../../infra/edge.js';
import { httpApiRoutes, routeKey } from '../../infra/routes.js';
import { EDGE_HEADERS, ORIGIN_SECRET_VARIABLE } from '../../lib/http/middleware/edge-origin.js';
import { makeApp, resourcesOfType, type TemplateJson } from './helpers.js';

const TIMEOUT = 120_000;

function synthBoth(context: Record<string, unknown>) {
  const app = makeApp(context);
  const { stack, webAcl } = buildApp(app, { nag: false });
  const json = (s: typeof stack | NonNullable<typeof webAcl>) => Template.fromStack(s).toJSON() as TemplateJson;
  return { app, stack, webAcl, main: json(stack), acl: webAcl ? json(webAcl) : null };
}

let off: ReturnType<typeof synthBoth>;
let on: ReturnType<typeof synthBoth>;
beforeAll(() => {
  off = synthBoth({});
  on = synthBoth({ waf: 'true', wafRateLimit: '1500', wafManagedRules: 'true' });
}, TIMEOUT);

const stageOf = (json: TemplateJson) => resourcesOfType(json, 'AWS::ApiGatewayV2::Stage')[0]![1];

describe('per-route throttles', () => {
  test('every route key has its class\'s limits; reads and writes of the same path differ; $default keeps the stage\'s', () => {
    const stage = stageOf(off.main);
    const settings = stage.Properties.RouteSettings as Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }>;
    const expected = { read: [50, 100], write: [5, 10], docs: [10, 20] } as const;
    const routes = httpApiRoutes();
    expect(Object.keys(settings).sort()).toEqual(routes.map(routeKey).sort());
    for (const route of routes) {
      const [rate, burst] = expected[route.traffic];
      expect([routeKey(route), settings[routeKey(route)]]).toEqual([routeKey(route), { ThrottlingRateLimit: rate, ThrottlingBurstLimit: burst }]);
    }
    expect(settings['GET /calendar/events/v1/events/{proxy+}']).toEqual({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 });
    expect(settings['ANY /calendar/events/v1/events/{proxy+}']).toEqual({ ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 });
    expect(settings.$default).toBeUndefined();
    expect(stage.Properties.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 });
  });

  test('the stage depends on every route (its settings name their keys)', () => {
    const stage = stageOf(off.main) as { DependsOn?: string[] };
    const routeIds = resourcesOfType(off.main, 'AWS::ApiGatewayV2::Route').map(([id]) => id);
    expect(stage.DependsOn).toEqual(expect.arrayContaining(routeIds));
  });

  test('limits come from context and are capped at the stage-wide ones', () => {
    const s = synthBoth({ throttlingReadRateLimit: '30', throttlingWriteBurstLimit: '4', throttlingRateLimit: '20' });
    const settings = stageOf(s.main).Properties.RouteSettings;
    expect(settings['GET /calendar/events/v1/venues']).toEqual({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 100 });
    expect(settings['ANY /calendar/events/v1/venues']).toEqual({ ThrottlingRateLimit: 5, ThrottlingBurstLimit: 4 });
  }, TIMEOUT);
});

describe('without waf (the default)', () => {
  test('one stack, no web ACL, no distribution, no origin secret; ApiUrl is the execute-api address', () => {
    expect(off.webAcl).toBeNull();
    expect(off.app.node.children.filter((c) => c.node.id.endsWith('-Waf'))).toEqual([]);
    for (const type of ['AWS::WAFv2::WebACL', 'AWS::CloudFront::Distribution', 'AWS::SecretsManager::Secret', 'Custom::AWS']) {
      expect([type, resourcesOfType(off.main, type)]).toEqual([type, []]);
    }
    for (const [, fn] of resourcesOfType(off.main, 'AWS::Lambda::Function')) {
      expect(fn.Properties.Environment?.Variables?.[ORIGIN_SECRET_VARIABLE]).toBeUndefined();
    }
    expect(JSON.stringify(off.main.Outputs!.ApiUrl!.Value)).toContain('ApiEndpoint');
    expect(off.stack.environment).toBe('aws://unknown-account/unknown-region');
  });
});

describe('with -c waf=true', () => {
  test('the web ACL: scope CLOUDFRONT, in a stack pinned to us-east-1, its ARN in an SSM parameter there', () => {
    expect(on.webAcl!.region).toBe(WAF_REGION);
    expect(on.webAcl!.stackName).toBe('CalendarEventsApi-Waf');
    expect(on.stack.environment).toBe('aws://unknown-account/unknown-region');
    const [[aclId, acl], ...more] = resourcesOfType(on.acl!, 'AWS::WAFv2::WebACL');
    expect(more).toEqual([]);
    expect(acl!.Properties).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} } });
    const [[, parameter]] = resourcesOfType(on.acl!, 'AWS::SSM::Parameter');
    expect(parameter!.Properties).toMatchObject({ Name: webAclParameterName('CalendarEventsApi'), Value: { 'Fn::GetAtt': [aclId, 'Arn'] } });
  });

  test('the rate-based rule: the configured limit per client address (IP) in 5 minutes, answered 429 in the contract\'s shape', () => {
    const [[, acl]] = resourcesOfType(on.acl!, 'AWS::WAFv2::WebACL');
    const rules = acl!.Properties.Rules as any[];
    expect(rules[0]).toMatchObject({
      Priority: 0,
      Statement: { RateBasedStatement: { Limit: 1500, AggregateKeyType: 'IP', EvaluationWindowSec: 300 } },
      Action: { Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'TooManyRequests' } } },
    });
    const body = JSON.parse(acl!.Properties.CustomResponseBodies.TooManyRequests.Content);
    expect(body).toEqual({ code: 'rest_too_many_requests', message: expect.any(String), data: { status: 429 } });
    // wafManagedRules: the managed groups, with the rules the API's own bodies would trip only counting.
    expect(rules.map((r) => r.Name)).toEqual(['RatePerClientAddress', 'AWSManagedRulesCommonRuleSet', 'AWSManagedRulesKnownBadInputsRuleSet']);
    expect(rules[1].Statement.ManagedRuleGroupStatement.RuleActionOverrides.map((o: any) => [o.Name, o.ActionToUse]))
      .toEqual([['SizeRestrictions_BODY', { Count: {} }], ['CrossSiteScripting_BODY', { Count: {} }]]);
    const plain = synthBoth({ waf: 'true' });
    const [[, plainAcl]] = resourcesOfType(plain.acl!, 'AWS::WAFv2::WebACL');
    expect(plainAcl!.Properties.Rules.map((r: any) => r.Name)).toEqual(['RatePerClientAddress']);
    expect(plainAcl!.Properties.Rules[0].Statement.RateBasedStatement.Limit).toBe(1000);
  }, TIMEOUT);

  test('the distribution uses the web ACL read from us-east-1, forwards everything but Host, and caches only what the API allows', () => {
    const [[crId, cr]] = resourcesOfType(on.main, 'Custom::AWS');
    const call = JSON.parse(cr!.Properties.Create);
    expect(call).toMatchObject({ service: 'SSM', action: 'getParameter', region: 'us-east-1',
      parameters: { Name: webAclParameterName('CalendarEventsApi') } });
    const [[, distribution], ...more] = resourcesOfType(on.main, 'AWS::CloudFront::Distribution');
    expect(more).toEqual([]);
    const config = distribution!.Properties.DistributionConfig;
    expect(config.WebACLId).toEqual({ 'Fn::GetAtt': [crId, 'Parameter.Value'] });
    const behavior = config.DefaultCacheBehavior;
    expect(behavior.AllowedMethods).toEqual(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE']);
    expect(behavior.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac'); // AllViewerExceptHostHeader
    expect(behavior.ViewerProtocolPolicy).toBe('https-only');
    const cachePolicy = on.main.Resources[behavior.CachePolicyId.Ref]!.Properties.CachePolicyConfig;
    expect(cachePolicy).toMatchObject({ MinTTL: 0, DefaultTTL: 0 });
    expect(cachePolicy.ParametersInCacheKeyAndForwardedToOrigin).toMatchObject({
      HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['Authorization'] },
      QueryStringsConfig: { QueryStringBehavior: 'all' },
      CookiesConfig: { CookieBehavior: 'none' },
    });
    const [origin] = config.Origins;
    expect(JSON.stringify(origin.DomainName)).toContain('ApiEndpoint');
    expect(origin.OriginPath).toBeUndefined(); // the client's path is API Gateway's path: emitted URLs keep the stage
    expect(JSON.stringify(on.main.Outputs!.ApiUrl!.Value)).toContain('DomainName');
    expect(on.stack.dependencies).toContain(on.webAcl);
  });

  test('bypass: a deploy-time secret in CloudFront\'s origin header and in every API function; the viewer function passes host and address', () => {
    const [[secretId, secret]] = resourcesOfType(on.main, 'AWS::SecretsManager::Secret');
    expect(secret!.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 48 });
    const reference = { 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']] };
    const [[, distribution]] = resourcesOfType(on.main, 'AWS::CloudFront::Distribution');
    expect(distribution!.Properties.DistributionConfig.Origins[0].OriginCustomHeaders)
      .toEqual([{ HeaderName: EDGE_HEADERS.secret, HeaderValue: reference }]);
    const withSecret = resourcesOfType(on.main, 'AWS::Lambda::Function')
      .filter(([, fn]) => fn.Properties.Environment?.Variables?.[ORIGIN_SECRET_VARIABLE]);
    expect(withSecret.map(([id]) => id).sort()).toEqual(Object.values(on.stack.functions).map((f) => on.stack.getLogicalId(f.node.defaultChild as never)).sort());
    for (const [, fn] of withSecret) expect(fn.Properties.Environment.Variables[ORIGIN_SECRET_VARIABLE]).toEqual(reference);
    const [[, fn]] = resourcesOfType(on.main, 'AWS::CloudFront::Function');
    expect(fn!.Properties.FunctionCode).toContain(`request.headers['${EDGE_HEADERS.host}'] = { value: request.headers.host.value }`);
    expect(fn!.Properties.FunctionCode).toContain(`request.headers['${EDGE_HEADERS.address}'] = { value: event.viewer.ip }`);
    expect(JSON.stringify(on.main)).not.toMatch(/"HeaderValue":"[A-Za-z0-9]{20,}"/);
  });

  test('the example production deployment (deploy/production.context.json) turns the edge on', () => {
    const production = synthBoth({ deployment: 'production' });
    expect(production.webAcl).not.toBeNull();
    expect(resourcesOfType(production.main, 'AWS::CloudFront::Distribution')).toHaveLength(1);
  }, TIMEOUT);

  test('a custom domain and waf do not go together (the domain would be refused)', () => {
    expect(() => synthBoth({ waf: 'true', domainName: 'api.example.org',
      certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-1234-4abc-9def-0123456789ab' })).toThrow(/waf.*domainName/);
  });
});

interface Report {
  pluginReports: { pluginName: string; conclusion: string; violations: { ruleName: string; violatingConstructs?: { constructPath: string }[] }[];
    suppressedViolations?: { ruleName: string; reason: string; violatingConstructs: { constructPath: string }[] }[] }[];
}

/** Synthesises with both packs (buildApp adds AwsSolutions and Serverless), exactly as `cdk synth` validates, and returns the report. */
function nagReport(context: Record<string, unknown>): Report {
  const app = makeApp(context, { defaultRules: true });
  buildApp(app);
  let dir: string;
  try {
    dir = app.synth().directory;
  } catch {
    dir = app.outdir;
  }
  return JSON.parse(readFileSync(join(dir, 'validation-report.json'), 'utf8')) as Report;
}

/** What the edge adds: the companion stack, the Edge construct, and CDK's singleton function behind AwsCustomResource. */
const EDGE_PATH = /^CalendarEventsApi-Waf\/|^CalendarEventsApi\/Edge\/|^CalendarEventsApi\/AWS679f53fac002430cb0da5b7982bd2287\//;

test.each<[string, Record<string, unknown>]>([['off', {}], ['on', { waf: 'true', wafManagedRules: 'true' }]])(
  'cdk-nag with waf %s: both packs pass, with no unacknowledged finding anywhere',
  (_, context) => {
    const report = nagReport(context);
    expect(report.pluginReports.map((r) => r.pluginName).sort()).toEqual(['AwsSolutions', 'Serverless']);
    for (const plugin of report.pluginReports) {
      const open = plugin.violations.flatMap((v) => (v.violatingConstructs ?? []).map((c) => `${v.ruleName} ${c.constructPath}`));
      expect([plugin.pluginName, open]).toEqual([plugin.pluginName, []]);
      for (const s of plugin.suppressedViolations ?? []) expect(s.reason.length).toBeGreaterThan(80);
    }
    const acknowledged = report.pluginReports.flatMap((r) => r.suppressedViolations ?? [])
      .filter((s) => s.violatingConstructs.some((c) => EDGE_PATH.test(c.constructPath))).map((s) => s.ruleName);
    if (context.waf) {
      expect(new Set(acknowledged)).toEqual(new Set(['AwsSolutions-CFR1', 'AwsSolutions-CFR3', 'AwsSolutions-CFR4', 'AwsSolutions-SMG4',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        'Serverless-LambdaDLQ', 'Serverless-LambdaTracing']));
    } else {
      expect(acknowledged).toEqual([]);
    }
  }, TIMEOUT);
