/**
 * Terms named in event writes (contract §7: categories/tags as ids, slugs or names; unknown names create
 * terms). Resolution reads guard items only, in the event plan's shared read (lib/store/reads.ts); creation is
 * planned here and committed by the event write in its own transaction, so a rejected event stores no term
 * either. A stale read cannot create a duplicate: a new term's name and slug guards are conditional puts.
 */
import type { RequestContext } from '../http/context.js';
import { invalidParam } from '../http/errors.js';
import { TEXT_LIMITS } from '../routes/parsers.js';
import { table } from '../store/client.js';
import type { IdPool } from '../store/ids.js';
import { slugKey, type Taxonomy } from '../store/keys.js';
import type { TransactItem } from '../store/types.js';
import type { ReadSet } from '../store/reads.js';
import { slugify } from '../text/slug.js';
import { foldName, nameGuardKey, newTermItem, TAXONOMIES, type TermItem } from './item.js';
import { guardPut } from '../store/kit.js';
import { counterAdd } from '../store/counters.js';
import { nonEmptyKey } from '../store/nonempty.js';
import type { Key } from './store.js';
import { EMPTY_MANIFEST } from '../store/words.js';
import { planTermWords } from './words.js';
import { noted } from '../store/changes.js';

/** Slug keys longer than this are not looked up (no slug is that long; DynamoDB keys are limited). */
const MAX_SLUG_KEY_BYTES = 1024;

function slugLookup(taxonomy: Taxonomy, value: string): Key | null {
  if (!value) return null;
  const key = slugKey(taxonomy, value);
  return Buffer.byteLength(key.PK) <= MAX_SLUG_KEY_BYTES ? key : null;
}

/** The guards that may name an existing term, in the order they are tried. */
function lookups(taxonomy: Taxonomy, name: string): Key[] {
  const trimmed = name.trim();
  if (trimmed === '') return [];
  return [
    slugLookup(taxonomy, trimmed.toLowerCase()),
    nameGuardKey(taxonomy, 0, trimmed),
    slugLookup(taxonomy, slugify(trimmed)),
  ].filter((k): k is Key => k !== null);
}

/** Step 1: the guard items that resolve `names`. */
export function wantTermNames(taxonomy: Taxonomy, names: string[], reads: ReadSet): void {
  for (const name of new Set(names)) reads.want(...lookups(taxonomy, name));
}

/**
 * Step 2 (after the guards were read): matches each name to an existing term: by slug (the value as given,
 * lower-cased), then by name among the top-level terms (case-insensitive), then by the slug of the name. `found`
 * is keyed by the strings as given; `missing` lists the unmatched ones (each once, in input order) for planNewTerms.
 */
export function resolveTermNames(taxonomy: Taxonomy, names: string[], reads: ReadSet): { found: Map<string, number>; missing: string[] } {
  const found = new Map<string, number>();
  const missing: string[] = [];
  for (const name of new Set(names)) {
    const guard = lookups(taxonomy, name).map((k) => reads.get(k)).find((g) => g !== null);
    if (guard) found.set(name, Number(guard.id));
    else missing.push(name);
  }
  return { found, missing };
}

/**
 * Checks the names of terms to create (400 rest_invalid_param keyed by `categories` / `tags` for an empty or
 * over-long one) and wants the slug candidates of each, so that planNewTerms can choose without another read.
 */
export function checkNewTermNames(taxonomy: Taxonomy, names: string[], reads?: ReadSet): void {
  const param = TAXONOMIES[taxonomy].plural;
  for (const raw of names) {
    const name = typeof raw === 'string' ? raw.trim() : '';
    if (name === '') throw invalidParam(param, `${param}: a ${taxonomy} name must not be empty`);
    if ([...name].length > TEXT_LIMITS.name) {
      throw invalidParam(param, `${param}: a ${taxonomy} name must be at most ${TEXT_LIMITS.name} characters`);
    }
    if (slugify(name)) reads?.wantSlugs(taxonomy, slugify(name));
  }
}

/**
 * Plans the creation of top-level terms for `names` in the request language: ids from the term counter (one
 * block), free slugs (distinct among themselves too), and the Put items of each term and its slug and name
 * guards, with `cnt` = `initialCount`, and the taxonomy's term counts. Nothing is written: the caller adds `items` to
 * its own transaction (and must not also add counter updates for these ids). `ids[i]` is the id for `names[i]`; names equal but for case
 * share one term; `terms` are the new items. `spread` > 0 after a lost race (see ReadSet.freeSlug).
 */
export async function planNewTerms(taxonomy: Taxonomy, names: string[], ctx: RequestContext, initialCount: number,
  pool: IdPool, reads: ReadSet, spread = 0): Promise<{ ids: number[]; items: TransactItem[]; terms: TermItem[] }> {
  checkNewTermNames(taxonomy, names);
  const trimmed = names.map((n) => n.trim());
  const first = new Map<string, string>();
  for (const name of trimmed) if (!first.has(foldName(name))) first.set(foldName(name), name);
  const newIds = await pool.take('term', first.size);
  const byFolded = new Map<string, number>();
  const items: TransactItem[] = [];
  const terms: TermItem[] = [];
  let i = 0;
  for (const [folded, name] of first) {
    const id = newIds[i++]!;
    byFolded.set(folded, id);
    const slug = await reads.freeSlug(taxonomy, slugify(name) || String(id), id, spread);
    const item = newTermItem(taxonomy, id, ctx.lang, { name, slug, parent: 0, cnt: initialCount });
    terms.push(item);
    items.push(
      noted({ Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } }, null, item),
      guardPut(slugKey(taxonomy, slug), id),
      guardPut(nameGuardKey(taxonomy, 0, name), id),
      // Its search entries join the event's transaction only if they fit after everything else; otherwise a deferred
      // marker, and the next search or term write of the taxonomy indexes it (lib/terms/words.ts).
      ...planTermWords(taxonomy, id, null, item, EMPTY_MANIFEST, true).items,
    );
  }
  // The taxonomy's counts (lib/store/nonempty.ts): more terms, and as many non-empty ones when they start with events.
  items.push(counterAdd(nonEmptyKey(taxonomy), { all: terms.length, ...(initialCount > 0 ? { filled: terms.length } : {}) }));
  return { ids: trimmed.map((name) => byFolded.get(foldName(name))!), items, terms };
}
