/**
 * CDK app entry (cdk.json: "app": "npx tsx infra/app.ts"). Synthesises offline: the stack is environment-agnostic
 * (account and region come from the deploying credentials), uses no lookups, and bundles with the local esbuild.
 */
import { buildApp } from './build.js';
import { ConfigError } from './config.js';

try {
  buildApp().app.synth();
} catch (e) {
  if (e instanceof ConfigError) {
    process.stderr.write(`Configuration error: ${e.message}\n`);
    process.exit(1);
  }
  throw e;
}
