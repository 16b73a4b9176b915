/** Lambda handler for the /categories routes (logic in lib/terms/). */
import { createGroupHandler } from '../lib/http/handler.js';
import { categoryRoutes } from '../lib/routes/terms.js';
import { pipelineStore } from '../lib/http/pipeline-store.js';
import { termOperations } from '../lib/terms/operations.js';

export const handler = createGroupHandler('categories', categoryRoutes, termOperations('category'), pipelineStore);
