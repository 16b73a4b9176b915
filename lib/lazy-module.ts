/**
 * Packages a function loads only when a request needs them (chrono-node for dates written as phrases, the Lambda
 * client for forwarding, htmlparser2 and entities for HTML): most cold starts never load them. In the Lambda bundles each is a file of its own next to
 * the handler, and the build names those files (infra/bundling.ts SIDE_BUNDLES); elsewhere the package itself loads.
 */
import { createRequire } from 'node:module';

declare const CALENDAR_SIDE_FILES: Record<string, string> | undefined;

const files: Record<string, string> = typeof CALENDAR_SIDE_FILES === 'object' ? CALENDAR_SIDE_FILES : {};
const load = createRequire(import.meta.url);
const loaded = new Map<string, unknown>();

/** The package's exports, loaded on the first call. */
export function lazyModule<T>(pkg: string): T {
  if (!loaded.has(pkg)) loaded.set(pkg, load(files[pkg] ?? pkg));
  return loaded.get(pkg) as T;
}
