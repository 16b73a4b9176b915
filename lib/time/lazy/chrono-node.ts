/**
 * Stands in for chrono-node in the Lambda bundles (infra/bundling.ts): the phrase parser (lib/time/parse.ts) loads
 * from a file of its own the first time a date arrives as a phrase ('tomorrow 9am'). Dates sent as ISO 8601 or as
 * timestamps never need it. The file itself is chrono-node's own `casual`.
 */
import type { casual as Real } from 'chrono-node';
import { lazyModule } from '../../lazy-module.js';

export const casual = {
  parse: (...args: Parameters<typeof Real.parse>): ReturnType<typeof Real.parse> =>
    lazyModule<{ casual: typeof Real }>('chrono-node').casual.parse(...args),
};
