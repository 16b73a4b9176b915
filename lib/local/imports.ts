/**
 * The import worker and dispatcher on the local server (contract §20: "locally the server runs them"): a run queued by
 * POST /imports or /run starts at once in this process, at most two at a time and never two of one import; the
 * dispatcher looks for due and stalled imports every CALENDAR_IMPORT_TICK_SECONDS (60; tests shorten it).
 */
import { dispatchImports } from '../imports/dispatch.js';
import { useLocalWorker } from '../imports/queue.js';
import { runImport } from '../imports/run.js';
import { newMeter, runInScope } from '../store/scope.js';

/** A local turn of the worker may take as long as the worker function's (15 minutes). */
const TURN_MS = 15 * 60_000;
const PARALLEL = 2;

export function startLocalImports(info: (line: string) => void): void {
  const waiting = new Set<number>();
  const running = new Set<number>();
  const pump = (): void => {
    for (const id of waiting) {
      if (running.size >= PARALLEL) return;
      if (running.has(id)) continue;
      waiting.delete(id);
      running.add(id);
      const deadline = Date.now() + TURN_MS;
      void runInScope({ meter: newMeter(), deadline }, () => runImport(id, deadline))
        .then((outcome) => {
          if (outcome === 'done' || outcome === 'failed') info(`Import ${id}: run ${outcome}.`);
        })
        .catch((e: unknown) => info(`Import ${id}: the run stopped (${(e as Error).message}); it is taken up again.`))
        .finally(() => {
          running.delete(id);
          pump();
        });
    }
  };
  useLocalWorker((id) => {
    waiting.add(id);
    pump();
  });
  const tick = (): void => {
    void dispatchImports().catch((e: unknown) => info(`Imports: the dispatcher failed (${(e as Error).message}); it runs again later.`));
  };
  const seconds = Number(process.env.CALENDAR_IMPORT_TICK_SECONDS);
  tick();
  setInterval(tick, (Number.isInteger(seconds) && seconds >= 1 ? seconds : 60) * 1000).unref();
}
