/**
 * Stands in for timezones-ical-library in the Lambda bundles (infra/bundling.ts): its VTIMEZONE data (about 30 KB) loads
 * from a file of its own the first time a feed is written (lib/events/feed-calendar.ts).
 */
import type { tzlib_get_ical_block as Real } from 'timezones-ical-library';
import { lazyModule } from '../../lazy-module.js';

export const tzlib_get_ical_block = ((tzName: string) =>
  lazyModule<{ tzlib_get_ical_block: typeof Real }>('timezones-ical-library').tzlib_get_ical_block(tzName)) as typeof Real;
