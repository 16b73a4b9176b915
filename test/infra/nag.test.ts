/**
 * cdk-nag (AwsSolutions and Serverless packs, v3 policy-validation plugins) passes on the real app, exactly as `cdk synth` runs it
 * (cdk.json context including CDK's own CloudFormation rule validation), and fails when a finding appears that
 * no acknowledgement covers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { buildApp } from '../../infra/build.js';
import { makeApp } from './helpers.js';

const TIMEOUT = 120_000;

/** The message synth fails with (the validation report, in-memory apps include it). */
function synthError(app: App): string {
  try {
    app.synth();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('synth passed, but a cdk-nag finding was expected to fail it');
}

interface Report {
  pluginReports: {
    pluginName: string;
    conclusion: string;
    violations: unknown[];
    suppressedViolations?: { ruleName: string; reason: string; violatingConstructs: { constructPath: string }[] }[];
  }[];
}

test('synth with cdk-nag passes; every acknowledgement has a reason; APIG4 is acknowledged route by route', () => {
  const app = makeApp({}, { defaultRules: true });
  const { stack } = buildApp(app);
  const assembly = app.synth();
  const report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')) as Report;
  const nag = report.pluginReports.find((r) => r.pluginName === 'AwsSolutions')!;
  expect(nag.conclusion).toBe('success');
  expect(nag.violations).toEqual([]);
  const suppressed = nag.suppressedViolations ?? [];
  for (const s of suppressed) expect(s.reason.length).toBeGreaterThan(80);
  // The horizon schedule's dead-letter queue needs none of its own (SQS3); its role may invoke the job's versions (IAM5).
  expect(new Set(suppressed.map((s) => s.ruleName))).toEqual(new Set(['AwsSolutions-APIG4', 'AwsSolutions-COG2', 'AwsSolutions-COG8',
    'AwsSolutions-SQS3', expect.stringMatching(/^AwsSolutions-IAM5\[Resource::<HorizonFunction[0-9A-F]+\.Arn>:\*\]$/),
    // …and the import schedule's role its dispatcher's.
    expect.stringMatching(/^AwsSolutions-IAM5\[Resource::<ImportDispatcherFunction[0-9A-F]+\.Arn>:\*\]$/),
    // dynamodb:ListStreams of the change publisher's stream source has no resource-level permissions.
    'AwsSolutions-IAM5[Resource::*]']));
  const unauthenticated = suppressed
    .filter((s) => s.ruleName === 'AwsSolutions-APIG4')
    .flatMap((s) => s.violatingConstructs.map((c) => c.constructPath));
  expect(unauthenticated).toHaveLength(stack.routes.length + 1); // + $default
  expect(unauthenticated.every((p) => p.startsWith(`${stack.stackName}/Routes/`))).toBe(true);
  expect(report.pluginReports.every((r) => r.conclusion === 'success')).toBe(true);
}, TIMEOUT);

/** The Serverless pack's report of a synth with cdk.json's context plus `context`. */
function serverlessReport(context: Record<string, unknown> = {}) {
  const app = makeApp(context, { defaultRules: true });
  const { stack } = buildApp(app);
  const assembly = app.synth();
  const report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')) as Report;
  expect(report.pluginReports.map((r) => r.pluginName).sort()).toEqual(['AwsSolutions', 'Serverless']);
  expect(report.pluginReports.every((r) => r.conclusion === 'success' && r.violations.length === 0)).toBe(true);
  const serverless = report.pluginReports.find((r) => r.pluginName === 'Serverless')!;
  const suppressed = serverless.suppressedViolations ?? [];
  for (const s of suppressed) expect(s.reason.length).toBeGreaterThan(80);
  const paths = (rule: string) => suppressed.filter((s) => s.ruleName === rule).flatMap((s) => s.violatingConstructs.map((c) => c.constructPath)).sort();
  return { stack, suppressed, paths };
}

test('the Serverless pack passes; its acknowledgements name each function, queue and subscription', () => {
  const { stack, suppressed, paths } = serverlessReport();
  expect(new Set(suppressed.map((s) => s.ruleName))).toEqual(new Set(['Serverless-LambdaDLQ', 'Serverless-LambdaTracing',
    'Serverless-SQSRedrivePolicy', 'Serverless-SNSRedrivePolicy', 'Serverless-LambdaEventSourceMappingDestination']));
  const fnPath = (fn: { node: { path: string } }) => `${fn.node.path}/Resource`;
  const synchronous = [...Object.values(stack.functions), stack.changeEvents.fn, stack.imports.worker];
  // The horizon job and the import dispatcher are invoked asynchronously and have a dead-letter queue; the others are
  // invoked synchronously (the import worker by its queue, whose own dead-letter queue takes what keeps failing).
  expect(paths('Serverless-LambdaDLQ')).toEqual(synchronous.map(fnPath).sort());
  expect(paths('Serverless-LambdaEventSourceMappingDestination')).toEqual([expect.stringMatching(/^CalendarEventsApi\/ImportWorkerFunction\/SqsEventSource:/)]);
  // Tracing is off by default: acknowledged on every function.
  expect(paths('Serverless-LambdaTracing')).toEqual([...synchronous, stack.horizon.fn, stack.imports.dispatcher].map(fnPath).sort());
  expect(paths('Serverless-SQSRedrivePolicy')).toEqual([stack.horizon.deadLetters, stack.changeEvents.deadLetters, stack.imports.deadLetters,
    stack.imports.dispatcherDeadLetters].map(fnPath).sort());
  expect(paths('Serverless-SNSRedrivePolicy')).toEqual([stack.monitoring.emailSubscription.node.path]);
}, TIMEOUT);

test('with -c geocoding=true both packs pass: the geocoder is acknowledged as the change publisher is', () => {
  const { stack, paths } = serverlessReport({ geocoding: 'true' });
  const fnPath = (fn: { node: { path: string } }) => `${fn.node.path}/Resource`;
  expect(paths('Serverless-LambdaDLQ')).toContain(fnPath(stack.geocoding!.fn));
  expect(paths('Serverless-SQSRedrivePolicy')).toContain(fnPath(stack.geocoding!.deadLetters));
}, TIMEOUT);

test('with -c tracing=true both packs pass without the tracing acknowledgement', () => {
  const { suppressed } = serverlessReport({ tracing: 'true' });
  expect(suppressed.map((s) => s.ruleName)).not.toContain('Serverless-LambdaTracing');
}, TIMEOUT);

test('the other configurations pass too (existing issuer, custom domain, named stage, samLocal)', () => {
  const app = makeApp({
    createUserPool: 'false',
    jwtIssuer: 'https://issuer.example.org',
    jwtAudience: 'client',
    domainName: 'api.example.org',
    certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-1234-4abc-9def-0123456789ab',
    stageName: 'prod',
  });
  buildApp(app);
  expect(() => app.synth()).not.toThrow();
  const local = makeApp({ samLocal: 'true' });
  buildApp(local);
  expect(() => local.synth()).not.toThrow();
}, TIMEOUT);

test('negative control: a route that nobody acknowledged fails the synth (AwsSolutions-APIG4)', () => {
  const app = makeApp();
  const { stack } = buildApp(app);
  new HttpRoute(stack, 'UnprotectedWrite', {
    httpApi: stack.api,
    routeKey: HttpRouteKey.with('/calendar/events/v1/events/{id}/unprotected', HttpMethod.DELETE),
    integration: new HttpLambdaIntegration('Unprotected', stack.functions.events),
  });
  expect(synthError(app)).toMatch(/CalendarEventsApi\/UnprotectedWrite\/Resource[\s\S]*AwsSolutions-APIG4/);
}, TIMEOUT);

test('negative control: a wildcard table grant (grantReadWriteData) fails the synth (AwsSolutions-IAM5)', () => {
  const app = makeApp();
  const { stack } = buildApp(app);
  stack.table.grantReadWriteData(stack.functions.root);
  expect(synthError(app)).toMatch(/CalendarEventsApi\/RootRole\/DefaultPolicy\/Resource[\s\S]*AwsSolutions-IAM5\[Resource::<TableCD117FA1\.Arn>\/index\/\*\]/);
}, TIMEOUT);
