/**
 * Every event write an import makes goes through `writeSourceEvents`; the run (./run.ts) decides what to write, this
 * module how. Each write is the API's own operation run in-process as the import's owner (./api.ts), so imported
 * events pass exactly the validation, permissions, counts and change log of any other write; each stays atomic for
 * readers. What makes a batch cheap is the search index: the batch's writes are a *group* (lib/search/commit.ts), each
 * event's transaction leaves only a marker, and the group's index changes — postings of one letter and day, the count
 * items of one month — are folded into one and applied once the batch is written, in chunks side by side, exactly once
 * even if the worker dies (a later write or the sweeper finishes them; searches stay exact meanwhile).
 *
 * The contract:
 * - `writeSourceEvents(writer, batch)` answers one `Written` per entry of `batch`, in order, once its events are written
 *   (their search index changes are applied while the caller goes on: `indexed(writer)` waits for them). A failure of one
 *   entry (invalid fields, a record it links to gone) is that entry's `{ok: false, message}` and never stops the others;
 *   only an error of the store or of the run's time (a 503, the deadline) throws, and then the run stops and is resumed.
 * - `create` writes a new event (a series when `fields.recurrence` holds lines) and then its `occurrences` edits. It is
 *   made once for `ref` (lib/store/create-once.ts): writing a create again with the same `ref` and fields — after a
 *   crash, by the run that takes over — answers the event the first write made, never a second event.
 * - `update` changes only the `fields` given (an empty object: none) of `event`, then its `occurrences` edits; `missing`
 *   when the event no longer exists. `trash` moves `event` to the trash; an event already trashed or gone is written.
 * - `occurrences` edit a series' occurrences by original start: an edit whose occurrence is not materialised (beyond the
 *   horizon) is skipped; each edit's failure is a warning of its entry, not a failure.
 * - `shown` is the event as written (`Shown`: its fields as the API shows them in the import's language), which a later run
 *   compares to tell the fields changed through the API since (authority `preserve`); `readShown` reads it now (an event
 *   trashed through the API reads with `status: "trash"` and every other field unknown; one deleted for good as null).
 * - Writes act as `writer.owner` (an editor) in `writer.language`, and none starts after `writer.deadline`.
 */
import { randomUUID } from 'node:crypto';
import type { Caller } from '../auth/caller.js';
import { indexState } from '../events/index-state.js';
import { storedOccurrences } from '../events/series.js';
import type { Language } from '../model/language.js';
import { logger } from '../observability/logger.js';
import { finishGroup, inGroup, openGroup } from '../search/commit.js';
import { StoreUnavailable } from '../store/errors.js';
import { answerMessage, ownerApi, type ApiAnswer, type OwnerApi } from './api.js';

export interface Writer {
  importId: number;
  owner: Caller;
  language: Language;
  /** ms since the epoch: no write starts after it. */
  deadline: number;
}

/** An event's fields, named and shaped as the body of POST /events takes them (venue and organizers by id, terms by id). */
export type EventFields = Record<string, unknown>;

export interface OccurrenceEdit {
  /** The occurrence's original start, wall clock `YYYY-MM-DD HH:MM:SS` in the series' time zone. */
  recurrenceId: string;
  /** Trash the occurrence (cancelled at the source); else write `fields` to it. */
  removed: boolean;
  fields: EventFields;
}

export type EventWrite =
  | { op: 'create'; key: string; ref: string; fields: EventFields; occurrences: OccurrenceEdit[] }
  | { op: 'update'; key: string; event: number; fields: EventFields; occurrences: OccurrenceEdit[] }
  | { op: 'trash'; key: string; event: number };

/** The fields `preserve` compares, as the API shows them. */
export const SHOWN_FIELDS = ['title', 'description', 'excerpt', 'start_date', 'end_date', 'all_day', 'timezone', 'recurrence', 'website', 'venue',
  'organizer', 'categories', 'tags', 'status', 'slug', 'cost', 'featured'] as const;
export type ShownField = (typeof SHOWN_FIELDS)[number];
export type Shown = Record<ShownField, unknown>;

export type Written =
  | { key: string; ok: true; event: number; shown: Shown | null; occurrences: Record<string, number>; warnings: string[] }
  | { key: string; ok: false; message: string; missing?: true };

/** How many writes of a batch run at once. */
const PARALLEL = 4;

export async function writeSourceEvents(writer: Writer, batch: EventWrite[]): Promise<Written[]> {
  const api = ownerApi(writer.owner, writer.language, writer.deadline);
  const out: Written[] = new Array(batch.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < batch.length) {
      const i = next++;
      if (Date.now() > writer.deadline) throw new StoreUnavailable(false);
      out[i] = await writeOne(api, batch[i]!);
    }
  };
  const gid = randomUUID();
  await openGroup(gid);
  try {
    await inGroup(gid, () => Promise.all(Array.from({ length: Math.min(PARALLEL, batch.length) }, lane)));
  } finally {
    // Sealed and applied whether or not every write landed (a failed one left no marker), after the writer's batch before
    // (two groups applied at once would conflict on the postings they share); if this fails, the group's markers stand
    // and a later write of one of its events, or the sweeper, finishes it.
    const before = INDEXING.get(writer);
    INDEXING.set(writer, (async () => {
      await before;
      await finishGroup(gid, indexState).catch((e: Error) => logger.warn('an import batch\'s search index changes were left to the sweeper', { error: e }));
    })());
  }
  return out;
}

/** Each writer's batch whose search index changes are being applied: the next batch is written meanwhile. */
const INDEXING = new WeakMap<Writer, Promise<void>>();

/** Waits until the index changes of every batch `writer` wrote are applied (or left to the sweeper): before a run ends. */
export async function indexed(writer: Writer): Promise<void> {
  await INDEXING.get(writer);
}

/** The events' fields as the API shows them now to the owner (null: the event no longer exists). */
export async function readShown(writer: Writer, ids: number[]): Promise<Map<number, Shown | null>> {
  const api = ownerApi(writer.owner, writer.language, writer.deadline);
  const out = new Map<number, Shown | null>();
  for (let i = 0; i < ids.length; i += PARALLEL) {
    await Promise.all(ids.slice(i, i + PARALLEL).map(async (id) => {
      const answer = await api.call('GET', `/events/${id}`, { query: { context: 'edit' } });
      throwIfUnavailable(answer);
      // A trashed event is not shown (403): it reads as trashed, every other field unknown, so nothing of it is written.
      const trashed = answer.status === 403 && answer.body.code === 'event-no-longer-available';
      out.set(id, answer.status === 200 ? shownOf(answer.body) : trashed ? TRASHED : null);
    }));
  }
  return out;
}

async function writeOne(api: OwnerApi, w: EventWrite): Promise<Written> {
  if (w.op === 'trash') {
    const answer = await api.call('DELETE', `/events/${w.event}`);
    throwIfUnavailable(answer);
    if (answer.status === 200 || answer.status === 410 || answer.status === 404) return { key: w.key, ok: true, event: w.event, shown: null, occurrences: {}, warnings: [] };
    return { key: w.key, ok: false, message: answerMessage(answer) };
  }
  let answer: ApiAnswer;
  if (w.op === 'create') {
    answer = await createWithRef(api, w.ref, w.fields);
  } else {
    answer = await api.call('PATCH', `/events/${w.event}`, { body: w.fields });
    throwIfUnavailable(answer);
    if (answer.status === 404) return { key: w.key, ok: false, message: 'the event it brought in no longer exists', missing: true };
  }
  throwIfUnavailable(answer);
  if (answer.status !== 200 && answer.status !== 201) return { key: w.key, ok: false, message: answerMessage(answer) };
  const event = Number(answer.body.id);
  const { occurrences, warnings } = await editOccurrences(api, event, w.occurrences);
  return { key: w.key, ok: true, event, shown: shownOf(answer.body), occurrences, warnings };
}

/**
 * POST /events made once for the create's ref (lib/store/create-once.ts): sent again — by the run that took over from a
 * worker that died after sending it — it answers the event the first send made, read now as the owner sees it.
 */
async function createWithRef(api: OwnerApi, ref: string, fields: EventFields): Promise<ApiAnswer> {
  const answer = await api.call('POST', '/events', { body: fields, once: ref });
  if (answer.status !== 409 || answer.body.code !== 'created_before') return answer;
  const data = answer.body.data;
  const id = typeof data === 'object' && data !== null && 'id' in data ? Number(data.id) : NaN;
  if (!Number.isInteger(id)) return answer;
  const made = await api.call('GET', `/events/${id}`, { query: { context: 'edit' } });
  return made.status === 200 ? { status: 201, body: made.body } : made;
}

async function editOccurrences(api: OwnerApi, series: number, edits: OccurrenceEdit[]): Promise<{ occurrences: Record<string, number>; warnings: string[] }> {
  const occurrences: Record<string, number> = {};
  const warnings: string[] = [];
  if (!edits.length) return { occurrences, warnings };
  const byStart = new Map((await storedOccurrences(series)).map((o) => [o.orig, o.id]));
  for (const edit of edits) {
    const id = byStart.get(edit.recurrenceId);
    if (id === undefined) continue;
    const answer = edit.removed ? await api.call('DELETE', `/events/${id}`) : await api.call('PATCH', `/events/${id}`, { body: edit.fields });
    throwIfUnavailable(answer);
    if (answer.status === 200 || (edit.removed && answer.status === 410)) occurrences[edit.recurrenceId] = id;
    else warnings.push(`the occurrence of ${edit.recurrenceId}: ${answerMessage(answer)}`);
  }
  return { occurrences, warnings };
}

/** The service could not answer (DynamoDB throttled or unreachable, the time up): the run stops and is taken up again. */
function throwIfUnavailable(answer: ApiAnswer): void {
  if (answer.status >= 500) throw new StoreUnavailable(answer.body.code === 'rest_unavailable', { cause: answerMessage(answer) });
}

const TRASHED: Shown = Object.fromEntries(SHOWN_FIELDS.map((k) => [k, k === 'status' ? 'trash' : undefined])) as Shown;

const ids = (list: unknown): number[] => (Array.isArray(list) ? list.map((x) => Number((x as { id?: unknown })?.id)).sort((a, b) => a - b) : []);

/** The compared fields of an event's JSON: links as ids, everything else as shown. */
export function shownOf(json: Record<string, unknown>): Shown {
  const venue = json.venue;
  return {
    title: json.title, description: json.description, excerpt: json.excerpt, start_date: json.start_date, end_date: json.end_date,
    all_day: json.all_day, timezone: json.timezone, recurrence: json.recurrence, website: json.website,
    venue: venue && typeof venue === 'object' && !Array.isArray(venue) && 'id' in venue ? Number(venue.id) : 0,
    organizer: ids(json.organizer), categories: ids(json.categories), tags: ids(json.tags), status: json.status, slug: json.slug,
    cost: json.cost, featured: json.featured,
  };
}
