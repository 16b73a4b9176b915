/**
 * Step 5 (contract §3): the operation's capability, before the addressed record is looked at (401 anonymous,
 * 403 signed in). Record-level permissions are the handlers' (they need the record).
 */
import { atLeast } from '../../auth/roles.js';
import type { Capability } from '../../routes/types.js';
import { forbidden } from '../errors.js';
import { stateOf, type Middleware } from './state.js';

const MIN_ROLE: Record<Exclude<Capability, 'public'>, 'subscriber' | 'contributor' | 'author' | 'editor'> = {
  signed_in: 'subscriber',
  create_posts: 'contributor',
  edit_posts: 'contributor',
  manage_categories: 'author',
  manage_tags: 'editor',
  manage_imports: 'editor',
};

export const authorization = (): Middleware => ({
  before: (request) => {
    const { match, caller } = stateOf(request.event);
    const capability = match!.operation.capability;
    if (capability !== 'public' && !atLeast(caller?.role ?? null, MIN_ROLE[capability])) throw forbidden(caller !== null);
  },
});
