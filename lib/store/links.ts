/**
 * Relationship items between events and the records they link to (lib/store/README.md "Links"):
 * one item per (target, event) under PK = REL#<kind>#<target id>, SK = <event utc start>#<event id>, carrying
 * the same event facts as the byStart index, so "events of category X in this window" is one Query bounded
 * by that category's events in the window. Counters on the targets are kept in the same transaction:
 * terms' `cnt` and venues'/organizers' `linked` (published events, contract §4).
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from './client.js';
import { authorPartition, eventStartSortKey, FEATURED_PARTITION, postKey, relPartition, termKey, TICKETED_PARTITION } from './keys.js';
import { byStart, entryItem, entryOfItem } from './entries.js';
import type { EventIndexEntry } from './events.js';
import { eventCountItems, geoPartitionsOf } from './event-counts.js';
import { queryAll, type Item } from './records.js';
import type { TransactItem } from './types.js';
import { crossing, EXISTS, ItemActions, planCategoryChanges, sideConds, type CategoryChange, type CategoryReader } from './nonempty.js';
import type { ReadSet } from './reads.js';
import { seriesPartition } from './series.js';

export type { LinkKind } from './event-sources.js';
import type { LinkKind } from './event-sources.js';

export type { LinkFacts } from './types.js';
import type { LinkFacts } from './types.js';

export { relPartition, FEATURED_PARTITION };

export function linkTargets(e: LinkFacts | null): { kind: LinkKind; id: number }[] {
  if (!e) return [];
  return [
    ...(e.venue !== undefined ? [{ kind: 'venue' as const, id: e.venue }] : []),
    ...e.organizers.map((id) => ({ kind: 'organizer' as const, id })),
    ...e.categories.map((id) => ({ kind: 'category' as const, id })),
    ...e.tags.map((id) => ({ kind: 'tag' as const, id })),
  ];
}

/** How much an event counts towards a target's counter. */
export function contribution(kind: LinkKind, e: LinkFacts | null, targetId: number): number {
  // Counters count distinct events and series (contract §13): a series counts through its own record, and through its
  // occurrences' own links by lib/events/series-counts.ts.
  if (!e || e.series !== undefined || !linkTargets(e).some((t) => t.kind === kind && t.id === targetId)) return 0;
  // Term counts and venues'/organizers' has_events count published events only (contract §4): nothing a reader
  // may not see (private, future, draft, pending, trashed events) shows through them.
  return e.status === 'publish' ? 1 : 0;
}

export const counterAttribute = (kind: LinkKind): 'cnt' | 'linked' => (kind === 'category' || kind === 'tag' ? 'cnt' : 'linked');
export const targetKey = (kind: LinkKind, id: number) => (kind === 'category' || kind === 'tag' ? termKey(id) : postKey(id));
/** A target's name in counter plans and series counts: `category#12`. */
export const targetId = (t: { kind: LinkKind; id: number }) => `${t.kind}#${t.id}`;


/** Whether an event is in the featured index: featured and listed (hidden events are in no list). */
const inFeaturedIndex = (e: LinkFacts | null): e is LinkFacts => e?.featured === true && !e.hidden;

/** Whether an event is in the ticketed index: it has tickets and is listed. */
const inTicketedIndex = (e: LinkFacts | null): e is LinkFacts => e?.ticketed === true && !e.hidden;

function relItem(kind: LinkKind, target: number, e: LinkFacts): Item {
  return entryItem(relPartition(kind, target), e);
}

/** The relationship items and featured entry that take an event from `prev` to `next` (either may be null). */
function relationshipItems(prev: LinkFacts | null, next: LinkFacts | null): TransactItem[] {
  const items: TransactItem[] = [];
  const nextKeys = new Set(linkTargets(next).map((t) => `${relPartition(t.kind, t.id)}|${eventStartSortKey(next!.startUtc, next!.id)}`));
  for (const t of linkTargets(prev)) {
    const key = { PK: relPartition(t.kind, t.id), SK: eventStartSortKey(prev!.startUtc, prev!.id) };
    if (!nextKeys.has(`${key.PK}|${key.SK}`)) items.push({ Delete: { TableName: table(), Key: key } });
  }
  for (const t of linkTargets(next)) items.push({ Put: { TableName: table(), Item: relItem(t.kind, t.id, next!) } });
  // An occurrence's entry in its series' partition (hidden ones flagged, as in relationship partitions).
  if (prev?.series !== undefined && !(next?.series === prev.series && next.startUtc === prev.startUtc)) {
    items.push({ Delete: { TableName: table(), Key: { PK: seriesPartition(prev.series), SK: eventStartSortKey(prev.startUtc, prev.id) } } });
  }
  if (next?.series !== undefined) items.push({ Put: { TableName: table(), Item: entryItem(seriesPartition(next.series), next) } });
  if (inFeaturedIndex(prev) && !(inFeaturedIndex(next) && next.startUtc === prev.startUtc)) {
    items.push({ Delete: { TableName: table(), Key: { PK: FEATURED_PARTITION, SK: eventStartSortKey(prev.startUtc, prev.id) } } });
  }
  if (inFeaturedIndex(next)) items.push({ Put: { TableName: table(), Item: entryItem(FEATURED_PARTITION, next) } });
  // The events with tickets (contract §19), kept like the featured entries.
  if (inTicketedIndex(prev) && !(inTicketedIndex(next) && next.startUtc === prev.startUtc)) {
    items.push({ Delete: { TableName: table(), Key: { PK: TICKETED_PARTITION, SK: eventStartSortKey(prev.startUtc, prev.id) } } });
  }
  if (inTicketedIndex(next)) items.push({ Put: { TableName: table(), Item: entryItem(TICKETED_PARTITION, next) } });
  // The author's partition of listed events (authors' and contributors' own lists are counted on it).
  const listedPrev = prev && !prev.hidden ? prev : null;
  const listedNext = next && !next.hidden ? next : null;
  if (listedPrev && !(listedNext && listedNext.author === listedPrev.author && listedNext.startUtc === listedPrev.startUtc)) {
    items.push({ Delete: { TableName: table(), Key: { PK: authorPartition(listedPrev.author), SK: eventStartSortKey(listedPrev.startUtc, listedPrev.id) } } });
  }
  if (listedNext && JSON.stringify(listedPrev && entryItem(authorPartition(listedPrev.author), listedPrev))
    !== JSON.stringify(entryItem(authorPartition(listedNext.author), listedNext))) {
    items.push({ Put: { TableName: table(), Item: entryItem(authorPartition(listedNext.author), listedNext) } });
  }
  items.push(...geoEntryItems(listedPrev, listedNext));
  return items;
}

/**
 * A listed event's entries in its venue's geo cells (lib/geo/cells.ts), or in the events without coordinates, each put
 * only when it changes.
 */
function geoEntryItems(prev: LinkFacts | null, next: LinkFacts | null): TransactItem[] {
  const entries = (e: LinkFacts | null) => new Map(e ? geoPartitionsOf(e).map((pk) => {
    const item = entryItem(pk, e);
    return [`${String(item.PK)}|${String(item.SK)}`, item];
  }) : []);
  const before = entries(prev);
  const after = entries(next);
  const items: TransactItem[] = [];
  for (const [key, b] of before) {
    if (!after.has(key)) items.push({ Delete: { TableName: table(), Key: { PK: String(b.PK), SK: String(b.SK) } } });
  }
  for (const [key, a] of after) if (JSON.stringify(before.get(key)) !== JSON.stringify(a)) items.push({ Put: { TableName: table(), Item: a } });
  return items;
}

/** A target whose counter moves, or that a new link requires in place. */
interface CounterMove {
  kind: LinkKind;
  id: number;
  delta: number;
  /** A new link to a venue or organizer: the target must not be trashed. */
  notTrashed: boolean;
}

/** A counter move a write makes beyond its event's own contribution (a series counted through its occurrences). */
export interface ExtraMove {
  kind: LinkKind;
  id: number;
  delta: number;
}

function counterMoves(prev: LinkFacts | null, next: LinkFacts | null, skipCounters: Set<string>, extra: ExtraMove[] = []): CounterMove[] {
  const targets = new Map([...linkTargets(prev), ...linkTargets(next), ...extra].map((t) => [targetId(t), { kind: t.kind, id: t.id }]));
  const extraDelta = new Map(extra.map((m) => [targetId(m), m.delta]));
  const moves: CounterMove[] = [];
  for (const [key, t] of targets) {
    if (skipCounters.has(key)) continue;
    const delta = contribution(t.kind, next, t.id) - contribution(t.kind, prev, t.id) + (extraDelta.get(key) ?? 0);
    const added = Boolean(next) && !linkTargets(prev).some((p) => p.kind === t.kind && p.id === t.id);
    // A new link to a venue or organizer also requires it not to be trashed: trashing commits first and then unlinks
    // the events its relationship items list, so a link added after that would stay on a trashed record (contract
    // §7). Links an event already has stay whatever happens to their target. A new link that moves no counter must
    // still find its target in place.
    if (delta !== 0 || added) moves.push({ kind: t.kind, id: t.id, delta, notTrashed: added && (t.kind === 'venue' || t.kind === 'organizer') });
  }
  return moves;
}

/**
 * The relationship puts/deletes and counter updates that take an event from `prev` to `next` (either may be
 * null: create, permanent delete). Hidden events have relationship items too (flagged `hidden`, which lists skip),
 * so unlinking a record finds every event that uses it. Targets in `skipCounters` ("venue#12") have their counter set
 * by the caller (a record created or rewritten in the same transaction cannot take a second action). Each counter
 * update requires the target to exist, and a new link to a venue or organizer requires it not to be trashed, so a
 * link to a record deleted or trashed meanwhile cancels the whole write. The event's day/month counts and span item
 * (lib/store/event-counts.ts) come with them, as they derive from the same facts.
 *
 * The targets whose counter moves are read through `reads` (most are read already by the write's plan): a counter
 * that crosses zero moves its kind's non-empty count in the same transaction, and each ADD carries the condition that
 * keeps the read value's verdict true (lib/store/nonempty.ts); categories that cross also move their parents'.
 * `extra` moves counters beyond the event's own contribution (lib/events/series-counts.ts).
 */
export async function linkTransactItems(prev: LinkFacts | null, next: LinkFacts | null, reads: ReadSet,
  skipCounters: Set<string> = new Set(), extra: ExtraMove[] = []): Promise<TransactItem[]> {
  const moves = counterMoves(prev, next, skipCounters, extra);
  reads.want(...moves.map((m) => targetKey(m.kind, m.id)));
  await reads.fetch();
  const actions = new ItemActions();
  const categories: CategoryChange[] = [];
  for (const m of moves) {
    const key = targetKey(m.kind, m.id);
    actions.require(key, EXISTS);
    if (m.notTrashed) actions.require(key, { attr: 'status', op: '<>', value: 'trash' });
    // A new link indexes the event in the venue's cells as planned, "no cell" included: a venue moved, given or cleared
    // coordinates meanwhile (whose events are being moved by a consistent query of its relationship items, which
    // cannot see this one yet) makes the write plan again, so the event is never left in a cell its venue left.
    if (m.notTrashed && m.kind === 'venue' && next) {
      actions.require(key, next.gh !== undefined ? { attr: 'gh', op: '=', value: next.gh } : { absent: 'gh' });
    }
    const read = reads.get(key);
    if (m.delta === 0 || !read) continue; // (a missing target fails the condition: the write plans again)
    const attr = counterAttribute(m.kind);
    const value = Number(read[attr] ?? 0);
    actions.add(key, attr, m.delta, m.kind === 'category' || m.kind === 'tag' ? { kind: m.kind, id: m.id } : undefined);
    actions.require(key, ...sideConds(attr, value, m.delta));
    const crossed = crossing(value, m.delta);
    if (crossed === 0) continue;
    if (m.kind === 'category') categories.push({ id: m.id, own: crossed });
    else if (m.kind === 'tag') {
      actions.count('tag', 'filled', crossed);
      // The tag's search entries say whether it is empty: flag them behind, in the same ADD (lib/terms/words.ts).
      actions.count('tag', `d${m.id}`, 1);
    }
    else {
      // Counted under the status read: the record must still have it.
      actions.require(key, { attr: 'status', op: '=', value: String(read.status) });
      actions.count(m.kind, String(read.status), crossed);
    }
  }
  if (categories.length) await planCategoryChanges(categories, categoryReader(reads), actions);
  return [...relationshipItems(prev, next), ...actions.items(), ...eventCountItems(prev, next)];
}

/** Categories read through a write's ReadSet. */
export const categoryReader = (reads: ReadSet): CategoryReader => async (ids) => {
  reads.want(...ids.map(termKey));
  await reads.fetch();
  return new Map(ids.map((id) => [id, reads.get(termKey(id))]));
};

/**
 * linkTransactItems without reading the targets: plain counter ADDs and no non-empty counts. Only for writing events
 * in bulk (the benchmark's seeder), after which the non-empty counts are rebuilt (lib/store/nonempty-rebuild.ts).
 */
export function linkTransactItemsUncounted(prev: LinkFacts | null, next: LinkFacts | null): TransactItem[] {
  const actions = new ItemActions();
  for (const m of counterMoves(prev, next, new Set())) {
    const key = targetKey(m.kind, m.id);
    actions.require(key, EXISTS);
    if (m.notTrashed) actions.require(key, { attr: 'status', op: '<>', value: 'trash' });
    if (m.delta !== 0) actions.add(key, counterAttribute(m.kind), m.delta);
  }
  return [...relationshipItems(prev, next), ...actions.items(), ...eventCountItems(prev, next)];
}

/**
 * The index items alone (relationship, featured, author and series entries, count and span items) that take an
 * occurrence from `prev` to `next`: occurrences move no counter (their series does), so they need no reads and carry
 * no conditions on linked records, and a batch of them cannot fail on a record changed elsewhere.
 */
export function entryTransactItems(prev: LinkFacts | null, next: LinkFacts | null): TransactItem[] {
  return [...relationshipItems(prev, next), ...eventCountItems(prev, next)];
}

/** Events linked to any of `ids`, with UTC start in [startFrom, startTo], ordered by start then id, deduplicated. */
export async function queryLinkedEvents(kind: LinkKind, ids: number[], range: { startFrom?: string; startTo?: string } = {}):
  Promise<EventIndexEntry[]> {
  const parts = await Promise.all(ids.map((id) => queryRel(kind, id, range.startFrom ?? '0000', `${range.startTo ?? '9999'}#~`)));
  const byId = new Map<number, EventIndexEntry>();
  for (const e of parts.flat()) byId.set(e.id, e);
  return [...byId.values()].sort(byStart);
}

const queryRel = (kind: LinkKind, id: number, from: string, to: string): Promise<EventIndexEntry[]> =>
  queryPartition(relPartition(kind, id), from, to);

async function queryPartition(pk: string, from: string, to: string): Promise<EventIndexEntry[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': pk, ':from': from, ':to': to },
  });
  return items.map(entryOfItem);
}

/** Does the target have at least one listed event starting at or after `fromUtc` that `visible` accepts? */
export async function hasLinkedEventFrom(kind: LinkKind, id: number, fromUtc: string, visible: (e: EventIndexEntry) => boolean):
  Promise<boolean> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'PK = :pk AND SK >= :from',
      ExpressionAttributeValues: { ':pk': relPartition(kind, id), ':from': fromUtc },
      ExclusiveStartKey,
      Limit: 50,
    }));
    if ((page.Items ?? []).some((item) => visible(entryOfItem(item)))) return true;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return false;
}
