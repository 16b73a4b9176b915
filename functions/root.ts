/**
 * Lambda handler for the namespace index (GET {api}), the OpenAPI document (GET {api}/doc) and its reference page
 * (GET {api}/doc.html, with the files it loads), the caller's application passwords (contract §12), and the changes
 * feed (contract §16). Through `$default` it also gets every path API Gateway's routes do not spell (infra/routes.ts),
 * and hands those of another function to it (lib/aws/forward.ts), the calendar pages' included.
 */
import { lambdaForwarder } from '../lib/aws/forward.js';
import { createAppPassword, listAppPasswords, revokeAppPassword } from '../lib/accounts/operations.js';
import { listChanges } from '../lib/changes/feed.js';
import { createGroupHandler } from '../lib/http/handler.js';
import { htmlText, json } from '../lib/http/response.js';
import { staticFile } from '../lib/http/static-file.js';
import { buildNamespaceIndex } from '../lib/openapi/namespace-index.js';
import { buildOpenApiDocument } from '../lib/openapi/document.js';
import { DOC_PAGE_CSP, docPage } from '../lib/openapi/doc-page.js';
import { REDOC_FILES } from '../lib/openapi/redoc-files.js';
import { packageFile } from '../lib/package-file.js';
import { stripStage } from '../lib/http/paths.js';
import { splitPagePath } from '../lib/pages/paths.js';
import { ROUTES } from '../lib/routes/all.js';

const redocScript = staticFile(() => packageFile(REDOC_FILES.script), 'application/javascript; charset=utf-8', { gzip: true });
const redocLicense = staticFile(() => packageFile(REDOC_FILES.license), 'text/plain; charset=utf-8');

const forward = lambdaForwarder();

const api = createGroupHandler('root', ROUTES, {
  'root.index': async (ctx) => json(200, buildNamespaceIndex({ apiUrl: ctx.apiUrl })),
  'root.doc': async (ctx) => json(200, buildOpenApiDocument({ apiUrl: ctx.apiUrl })),
  'root.docPage': async (ctx) => htmlText(docPage({ apiPath: ctx.apiUrl.slice(ctx.origin.length), scriptVersion: redocScript.version() }),
    { 'Content-Security-Policy': DOC_PAGE_CSP }),
  'root.docScript': async (ctx) => redocScript.response(ctx.headers['accept-encoding']),
  'root.docScriptLicense': async (ctx) => redocLicense.response(ctx.headers['accept-encoding']),
  'appPasswords.list': listAppPasswords,
  'appPasswords.create': createAppPassword,
  'appPasswords.delete': revokeAppPassword,
  'changes.list': listChanges,
}, null, { forward });

/**
 * A page path (contract §21) that the pages' routes do not spell (another letter case, say) reaches this function
 * through $default too: the pages function answers it, with its own logs, headers and edge check.
 */
export const handler: typeof api = async (event, context) => {
  if (forward && splitPagePath(stripStage(event.rawPath ?? '/', event.requestContext?.stage).path)) return forward('pages', event);
  return api(event, context);
};
