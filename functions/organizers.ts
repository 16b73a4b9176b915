/** Lambda handler for the /organizers routes. */
import { createGroupHandler } from '../lib/http/handler.js';
import { pipelineStore } from '../lib/http/pipeline-store.js';
import { linkedOperations } from '../lib/linked/handlers.js';
import { organizerRoutes } from '../lib/routes/linked.js';

export const handler = createGroupHandler('organizers', organizerRoutes, linkedOperations('organizer'), pipelineStore);
