/** Lambda handler for the /organizers routes. */
import { createGroupHandler } from '../lib/http/handler.js';
import { pipelineStore } from '../lib/store/pipeline.js';
import { linkedOperations } from '../lib/linked/handlers.js';

export const handler = createGroupHandler('organizers', linkedOperations('organizer'), pipelineStore);
