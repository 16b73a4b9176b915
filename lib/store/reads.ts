/**
 * The reads of one write plan, gathered into one BatchGetItem (lib/store/README.md "Writes that plan"): the
 * planners first say which items they need (`want`, `wantSlugs`), then one `fetch` reads them all; a planner that
 * learns of more items from the answer (a de-duplication match, a term found by name) wants them and fetches again.
 *
 * A plan's first pass reads eventually consistently: every decision taken on these reads is also a condition of
 * the write's transaction (slug guards, name items, record versions, link targets), so a stale read can only make
 * the transaction fail, and the caller then plans again with `consistent` reads.
 */
import { NoFreeSlug } from './errors.js';
import { slugCandidates } from '../text/slug.js';
import { slugKey, type PostKind, type Taxonomy } from './keys.js';
import { batchGet, type Item } from './records.js';
import { perRequest } from './scope.js';

export type Key = { PK: string; SK: string };
type SlugKind = PostKind | Taxonomy;

/** BatchGetItem takes at most 100 keys: slug candidates share what the other keys leave. */
const MAX_KEYS = 100;
/** Slug candidates read per base in the shared request (x, x-2 … x-10); more only when all of those are taken. */
export const SLUG_PREFETCH = 10;
const SLUG_BATCH = 25;

const id = (k: Key): string => `${k.PK}\u0000${k.SK}`;

/** Items this request has read by key (null: read and absent), so that a plan does not read them again. */
const requestItems = (): Promise<Map<string, Item | null>> => perRequest('read-items', async () => new Map<string, Item | null>());

/** Notes what a read of `keys` found, for the rest of the request (an eventually consistent read's answer). */
export async function rememberItems(keys: Key[], items: Item[]): Promise<void> {
  const known = await requestItems();
  const found = new Map(items.map((item) => [id(item as Key), item]));
  for (const k of keys) known.set(id(k), found.get(id(k)) ?? null);
}

export class ReadSet {
  private readonly pending = new Map<string, Key>();
  private readonly done = new Map<string, Item | null>();
  /** Slug bases wanted and not yet read, and how many candidates were read for each base that was. */
  private readonly slugBases = new Map<string, { kind: SlugKind; base: string }>();
  private readonly slugRead = new Map<string, number>();
  /** Slugs already chosen in this plan, per kind (two new records of a kind never get the same one). */
  private readonly reserved = new Map<SlugKind, Set<string>>();

  constructor(readonly consistent = false) {}

  want(...keys: Key[]): void {
    for (const k of keys) if (!this.done.has(id(k))) this.pending.set(id(k), { PK: k.PK, SK: k.SK });
  }

  /** The slug guards of base, base-2… so that `freeSlug` can usually choose without another request. */
  wantSlugs(kind: SlugKind, base: string): void {
    const key = `${kind}#${base}`;
    if (!this.slugRead.has(key)) this.slugBases.set(key, { kind, base });
  }

  /** Reads every wanted item not read yet (one BatchGetItem for up to 100 keys; nothing when none is wanted). */
  async fetch(): Promise<void> {
    const bases = [...this.slugBases.entries()];
    this.slugBases.clear();
    const room = Math.floor((MAX_KEYS - this.pending.size) / Math.max(bases.length, 1));
    const perBase = Math.max(1, Math.min(SLUG_PREFETCH, room));
    for (const [key, { kind, base }] of bases) {
      this.want(...slugCandidates(base, 1, perBase).map((s) => slugKey(kind, s)));
      this.slugRead.set(key, perBase);
    }
    await this.read([...this.pending.values()]);
  }

  private async read(wanted: Key[]): Promise<void> {
    wanted.forEach((k) => this.pending.delete(id(k)));
    // A first pass reads eventually consistently: what the request already read that way (its references) is reused.
    const known = this.consistent ? new Map<string, Item | null>() : await requestItems();
    const keys = wanted.filter((k) => {
      if (!known.has(id(k))) return true;
      this.done.set(id(k), known.get(id(k))!);
      return false;
    });
    if (keys.length === 0) return;
    const items = await batchGet(keys, undefined, this.consistent);
    const found = new Map(items.map((item) => [id(item as Key), item]));
    for (const k of keys) this.done.set(id(k), found.get(id(k)) ?? null);
  }

  /**
   * Reads again, strongly consistently, those of `keys` that an eventually consistent pass found missing (a
   * record created a moment ago): a missing reference is a 400, so it is confirmed first. Nothing to do — and no
   * request — when every key was found or the reads were consistent already.
   */
  async confirmMissing(keys: Key[]): Promise<void> {
    if (this.consistent) return;
    const missing = [...new Map(keys.filter((k) => this.get(k) === null).map((k) => [id(k), k])).values()];
    if (missing.length === 0) return;
    const items = await batchGet(missing, undefined, true);
    for (const item of items) this.done.set(id(item as Key), item);
  }

  /** Whether the item was read (fetched); `get` of an item not read is a programming error. */
  has(key: Key): boolean {
    return this.done.has(id(key));
  }

  /** The item as read, or null when it does not exist. */
  get(key: Key): Item | null {
    const item = this.done.get(id(key));
    if (item === undefined) throw new Error(`${key.PK} was not read`);
    return item;
  }

  /**
   * The first of base, base-2, base-3… that no other record of the kind holds (by its guard) and that this
   * plan has not given to another record; it is then reserved. After losing a slug to another writer (`spread` > 0:
   * retry.ts `contended`) it picks at random among the first free candidates, so concurrent writers of one title stop
   * colliding. Candidates
   * beyond those read with the plan are read 25 at a time.
   */
  async freeSlug(kind: SlugKind, base: string, selfId: number, spread = 0): Promise<string> {
    const reserved = this.reserved.get(kind) ?? new Set<string>();
    this.reserved.set(kind, reserved);
    let from = 1;
    let count = this.slugRead.get(`${kind}#${base}`) || SLUG_BATCH;
    while (from < 10_000) {
      const candidates = slugCandidates(base, from, count);
      const unread = candidates.map((s) => slugKey(kind, s)).filter((k) => !this.has(k));
      if (unread.length) await this.read(unread);
      const free = candidates.filter((s) => {
        if (reserved.has(s)) return false;
        const guard = this.get(slugKey(kind, s));
        return guard === null || guard.id === selfId;
      });
      if (free.length) {
        const slug = free[Math.floor(Math.random() * Math.min(free.length, spread + 1))]!;
        reserved.add(slug);
        return slug;
      }
      from += count;
      count = SLUG_BATCH;
    }
    throw new NoFreeSlug();
  }
}
