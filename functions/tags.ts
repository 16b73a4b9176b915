/** Lambda handler for the /tags routes (logic in lib/terms/). */
import { createGroupHandler } from '../lib/http/handler.js';
import { tagRoutes } from '../lib/routes/terms.js';
import { pipelineStore } from '../lib/http/pipeline-store.js';
import { termOperations } from '../lib/terms/operations.js';

export const handler = createGroupHandler('tags', tagRoutes, termOperations('tag'), pipelineStore);
