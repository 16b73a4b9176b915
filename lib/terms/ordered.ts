/**
 * Term lists read in name order from the index instead of the whole taxonomy (lib/store/README.md "Terms"): the
 * total from the taxonomy's count item (one small GetItem), the page from the byStart partition, which holds the terms
 * in their first language's name order, merged with the request language's name-order items (terms whose name there
 * sorts elsewhere).
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Language } from '../model/language.js';
import { db, table } from '../store/client.js';
import { termKey, type Taxonomy } from '../store/keys.js';
import { batchGet, getItem, type Item } from '../store/records.js';
import { nonEmptyKey } from '../store/nonempty.js';
import { indexName, isTerm, nameOrderPartition, termsPartition } from './item.js';
import { compareUtf8, nameSortKey } from './order.js';
import { toEntry, type TermEntry } from './store.js';

type QueryInput = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>;

/**
 * The taxonomy's counts (lib/store/nonempty.ts): every term (`all`) and the non-empty ones (`filled`: tags with
 * published events; categories with published events of their own or of a descendant). Null while they have not been
 * built on this table (lib/store/nonempty-rebuild.ts).
 */
export async function termCounts(taxonomy: Taxonomy): Promise<{ all: number; filled: number } | null> {
  const item = await getItem(nonEmptyKey(taxonomy));
  if (!item?.built) return null;
  return { all: Number(item.all ?? 0), filled: Number(item.filled ?? 0) };
}

/** A term in the request language's name order; `entry` is read later for a name-order item. */
interface Placed {
  sk: string;
  id: number;
  entry?: TermEntry;
}

/** Reads one ordered source in pages sized to what the list still needs. */
class Cursor {
  readonly buffer: Placed[] = [];
  private start: Record<string, unknown> | undefined;
  private done = false;

  constructor(private readonly input: QueryInput, private readonly place: (items: Item[]) => Placed[]) {}

  async peek(want: number): Promise<Placed | undefined> {
    while (this.buffer.length === 0 && !this.done) {
      const page = await db().send(new QueryCommand({
        ...this.input, TableName: table(), ExclusiveStartKey: this.start, Limit: Math.min(1000, Math.ceil(want * 1.25) + 5),
      }));
      this.buffer.push(...this.place(page.Items ?? []));
      this.start = page.LastEvaluatedKey;
      this.done = !this.start;
    }
    return this.buffer[0];
  }

  shift(): void {
    this.buffer.shift();
  }
}

/**
 * The ids of terms number `skip + 1` … `skip + take` of the taxonomy in name order (`desc`: reversed) in `lang`,
 * among those `keep` accepts. Reads about `skip + take` index entries, plus the name-order items of `lang` in that
 * stretch, each of which also reads its term (in one BatchGetItem per stretch).
 */
export async function pageInNameOrder(taxonomy: Taxonomy, lang: Language, desc: boolean, skip: number, take: number,
  keep: (e: TermEntry) => boolean): Promise<number[]> {
  const forward = !desc;
  const before = (a: string, b: string): boolean => (forward ? compareUtf8(a, b) <= 0 : compareUtf8(a, b) >= 0);
  const main = new Cursor({
    IndexName: 'byStart',
    KeyConditionExpression: 'GSI2PK = :pk',
    ExpressionAttributeValues: { ':pk': termsPartition(taxonomy) },
    ScanIndexForward: forward,
  }, (items) => items.flatMap((item) => {
    const entry = toEntry(item);
    const sk = nameSortKey(indexName(entry.nm, lang), entry.id);
    // An entry placed by another language's name is listed through this language's name-order item.
    return sk === item.GSI2SK ? [{ sk, id: entry.id, entry }] : [];
  }));
  const moved = new Cursor({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': nameOrderPartition(taxonomy, lang) },
    ScanIndexForward: forward,
  }, (items) => items.map((i) => ({ sk: String(i.SK), id: Number(i.id) })));

  /** Reads the terms of the buffered name-order items up to `limit` (those the merge takes before the next entry). */
  const resolve = async (limit: string | undefined): Promise<void> => {
    const due = moved.buffer.filter((p, i) => p.entry === undefined && (i === 0 || limit === undefined || before(p.sk, limit))).slice(0, 100);
    const terms = new Map((await batchGet(due.map((p) => termKey(p.id))))
      .filter((t) => isTerm(t, taxonomy)).map((t) => [Number(t.id), toEntry(t)]));
    for (const p of due) {
      const entry = terms.get(p.id);
      // A term renamed since its item was read shows up where its name now puts it (or not at all until then).
      p.entry = entry && nameSortKey(indexName(entry.nm, lang), entry.id) === p.sk ? entry : { id: p.id, slug: '', nm: {}, parent: 0, cnt: -1, linked: 0 };
    }
  };

  const out: number[] = [];
  const seen = new Set<number>();
  let passed = 0;
  while (out.length < take) {
    const want = skip + take - passed;
    const [a, b] = await Promise.all([main.peek(want), moved.peek(want)]);
    if (!a && !b) break;
    const useA = !b || (a !== undefined && before(a.sk, b.sk));
    const next = useA ? a! : b!;
    if (!useA && next.entry === undefined) await resolve(a?.sk);
    (useA ? main : moved).shift();
    const entry = next.entry!;
    if (entry.cnt < 0 || seen.has(entry.id) || !keep(entry)) continue;
    seen.add(entry.id);
    if (passed++ >= skip) out.push(entry.id);
  }
  return out;
}
