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
import { beforeOf, flightChunks, itemKeyOf, MARKERS, singleGuard, tokenPartition, type IndexState } from './commit.js';
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
interface Member {
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
  const found = (await db().send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': MARKERS }, ConsistentRead: true }))).Items ?? [];
  if (found.length === 0) return NONE_IN_FLIGHT;
  const markers = found.filter((m) => !String(m.SK).startsWith('G#'));
  const groups = new Map(found.filter((g) => String(g.SK).startsWith('G#')).map((g) => [String(g.SK).slice(2), g]));
  const ids = markers.map((m) => Number(m.id));
  const records = await batchGet(ids.map(postKey), undefined, true);
  const byId = new Map(records.map((r) => [Number(r.id), r]));
  // Markers by flight: an event's own change, or its group's.
  const byFlight = new Map<string, Item[]>();
  for (const m of markers) {
    const name = m.g === undefined ? `E${m.id}@${m.v}` : `G${m.g}`;
    byFlight.set(name, [...(byFlight.get(name) ?? []), m]);
  }
  const flights = (await Promise.all([...byFlight].map(async ([name, ms]): Promise<Member[]> => {
    const sealed = name.startsWith('E') || groups.get(name.slice(1))?.sealed === true;
    const flight = { name, markers: ms, records: new Map(ms.map((m) => [Number(m.id), byId.get(Number(m.id)) ?? null])), sealed };
    const chunks = flightChunks(flight, target);
    // Unsealed, or guarded by its marker: nothing has landed while its markers stand.
    const tokens = !sealed || singleGuard(flight, chunks) ? new Set<string>() : new Set((await queryAll({ KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': tokenPartition(name) }, ConsistentRead: true })).map((t) => String(t.SK)));
    const landed = new Map<string, boolean>();
    chunks.forEach((chunk, k) => {
      for (const t of chunk) {
        const key = itemKeyOf(t);
        landed.set(`${key.PK}\u0000${key.SK}`, tokens.has(String(k)));
      }
    });
    return ms.map((m) => ({ before: beforeOf(m).words, after: target(byId.get(Number(m.id)) ?? null).words,
      landed: (pk: string, sk: string) => landed.get(`${pk}\u0000${sk}`) ?? false }));
  }))).flat();
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
