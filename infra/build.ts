/**
 * Builds the CDK app: the stack from the context configuration, plus cdk-nag's AwsSolutions and Serverless packs,
 * which run on every synth (a finding without an acknowledgement fails it). Used by infra/app.ts and by the tests.
 */
import { App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { readConfig } from './config.js';
import { WebAclStack, webAclStackName } from './edge.js';
import { CalendarStack } from './stack.js';

export interface BuildOptions {
  /** Register cdk-nag (default true; the template tests switch it off and check it in a separate test). */
  nag?: boolean;
}

export function buildApp(app: App = new App(), options: BuildOptions = {}): { app: App; stack: CalendarStack; webAcl: WebAclStack | null } {
  const config = readConfig(app.node);
  // With `waf`, the web ACL's stack in us-east-1 (infra/edge.ts) is deployed first: the API's stack reads its ARN.
  const webAcl = config.waf ? new WebAclStack(app, webAclStackName(config.stackName), {
    config,
    description: `Calendar Events API (${config.stackName}): AWS WAF web ACL for its CloudFront distribution`,
  }) : null;
  const stack = new CalendarStack(app, config.stackName, {
    config,
    description: 'Calendar Events API (The Events Calendar REST v1 compatible): HTTP API, Lambda, DynamoDB, Cognito',
  });
  if (webAcl) stack.addStackDependency(webAcl, 'the distribution reads the web ACL\'s ARN from its SSM parameter');
  for (const s of [stack, webAcl]) if (s) Tags.of(s).add('application', 'calendar-events-api');
  if (options.nag ?? true) {
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }), new ServerlessChecks(app, { verbose: true }));
  }
  return { app, stack, webAcl };
}
