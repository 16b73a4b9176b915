/**
 * Name items for de-duplication (reference §10.2–10.3: same name, and same description when one is sent,
 * case-insensitive, not trashed → the existing record). One item per distinct lower-case name of a kind, holding
 * every record that shows that name in any of its languages, so a plan reads it by key in its BatchGetItem:
 *   PK = NAME#<kind>#<lower-case name>  (NAMEH#<kind>#<sha-256> when the name is longer than 400 bytes)
 *   SK = NAME
 *   r<id> = the descriptions record <id> shows alongside that name, as hashes of their lower-case text ("" when
 *           none), sorted and comma-joined
 *   v = bumped by every change
 * Each record's entry is set, changed and removed in the record's own transactions; a trashed record has none.
 * A record created because the item (as read) held no match is written on condition that the item is still as
 * read (`v`), so two concurrent creates of one name cannot both create: the second plans again and reuses.
 */
import { createHash } from 'node:crypto';
import { table } from '../store/client.js';
import type { TransactItem } from '../store/types.js';
import type { Item } from '../store/records.js';
import type { ReadSet } from '../store/reads.js';
import type { Language } from '../model/language.js';
import { fold, textOf, type LinkedItem, type LinkedKind } from './item.js';

const MAX_NAME_BYTES = 400;

export function namePartition(kind: LinkedKind, foldedName: string): string {
  return Buffer.byteLength(foldedName) <= MAX_NAME_BYTES ? `NAME#${kind}#${foldedName}`
    : `NAMEH#${kind}#${createHash('sha256').update(foldedName).digest('hex')}`;
}

export const nameKey = (kind: LinkedKind, foldedName: string) => ({ PK: namePartition(kind, foldedName), SK: 'NAME' });

/** What a name item keeps of a (folded) description: "" for none, else 96 bits of its SHA-256. */
export const descriptionHash = (foldedDescription: string): string =>
  foldedDescription === '' ? '' : createHash('sha256').update(foldedDescription).digest('base64url').slice(0, 16);

/** The names a record shows (per language, with fallback) and the hashes of the descriptions shown alongside each. */
export function namesOf(item: LinkedItem | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (!item || item.status === 'trash') return out;
  for (const lang of Object.keys(item.tr) as Language[]) {
    const name = fold(textOf(item, lang, 'name'));
    if (!name) continue;
    const d = descriptionHash(fold(textOf(item, lang, 'description')));
    const list = out.get(name) ?? [];
    if (!list.includes(d)) list.push(d);
    out.set(name, list.sort());
  }
  return out;
}

/** Whether a record shows `name` (folded) with `description` (sanitised, as sent; undefined = any). */
export function showsName(item: LinkedItem, name: string, description?: string): boolean {
  const hashes = namesOf(item).get(fold(name));
  return hashes !== undefined && (description === undefined || hashes.includes(descriptionHash(fold(description))));
}

/** Ids of the records a name item (as read) lists with `description` among theirs (any when undefined); ascending. */
export function idsInNameItem(item: Item | null, description?: string): number[] {
  if (!item) return [];
  const wanted = description === undefined ? undefined : descriptionHash(fold(description));
  return Object.entries(item)
    .filter(([k, v]) => /^r\d+$/.test(k) && (wanted === undefined || String(v).split(',').includes(wanted)))
    .map(([k]) => Number(k.slice(1)))
    .sort((a, b) => a - b);
}

export interface NameChange {
  kind: LinkedKind;
  id: number;
  prev: LinkedItem | null;
  next: LinkedItem | null;
}

interface NameWrite {
  key: { PK: string; SK: string };
  set: string[];
  remove: string[];
  conditions: Set<string>;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * The name item updates that take records from `prev` to `next` (either may be null), one Update per name item
 * however many of the records share it (DynamoDB allows one action per item in a transaction). A record's own
 * entry must be as its previous version left it (or absent); a new record's entry, when `reads` read the name item,
 * requires the item to be unchanged since (absent, or at the version read).
 */
export function nameWrites(changes: NameChange[], reads?: ReadSet): TransactItem[] {
  const writes = new Map<string, NameWrite>();
  const writeFor = (kind: LinkedKind, name: string): NameWrite => {
    const key = nameKey(kind, name);
    let w = writes.get(key.PK);
    if (!w) writes.set(key.PK, (w = { key, set: [], remove: [], conditions: new Set(), names: { '#v': 'v' }, values: { ':one': 1 } }));
    return w;
  };
  for (const { kind, id, prev, next } of changes) {
    const before = namesOf(prev);
    const after = namesOf(next);
    const attr = `#r${id}`;
    for (const [name, hashes] of before) {
      if (after.has(name)) continue;
      const w = writeFor(kind, name);
      w.names[attr] = `r${id}`;
      w.values[`:p${id}`] = hashes.join(',');
      w.remove.push(attr);
      w.conditions.add(`(attribute_not_exists(${attr}) OR ${attr} = :p${id})`);
    }
    for (const [name, hashes] of after) {
      const entry = hashes.join(',');
      const was = before.get(name)?.join(',');
      if (was === entry) continue;
      const w = writeFor(kind, name);
      w.names[attr] = `r${id}`;
      w.values[`:s${id}`] = entry;
      w.set.push(`${attr} = :s${id}`);
      if (was !== undefined) {
        w.values[`:p${id}`] = was;
        w.conditions.add(`(attribute_not_exists(${attr}) OR ${attr} = :p${id})`);
      } else if (prev === null && reads?.has(w.key)) {
        const read = reads.get(w.key);
        if (read === null) w.conditions.add('attribute_not_exists(PK)');
        else {
          w.values[':read'] = read.v;
          w.conditions.add('#v = :read');
        }
      } else {
        w.conditions.add(`attribute_not_exists(${attr})`);
      }
    }
  }
  return [...writes.values()].map((w) => ({
    Update: {
      TableName: table(),
      Key: w.key,
      UpdateExpression: [w.set.length ? `SET ${w.set.join(', ')}` : '', w.remove.length ? `REMOVE ${w.remove.join(', ')}` : '', 'ADD #v :one']
        .filter(Boolean).join(' '),
      ConditionExpression: [...w.conditions].join(' AND '),
      ExpressionAttributeNames: w.names,
      ExpressionAttributeValues: w.values,
    },
  }));
}

/** The name item updates of one record going from `prev` to `next`. */
export const nameTransactItems = (kind: LinkedKind, id: number, prev: LinkedItem | null, next: LinkedItem | null): TransactItem[] =>
  nameWrites([{ kind, id, prev, next }]);
