/**
 * `npm run search:reindex`: indexes for search every event of the table named by CALENDAR_TABLE_NAME (with the usual
 * AWS credentials and region) that an earlier version indexed by another layout (lib/events/reindex.ts). Safe to run
 * while the service takes writes, and again: an event a write has indexed meanwhile is left alone.
 */
import { reindexEvents } from '../events/reindex.js';

const t0 = Date.now();
const done = await reindexEvents((n) => {
  if (n % 1000 === 0) process.stderr.write(`${n} events indexed…\n`);
});
process.stderr.write(`Indexed ${done} event(s) for search in ${Date.now() - t0} ms.\n`);
