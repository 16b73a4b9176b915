/** The store reads the request pipeline needs (reference checks with the caller's visibility, user ids). */
import { canRead, type Owned } from '../auth/access.js';
import type { PipelineStore } from './handler.js';
import { resolveRefs } from '../store/refs.js';
import { userIdForSub } from '../store/users.js';

export const pipelineStore: PipelineStore = {
  resolveRefs: async (kind, values, ctx, use) => {
    if (use === 'link' && ctx.caller) return resolveRefs(kind, values, () => true);
    const userId = ctx.caller ? await ctx.userId() : null;
    // A filter may name only records its caller may read; a password-protected one only if they may edit it.
    return resolveRefs(kind, values, (r) => r.status !== 'trash' && canRead(ctx.caller, userId, r) && (!r.pw || canEditRef(ctx, userId, r)));
  },
  userIdForSub,
};

const canEditRef = (ctx: Parameters<PipelineStore['resolveRefs']>[2], userId: number | null, r: Owned): boolean =>
  ctx.caller?.role === 'editor' || (ctx.caller !== null && userId === r.author);
