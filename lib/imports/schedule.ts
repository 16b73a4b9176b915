/** When scheduled imports run (contract §20: hourly, daily or weekly, each run within 15 minutes of its time). */
import type { Schedule } from '../routes/imports.js';

const INTERVAL_MS: Record<Exclude<Schedule, 'once'>, number> = { hourly: 3_600_000, daily: 86_400_000, weekly: 7 * 86_400_000 };

const wall = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const msOf = (utcWall: string): number => Date.parse(`${utcWall.replace(' ', 'T')}Z`);

/** The first scheduled run after one at `fromMs` (UTC wall), or null for a one-time import. */
export function nextDue(schedule: Schedule, fromMs: number): string | null {
  return schedule === 'once' ? null : wall(fromMs + INTERVAL_MS[schedule]);
}

/** The run after `due` that is still ahead of `nowMs`: a schedule skips the runs it missed rather than stacking them. */
export function dueAfter(schedule: Schedule, due: string, nowMs: number): string | null {
  if (schedule === 'once') return null;
  const step = INTERVAL_MS[schedule];
  const missed = Math.max(0, Math.floor((nowMs - msOf(due)) / step));
  return wall(msOf(due) + (missed + 1) * step);
}

export const isDue = (due: string, nowMs: number): boolean => msOf(due) <= nowMs;
