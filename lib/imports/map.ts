/**
 * A source event as the body of an event write (contract §20): the fields its source type carries — sent on every write,
 * empty when the source has none, so a field the source dropped is cleared — with its venue, organizers and terms as ids,
 * the import's own categories and tags added, and the import's status (else the source event's, else publish).
 */
import { createHash } from 'node:crypto';
import type { ImportItem, SourceType } from './record.js';
import type { SourceEvent, SourceFields } from './source.js';
import type { EventFields } from './write.js';

/** The links a source event names, as ids (lib/imports/linked.ts found or created them). */
export interface Links {
  venue?: number;
  organizer: number[];
  categories: number[];
  tags: number[];
}

/** The write fields each source type carries; the others are left as they are. */
const CARRIED: Record<SourceType, readonly string[]> = {
  ics: ['title', 'description', 'start_date', 'end_date', 'all_day', 'timezone', 'recurrence', 'website', 'venue', 'organizer', 'categories',
    'tags', 'status'],
  tec: ['title', 'description', 'excerpt', 'start_date', 'end_date', 'all_day', 'timezone', 'recurrence', 'website', 'venue', 'organizer',
    'categories', 'tags', 'status', 'slug', 'cost', 'featured'],
};

/** The terms of an event: the source's (ids) and the import's (ids, slugs or names as sent), each once. */
const terms = (source: number[], own: (number | string)[]): (number | string)[] => [...new Set([...source, ...own])];

export function eventFields(se: SourceEvent, imp: ImportItem, links: Links): EventFields {
  const f = se.fields;
  const all: EventFields = {
    title: f.title, description: f.description, excerpt: f.excerpt ?? '', start_date: f.start_date, end_date: f.end_date, all_day: f.all_day,
    timezone: f.timezone, recurrence: f.recurrence ?? [], website: f.website ?? '', venue: links.venue ?? 0, organizer: links.organizer,
    categories: terms(links.categories, imp.categories), tags: terms(links.tags, imp.tags), status: imp.status ?? f.status ?? 'publish',
    cost: f.cost ?? '', featured: f.featured ?? false,
  };
  if (f.slug) all.slug = f.slug;
  // The API keeps a text it cannot be given empty: an event without a description or excerpt simply sends none.
  if (!f.description.trim()) delete all.description;
  if (!f.excerpt?.trim()) delete all.excerpt;
  return Object.fromEntries(CARRIED[imp.source.type].filter((k) => k in all).map((k) => [k, all[k]]));
}

/** The fields an occurrence edit (RECURRENCE-ID) changes: only those it gives, never the series' own (rule, slug). */
export function occurrenceFields(fields: Partial<SourceFields>, links: Partial<Links>): EventFields {
  const { recurrence: _r, slug: _s, venue: _v, organizer: _o, categories: _c, tags: _t, ...own } = fields;
  const out: EventFields = { ...own };
  if (links.venue !== undefined) out.venue = links.venue;
  if (links.organizer) out.organizer = links.organizer;
  if (links.categories) out.categories = links.categories;
  if (links.tags) out.tags = links.tags;
  return out;
}

/** A short hash of a value (its JSON): what identity items keep of each field sent and shown. */
export const valueHash = (value: unknown): string => createHash('sha256').update(JSON.stringify(value ?? null)).digest('base64url').slice(0, 12);

export const fieldHashes = (fields: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, valueHash(v)]));
