/** The kinds of record, and what a parameter may reference (contract §3: unknown references are 400). */
export type PostKind = 'event' | 'venue' | 'organizer';
export type Taxonomy = 'category' | 'tag';
export type RefKind = PostKind | Taxonomy | 'user';
