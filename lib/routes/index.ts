/** The route definitions and their matching; see all.ts for the list itself. */
export { ROUTES, rootRoutes } from './all.js';
export * from './types.js';
export { allowedMethods, matchRoute, routeForPath, type RouteMatch } from './match.js';
