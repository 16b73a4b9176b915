/**
 * Files of packages that a function serves as they are, never runs (Redoc's script for the reference page, about a
 * megabyte): they stay out of the handler's bundle. The build copies each next to the bundle and names the copies in
 * CALENDAR_PACKAGE_FILES (infra/bundling.ts PACKAGE_FILES); unbundled (npm start, tests) they are read from node_modules.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

declare const CALENDAR_PACKAGE_FILES: Record<string, string> | undefined;

const copies: Record<string, string> = typeof CALENDAR_PACKAGE_FILES === 'object' ? CALENDAR_PACKAGE_FILES : {};
const resolvePackage = createRequire(import.meta.url).resolve;

/** Where a package file is: its copy next to the bundle, else the package's own ("redoc/bundles/redoc.standalone.js"). */
export function packageFilePath(spec: string): string {
  const copy = copies[spec];
  return copy ? fileURLToPath(new URL(copy, import.meta.url)) : resolvePackage(spec);
}

/** The file's bytes (read from disk on every call: lib/http/static-file.ts calls it once and keeps what it serves). */
export function packageFile(spec: string): Buffer {
  return readFileSync(packageFilePath(spec));
}
