/**
 * A series counts once towards each category, tag, venue and organizer it is linked to (contract §13): through its own
 * fields (its record moves the counters, lib/store/links.ts) or through any occurrence's. An occurrence can differ
 * from its series only where it set its own status or links: those occurrences are the series' *owners*, and the
 * targets their published records link to beyond the series' own counted links are counted once more, for the series,
 * through one item per series (lib/store/README.md "Series counted through occurrences"):
 *
 *   `POST#<series>` / `LINKS#O`: `o` the owners' ids, `n` how many published owners link each target ("category#12": 2),
 *   `g` the targets counted through them (those of `n` that the series record does not count itself), `v` its version.
 *
 * An occurrence write that makes, unmakes or changes an owner moves `n` by its own change and the counters of the
 * targets entering or leaving `g`, in its own transaction, conditioned on the item's version and the series record's
 * (so concurrent owner writes serialise, and no other owner is read). A series write changes what owners inherit, so
 * its regeneration settles the item afresh from the owners' records before it releases its hold
 * (lib/events/series.ts `finishSeries`), and so does a dead request's takeover.
 */
import { table } from '../store/client.js';
import { postKey } from '../store/keys.js';
import { transact } from '../store/kit.js';
import { contribution, linkTargets, linkTransactItems, targetId, targetKey, type ExtraMove, type LinkKind } from '../store/links.js';
import { renderConds, type Cond } from '../store/nonempty.js';
import { ReadSet } from '../store/reads.js';
import { batchGet, type Item } from '../store/records.js';
import type { Key, TransactItem } from '../store/types.js';
import { eventFacts, isEvent, type EventItem } from './record.js';

export const seriesLinksKey = (seriesId: number): Key => ({ PK: `POST#${seriesId}`, SK: 'LINKS#O' });

const LINK_FIELDS = ['venue', 'organizers', 'categories', 'tags'];

/**
 * An occurrence that can count where its series does not: one that set its own links, or set its own status to
 * `publish` (one that set another status counts nowhere until its own next write).
 */
export function isOwner(e: EventItem | null): e is EventItem {
  if (!e || e.series === undefined) return false;
  const own = e.own ?? [];
  return own.includes('status') ? e.status === 'publish' : own.some((f) => LINK_FIELDS.includes(f));
}

function parseName(name: string): { kind: LinkKind; id: number } {
  const [kind, id] = name.split('#') as [LinkKind, string];
  return { kind, id: Number(id) };
}

export interface SeriesCountPlan {
  moves: ExtraMove[];
  /** The series' item (and the condition on its record), for the same transaction; none when nothing changes. */
  items: TransactItem[];
}

const NONE: SeriesCountPlan = { moves: [], items: [] };

interface PlanOptions {
  /** The occurrence being written: its record before and after (null: none), moving the stored owner counts. */
  change?: { id: number; prev: EventItem | null; next: EventItem | null };
  /** More owner candidates than the series' item lists (the owners a regeneration left). */
  candidates?: number[];
  /** Targets created by this same write: they exist, and their first counter value is set by their creator. */
  created?: Set<string>;
  /** The condition on the series record: its version as read (default), `absent`, or none (the write rewrites it). */
  seriesCond?: Cond | 'written';
}

/** The targets an owner counts towards: its links, while it is published. */
function ownerTargets(e: EventItem | null): { kind: LinkKind; id: number }[] {
  if (!isOwner(e)) return [];
  const facts = eventFacts(e);
  return facts.status === 'publish' ? linkTargets(facts) : [];
}

/**
 * The counter moves that bring what the series counts through its owners to what they and the series now say. An
 * occurrence's write moves the item's per-target owner counts (`n`) by its own change; a settling counts them afresh from
 * the owners' records.
 */
async function plan(seriesId: number, o: PlanOptions): Promise<SeriesCountPlan & { unchanged: boolean }> {
  const both = await batchGet([seriesLinksKey(seriesId), postKey(seriesId)], undefined, true);
  const stored = both.find((i) => i.SK === seriesLinksKey(seriesId).SK) ?? null;
  const series = both.find((i) => i.SK === postKey(seriesId).SK) ?? null;
  const storedOwners = (stored?.o as number[] | undefined) ?? [];
  const storedCounts = (stored?.n as Record<string, number> | undefined) ?? {};
  const counts = new Map<string, number>();
  const ownerIds = new Set<number>();
  const count = (e: EventItem | null, by: number) => {
    for (const t of ownerTargets(e)) counts.set(targetId(t), (counts.get(targetId(t)) ?? 0) + by);
  };
  if (o.change) {
    for (const [name, n] of Object.entries(storedCounts)) counts.set(name, n);
    count(o.change.prev, -1);
    count(o.change.next, 1);
    storedOwners.forEach((id) => ownerIds.add(id));
    if (isOwner(o.change.next)) ownerIds.add(o.change.id);
    else ownerIds.delete(o.change.id);
  } else {
    const ids = new Set([...storedOwners, ...(o.candidates ?? [])]);
    const owners = (await batchGet([...ids].map(postKey), undefined, true))
      .filter((r): r is Item & EventItem => isEvent(r) && r.series === seriesId && isOwner(r));
    for (const owner of owners) {
      count(owner, 1);
      ownerIds.add(owner.id);
    }
  }

  const seriesFacts = isEvent(series) ? eventFacts(series) : null;
  const wanted = new Map<string, { kind: LinkKind; id: number }>();
  for (const [name, n] of counts) {
    const t = parseName(name);
    if (n > 0 && !(seriesFacts && contribution(t.kind, seriesFacts, t.id) > 0)) wanted.set(name, t);
  }
  // A target deleted meanwhile is not counted (its unlinking rewrites the owners that link it).
  const targets = [...wanted.values()].filter((t) => !o.created?.has(targetId(t)));
  const found = new Set((await batchGet(targets.map((t) => targetKey(t.kind, t.id)), ['v'], true)).map((i) => String(i.PK)));
  for (const t of targets) if (!found.has(targetKey(t.kind, t.id).PK)) wanted.delete(targetId(t));

  const before = new Set((stored?.g as string[] | undefined) ?? []);
  const after = new Set(wanted.keys());
  const moves: ExtraMove[] = [];
  for (const name of new Set([...before, ...after])) {
    const delta = (after.has(name) ? 1 : 0) - (before.has(name) ? 1 : 0);
    if (delta !== 0) moves.push({ ...parseName(name), delta });
  }
  const owners = [...ownerIds].sort((a, b) => a - b);
  const n = Object.fromEntries([...counts].filter(([, c]) => c > 0).sort(([a], [b]) => (a < b ? -1 : 1)));
  const unchanged = moves.length === 0 && sameList(owners, storedOwners) && JSON.stringify(n) === JSON.stringify(sorted(storedCounts));
  // An owner's write moves the version even when nothing else changes: a write planned on the item before it must fail.
  if (unchanged && !o.change) return { moves, items: [], unchanged };

  const version = stored ? Number(stored.v) : 0;
  const condition = stored
    ? { ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'v' }, ExpressionAttributeValues: { ':v': version } }
    : { ConditionExpression: 'attribute_not_exists(PK)' };
  // Kept while the series is (its version must only grow), deleted with it.
  const item: TransactItem = owners.length === 0 && after.size === 0 && stored && !series
    ? { Delete: { TableName: table(), Key: seriesLinksKey(seriesId), ...condition } }
    : { Put: { TableName: table(), Item: { ...seriesLinksKey(seriesId), v: version + 1, o: owners, n, g: [...after].sort() }, ...condition } };
  const items = [item];
  const cond = o.seriesCond ?? (series ? { attr: 'v', op: '=', value: Number(series.v) } as Cond : { exists: false } as Cond);
  if (cond !== 'written') items.push(conditionCheck(postKey(seriesId), cond));
  return { moves, items, unchanged };
}

const sorted = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)));
const sameList = (a: number[], b: number[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

function conditionCheck(key: Key, cond: Cond): TransactItem {
  const { expression, names, values } = renderConds([cond], 's');
  return { ConditionCheck: { TableName: table(), Key: key, ConditionExpression: expression,
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names, ExpressionAttributeValues: values } : {}) } };
}

/**
 * What an occurrence's write from `prev` to `next` adds for its series: nothing unless either is an owner. `created`:
 * targets the write creates (their first counter value includes what the occurrence counts, see lib/events/links.ts).
 */
export async function seriesCountChange(prev: EventItem | null, next: EventItem | null,
  o: { created?: Set<string>; seriesWritten?: boolean } = {}): Promise<SeriesCountPlan> {
  const seriesId = next?.series ?? prev?.series;
  if (seriesId === undefined || !(isOwner(prev) || isOwner(next))) return NONE;
  const p = await plan(seriesId, { change: { id: (next ?? prev)!.id, prev, next }, created: o.created, ...(o.seriesWritten ? { seriesCond: 'written' } : {}) });
  return { moves: p.moves, items: p.items };
}

/** linkTransactItems for a write of any event, with what an occurrence's write moves for its series. */
export async function eventLinkItems(prev: EventItem | null, next: EventItem | null, reads: ReadSet,
  o: { seriesWritten?: boolean } = {}): Promise<TransactItem[]> {
  const series = await seriesCountChange(prev, next, o);
  return [...await linkTransactItems(prev && eventFacts(prev), next && eventFacts(next), reads, new Set(), series.moves), ...series.items];
}

/**
 * Brings what a series counts through its owners up to date after a regeneration: `candidates` are the owners the
 * regeneration left (the item's listed owners are read too); `token` the hold the series record must still carry (a later writer settles instead).
 * Retried on a conflict with an occurrence's write; a target counted or uncounted meanwhile only needs a fresh plan.
 */
export async function settleSeriesCounts(seriesId: number, candidates: number[], token: string | null): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const p = await plan(seriesId, { candidates, seriesCond: token === null ? { exists: false } : { attr: 'busy', op: '=', value: token } });
    if (p.unchanged) return;
    const items = [...await linkTransactItems(null, null, new ReadSet(true), new Set(), p.moves), ...p.items];
    if (!await transact(items)) return;
    if (attempt >= 8) throw new Error(`the counts of series ${seriesId} kept changing while they were settled`);
  }
}
