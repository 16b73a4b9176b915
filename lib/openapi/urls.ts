/** Splitting an absolute API root URL into its base, language prefix and namespace (contract §1, §8). */
import { trimTrailingSlashes } from '../http/paths.js';
import { BASES, LANGUAGES, type Base, type Language } from '../routes/types.js';

export interface ApiUrlParts {
  /** The API root without trailing slash, e.g. https://host/prod/de/calendar/events/v1 */
  apiUrl: string;
  /** Origin plus stage path, before any language prefix, without trailing slash, e.g. https://host/prod */
  base: string;
  /** The language prefix of apiUrl, if any. */
  prefix: Language | null;
  /** false when apiUrl does not end in the namespace (then base is the URL's origin). */
  recognised: boolean;
  /** The path base apiUrl ends in (ours unless it is the origin's). */
  apiBase: Base;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const API_URL = new RegExp(`^(.*?)(?:/(${LANGUAGES.map(escape).join('|')}))?/(${BASES.map((b) => escape(b.path)).join('|')})/*$`, 'i');

/** A URL without trailing slashes (linear: lib/http/paths.ts). */
export const trimSlashes = trimTrailingSlashes;

export function splitApiUrl(apiUrl: string): ApiUrlParts {
  const root = trimSlashes(apiUrl);
  const m = API_URL.exec(root);
  if (m) {
    const apiBase = BASES.find((b) => b.path === m[3]!.toLowerCase()) ?? BASES[0];
    return { apiUrl: root, base: m[1]!, prefix: (m[2]?.toLowerCase() as Language | undefined) ?? null, recognised: true, apiBase };
  }
  let base = '';
  try {
    base = new URL(root).origin;
  } catch {
    base = '';
  }
  return { apiUrl: root, base, prefix: null, recognised: false, apiBase: BASES[0] };
}

/** The API root under a language prefix (null: no prefix) for the same base. */
export const apiRootFor = (base: string, prefix: Language | null, apiBase: Base = BASES[0]): string =>
  `${base}${prefix ? `/${prefix}` : ''}/${apiBase.path}`;
