/** ETags from record versions, and If-Match checks (contract §7). */
import { preconditionFailed } from './errors.js';

export const etagOf = (id: number, version: number): string => `"${id}-${version}"`;

/** Throws 412 when an If-Match header is present and matches none of the record's current ETag. */
export function checkIfMatch(header: string | undefined, id: number, version: number): void {
  if (header === undefined) return;
  const current = etagOf(id, version);
  const tags = header.split(',').map((t) => t.trim().replace(/^W\//, ''));
  if (!tags.includes('*') && !tags.includes(current)) throw preconditionFailed();
}
