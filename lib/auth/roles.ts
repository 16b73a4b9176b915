/** Roles of contract §4, mapped from the token's `cognito:groups` claim. */
export type Role = 'subscriber' | 'contributor' | 'author' | 'editor';

const RANK: Record<Role, number> = { subscriber: 0, contributor: 1, author: 2, editor: 3 };

export function roleFromGroups(groups: unknown): Role {
  const list = Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [];
  let role: Role = 'subscriber';
  for (const g of list.map((s) => s.toLowerCase())) {
    const r: Role | null =
      g === 'administrator' || g === 'editor' ? 'editor' : g === 'author' ? 'author' : g === 'contributor' ? 'contributor' : null;
    if (r && RANK[r] > RANK[role]) role = r;
  }
  return role;
}

export const atLeast = (role: Role | null, min: Role): boolean => role !== null && RANK[role] >= RANK[min];

/** A stored role name back to a role (anything unknown is the least one). */
export const roleFromName = (name: string): Role => (name in RANK ? (name as Role) : 'subscriber');
