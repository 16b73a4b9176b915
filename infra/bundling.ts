/**
 * The one set of esbuild settings for the Lambda bundles, used by the stack (functionCode(): esbuild's API on this
 * machine, no Docker) and by anything that builds a bundle the same way (test/infra/bundles.test.ts checks the stack's
 * assets against a build with esbuildBuildOptions(), test/bench/coldstart.ts times their imports).
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, type BuildOptions, type Metafile } from 'esbuild';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { REDOC_FILES } from '../lib/openapi/redoc-files.js';

/**
 * Bundled CommonJS dependencies (parts of the AWS SDK, among others) call require() for Node built-ins; an ES module
 * has no require, so the bundle defines one. Without it the SDK fails at import with
 * `Dynamic require of "node:https" is not supported` (invisible under `node -e`, which has a global require).
 */
export const CREATE_REQUIRE_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/** esbuild runs here, so the aliases' relative paths resolve. */
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Matches lambda.Runtime.NODEJS_24_X in infra/stack.ts. */
export const NODE_TARGET = 'node24';

export const BUNDLE = {
  platform: 'node',
  target: NODE_TARGET,
  /** ESM output: top-level await is available and the entry is index.mjs (handler "index.handler"). */
  format: 'esm',
  entryName: 'index',
  extension: '.mjs',
  outputFile: 'index.mjs',
  /**
   * ES module chunks: code the handler imports dynamically (what only some requests run, e.g. the event writes and
   * feeds: functions/events.ts) lands in chunks loaded on first use, and code shared by both in chunks of its own, so
   * every module exists once. A cold start loads index.mjs and the chunks it imports statically.
   */
  splitting: true,
  chunkNames: 'chunk-[hash]',
  minify: true,
  /** esbuild tree-shakes bundles anyway; stated so the setting is visible. */
  treeShaking: true,
  /** External .map next to each file; NODE_OPTIONS=--enable-source-maps maps stack traces to the TypeScript. */
  sourcemap: true,
  /** Line mappings only, no embedded sources: smaller assets, same stack traces. */
  sourcesContent: false,
  /** Prefer packages' ESM builds, which tree-shake better. */
  mainFields: ['module', 'main'],
  banner: CREATE_REQUIRE_BANNER,
  /** Package → module substitutions, paths relative to the project root (where esbuild runs). */
  alias: {
    '@aws-sdk/credential-provider-node': './lib/store/env-credentials.ts',
    'side-channel': './lib/http/side-channel.cjs',
    '@smithy/core/event-streams': './lib/aws/no-event-streams.ts',
    '@aws-sdk/endpoint-cache': './lib/aws/no-endpoint-cache.ts',
  },
} as const;

/**
 * Packages a function loads only when a request needs them (lib/lazy-module.ts), bundled as files of their own next to
 * the handler: chrono-node (about 45 KB) for dates written as phrases, the Lambda client (about 70 KB) with which the
 * root function forwards a path spelt in another letter case, and htmlparser2 and entities (about 55 KB) for
 * sanitising and decoding HTML (writes, search, JSON-LD), ical-generator and timezones-ical-library (about 65 KB) for the
 * iCalendar feeds; rrule (about 45 KB) for recurrence rules; jose (about 18 KB) for bearer tokens; Powertools'
 * idempotency utility with its JMESPath evaluator (about 40 KB) for creates with an Idempotency-Key (it uses the
 * handler's own DynamoDB classes: its `alias`); Powertools' Tracer (with aws-xray-sdk-core, about
 * 125 KB), loaded only when POWERTOOLS_TRACE_ENABLED=true (lib/observability/tracer.ts). Most requests need none of
 * them, so most cold starts never load them, and each handler's own file stays within its budget
 * (test/infra/bundles.test.ts).
 */
type SideBundle = { pkg: string; entry: string; outputFile: string; alias?: Record<string, string> };

export const SIDE_BUNDLES: readonly SideBundle[] = [
  { pkg: 'chrono-node', entry: 'lib/time/lazy/chrono-node-entry.ts', outputFile: 'chrono.cjs' },
  { pkg: '@aws-sdk/client-lambda', entry: 'lib/aws/lazy/client-lambda-entry.ts', outputFile: 'lambda.cjs' },
  { pkg: 'htmlparser2', entry: 'lib/text/lazy/htmlparser2-entry.ts', outputFile: 'htmlparser2.cjs' },
  { pkg: 'entities', entry: 'lib/text/lazy/entities-entry.ts', outputFile: 'entities.cjs' },
  { pkg: 'ical-generator', entry: 'lib/events/lazy/ical-generator-entry.ts', outputFile: 'ical-generator.cjs' },
  { pkg: 'timezones-ical-library', entry: 'lib/events/lazy/timezones-ical-library-entry.ts', outputFile: 'vtimezones.cjs' },
  { pkg: '@aws-lambda-powertools/tracer', entry: 'lib/observability/lazy/tracer-entry.ts', outputFile: 'tracer.cjs' },
  { pkg: 'rrule', entry: 'lib/events/lazy/rrule-entry.ts', outputFile: 'rrule.cjs' },
  { pkg: 'jose', entry: 'lib/auth/lazy/jose-entry.ts', outputFile: 'jose.cjs' },
  { pkg: '@aws-lambda-powertools/idempotency', entry: 'lib/store/lazy/idempotency-entry.ts', outputFile: 'idempotency.cjs',
    alias: { '@aws-sdk/client-dynamodb': './lib/store/lazy/host-client-dynamodb.ts' } },
];

/**
 * In the handler's bundle each of those packages is replaced by a stand-in that loads its side bundle on first use, so
 * the code imports them as usual and runs unbundled (npm start, tests) with the packages themselves.
 */
const LAZY_ALIAS = {
  'chrono-node': './lib/time/lazy/chrono-node.ts',
  '@aws-sdk/client-lambda': './lib/aws/lazy/client-lambda.ts',
  htmlparser2: './lib/text/lazy/htmlparser2.ts',
  entities: './lib/text/lazy/entities.ts',
  'ical-generator': './lib/events/lazy/ical-generator.ts',
  'timezones-ical-library': './lib/events/lazy/timezones-ical-library.ts',
  rrule: './lib/events/lazy/rrule.ts',
  jose: './lib/auth/lazy/jose.ts',
  '@aws-lambda-powertools/idempotency': './lib/store/lazy/idempotency.ts',
  '@aws-lambda-powertools/idempotency/dynamodb': './lib/store/lazy/idempotency.ts',
} as const;
const HANDLER_ALIAS = { ...BUNDLE.alias, ...LAZY_ALIAS };

/**
 * Files of packages a function serves as they are (lib/package-file.ts), copied next to its bundle, by entry: Redoc's
 * script for the reference page (about 1 MB, and never run by the function, so not bundled) and its license notices.
 */
export const PACKAGE_FILES: Record<string, readonly { spec: string; outputFile: string }[]> = {
  'functions/root.ts': Object.values(REDOC_FILES).map((spec) => ({ spec, outputFile: spec.slice(spec.lastIndexOf('/') + 1) })),
};

/** Where the handler finds each side bundle (lib/lazy-module.ts) and package file (lib/package-file.ts). */
const DEFINE = {
  CALENDAR_SIDE_FILES: JSON.stringify(Object.fromEntries(SIDE_BUNDLES.map((s) => [s.pkg, `./${s.outputFile}`]))),
  CALENDAR_PACKAGE_FILES: JSON.stringify(Object.fromEntries(Object.values(PACKAGE_FILES).flat().map((f) => [f.spec, `./${f.outputFile}`]))),
};

/** esbuild settings of a side bundle (CommonJS, loaded with require; the handler's aliases). */
const sideOptions = { bundle: true, platform: 'node', target: NODE_TARGET, format: 'cjs', minify: true, mainFields: ['module', 'main'] } as const;

/** A side bundle's aliases: the handler's SDK substitutions, and its own. */
const sideAlias = (side: SideBundle): Record<string, string> => ({ ...BUNDLE.alias, ...side.alias });

/**
 * The handler of `entry` (relative to the project root) through esbuild's JavaScript API, into `outdir`: `index.mjs`,
 * and the chunks of code it imports (statically: shared between its entry and its dynamic imports; dynamically: code
 * only some requests run), each module in exactly one of them.
 */
export function esbuildBuildOptions(entry: string, outdir: string): BuildOptions {
  return {
    entryPoints: { [BUNDLE.entryName]: entry },
    outdir,
    outExtension: { '.js': BUNDLE.extension },
    chunkNames: BUNDLE.chunkNames,
    splitting: BUNDLE.splitting,
    bundle: true,
    platform: BUNDLE.platform,
    target: BUNDLE.target,
    format: BUNDLE.format,
    minify: BUNDLE.minify,
    treeShaking: BUNDLE.treeShaking,
    sourcemap: BUNDLE.sourcemap,
    sourcesContent: BUNDLE.sourcesContent,
    mainFields: [...BUNDLE.mainFields],
    banner: { js: BUNDLE.banner },
    /**
     * Bundle the AWS SDK v3 too (nothing external): a tree-shaken, bundled client loads faster than the runtime's full
     * copy, and the deployed code runs exactly the SDK version package-lock.json pins.
     */
    external: [],
    alias: { ...HANDLER_ALIAS },
    define: { ...DEFINE },
    absWorkingDir: PROJECT_ROOT,
    logLevel: 'warning',
  };
}

/** The side bundles through esbuild's JavaScript API, into `outdir` next to the handler built by esbuildBuildOptions(). */
export const sideBuildOptions = (outdir: string): BuildOptions[] => SIDE_BUNDLES.map((side) => ({
  ...sideOptions,
  mainFields: [...sideOptions.mainFields],
  entryPoints: [`${PROJECT_ROOT}${side.entry}`],
  outfile: `${outdir.replace(/\/+$/, '')}/${side.outputFile}`,
  alias: sideAlias(side),
  absWorkingDir: PROJECT_ROOT,
  logLevel: 'warning',
}));

/** Builds the function of `entry` into `outdir`: its handler with its chunks, its side bundles and its package files. */
export function buildFunction(entry: string, outdir: string): void {
  buildSync(esbuildBuildOptions(entry, outdir));
  for (const options of sideBuildOptions(outdir)) buildSync(options);
  for (const file of PACKAGE_FILES[entry] ?? []) copyFileSync(join(PROJECT_ROOT, 'node_modules', file.spec), join(outdir, file.outputFile));
}

/**
 * The code asset of the function of `entry` (relative to the project root), built on this machine by buildFunction()
 * (CDK's NodejsFunction cannot split code into chunks: it builds one output file). Docker is never used: the image
 * is a placeholder CDK requires, and the local build either succeeds or throws.
 */
export function functionCode(entry: string): lambda.Code {
  return lambda.Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('dummy'),
      // Never run; it names the entry, so that each function's asset is staged (and cached) on its own.
      command: ['esbuild', entry],
      local: {
        tryBundle: (outputDir) => {
          buildFunction(entry, outputDir);
          return true;
        },
      },
    },
  });
}

/**
 * The files a cold start of a function loads (of a build with esbuildBuildOptions() and `metafile: true`): index.mjs
 * and the chunks it imports statically, and theirs; not the chunks it imports dynamically, nor the side bundles.
 * Paths as in the metafile (relative to the project root).
 */
export function coldStartFiles(metafile: Metafile): string[] {
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((path) => outputs[path]!.entryPoint !== undefined && path.endsWith(`/${BUNDLE.outputFile}`));
  if (!entry) throw new Error(`the build has no ${BUNDLE.outputFile}`);
  const files = new Set<string>();
  const visit = (path: string): void => {
    if (files.has(path)) return;
    files.add(path);
    for (const i of outputs[path]!.imports) if (!i.external && i.kind === 'import-statement') visit(i.path);
  };
  visit(entry);
  return [...files];
}
