/**
 * The stored term item (lib/store/README.md "Terms") and the pure helpers around it: text per language with
 * fallback, the lower-case display names (`nm`), index keys and the name guard keys behind `term_exists`.
 */
import { createHash } from 'node:crypto';
import { LANGUAGES, type Language, type Translated, translated } from '../model/language.js';
import { slugIndexKey, termKey, type Taxonomy } from '../store/keys.js';
import { nameSortKey } from './order.js';
import type { Item } from '../store/records.js';

export type { Taxonomy };

export interface TermText {
  name?: string;
  description?: string;
}

export type TermItem = {
  PK: string;
  SK: string;
  taxonomy: Taxonomy;
  id: number;
  /** Version for optimistic locking; the ETag is `"<id>-<v>"`. */
  v: number;
  slug: string;
  /** Parent category id; 0 = top level (always 0 for tags). */
  parent: number;
  /** Translatable text per language; `lang0` is the first language written, the fallback (contract §8). */
  tr: Partial<Record<Language, TermText>>;
  lang0: Language;
  /** Lower-case name as shown in each language (fallback applied), for list search and ordering (projected). */
  nm: Partial<Record<Language, string>>;
  /** Published events linked: maintained only by event writes (ADD), never rewritten here. */
  cnt: number;
  /** Direct child categories: maintained by ADD in the children's transactions. Absent = 0. */
  kids?: number;
  /**
   * Categories: 1 when `cnt` > 0, plus the direct children whose `linked` > 0 — so `linked` > 0 when the category or a
   * descendant has published events (lib/store/nonempty.ts). Maintained by ADD like `cnt`. Absent = 0; tags have none.
   */
  linked?: number;
  GSI1PK: string;
  GSI1SK: string;
  GSI2PK: string;
  /** The term's place in name order, by its first language's name (lib/terms/order.ts). */
  GSI2SK: string;
};

/** Whether a stored item is a term of `taxonomy` (items come from DynamoDB untyped). */
export const isTerm = (item: Item | null | undefined, taxonomy?: Taxonomy): item is Item & TermItem =>
  item?.SK === 'TERM' && (taxonomy === undefined || item.taxonomy === taxonomy);

/** Names and paths of the two taxonomies. */
export const TAXONOMIES = {
  category: { plural: 'categories', wp: 'tribe_events_cat', title: 'Category', publicPath: 'events/category' },
  tag: { plural: 'tags', wp: 'post_tag', title: 'Tag', publicPath: 'tag' },
} as const satisfies Record<Taxonomy, { plural: string; wp: string; title: string; publicPath: string }>;

export const isHierarchical = (taxonomy: Taxonomy): boolean => taxonomy === 'category';

/** The byStart partition that holds every term of a taxonomy in name order. */
export const termsPartition = (taxonomy: Taxonomy): string => `TERMS#${taxonomy}`;

/**
 * Name order in one language for the terms whose name there sorts elsewhere than their first language's name (the
 * place their index entry has): one item per such term and language, `SK` = its sort key in that language.
 */
export const nameOrderPartition = (taxonomy: Taxonomy, lang: Language): string => `TERMNAMES#${taxonomy}#${lang}`;

/** The name-order items a term needs: one per language whose name sorts elsewhere than its first language's. */
export function nameOrderKeys(item: Pick<TermItem, 'taxonomy' | 'id' | 'nm' | 'lang0'>): { PK: string; SK: string }[] {
  const own = nameSortKey(item.nm?.[item.lang0] ?? '', item.id);
  return LANGUAGES.map((lang) => ({ lang, sk: nameSortKey(indexName(item.nm, lang), item.id) }))
    .filter(({ sk }) => sk !== own)
    .map(({ lang, sk }) => ({ PK: nameOrderPartition(item.taxonomy, lang), SK: sk }));
}

/** The form names are compared in: NFC, lower case (term_exists is case-insensitive). */
export const foldName = (name: string): string => name.normalize('NFC').toLowerCase();

/** Key budget for guard items (DynamoDB allows 2,048 bytes of partition key). */
const MAX_GUARD_KEY_BYTES = 1024;

/** The guard item that reserves a (folded) name under a parent: `TERMNAME#<taxonomy>#<parent>#<name>`. */
export function nameGuardKey(taxonomy: Taxonomy, parent: number, name: string): { PK: string; SK: string } {
  const folded = foldName(name);
  let PK = `TERMNAME#${taxonomy}#${parent}#${folded}`;
  if (Buffer.byteLength(PK) > MAX_GUARD_KEY_BYTES) {
    PK = `TERMNAME#${taxonomy}#${parent}##sha256:${createHash('sha256').update(folded).digest('hex')}`;
  }
  return { PK, SK: 'TERMNAME' };
}

/** A field in a language, falling back to the term's first language (contract §8). */
export const termText = (item: Translated<TermText>, lang: Language, field: keyof TermText): string => translated(item, lang, field);

/** The distinct folded names of a term over all its languages: each one is reserved by a name guard. */
export function reservedNames(item: Pick<TermItem, 'tr'>): string[] {
  const names = Object.values(item.tr ?? {}).map((t) => t?.name).filter((n): n is string => typeof n === 'string' && n !== '');
  return [...new Set(names.map(foldName))];
}

/** The name guard keys a term holds (or should hold) at its level. */
export const nameGuardKeys = (item: Pick<TermItem, 'taxonomy' | 'parent' | 'tr'>): { PK: string; SK: string }[] =>
  reservedNames(item).map((n) => nameGuardKey(item.taxonomy, item.parent, n));

/** Name in the request language from an index entry's `nm` (fallback already applied when it was written). */
export function indexName(nm: Partial<Record<string, string>> | undefined, lang: Language): string {
  if (!nm) return '';
  return nm[lang] ?? Object.values(nm).find((v): v is string => typeof v === 'string') ?? '';
}

/** Recomputes the derived attributes (display names, index keys) after the text, slug or parent changed. */
export function withDerived(item: Omit<TermItem, 'nm' | 'GSI1PK' | 'GSI1SK' | 'GSI2PK' | 'GSI2SK'> & Partial<TermItem>): TermItem {
  const nm: Partial<Record<Language, string>> = {};
  for (const lang of LANGUAGES) nm[lang] = foldName(termText(item, lang, 'name'));
  return {
    ...item,
    ...termKey(item.id),
    nm,
    GSI1PK: slugIndexKey(item.taxonomy, item.slug),
    GSI1SK: item.taxonomy,
    GSI2PK: termsPartition(item.taxonomy),
    GSI2SK: nameSortKey(nm[item.lang0] ?? '', item.id),
  } as TermItem;
}

/** A new term as the first write in `lang` creates it. */
export function newTermItem(taxonomy: Taxonomy, id: number, lang: Language, fields: {
  name: string; description?: string; slug: string; parent: number; cnt?: number;
}): TermItem {
  return withDerived({
    PK: termKey(id).PK,
    SK: termKey(id).SK,
    taxonomy,
    id,
    v: 1,
    slug: fields.slug,
    parent: isHierarchical(taxonomy) ? fields.parent : 0,
    tr: { [lang]: { name: fields.name, ...(fields.description !== undefined ? { description: fields.description } : {}) } },
    lang0: lang,
    cnt: fields.cnt ?? 0,
    // A new category has no children: it is not empty when its own count is not.
    ...(isHierarchical(taxonomy) ? { linked: (fields.cnt ?? 0) > 0 ? 1 : 0 } : {}),
  });
}

