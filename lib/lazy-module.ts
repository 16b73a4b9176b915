/**
 * Packages a Lambda function loads only when a request needs them (chrono-node for dates written as phrases, the
 * Lambda client for forwarding, htmlparser2 and entities for HTML): most cold starts never load them. Each is a file
 * of its own next to the handler, named by the build (infra/bundling.ts SIDE_BUNDLES), and the stand-ins that replace
 * the packages in the handler's bundle (the lazy/ folders of lib/time, lib/aws and lib/text) load it here.
 */
import { createRequire } from 'node:module';

declare const CALENDAR_SIDE_FILES: Record<string, string> | undefined;

const files: Record<string, string> = typeof CALENDAR_SIDE_FILES === 'object' ? CALENDAR_SIDE_FILES : {};
const load = createRequire(import.meta.url);
const loaded = new Map<string, unknown>();

/** The packages loaded so far (the tracer, for one, only ever when tracing is on). */
export const loadedModules = (): string[] => [...loaded.keys()];

/** The package's exports, loaded on the first call. */
export function lazyModule<T>(pkg: string): T {
  if (!loaded.has(pkg)) loaded.set(pkg, load(files[pkg] ?? pkg));
  return loaded.get(pkg) as T;
}
