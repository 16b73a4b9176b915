/**
 * Stands in for ical-generator in the Lambda bundles (infra/bundling.ts): the feed writer (lib/events/feed-calendar.ts)
 * loads it from a file of its own the first time a feed is written; no other request needs it. The file itself is
 * ical-generator's own `ical` and `escape`.
 */
import type * as Real from 'ical-generator';
import { lazyModule } from '../../lazy-module.js';

const real = (): typeof Real => lazyModule<typeof Real>('ical-generator');

const ical: typeof Real.default = (...args) => real().default(...args);
export default ical;
export const escape: typeof Real.escape = (...args) => real().escape(...args);
