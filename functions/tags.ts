/** Lambda handler for the /tags routes. */
import { createGroupHandler, notImplemented } from '../lib/http/handler.js';
import { ROUTES } from '../lib/routes/index.js';

// The tags routes are declared (validation, index, OpenAPI, CDK) and answer 501 until they are built.
const operations = Object.fromEntries(
  ROUTES.filter((r) => r.group === 'tags').flatMap((r) => r.operations.map((o) => [o.id, notImplemented])),
);

export const handler = createGroupHandler('tags', operations);
