/**
 * chrono-node, loaded the first time a date arrives as a phrase ('tomorrow 9am', 'next friday'): dates sent as ISO 8601
 * or as timestamps never need it (lib/time/parse.ts reads those itself), so most cold starts do not load it.
 */
import type { casual as Casual } from 'chrono-node';
import { lazyModule } from '../lazy-module.js';

export const phraseParser = (): typeof Casual => lazyModule<{ casual: typeof Casual }>('chrono-node').casual;
