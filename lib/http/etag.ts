/**
 * ETags and If-Match (contract §7, §15). A single record's tag is `"<own version>-<hash of the body>"`: it changes
 * whenever the body would, and `If-Match` compares only the version part, so a tag read in any language or variant
 * of the record matches as long as the record itself has not changed.
 */
import { createHash } from 'node:crypto';
import { preconditionFailed } from './errors.js';
import { json, jsonText, type HttpResult } from './response.js';

const hashOf = (text: string): string => createHash('sha256').update(text).digest('base64url').slice(0, 16);

export const recordTag = (version: number, body: string): string => `"${version}-${hashOf(body)}"`;

/** The tag of any other body (lists, feeds, root, doc): its hash. */
export const bodyTag = (body: string): string => `"${hashOf(body)}"`;

/** Whether an If-None-Match header names `*` or the tag (weak comparison: a `W/` prefix is ignored, RFC 9110 §13.1.2). */
export function noneMatch(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  const bare = (t: string): string => t.trim().replace(/^W\//, '');
  return header.split(',').map(bare).some((t) => t === '*' || t === bare(tag));
}

/** A JSON response for one record, with its ETag. */
export function recordJson(status: number, body: unknown, version: number, headers: Record<string, string> = {}): HttpResult {
  const result = json(status, body, headers);
  result.headers.ETag = recordTag(version, result.body!);
  return result;
}

/** The versions an If-Match header names (`*` as null): each tag's part before its first "-". */
function versionsIn(header: string): (string | null)[] {
  return header.split(',').map((t) => t.trim().replace(/^W\//, '').replace(/^"|"$/g, '')).filter(Boolean)
    .map((t) => (t === '*' ? null : t.split('-')[0]!));
}

/** Throws 412 when an If-Match header is present and names neither `*` nor the record's current version. */
export function checkIfMatch(header: string | undefined, version: number): void {
  if (header === undefined) return;
  const versions = versionsIn(header);
  if (!versions.includes(null) && !versions.includes(String(version))) throw preconditionFailed();
}

export { jsonText };
