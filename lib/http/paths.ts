/**
 * The routing rules of request paths (contract §1), in one place for the Lambda handlers, the local server and
 * the CDK stack: a stage prefix, an optional language prefix and the namespace, all matched case-insensitively;
 * trailing slashes ignored. Every step is linear in the length of the path.
 */
import { BASES, LANGUAGES, type Base, type Language } from '../routes/types.js';

const BASE_SEGMENTS = BASES.map((base) => ({ base, segments: base.path.split('/') }));

/** The path without trailing slashes ("/" stays "/"). */
export function trimTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 47 /* / */) end--;
  return path.slice(0, end);
}

/** The path after a named stage ("/prod/x" under stage "prod" → "/x"); API Gateway's `$default` stage has none. */
export function stripStage(path: string, stage: string | undefined): { stagePath: string; path: string } {
  const stagePath = stage && stage !== '$default' ? `/${stage}` : '';
  if (stagePath && (path === stagePath || path.startsWith(`${stagePath}/`))) {
    return { stagePath, path: path.slice(stagePath.length) || '/' };
  }
  return { stagePath, path };
}

export interface ApiPath {
  /** The language prefix the request came in under (lower case), if any. */
  prefix: Language | null;
  /** The base (ours or the origin's) the request came in under. */
  base: Base;
  /** The path relative to the namespace: "/" for the index, "/events/3" (no trailing slash). */
  rel: string;
}

const languageOf = (segment: string): Language | null => {
  const lower = segment.toLowerCase();
  return (LANGUAGES as readonly string[]).includes(lower) ? (lower as Language) : null;
};

/** "/de/calendar/events/v1/events/3" → {prefix: "de", rel: "/events/3"}; null when the path is outside the API. */
export function splitApiPath(path: string): ApiPath | null {
  const segments = trimTrailingSlashes(path).split('/');
  if (segments[0] !== '') return null;
  const prefix = segments.length > 1 ? languageOf(segments[1]!) : null;
  const start = prefix ? 2 : 1;
  for (const { base, segments: expected } of BASE_SEGMENTS) {
    if (!expected.every((s, j) => segments[start + j]?.toLowerCase() === s)) continue;
    const rest = segments.slice(start + expected.length);
    return { prefix, base, rel: rest.length === 0 ? '/' : `/${rest.join('/')}` };
  }
  return null;
}

/** The API root a path's URLs are built on: "/de/calendar/events/v1", "/wp-json/tribe/events/v1". */
export const apiRoot = (prefix: Language | null, base: Base = BASES[0]): string => `${prefix ? `/${prefix}` : ''}/${base.path}`;
