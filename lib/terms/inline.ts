/**
 * Terms named in event writes (contract §7: categories/tags as ids, slugs or names; unknown names create
 * terms). Resolution reads guard items only; creation is planned here and committed by the event write in its
 * own transaction, so a rejected event stores no term either.
 */
import type { RequestContext } from '../http/context.js';
import { invalidParam } from '../http/errors.js';
import { TEXT_LIMITS } from '../routes/parsers.js';
import { table } from '../store/client.js';
import { nextId } from '../store/ids.js';
import { slugKey, type Taxonomy } from '../store/keys.js';
import type { TransactItem } from '../store/posts.js';
import { slugify } from '../text/slug.js';
import { foldName, nameGuardKey, newTermItem, TAXONOMIES } from './item.js';
import { guardHolders, guardPut, pickSlug, type Key } from './store.js';

/** Slug keys longer than this are not looked up (no slug is that long; DynamoDB keys are limited). */
const MAX_SLUG_KEY_BYTES = 1024;

function slugLookup(taxonomy: Taxonomy, value: string): Key | null {
  if (!value) return null;
  const key = slugKey(taxonomy, value);
  return Buffer.byteLength(key.PK) <= MAX_SLUG_KEY_BYTES ? key : null;
}

/**
 * Matches each name to an existing term: by slug (the value as given, lower-cased), then by name among the
 * top-level terms (case-insensitive), then by the slug of the name. `found` is keyed by the strings as given;
 * `missing` lists the unmatched ones (each once, in input order) for planNewTerms.
 */
export async function resolveTermNames(taxonomy: Taxonomy, names: string[], _ctx: RequestContext):
  Promise<{ found: Map<string, number>; missing: string[] }> {
  const distinct = [...new Set(names)];
  const lookups = distinct.map((name) => {
    const trimmed = name.trim();
    if (trimmed === '') return [];
    return [
      slugLookup(taxonomy, trimmed.toLowerCase()),
      nameGuardKey(taxonomy, 0, trimmed),
      slugLookup(taxonomy, slugify(trimmed)),
    ].filter((k): k is Key => k !== null);
  });
  const holders = await guardHolders(lookups.flat());
  const found = new Map<string, number>();
  const missing: string[] = [];
  distinct.forEach((name, i) => {
    const id = lookups[i]!.map((k) => holders.get(k.PK)).find((h) => h !== undefined);
    if (id !== undefined) found.set(name, id);
    else missing.push(name);
  });
  return { found, missing };
}

/**
 * Plans the creation of top-level terms for `names` in the request language: ids from the term counter, free
 * slugs (distinct among themselves too), and the Put items of each term and its slug and name guards, with
 * `cnt` = `initialCount`. Nothing is written: the caller adds `items` to its own transaction (and must not
 * also add counter updates for these ids). `ids[i]` is the id for `names[i]`; names equal but for case share
 * one term. Throws 400 rest_invalid_param (`categories` / `tags`) for an empty or over-long name.
 */
export async function planNewTerms(taxonomy: Taxonomy, names: string[], ctx: RequestContext, initialCount: number):
  Promise<{ ids: number[]; items: TransactItem[] }> {
  const param = TAXONOMIES[taxonomy].plural;
  const trimmed = names.map((n) => (typeof n === 'string' ? n.trim() : ''));
  for (const name of trimmed) {
    if (name === '') throw invalidParam(param, `${param}: a ${taxonomy} name must not be empty`);
    if ([...name].length > TEXT_LIMITS.title) {
      throw invalidParam(param, `${param}: a ${taxonomy} name must be at most ${TEXT_LIMITS.title} characters`);
    }
  }
  const byFolded = new Map<string, number>();
  const reserved = new Set<string>();
  const items: TransactItem[] = [];
  for (const name of trimmed) {
    const folded = foldName(name);
    if (byFolded.has(folded)) continue;
    const id = await nextId('term');
    byFolded.set(folded, id);
    const slug = await pickSlug(taxonomy, slugify(name) || String(id), id, reserved);
    reserved.add(slug);
    const item = newTermItem(taxonomy, id, ctx.lang, { name, slug, parent: 0, cnt: initialCount });
    items.push(
      { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
      guardPut(slugKey(taxonomy, slug), id),
      guardPut(nameGuardKey(taxonomy, 0, name), id),
    );
  }
  return { ids: trimmed.map((name) => byFolded.get(foldName(name))!), items };
}
