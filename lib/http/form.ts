/**
 * PHP-style nesting for query strings and form bodies: `a[]=1&a[]=2`, `venue[city]=X`, `organizer[0][organizer]=Y`.
 * Repeated plain keys keep the last value, as PHP does; `a[]` keys always make arrays.
 */
export type Nested = { [key: string]: NestedValue };
export type NestedValue = string | NestedValue[] | Nested;

const MAX_DEPTH = 5;
/** Keys that would reach Object.prototype through plain-object assignment. */
const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);

export function parseNested(raw: string): Nested {
  const out: Nested = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    const path = splitKey(key);
    if (path && !path.some((part) => UNSAFE.has(part))) assign(out, path, value);
  }
  return out;
}

/** "a[b][]" → ["a","b",""]; malformed brackets are taken literally as one key. */
function splitKey(key: string): string[] | null {
  const first = key.indexOf('[');
  if (first <= 0 || !key.endsWith(']')) return key === '' ? null : [key];
  const parts = [key.slice(0, first)];
  const rest = key.slice(first);
  const re = /\[([^\[\]]*)\]/gy;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(rest)) !== null) {
    parts.push(m[1]!);
    consumed = re.lastIndex;
  }
  if (consumed !== rest.length || parts.length > MAX_DEPTH + 1) return [key];
  return parts;
}

function assign(target: Nested | NestedValue[], path: string[], value: string): void {
  const [head, ...rest] = path as [string, ...string[]];
  const container = target as Record<string, NestedValue> & NestedValue[];
  if (rest.length === 0) {
    if (Array.isArray(container) && head === '') container.push(value);
    else container[head as never] = value as never;
    return;
  }
  const nextIsList = rest[0] === '' || /^\d+$/.test(rest[0]!);
  let child: NestedValue | undefined =
    Array.isArray(container) && head === '' ? undefined : (container[head as never] as NestedValue | undefined);
  if (child === undefined || typeof child === 'string') {
    child = nextIsList ? [] : {};
    if (Array.isArray(container) && head === '') container.push(child);
    else container[head as never] = child as never;
  }
  assign(child as Nested | NestedValue[], rest, value);
}
