/** The list envelope pieces shared by events, venues and organizers (reference §5.1, contract §9). */
import { invalidParam } from './errors.js';
import { JsonText, jsonText } from './response.js';
export interface PageLinks {
  next?: string;
  previous?: string;
}

/**
 * The query a list's rest_url echoes: `page` when past the first, then the given parameters in order; absent
 * values are skipped and lists become comma-separated.
 */
export function echoQuery(page: number, entries: [string, unknown][]): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of [['page', page > 1 ? page : undefined] as [string, unknown], ...entries]) {
    if (v !== undefined) q.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  return q;
}

/** next/previous from rest_url: drop `page`, then add page=N±1 (none for page 1). */
export function pageLinks(base: string, query: URLSearchParams, page: number, totalPages: number): PageLinks {
  const without = new URLSearchParams(query);
  without.delete('page');
  const at = (n: number): string => {
    const q = new URLSearchParams(without);
    if (n > 1) q.set('page', String(n));
    const s = q.toString();
    return s ? `${base}?${s}` : base;
  };
  return {
    ...(page < totalPages ? { next: at(page + 1) } : {}),
    ...(page > 1 && page - 1 <= totalPages ? { previous: at(page - 1) } : {}),
  };
}

/** The list headers; `feed` is the same list as an iCalendar feed (event lists, contract §14). */
export function listHeaders(total: number, totalPages: number, links: PageLinks, feed?: string): Record<string, string> {
  const link = [links.next && `<${links.next}>; rel="next"`, links.previous && `<${links.previous}>; rel="prev"`,
    feed && `<${feed}>; rel="alternate"; type="text/calendar"`].filter(Boolean);
  return {
    'X-TEC-Total': String(total),
    'X-TEC-TotalPages': String(totalPages),
    ...(link.length ? { Link: link.join(', ') } : {}),
  };
}

/**
 * The most JSON a list page may hold. A Lambda response is at most 6 MB, and records with long texts (and the
 * venues and organizers they embed) can pass that long before 50 of them: a page that would is refused with the
 * per_page that fits, before more of it is serialised (contract §2: no request's work is unbounded).
 */
export const PAGE_BYTES = 4 * 1024 * 1024;

/**
 * Serialises a page's records as a JSON array (written once: json() places it into the list body as it is), or throws
 * 400 naming the largest per_page whose page fits in PAGE_BYTES.
 */
export function serializePage<T>(items: T[], serialize: (item: T) => unknown): JsonText {
  const texts: string[] = [];
  let bytes = 0;
  for (const item of items) {
    const text = jsonText(serialize(item));
    bytes += Buffer.byteLength(text);
    if (bytes > PAGE_BYTES) {
      throw invalidParam('per_page', `per_page: these records are too large to return ${items.length} at once; `
        + `send per_page=${Math.max(1, texts.length)} or less`);
    }
    texts.push(text);
  }
  return new JsonText(`[${texts.join(',')}]`);
}
