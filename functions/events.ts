/** Lambda handler for the /events routes. */
import { getFeed, listFeed } from '../lib/events/feed.js';
import { listEvents, listOccurrences } from '../lib/events/list.js';
import { createEvent, deleteEvent, getEvent, updateEvent } from '../lib/events/operations.js';
import { createGroupHandler } from '../lib/http/handler.js';
import { eventRoutes } from '../lib/routes/events.js';
import { pipelineStore } from '../lib/http/pipeline-store.js';

export const handler = createGroupHandler('events', eventRoutes, {
  'events.list': (ctx) => listEvents(ctx),
  'events.occurrences': listOccurrences,
  'events.listFeed': listFeed,
  'events.getFeed': getFeed,
  'events.create': createEvent,
  'events.get': getEvent,
  'events.getBySlug': getEvent,
  'events.update': updateEvent,
  'events.update.put': updateEvent,
  'events.update.patch': updateEvent,
  'events.updateBySlug': updateEvent,
  'events.updateBySlug.put': updateEvent,
  'events.updateBySlug.patch': updateEvent,
  'events.delete': deleteEvent,
  'events.deleteBySlug': deleteEvent,
}, pipelineStore);
