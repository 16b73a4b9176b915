/**
 * The horizon job (contract §13): once a day (an EventBridge Scheduler schedule in AWS, functions/horizon.ts; the local
 * server at start and daily) it finishes the regenerations of requests that died, and writes the occurrences that open
 * series have gained since their last regeneration as the horizon moved on. Idempotent and resumable: every step is a
 * regeneration (lib/events/series.ts), which brings a series to what its record says whatever was done before.
 */
import { config } from '../config.js';
import { table } from '../store/client.js';
import { transact } from '../store/kit.js';
import { postKey } from '../store/keys.js';
import { getPost } from '../store/records.js';
import { allSeries, BUSY_KEY, busySeries } from '../store/series.js';
import { timeLeft } from '../store/scope.js';
import { utcWallOf } from '../time/wall.js';
import { isEvent } from './record.js';
import { finishSeries, hold } from './series.js';

export interface HorizonReport {
  /** Regenerations of dead requests finished. */
  finished: number;
  /** Open series whose occurrences were extended. */
  extended: number;
  /** Series left for the next run (time ran out). */
  left: number;
}

/** A little more than the slowest regeneration (1,000 occurrences) needs; the job stops starting new ones below it. */
const STEP_MS = 20_000;

/**
 * Takes a series over from a hold that `stale` names (or from nobody) and regenerates it. The takeover is one
 * transaction conditioned on the registry entry still being what was read, so two jobs never work on one series.
 */
async function takeOver(id: number, stale: string | undefined): Promise<boolean> {
  const h = hold(id);
  const record = await getPost(id, true);
  const registry = { Update: { TableName: table(), Key: BUSY_KEY, UpdateExpression: 'SET #s = :v',
    ConditionExpression: stale === undefined ? 'attribute_not_exists(#s)' : '#s = :stale', ExpressionAttributeNames: { '#s': `s${id}` },
    ExpressionAttributeValues: { ':v': h.value, ...(stale === undefined ? {} : { ':stale': stale }) } } };
  const mark = isEvent(record) ? [{ Update: { TableName: table(), Key: postKey(id), UpdateExpression: 'SET busy = :t',
    ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'v' }, ExpressionAttributeValues: { ':t': h.token, ':v': record.v } } }] : [];
  if (await transact([registry, ...mark])) return false; // someone else is at it
  await finishSeries(id, h);
  return true;
}

export async function runHorizonJob(now = new Date()): Promise<HorizonReport> {
  const report = await finishDeadRegenerations(now);
  const busy = await busySeries();
  // A series' `through` is a wall in its own zone; a day's margin covers every zone.
  const due = utcWallOf(new Date(now.getTime() + (config().recurrenceHorizonDays - 1) * 86_400_000)).slice(0, 10);
  for (const s of await allSeries()) {
    if (!s.open || s.through.slice(0, 10) >= due || busy.has(s.id)) continue;
    if (timeLeft() < STEP_MS) { report.left++; continue; }
    if (await takeOver(s.id, undefined)) report.extended++;
  }
  return report;
}

/** The regenerations whose requests ended before them (their registry entries are past their deadlines). */
export async function finishDeadRegenerations(now = new Date()): Promise<HorizonReport> {
  const report: HorizonReport = { finished: 0, extended: 0, left: 0 };
  for (const [id, { value, deadline }] of await busySeries()) {
    if (deadline > now.getTime()) continue;
    if (timeLeft() < STEP_MS) { report.left++; continue; }
    if (await takeOver(id, value)) report.finished++;
  }
  return report;
}
