/** Every route of the interface, in the origin's registration order (reference §3.1). */
import { accountRoutes } from './accounts.js';
import { changeRoutes } from './changes.js';
import { translationLanguage } from './common.js';
import { eventRoutes } from './events.js';
import { organizerRoutes, venueRoutes } from './linked.js';
import { categoryRoutes, tagRoutes } from './terms.js';
import type { RouteSpec } from './types.js';

export const rootRoutes: RouteSpec[] = [
  { path: '/', group: 'root', operations: [{ id: 'root.index', method: 'GET', summary: 'The namespace index: every route and its arguments',
    capability: 'public', success: 200, errors: [401], response: 'NamespaceIndex', params: [translationLanguage] }] },
  { path: '/doc', group: 'root', operations: [{ id: 'root.doc', method: 'GET', summary: 'This OpenAPI 3 document',
    capability: 'public', success: 200, errors: [401], response: 'OpenApiDocument', params: [translationLanguage] }] },
];

export const ROUTES: RouteSpec[] = [...rootRoutes, ...eventRoutes, ...venueRoutes, ...organizerRoutes, ...categoryRoutes, ...tagRoutes,
  ...accountRoutes, ...changeRoutes];
