/**
 * An index change in flight, as pure computation: the markers' and tokens' keys, and the chunks a flight applies —
 * the same for the writer, for whoever finishes it (./commit.ts) and for the searches that read around it
 * (./in-flight.ts), which is why this lives apart from the code that writes.
 */
import { table } from '../store/client.js';
import { pad } from '../store/keys.js';
import { mergeOneAttributeWrites } from '../store/kit.js';
import type { Item } from '../store/records.js';
import type { Key, TransactItem } from '../store/types.js';
import { countAdd, indexChanges } from './changes.js';
import { wordsOfPostings, type EventWords } from './terms.js';
/** What the index holds (or should hold) for an event: its words, or the entry standing for it when it is held whole. */
export interface IndexState {
  words: EventWords | null;
  unindexed: Item | null;
}

export const MARKERS = 'WIDX';
export const markerKey = (id: number): Key => ({ PK: MARKERS, SK: pad(id) });
export const groupKey = (gid: string): Key => ({ PK: MARKERS, SK: `G#${gid}` });
/** The tokens of one flight (an event's change at a version, or a group's): one per chunk that landed. */
export const tokenPartition = (flight: string): string => `WTOK#${flight}`;
/** Index items per chunk transaction (the rest of the 100 actions: its guard). */
export const CHUNK = 96;

const keyOf = (item: Item): Key => ({ PK: String(item.PK), SK: String(item.SK) });
const keyText = (k: Key): string => `${k.PK}\u0000${k.SK}`;
export const itemKeyOf = (t: TransactItem): Key => (t.Update?.Key ?? t.Put?.Item ?? t.Delete?.Key ?? t.ConditionCheck?.Key) as Key;

/** Every item taking the index of event `id` from `before` to `after`. */
export function stateChanges(id: number, before: IndexState, after: IndexState): TransactItem[] {
  const items = indexChanges(id, before.words, after.words);
  const was = before.unindexed ? JSON.stringify(before.unindexed) : null;
  const now = after.unindexed ? JSON.stringify(after.unindexed) : null;
  if (was !== now) {
    if (before.unindexed && (!after.unindexed || keyOf(before.unindexed).SK !== keyOf(after.unindexed).SK)) {
      items.push({ Delete: { TableName: table(), Key: keyOf(before.unindexed) } });
    }
    if (after.unindexed) items.push({ Put: { TableName: table(), Item: after.unindexed } });
  }
  return items;
}

/** The rank of an index item in a change's order: postings first (only they can grow too large), then the rest, by key. */
const rank = (k: Key): number => (k.PK.startsWith('W1#') ? 0 : k.PK.startsWith('C#') ? 2 : 1);

/**
 * The changes of several events as one: the postings of one letter and day set and removed in one Update, the count
 * increments of one item summed into one `ADD`, in a stable order — so whoever computes it from the same states gets
 * the same chunks.
 */
export function foldChanges(items: TransactItem[]): TransactItem[] {
  const counts = new Map<string, { key: Key; deltas: Map<string, number> }>();
  const rest: TransactItem[] = [];
  for (const t of items) {
    const u = t.Update;
    if (u && String((u.Key as Key).PK).startsWith('C#')) {
      const key = u.Key as Key;
      const entry = counts.get(keyText(key)) ?? { key, deltas: new Map<string, number>() };
      counts.set(keyText(key), entry);
      for (const [placeholder, name] of Object.entries(u.ExpressionAttributeNames ?? {})) {
        entry.deltas.set(name, (entry.deltas.get(name) ?? 0) + Number(u.ExpressionAttributeValues![placeholder.replace('#', ':')]));
      }
    } else rest.push(t);
  }
  const merged = mergeOneAttributeWrites(rest) ?? rest;
  const folded = [...merged, ...[...counts.values()].flatMap(({ key, deltas }) => {
    const moved = new Map([...deltas].filter(([, d]) => d !== 0));
    return moved.size ? [countAdd(key, moved)] : [];
  })];
  return folded.sort((a, b) => {
    const ka = itemKeyOf(a);
    const kb = itemKeyOf(b);
    return rank(ka) - rank(kb) || (keyText(ka) < keyText(kb) ? -1 : keyText(ka) > keyText(kb) ? 1 : 0);
  });
}

/** The index before the write a marker stands for. */
export function beforeOf(marker: Item): IndexState {
  // A group's marker holds them in `bs` (./commit.ts markerPut), an event's own at the top.
  const was = (marker.bs ?? marker) as { b?: Record<string, string>; bx?: string };
  return { words: was.b ? wordsOfPostings(new Map(Object.entries(was.b))) : null, unindexed: was.bx ? JSON.parse(was.bx) as Item : null };
}

/** The chunks of a change, in its stable order. */
export function chunksOf(items: TransactItem[]): TransactItem[][] {
  const chunks: TransactItem[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) chunks.push(items.slice(i, i + CHUNK));
  return chunks;
}

/**
 * A change in flight: the markers it applies (with the records they bring the index to), its tokens' partition, and
 * whether its chunks may have started landing (a group not sealed yet has sent none).
 */
export interface Flight {
  name: string;
  markers: Item[];
  records: Map<number, Item | null>;
  sealed: boolean;
}

/** The chunks a flight applies (the same for whoever computes them from the same markers and records). */
export const flightChunks = (f: Flight, target: (record: Item | null) => IndexState): TransactItem[][] =>
  chunksOf(foldChanges(f.markers.flatMap((m) => stateChanges(Number(m.id), beforeOf(m), target(f.records.get(Number(m.id)) ?? null)))));

/** Whether a flight's guard is its marker's deletion (one event, one chunk) rather than tokens. */
export const singleGuard = (f: Flight, chunks: TransactItem[][]): boolean => f.name.startsWith('E') && chunks.length <= 1;
