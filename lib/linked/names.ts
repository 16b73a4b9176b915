/**
 * Name items for de-duplication (reference §10.2–10.3: same name, and same description when one is sent,
 * case-insensitive, not trashed → the existing record). One item per distinct lower-case name a record shows
 * in any of its languages:
 *   PK = NAME#<kind>#<lower-case name>  (NAMEH#<kind>#<sha-256> when the name is longer than 400 bytes)
 *   SK = <id, 10 digits>
 *   id, d = the lower-case descriptions shown in the languages that show that name ("" when none)
 * They are written, moved and deleted in the record's own transactions; a trashed record has none.
 */
import { createHash } from 'node:crypto';
import { table } from '../store/client.js';
import { queryAll } from '../store/records.js';
import { pad } from '../store/keys.js';
import type { TransactItem } from '../store/posts.js';
import type { Language } from '../routes/types.js';
import { fold, textOf, type LinkedItem, type LinkedKind } from './item.js';

const MAX_NAME_BYTES = 400;

export function namePartition(kind: LinkedKind, foldedName: string): string {
  return Buffer.byteLength(foldedName) <= MAX_NAME_BYTES ? `NAME#${kind}#${foldedName}`
    : `NAMEH#${kind}#${createHash('sha256').update(foldedName).digest('hex')}`;
}

export const nameKey = (kind: LinkedKind, foldedName: string, id: number) => ({ PK: namePartition(kind, foldedName), SK: pad(id) });

/** The names a record shows (per language, with fallback) and the descriptions shown alongside each. */
export function namesOf(item: LinkedItem | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (!item || item.status === 'trash') return out;
  for (const lang of Object.keys(item.tr) as Language[]) {
    const name = fold(textOf(item, lang, 'name'));
    if (!name) continue;
    const d = fold(textOf(item, lang, 'description'));
    const list = out.get(name) ?? [];
    if (!list.includes(d)) list.push(d);
    out.set(name, list.sort());
  }
  return out;
}

/** The puts/deletes that take a record's name items from `prev` to `next` (either may be null). */
export function nameTransactItems(kind: LinkedKind, id: number, prev: LinkedItem | null, next: LinkedItem | null): TransactItem[] {
  const before = namesOf(prev);
  const after = namesOf(next);
  const items: TransactItem[] = [];
  const self = { ':id': id };
  for (const name of before.keys()) {
    if (after.has(name)) continue;
    items.push({ Delete: { TableName: table(), Key: nameKey(kind, name, id), ConditionExpression: 'attribute_not_exists(PK) OR id = :id',
      ExpressionAttributeValues: self } });
  }
  for (const [name, d] of after) {
    if (JSON.stringify(before.get(name)) === JSON.stringify(d)) continue;
    items.push({ Put: { TableName: table(), Item: { ...nameKey(kind, name, id), id, d }, ConditionExpression: 'attribute_not_exists(PK) OR id = :id',
      ExpressionAttributeValues: self } });
  }
  return items;
}

/**
 * Ids of the records of `kind` showing `name` (any language), and with `description` among the descriptions
 * shown with it when a description is given; ascending. Strongly consistent (one Query of the name partition).
 */
export async function findByName(kind: LinkedKind, name: string, description?: string): Promise<number[]> {
  const folded = fold(name);
  if (!folded) return [];
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': namePartition(kind, folded) },
    ConsistentRead: true,
  });
  return items
    .filter((item) => description === undefined || ((item.d as string[] | undefined) ?? []).includes(fold(description)))
    .map((item) => item.id as number)
    .sort((a, b) => a - b);
}
