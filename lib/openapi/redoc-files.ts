/**
 * Redoc's files that the reference page (lib/openapi/doc-page.ts) loads from the service, as package paths: read by
 * lib/package-file.ts, copied next to the root function's bundle by infra/bundling.ts.
 */
export const REDOC_FILES = {
  script: 'redoc/bundles/redoc.standalone.js',
  /** The script's own license comment points at this file, served next to it. */
  license: 'redoc/bundles/redoc.standalone.js.LICENSE.txt',
} as const;
