/**
 * Searches stay exact while an event's index change is being applied in chunks (./commit.ts): every search reads the
 * markers, leaves those events' index entries out, takes away what the count items count of them at that moment (each
 * chunk that has landed shows their new state, the others the old), and checks their records instead, as it checks
 * events held whole. With no change in flight, this costs one empty strongly consistent Query.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Language } from '../model/language.js';
import { db, table } from '../store/client.js';
import { statusCode } from '../store/event-counts.js';
import { postKey } from '../store/keys.js';
import { batchGet, queryAll, type Item } from '../store/records.js';
import { beforeOf, chunksOf, MARKERS, stateChanges, type IndexState } from './commit.js';
import { countPartition } from './changes.js';
import { countGroupOf, countSortKey, langBit, type EventWords } from './terms.js';

export interface InFlight {
  /** Events whose index is being brought up to date: their index entries are left out and their records checked. */
  ids: Set<number>;
  /** Their records as they are now (those that exist). */
  records: Item[];
  /** What the count items count of them now for `term` shown in `lang`, of `statuses`, starting on the UTC days firstDay…lastDay. */
  counted(term: string, lang: Language, statuses: readonly string[], firstDay: string, lastDay: string): number;
}

export const NONE_IN_FLIGHT: InFlight = { ids: new Set(), records: [], counted: () => 0 };

/** One event in flight: its index before and after, and which count items already show the after. */
interface Flight {
  before: EventWords | null;
  after: EventWords | null;
  landed: (pk: string, sk: string) => boolean;
}

const countedIn = (w: EventWords | null, term: string, bit: number, codes: Set<string>, firstDay: string, lastDay: string): number => {
  if (!w) return 0;
  const day = w.startUtc.slice(0, 10);
  const shown = w.terms.get(term)?.[0] ?? 0;
  return shown & bit && codes.has(statusCode(w.status)) && day >= firstDay && day <= lastDay ? 1 : 0;
};

/** The changes in flight now, read consistently, with the records they bring the index to (`target`). */
export async function readInFlight(target: (record: Item | null) => IndexState): Promise<InFlight> {
  const markers = (await db().send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': MARKERS }, ConsistentRead: true }))).Items ?? [];
  if (markers.length === 0) return NONE_IN_FLIGHT;
  const ids = markers.map((m) => Number(m.id));
  const records = await batchGet(ids.map(postKey), undefined, true);
  const byId = new Map(records.map((r) => [Number(r.id), r]));
  const flights = await Promise.all(markers.map(async (m): Promise<Flight> => {
    const id = Number(m.id);
    const before = beforeOf(m);
    const after = target(byId.get(id) ?? null);
    const chunks = chunksOf(stateChanges(id, before, after));
    // With one chunk, its transaction removes the marker: the marker standing means it has not landed.
    const tokens = chunks.length <= 1 ? new Set<string>() : new Set((await queryAll({ KeyConditionExpression: 'PK = :pk AND begins_with(SK, :v)',
      ExpressionAttributeValues: { ':pk': `WTOK#${id}`, ':v': `${m.v}#` }, ConsistentRead: true })).map((t) => String(t.SK).split('#')[1]));
    const landed = new Map<string, boolean>();
    chunks.forEach((chunk, k) => {
      for (const t of chunk) {
        const key = t.Update?.Key ?? t.Put?.Item ?? t.Delete?.Key;
        if (key) landed.set(`${key.PK}\u0000${key.SK}`, tokens.has(String(k)));
      }
    });
    return { before: before.words, after: after.words, landed: (pk, sk) => landed.get(`${pk}\u0000${sk}`) ?? false };
  }));
  return {
    ids: new Set(ids),
    records: records.filter((r) => r.kind === 'event'),
    counted: (term, lang, statuses, firstDay, lastDay) => {
      const group = countGroupOf(term);
      if (group === null) return 0;
      const pk = countPartition(group);
      const bit = langBit(lang);
      const codes = new Set(statuses.map(statusCode));
      let n = 0;
      for (const f of flights) {
        // An item that has not moved yet still counts the event as it was; one that has, as it is now.
        const sk = (w: EventWords) => countSortKey(w.status, w.startUtc.slice(0, 7));
        if (f.before && !f.landed(pk, sk(f.before))) n += countedIn(f.before, term, bit, codes, firstDay, lastDay);
        if (f.after && f.landed(pk, sk(f.after))) n += countedIn(f.after, term, bit, codes, firstDay, lastDay);
      }
      return n;
    },
  };
}
