/**
 * GET /changes (contract §16): the change log read from a cursor, in number order, never passing a number that may
 * still commit (lib/store/changes.ts), each entry as its caller sees it — a record that becomes readable to them reads
 * "created", one that stops being readable "deleted", trash and deletion "deleted" for everyone — and entries about
 * records they could read neither before nor after left out.
 */
import { canRead } from '../auth/access.js';
import { config } from '../config.js';
import type { RequestContext } from '../http/context.js';
import { ApiError } from '../http/errors.js';
import { json, type HttpResult } from '../http/response.js';
import { encodeCursor, MAX_PENDING, type ChangesParams, type Cursor } from '../routes/changes.js';
import {
  dayOf, readChangeCounter, readChanges, readChangesAt, readChangesDown, SETTLE_MS, type Audience, type ChangeEntry, type ChangeKind,
} from '../store/changes.js';
import type { Caller } from '../auth/caller.js';
import { knownUserId } from '../store/users.js';

/** How many entries one request looks at, at most, per change it may return (the others are hidden from its caller). */
const EXAMINED_PER_CHANGE = 4;

/** How far back `since=latest` looks for a settled entry. */
const LATEST_LOOKBACK = 300;

const PLURAL: Record<ChangeKind, string> = { event: 'events', venue: 'venues', organizer: 'organizers', category: 'categories', tag: 'tags',
  ticket: 'tickets' };

type Action = 'created' | 'updated' | 'deleted';

const readable = (caller: Caller | null, userId: number | null, who: Audience | null): boolean =>
  who !== null && who.s !== 'trash' && canRead(caller, userId, { status: who.s, author: who.a });

/** The entry as this caller sees it; null when it is about nothing they could ever read. */
export function actionFor(caller: Caller | null, userId: number | null, e: Pick<ChangeEntry, 'a' | 'b' | 'f'>): Action | null {
  if (e.a === 'd') return 'deleted';
  const before = readable(caller, userId, e.b);
  const after = readable(caller, userId, e.f);
  if (after) return before ? (e.a === 'c' ? 'created' : 'updated') : 'created';
  return before ? 'deleted' : null;
}

const expired = (): ApiError => new ApiError(410, 'rest_changes_expired',
  'This cursor is older than the changes kept; list everything again, then follow the changes from since=latest.');

/** The number before the oldest change kept: the first of the oldest day still within the retention. */
function oldestKept(firstOfDay: Map<string, number>, now: number): number {
  const cutoff = dayOf(now - config().changesRetentionSeconds * 1000);
  const kept = [...firstOfDay].filter(([day]) => day >= cutoff).sort(([a], [b]) => a.localeCompare(b));
  return kept.length ? kept[0]![1] - 1 : firstOfDay.size ? Math.max(...firstOfDay.values()) - 1 : 0;
}

/**
 * A cursor's issue time, in seconds, to the hour: an answer with nothing new is the same body (and ETag, so a follower
 * polling with If-None-Match gets 304) for the rest of the hour; a cursor expires at most an hour early.
 */
const issuedAt = (now: number): number => Math.floor(now / 3_600_000) * 3600;

type Shown = { kind: ChangeKind; id: number; action: Action; modified_utc: string; rest_url: string };

/**
 * The position `since=latest` answers: the newest number, with the numbers below it that have not committed yet (in
 * flight, or refused without their void mark) as pending. An entry older than SETTLE_MS proves every number below
 * it settled (lib/store/changes.ts), so only the entries above the newest such one are looked at.
 */
async function latestCursor(n: number, floor: number, now: number): Promise<Cursor> {
  const issued = issuedAt(now);
  const recent = await readChangesDown(n, LATEST_LOOKBACK);
  const settledAt = recent.findIndex((e) => now - e.at > SETTLE_MS);
  // Nothing old enough among those read: the log holds nothing older (everything from `floor` is recent), or more
  // than LATEST_LOOKBACK changes came within SETTLE_MS (then the lowest read stands in for the settled one).
  const base = settledAt >= 0 ? recent[settledAt]!.seq : recent.length < LATEST_LOOKBACK ? floor : recent.at(-1)!.seq - 1;
  const present = new Set(recent.map((e) => e.seq));
  const pending: [number, number][] = [];
  const until = Math.ceil((now + SETTLE_MS) / 1000);
  for (let q = base + 1; q <= n; q++) if (!present.has(q)) pending.push([q, until]);
  if (pending.length > MAX_PENDING) return { seq: pending[0]![0] - 1, issued, pending: [] };
  return { seq: n, issued, pending };
}

export async function listChanges(ctx: RequestContext<ChangesParams>): Promise<HttpResult> {
  const now = Date.now();
  const nowSeconds = Math.floor(now / 1000);
  const issued = issuedAt(now);
  const since = ctx.params.since;
  if (since !== undefined && since !== 'latest' && since.issued < nowSeconds - config().changesRetentionSeconds) throw expired();
  const { n, firstOfDay } = await readChangeCounter();
  const oldest = oldestKept(firstOfDay, now);
  if (since === 'latest') return json(200, { changes: [], next_cursor: encodeCursor(await latestCursor(n, oldest, now)), more: false });

  const perPage = ctx.params.per_page;
  // Looked up, never registered: the root function only reads the table (and a caller never seen authored nothing).
  const userId = ctx.caller ? await knownUserId(ctx.caller.sub) : null;
  const changes: Shown[] = [];
  const show = (e: ChangeEntry): void => {
    if (e.void) return;
    const action = actionFor(ctx.caller, userId, e);
    if (action) changes.push({ kind: e.kind, id: e.id, action, modified_utc: e.t, rest_url: `${ctx.apiUrl}/${PLURAL[e.kind]}/${e.id}` });
  };

  // Numbers the cursor waits for: those that have committed since come first (they committed after what it read).
  let pending = since === undefined ? [] : since.pending.filter(([, until]) => until >= nowSeconds);
  if (pending.length) {
    const arrived = await readChangesAt(pending.map(([q]) => q));
    for (const e of arrived) show(e);
    const done = new Set(arrived.map((e) => e.seq));
    pending = pending.filter(([q]) => !done.has(q));
  }

  let at = since === undefined ? oldest : Math.min(since.seq, n);
  let budget = perPage * EXAMINED_PER_CHANGE;
  let stopped = false;
  while (!stopped && changes.length < perPage && at < n && budget > 0) {
    const entries = await readChanges(at, n, Math.min(budget, perPage - changes.length));
    // The numbers up to n that are not there are in flight (or never commit): the next read goes on from here.
    if (entries.length === 0) {
      stopped = true;
      break;
    }
    for (const e of entries) {
      if (e.seq > at + 1 && now - e.at <= SETTLE_MS) {
        // A gap below a recent entry may still fill: its numbers wait in the cursor, or the read stops before it.
        const gap = Array.from({ length: e.seq - at - 1 }, (_, i): [number, number] => [at + 1 + i, Math.ceil((e.at + SETTLE_MS) / 1000)]);
        if (pending.length + gap.length > MAX_PENDING) {
          stopped = true;
          break;
        }
        pending.push(...gap);
      }
      at = e.seq;
      budget -= 1;
      show(e);
    }
  }
  // More is waiting only when this page filled up (or its reading budget ran out) before the newest number.
  return json(200, { changes, next_cursor: encodeCursor({ seq: at, issued, pending }), more: !stopped && at < n });
}
