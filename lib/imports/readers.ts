/**
 * The iCalendar reader (lib/imports/ics/, contract §20) as the run calls it: a table entry, so that the run does not depend
 * on the reader's module until it is part of the build. Without it an ics run fails with a message saying so. Once the
 * reader is merged: `import { readIcs } from './ics/read.js'` and `{ ics: (text, options) => readIcs(text, options) }`
 * below, and test/contract/imports-ics.pending.ts renamed to imports-ics.test.ts.
 */
import type { SourceRead } from './source.js';

export interface IcsReadOptions {
  /** Floating times are read in this zone (the site's). */
  siteTimeZone: string;
  /** A one-time import keys events without UID by summary, start and location; a scheduled one skips them. */
  oneTime: boolean;
  /** UTC `YYYY-MM-DD HH:MM:SS` bounds: a series is in the window when any of its occurrences is. */
  window?: { startUtc?: string; endUtc?: string };
  limit?: number;
  /** The service's recurrence horizon (contract §13): series are evaluated this many days ahead. */
  horizonDays?: number;
}

/** Throws an Error whose message says the text is not iCalendar. */
export type IcsReader = (text: string, options: IcsReadOptions) => SourceRead;

export const readers: { ics: IcsReader | null } = { ics: null };
