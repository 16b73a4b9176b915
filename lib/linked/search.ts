/**
 * Venue/organizer list search (reference §7): the search string is split into word fragments on every
 * character that is not a letter, a digit or "-"; a record matches when ONE of its fields contains every
 * fragment (case-insensitive). "temple avenue" finds the address "100, Avenue du Temple".
 * Fields: the name and description as shown in the request language (contract §8: fallback included), the
 * excerpt, and for venues address, city, province, state, stateprovince, zip and phone (not country); for
 * organizers phone, e-mail and website.
 */
import type { Language } from '../model/language.js';
import { htmlToText } from '../text/sanitize.js';
import { textOf, type LinkedItem, type LinkedKind } from './item.js';

const SEARCH_FIELDS = {
  venue: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  organizer: ['phone', 'email', 'website'],
} as const;

/** The lower-case fragments of a search string; none when it holds no letters or digits. */
export function searchFragments(search: string): string[] {
  return [...new Set(search.normalize('NFC').toLowerCase().split(/[^\p{L}\p{N}-]+/u).filter((f) => f !== '' && /[\p{L}\p{N}]/u.test(f)))];
}

/**
 * The texts a search looks in. For a password-protected record the caller has not unlocked, only what the
 * list shows of it (the name, and a venue's state): blanked text cannot be probed by searching.
 */
export function searchFields(kind: LinkedKind, item: LinkedItem, lang: Language, locked = false): string[] {
  const fields = locked ? [textOf(item, lang, 'name'), kind === 'venue' ? item.state ?? '' : ''] : [
    textOf(item, lang, 'name'),
    htmlToText(textOf(item, lang, 'description')),
    htmlToText(item.excerpt ?? ''),
    ...SEARCH_FIELDS[kind].map((f) => item[f] ?? ''),
  ];
  return fields.filter((f) => f !== '').map((f) => f.normalize('NFC').toLowerCase());
}

/** Whether one field contains all fragments (no fragments: every record matches, as no words restrict it). */
export function matchesSearch(kind: LinkedKind, item: LinkedItem, lang: Language, fragments: string[], locked = false): boolean {
  if (fragments.length === 0) return true;
  return searchFields(kind, item, lang, locked).some((field) => fragments.every((f) => field.includes(f)));
}
