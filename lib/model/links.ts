/** A venue or organizer an event write names (contract §7): by id, or inline (to create or reuse). */
export type LinkRef = { id: number } | { inline: Record<string, unknown> };
/** The venue of an event write: a reference, or removed. */
export type LinkInput = { clear: true } | LinkRef;
