/**
 * The paths of the calendar pages (contract §21), outside the API's namespace: an optional stage and language prefix,
 * then `events/…`, `event/…`, `tag/…`, `venue/…` or `organizer/…`. Fixed segments and the prefix match in any letter
 * case; a trailing slash is ignored. One definition for the pages function, the local server and the CDK routes.
 */
import { LANGUAGES, type Language } from '../model/language.js';
import { trimTrailingSlashes } from '../http/paths.js';

/** The top-level segments the pages own (each gets its own API Gateway routes, infra/routes.ts). */
export const PAGE_SEGMENTS = ['events', 'event', 'tag', 'venue', 'organizer'] as const;

export type TermKind = 'category' | 'tag';
export type AssetName = 'site.css' | 'site.js' | 'embed.js';

export type PageRoute =
  | { kind: 'list' }
  | { kind: 'month'; month: string | null }
  | { kind: 'category' | 'tag' | 'venue' | 'organizer'; slug: string }
  | { kind: 'event'; slug: string; occurrence: string | null }
  | { kind: 'reservation'; slug: string; id: number }
  | { kind: 'asset'; name: AssetName };

export interface PagePath {
  prefix: Language | null;
  /** The matched page, or null for a path under a page segment that names none (404 page). */
  route: PageRoute | null;
}

const languageOf = (segment: string | undefined): Language | null => {
  const lower = segment?.toLowerCase();
  return (LANGUAGES as readonly (string | undefined)[]).includes(lower) ? (lower as Language) : null;
};

const decode = (s: string): string | null => {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
};

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
const OCCURRENCE = /^\d{4}-\d{2}-\d{2}(-\d{4})?$/;

function matchRest(parts: string[]): PageRoute | null {
  const [head, a, b, c] = [parts[0]!.toLowerCase(), parts[1], parts[2], parts[3]];
  const slug = a === undefined ? null : decode(a);
  if (head === 'events') {
    if (a === undefined) return { kind: 'list' };
    const sub = a.toLowerCase();
    if (sub === 'month' && c === undefined) return b === undefined ? { kind: 'month', month: null } : MONTH.test(b) ? { kind: 'month', month: b } : null;
    if (sub === 'category' && b !== undefined && c === undefined) {
      const s = decode(b);
      return s ? { kind: 'category', slug: s } : null;
    }
    if (sub === 'embed.js' && b === undefined) return { kind: 'asset', name: 'embed.js' };
    if (sub === 'assets' && c === undefined && (b === 'site.css' || b === 'site.js')) return { kind: 'asset', name: b };
    return null;
  }
  if (!slug) return null;
  if (head === 'event') {
    if (b === undefined) return { kind: 'event', slug, occurrence: null };
    if (c === undefined && OCCURRENCE.test(b)) return { kind: 'event', slug, occurrence: b };
    if (b.toLowerCase() === 'reservation' && c !== undefined && /^\d{1,15}$/.test(c) && parts.length === 4) {
      return { kind: 'reservation', slug, id: Number(c) };
    }
    return null;
  }
  if (b !== undefined) return null;
  return head === 'tag' || head === 'venue' || head === 'organizer' ? { kind: head, slug } : null;
}

/** "/de/events/month/2025-03" → {prefix: "de", route: {kind: "month", …}}; null when the path is not a page path. */
export function splitPagePath(path: string): PagePath | null {
  const segments = trimTrailingSlashes(path).split('/').slice(1);
  const prefix = languageOf(segments[0]);
  const parts = prefix ? segments.slice(1) : segments;
  const head = parts[0]?.toLowerCase();
  if (!head || !(PAGE_SEGMENTS as readonly string[]).includes(head)) return null;
  if (parts.some((p) => p === '')) return { prefix, route: null };
  return { prefix, route: matchRest(parts) };
}

/** The methods a page answers: every page GET (and HEAD); event and reservation pages also take their forms' posts. */
export const pageMethods = (route: PageRoute): string[] =>
  route.kind === 'event' || route.kind === 'reservation' ? ['GET', 'HEAD', 'POST'] : ['GET', 'HEAD'];

/** The site path of a page under a language prefix: pagePath('de', '/events/') → "/de/events/". */
export const pagePath = (prefix: Language | null, path: string): string => `${prefix ? `/${prefix}` : ''}${path}`;
