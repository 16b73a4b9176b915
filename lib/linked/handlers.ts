/** The operation table of one kind's route group (operation ids of lib/routes/linked.ts). */
import type { Operation } from '../http/handler.js';
import { PLURAL, type LinkedKind } from './item.js';
import { listLinked } from './list.js';
import { createLinked, deleteLinked, getLinked, updateLinked } from './operations.js';

export function linkedOperations(kind: LinkedKind): Record<string, Operation> {
  const plural = PLURAL[kind];
  const get = getLinked(kind);
  const update = updateLinked(kind);
  const remove = deleteLinked(kind);
  const ops: Record<string, Operation> = {
    [`${plural}.list`]: listLinked(kind),
    [`${plural}.create`]: createLinked(kind),
  };
  for (const suffix of ['', 'BySlug']) {
    ops[`${plural}.get${suffix}`] = get;
    ops[`${plural}.update${suffix}`] = update;
    ops[`${plural}.update${suffix}.put`] = update;
    ops[`${plural}.update${suffix}.patch`] = update;
    ops[`${plural}.delete${suffix}`] = remove;
  }
  return ops;
}
