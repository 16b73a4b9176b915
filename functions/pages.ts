/**
 * Lambda handler for the calendar pages (contract §21): the list, month, term, venue, organizer and event pages, the
 * forms they post, and their style sheet and scripts. It reads through the API's own operations (lib/pages/api.ts).
 */
import { createPagesHandler } from '../lib/pages/handler.js';

export const handler = createPagesHandler();
