/**
 * Term lists read in name order from the index instead of the whole taxonomy (lib/store/README.md "Terms"): the
 * total from the byCount index (a few dozen bytes per term, only non-empty tags when empty ones are hidden), the
 * page from the byStart partition, which holds the terms in their first language's name order, merged with the
 * request language's name-order items (terms whose name there sorts elsewhere).
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Language } from '../model/language.js';
import { db, table } from '../store/client.js';
import { termKey, type Taxonomy } from '../store/keys.js';
import { batchGet, type Item } from '../store/records.js';
import { indexName, isHierarchical, isTerm, nameOrderPartition, termsPartition } from './item.js';
import { compareUtf8, nameSortKey } from './order.js';
import { toEntry, type TermEntry } from './store.js';

type QueryInput = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>;

/** The exact number of terms in the count a list shows, and for categories the set of non-empty ones. */
export interface TermCount {
  total: number;
  /** Categories with hide_empty: the ids that count as not empty (their own events or a descendant's). */
  filled: Set<number> | null;
  /** Categories with hide_empty: every category's parent and count, to judge again after the page is read. */
  tree: Pick<TermEntry, 'id' | 'parent' | 'cnt'>[] | null;
}

async function queryPages(input: QueryInput, each: (items: Item[], count: number) => void): Promise<void> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand({ ...input, TableName: table(), ExclusiveStartKey }));
    each(page.Items ?? [], page.Count ?? 0);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/**
 * Counts the list's terms on the byCount index. Tags: a COUNT of the partition, or of `cnt > 0` when empty ones
 * are hidden. Categories with hide_empty: every entry (id, parent, count), since a category whose descendant is
 * not empty is not empty either.
 */
export async function countTerms(taxonomy: Taxonomy, hideEmpty: boolean,
  nonEmpty: (all: Pick<TermEntry, 'id' | 'parent' | 'cnt'>[], hierarchical: boolean) => Set<number>): Promise<TermCount> {
  const base = { IndexName: 'byCount', ExpressionAttributeValues: { ':pk': termsPartition(taxonomy) } as Record<string, unknown> };
  if (hideEmpty && isHierarchical(taxonomy)) {
    const tree: Pick<TermEntry, 'id' | 'parent' | 'cnt'>[] = [];
    await queryPages({ ...base, KeyConditionExpression: 'GSI3PK = :pk' }, (items) => {
      for (const i of items) tree.push({ id: Number(String(i.PK).slice('TERM#'.length)), parent: Number(i.parent ?? 0), cnt: Number(i.cnt ?? 0) });
    });
    const filled = nonEmpty(tree, true);
    return { total: filled.size, filled, tree };
  }
  let total = 0;
  const input: QueryInput = hideEmpty
    ? { ...base, KeyConditionExpression: 'GSI3PK = :pk AND cnt > :zero', ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ':zero': 0 }, Select: 'COUNT' }
    : { ...base, KeyConditionExpression: 'GSI3PK = :pk', Select: 'COUNT' };
  await queryPages(input, (_items, count) => { total += count; });
  return { total, filled: null, tree: null };
}

/** A term in the request language's name order. */
interface Placed {
  sk: string;
  entry: TermEntry;
}

/** Reads one ordered source in pages sized to what the list still needs. */
class Cursor {
  private buffer: Placed[] = [];
  private start: Record<string, unknown> | undefined;
  private done = false;

  constructor(private readonly input: QueryInput, private readonly place: (items: Item[]) => Promise<Placed[]>) {}

  async peek(want: number): Promise<Placed | undefined> {
    while (this.buffer.length === 0 && !this.done) {
      const page = await db().send(new QueryCommand({
        ...this.input, TableName: table(), ExclusiveStartKey: this.start, Limit: Math.min(1000, Math.ceil(want * 1.25) + 5),
      }));
      this.buffer.push(...(await this.place(page.Items ?? [])));
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
 * stretch (each of which also reads its term).
 */
export async function pageInNameOrder(taxonomy: Taxonomy, lang: Language, desc: boolean, skip: number, take: number,
  keep: (e: TermEntry) => boolean): Promise<number[]> {
  const forward = !desc;
  const main = new Cursor({
    IndexName: 'byStart',
    KeyConditionExpression: 'GSI2PK = :pk',
    ExpressionAttributeValues: { ':pk': termsPartition(taxonomy) },
    ScanIndexForward: forward,
  }, async (items) => items.flatMap((item) => {
    const entry = toEntry(item);
    const sk = nameSortKey(indexName(entry.nm, lang), entry.id);
    // An entry placed by another language's name is listed through this language's name-order item.
    return sk === item.GSI2SK ? [{ sk, entry }] : [];
  }));
  const moved = new Cursor({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': nameOrderPartition(taxonomy, lang) },
    ScanIndexForward: forward,
  }, async (items) => {
    const terms = new Map((await batchGet(items.map((i) => termKey(Number(i.id)))))
      .filter((t) => isTerm(t, taxonomy)).map((t) => [Number(t.id), toEntry(t)]));
    return items.flatMap((i) => {
      const entry = terms.get(Number(i.id));
      return entry && nameSortKey(indexName(entry.nm, lang), entry.id) === i.SK ? [{ sk: String(i.SK), entry }] : [];
    });
  });

  const out: number[] = [];
  const seen = new Set<number>();
  let passed = 0;
  while (out.length < take) {
    const want = skip + take - passed;
    const [a, b] = await Promise.all([main.peek(want), moved.peek(want)]);
    if (!a && !b) break;
    const useA = !b || (a !== undefined && (forward ? compareUtf8(a.sk, b.sk) <= 0 : compareUtf8(a.sk, b.sk) >= 0));
    const next = useA ? a! : b!;
    (useA ? main : moved).shift();
    if (seen.has(next.entry.id) || !keep(next.entry)) continue;
    seen.add(next.entry.id);
    if (passed++ >= skip) out.push(next.entry.id);
  }
  return out;
}
