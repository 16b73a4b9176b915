/**
 * Lambda handler for the /events routes. The writes (with the recurrence and series machinery) and the iCalendar feeds
 * are imported when a request first needs them: in the bundle they are chunks of their own (infra/bundling.ts), so a
 * cold start that lists or reads events never loads them.
 */
import { listEvents, listOccurrences } from '../lib/events/list.js';
import { getEvent } from '../lib/events/read.js';
import { createGroupHandler } from '../lib/http/handler.js';
import { eventRoutes } from '../lib/routes/events.js';
import { ticketRoutes } from '../lib/routes/tickets.js';
import { pipelineStore } from '../lib/http/pipeline-store.js';

const feeds = () => import('../lib/events/feed.js');
const writes = () => import('../lib/events/operations.js');
const tickets = () => import('../lib/tickets/tickets.js');
const attendees = () => import('../lib/tickets/attendees.js');

export const handler = createGroupHandler('events', [...eventRoutes, ...ticketRoutes], {
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
  'tickets.list': async (ctx) => (await tickets()).listTickets(ctx),
  'tickets.ofEvent': async (ctx) => (await tickets()).listTickets(ctx),
  'tickets.create': async (ctx) => (await tickets()).createTicket(ctx),
  'tickets.get': async (ctx) => (await tickets()).getTicket(ctx),
  'tickets.update': async (ctx) => (await tickets()).updateTicket(ctx),
  'tickets.update.put': async (ctx) => (await tickets()).updateTicket(ctx),
  'tickets.update.patch': async (ctx) => (await tickets()).updateTicket(ctx),
  'tickets.delete': async (ctx) => (await tickets()).deleteTicket(ctx),
  'attendees.list': async (ctx) => (await attendees()).listAttendees(ctx),
  'attendees.create': async (ctx) => (await attendees()).createAttendee(ctx),
  'attendees.get': async (ctx) => (await attendees()).getAttendee(ctx),
  'attendees.update': async (ctx) => (await attendees()).updateAttendee(ctx),
  'attendees.update.put': async (ctx) => (await attendees()).updateAttendee(ctx),
  'attendees.update.patch': async (ctx) => (await attendees()).updateAttendee(ctx),
  'attendees.delete': async (ctx) => (await attendees()).deleteAttendee(ctx),
}, pipelineStore);
