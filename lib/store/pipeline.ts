/** The store reads the request pipeline needs (reference checks, user ids), for the functions that own data. */
import type { PipelineStore } from '../http/handler.js';
import { resolveRefs } from './refs.js';
import { userIdForSub } from './users.js';

export const pipelineStore: PipelineStore = { resolveRefs, userIdForSub };
