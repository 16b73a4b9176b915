/** Every route of the interface, in the origin's registration order (reference §3.1). */
import { accountRoutes } from './accounts.js';
import { changeRoutes } from './changes.js';
import { translationLanguage } from './common.js';
import { eventRoutes } from './events.js';
import { organizerRoutes, venueRoutes } from './linked.js';
import { categoryRoutes, tagRoutes } from './terms.js';
import { importRoutes } from './imports.js';
import { ticketRoutes } from './tickets.js';
import type { RouteSpec } from './types.js';

export const rootRoutes: RouteSpec[] = [
  { path: '/', group: 'root', operations: [{ id: 'root.index', method: 'GET', summary: 'The namespace index: every route and its arguments',
    capability: 'public', success: 200, errors: [401], response: 'NamespaceIndex', params: [translationLanguage] }] },
  { path: '/doc', group: 'root', operations: [{ id: 'root.doc', method: 'GET', summary: 'This OpenAPI 3 document',
    capability: 'public', success: 200, errors: [401], response: 'OpenApiDocument', params: [translationLanguage] }] },
  // The reference page (contract §10) and the files it loads from the service, so that it works with no internet access.
  { path: '/doc.html', group: 'root', operations: [{ id: 'root.docPage', method: 'GET',
    summary: 'This document as a reference page for people (rendered by Redoc in the browser)', capability: 'public', success: 200,
    errors: [401], response: 'DocPage', mediaType: 'text/html', headers: ['Content-Security-Policy'], params: [translationLanguage] }] },
  { path: '/doc.html/redoc.standalone.js', group: 'root', operations: [{ id: 'root.docScript', method: 'GET',
    summary: 'The script of the reference page: Redoc\'s standalone bundle (MIT)', capability: 'public', success: 200, errors: [401],
    response: 'DocScript', mediaType: 'application/javascript', headers: ['Content-Encoding'], params: [translationLanguage] }] },
  { path: '/doc.html/redoc.standalone.js.LICENSE.txt', group: 'root', operations: [{ id: 'root.docScriptLicense', method: 'GET',
    summary: 'The license notices of the reference page\'s script', capability: 'public', success: 200, errors: [401],
    response: 'DocScriptLicense', mediaType: 'text/plain', params: [translationLanguage] }] },
];

export const ROUTES: RouteSpec[] = [...rootRoutes, ...eventRoutes, ...venueRoutes, ...organizerRoutes, ...categoryRoutes, ...tagRoutes,
  ...accountRoutes, ...changeRoutes, ...ticketRoutes, ...importRoutes];
