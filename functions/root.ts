/**
 * Lambda handler for the namespace index (GET {api}), the OpenAPI document (GET {api}/doc) and the caller's
 * application passwords (contract §12), and the changes feed (contract §16).
 */
import { lambdaForwarder } from '../lib/aws/forward.js';
import { createAppPassword, listAppPasswords, revokeAppPassword } from '../lib/accounts/operations.js';
import { listChanges } from '../lib/changes/feed.js';
import { createGroupHandler } from '../lib/http/handler.js';
import { json } from '../lib/http/response.js';
import { buildNamespaceIndex } from '../lib/openapi/namespace-index.js';
import { buildOpenApiDocument } from '../lib/openapi/document.js';
import { ROUTES } from '../lib/routes/all.js';

export const handler = createGroupHandler('root', ROUTES, {
  'root.index': async (ctx) => json(200, buildNamespaceIndex({ apiUrl: ctx.apiUrl })),
  'root.doc': async (ctx) => json(200, buildOpenApiDocument({ apiUrl: ctx.apiUrl })),
  'appPasswords.list': listAppPasswords,
  'appPasswords.create': createAppPassword,
  'appPasswords.delete': revokeAppPassword,
  'changes.list': listChanges,
}, null, { forward: lambdaForwarder() });
