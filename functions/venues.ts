/** Lambda handler for the /venues routes. */
import { createGroupHandler } from '../lib/http/handler.js';
import { pipelineStore } from '../lib/http/pipeline-store.js';
import { linkedOperations } from '../lib/linked/handlers.js';
import { venueRoutes } from '../lib/routes/linked.js';

export const handler = createGroupHandler('venues', venueRoutes, linkedOperations('venue'), pipelineStore);
