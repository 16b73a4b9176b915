/** Matching over every route of the interface (the root function, the local server, the CDK routes, tests). */
import { ROUTES } from './all.js';
import { routeMatcher } from './matcher.js';

export { allowedMethods, type RouteMatch } from './matcher.js';

const all = routeMatcher(ROUTES);

/** Finds the operation for a path relative to the API root; 404 unknown path, 405 known path with another method. */
export const matchRoute = all.matchRoute;

/** The route whose path matches, whatever the method (CORS preflight). */
export const routeForPath = all.routeForPath;
