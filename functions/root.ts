/** Lambda handler for the namespace index (GET {api}) and the OpenAPI document (GET {api}/doc). */
import { createGroupHandler } from '../lib/http/handler.js';
import { json } from '../lib/http/response.js';
import { buildNamespaceIndex } from '../lib/openapi/namespace-index.js';
import { buildOpenApiDocument } from '../lib/openapi/document.js';
import { ROUTES } from '../lib/routes/all.js';

export const handler = createGroupHandler('root', ROUTES, {
  'root.index': async (ctx) => json(200, buildNamespaceIndex({ apiUrl: ctx.apiUrl })),
  'root.doc': async (ctx) => json(200, buildOpenApiDocument({ apiUrl: ctx.apiUrl })),
}, null);
