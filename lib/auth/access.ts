/**
 * Who may read and change which record (reference §11.1–11.2 with the readings of contract §4).
 * Shared by events, venues and organizers.
 */
import type { Caller } from './caller.js';
import type { PostStatus } from '../model/status.js';
import { atLeast } from './roles.js';

/**
 * What access decisions read of a record: its author and status (and, for trashed records, the status it had, which
 * decides who may still delete or restore it). Typed records and items as DynamoDB returns them both qualify; only
 * equality is ever tested, so an item without these attributes is simply not readable beyond what is published.
 */
export interface Owned {
  author?: unknown;
  status?: unknown;
  statusBeforeTrash?: unknown;
}

const isOneOf = (list: readonly PostStatus[], status: unknown): boolean => list.some((s) => s === status);

const UNPUBLISHED: PostStatus[] = ['draft', 'pending'];

/** read_post: published for everyone; otherwise editors, or the author for their own record. */
export function canRead(caller: Caller | null, userId: number | null, record: Owned): boolean {
  if (record.status === 'publish') return true;
  if (!caller) return false;
  if (caller.role === 'editor') return true;
  return atLeast(caller.role, 'contributor') && userId === record.author;
}

/** edit_post / delete_post. */
export function canEdit(caller: Caller | null, userId: number | null, record: Owned): boolean {
  if (!caller) return false;
  if (caller.role === 'editor') return true;
  if (userId !== record.author) return false;
  if (caller.role === 'author') return true;
  const status = record.status === 'trash' ? record.statusBeforeTrash ?? 'trash' : record.status;
  return caller.role === 'contributor' && isOneOf(UNPUBLISHED, status);
}

/** The status a write lands in (reference §10.1 "status scaling"). */
export function scaleStatus(caller: Caller, requested: PostStatus | undefined, creating: boolean): PostStatus | undefined {
  const canPublish = atLeast(caller.role, 'author');
  if (requested === undefined) return creating ? (canPublish ? 'publish' : 'draft') : undefined;
  if (!canPublish && (requested === 'publish' || requested === 'future')) return 'pending';
  return requested;
}

/**
 * List visibility without a status filter: editors see every non-trash status; everyone else sees published
 * records plus their own unpublished ones (contract §4). With a status filter, non-editors still only see
 * their own non-published records.
 */
export function listVisible(caller: Caller | null, userId: number | null, statuses: PostStatus[] | undefined,
  record: Owned): boolean {
  if (statuses) {
    if (!isOneOf(statuses, record.status)) return false;
  } else if (record.status === 'trash') return false;
  if (record.status === 'publish') return true;
  if (caller?.role === 'editor') return true;
  return caller !== null && atLeast(caller.role, 'contributor') && record.author === userId;
}

const NOT_TRASHED: PostStatus[] = ['publish', 'future', 'draft', 'pending', 'private'];

/**
 * The statuses whose records a caller sees in a list (listVisible), when that does not depend on who wrote
 * each record, so a list can be counted by status; otherwise null (authors and contributors see their own
 * unpublished records too).
 */
/**
 * For a logged-in caller who is not an editor: the statuses they see of everyone's records (published) and those they
 * see of their own only (contributors and up: the rest), so that each part can be counted on its own.
 */
export function ownAndPublished(caller: Caller | null, statuses: PostStatus[] | undefined): { everyone: PostStatus[]; own: PostStatus[] } | null {
  if (!caller || caller.role === 'editor') return null;
  const asked = statuses ?? NOT_TRASHED;
  return { everyone: asked.filter((s) => s === 'publish'), own: atLeast(caller.role, 'contributor') ? asked.filter((s) => s !== 'publish') : [] };
}

export function countableStatuses(caller: Caller | null, statuses: PostStatus[] | undefined): PostStatus[] | null {
  if (caller?.role === 'editor') return statuses ?? NOT_TRASHED;
  if (!caller) return (statuses ?? ['publish']).filter((s) => s === 'publish');
  return statuses?.every((s) => s === 'publish') ? ['publish'] : null;
}
