/**
 * Lambda handler for the /events routes. The writes (with the recurrence and series machinery) and the iCalendar feeds
 * are imported when a request first needs them: in the bundle they are chunks of their own (infra/bundling.ts), so a
 * cold start that lists or reads events never loads them.
 */
import { listEvents, listOccurrences } from '../lib/events/list.js';
import { getEvent } from '../lib/events/read.js';
import { createGroupHandler } from '../lib/http/handler.js';
import { eventRoutes } from '../lib/routes/events.js';
import { pipelineStore } from '../lib/http/pipeline-store.js';

const feeds = () => import('../lib/events/feed.js');
const writes = () => import('../lib/events/operations.js');

export const handler = createGroupHandler('events', eventRoutes, {
  'events.list': (ctx) => listEvents(ctx),
  'events.occurrences': listOccurrences,
  'events.listFeed': async (ctx) => (await feeds()).listFeed(ctx),
  'events.getFeed': async (ctx) => (await feeds()).getFeed(ctx),
  'events.create': async (ctx) => (await writes()).createEvent(ctx),
  'events.get': getEvent,
  'events.getBySlug': getEvent,
  'events.update': async (ctx) => (await writes()).updateEvent(ctx),
  'events.update.put': async (ctx) => (await writes()).updateEvent(ctx),
  'events.update.patch': async (ctx) => (await writes()).updateEvent(ctx),
  'events.updateBySlug': async (ctx) => (await writes()).updateEvent(ctx),
  'events.updateBySlug.put': async (ctx) => (await writes()).updateEvent(ctx),
  'events.updateBySlug.patch': async (ctx) => (await writes()).updateEvent(ctx),
  'events.delete': async (ctx) => (await writes()).deleteEvent(ctx),
  'events.deleteBySlug': async (ctx) => (await writes()).deleteEvent(ctx),
}, pipelineStore);
