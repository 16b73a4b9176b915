/**
 * The reference page for people, GET {api}/doc.html (contract §10): Redoc renders the document of GET {api}/doc in the
 * browser. Everything it loads comes from the service — Redoc's script under {api}/doc.html/ and the document — so it
 * works with no internet access, and its Content-Security-Policy keeps it that way: nothing may load from another host
 * (Redoc's sidebar names a logo on a CDN; the browser does not fetch it, and Redoc then leaves it out). No inline
 * script: the `<redoc>` element's attributes configure it.
 */
import { ROUTES } from '../routes/all.js';
import { API_TITLE } from './document.js';

/**
 * Scripts and the document from the service only; Redoc styles with inline `<style>` elements and runs its search in a
 * worker made from a blob.
 */
export const DOC_PAGE_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self' data:",
  "connect-src 'self'", "worker-src 'self' blob:", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

/** System fonts: Redoc's default theme names web fonts the page does not load. */
const THEME = {
  typography: {
    fontFamily: 'system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif',
    headings: { fontFamily: 'system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif' },
    code: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, Liberation Mono, monospace' },
  },
};

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The path of the route that serves an operation, relative to the API root. */
function routePath(operationId: string): string {
  const route = ROUTES.find((r) => r.operations.some((o) => o.id === operationId));
  if (!route) throw new Error(`no route serves ${operationId}`);
  return route.path;
}

export interface DocPageOptions {
  /** The path of the request's API root, e.g. /prod/de/calendar/events/v1 (the document and the script are under it). */
  apiPath: string;
  /** The script's version (lib/http/static-file.ts), so that a new script is a new URL. */
  scriptVersion: string;
}

/**
 * The page's HTML. Its URLs are paths under the request's own API root, without scheme and host: they work under any
 * base, prefix or stage, with or without a trailing slash, and on whatever host the page itself was loaded from (which
 * is what the policy's 'self' allows).
 */
export function docPage({ apiPath, scriptVersion }: DocPageOptions): string {
  const doc = escapeHtml(`${apiPath}${routePath('root.doc')}`);
  const script = escapeHtml(`${apiPath}${routePath('root.docScript')}?v=${encodeURIComponent(scriptVersion)}`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(API_TITLE)}: reference</title>
<link rel="icon" href="data:,">
<link rel="alternate" type="application/json" href="${doc}" title="OpenAPI 3 document">
</head>
<body>
<noscript>
<p>This reference page needs JavaScript. The same reference is the OpenAPI 3 document at
<a href="${doc}">${doc}</a>, also published with the API's source code as <code>openapi.json</code>.</p>
</noscript>
<redoc spec-url="${doc}" theme="${escapeHtml(JSON.stringify(THEME))}" expand-responses="200,201" required-props-first></redoc>
<script src="${script}"></script>
</body>
</html>
`;
}
