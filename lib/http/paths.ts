/**
 * The routing rules of request paths (contract §1), in one place for the Lambda handlers, the local server and
 * the CDK stack: a stage prefix, an optional language prefix and the namespace, all matched case-insensitively;
 * trailing slashes ignored. Every step is linear in the length of the path.
 */
import { LANGUAGES, NAMESPACE, type Language } from '../routes/types.js';

const NAMESPACE_SEGMENTS = NAMESPACE.split('/');

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
  let i = 1;
  const prefix = segments.length > 1 ? languageOf(segments[1]!) : null;
  if (prefix) i++;
  for (const expected of NAMESPACE_SEGMENTS) {
    if (segments[i]?.toLowerCase() !== expected) return null;
    i++;
  }
  const rest = segments.slice(i);
  return { prefix, rel: rest.length === 0 ? '/' : `/${rest.join('/')}` };
}

/** The API root a path's URLs are built on: "/de/calendar/events/v1". */
export const apiRoot = (prefix: Language | null): string => `${prefix ? `/${prefix}` : ''}/${NAMESPACE}`;
