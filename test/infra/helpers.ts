/** Builds the stack for template tests: cdk.json's context (feature flags, defaults) plus per-test overrides. */
import { readFileSync } from 'node:fs';
import { App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../infra/build.js';
import type { CalendarStack } from '../../infra/stack.js';

export const CDK_JSON = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
  app: string;
  context: Record<string, unknown>;
};

export interface MakeAppOptions {
  /** Run esbuild for every function (slow); template tests skip it. */
  bundling?: boolean;
  /** CDK's built-in CloudFormation rule validation (cdk.json enables it); off for template tests, on for nag tests. */
  defaultRules?: boolean;
}

export function makeApp(context: Record<string, unknown> = {}, options: MakeAppOptions = {}): App {
  return new App({
    context: {
      ...CDK_JSON.context,
      ...(options.bundling ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...(options.defaultRules ? {} : { '@aws-cdk/core:validateAgainstDefaultRules': false }),
      ...context,
    },
  });
}

export interface Synth {
  app: App;
  stack: CalendarStack;
  template: Template;
  json: TemplateJson;
}

export interface TemplateJson {
  Resources: Record<string, { Type: string; Properties?: any; Metadata?: any; DeletionPolicy?: string; UpdateReplacePolicy?: string }>;
  Outputs?: Record<string, { Value: unknown }>;
  Rules?: Record<string, unknown>;
}

/** Synthesises the stack without cdk-nag and without bundling. */
export function synth(context: Record<string, unknown> = {}): Synth {
  const app = makeApp(context);
  const { stack } = buildApp(app, { nag: false });
  const template = Template.fromStack(stack);
  return { app, stack, template, json: template.toJSON() as TemplateJson };
}

export const logicalId = (stack: CalendarStack, construct: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

/** Resources of one type, as [logicalId, resource] pairs. */
export const resourcesOfType = (json: TemplateJson, type: string) =>
  Object.entries(json.Resources).filter(([, r]) => r.Type === type);
