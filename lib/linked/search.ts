/**
 * Venue/organizer list search (contract §9, over the fields of reference §7): every word of the query must begin a
 * word of one of the fields (lib/text/words.ts). "temple avenue" finds the address "100, Avenue du Temple".
 * Fields: the name and description as shown in the request language (contract §8: fallback included), the
 * excerpt, and for venues address, city, province, state, stateprovince, zip and phone (not country); for
 * organizers phone, e-mail and website.
 */
import type { Language } from '../model/language.js';
import { htmlToText } from '../text/sanitize.js';
import { matchesWords } from '../text/words.js';
import { textOf, type LinkedItem, type LinkedKind } from './item.js';

const SEARCH_FIELDS = {
  venue: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  organizer: ['phone', 'email', 'website'],
} as const;


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
  return fields.filter((f) => f !== '');
}

/** Whether every query word begins a word of one of the fields (no words: every record matches). */
export function matchesSearch(kind: LinkedKind, item: LinkedItem, lang: Language, words: string[], locked = false): boolean {
  return matchesWords(words, searchFields(kind, item, lang, locked));
}
