/**
 * The pages read and write through the API's own operations (contract §21: "from the same lists and records"): each
 * call is an API request run in this process through the same pipeline (routing, authentication, validation,
 * visibility, the operation), with the visitor's own credentials and address. There is no second way to list or read.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { listEvents, listOccurrences } from '../events/list.js';
import { getEvent } from '../events/read.js';
import { createGroupHandler } from '../http/handler.js';
import { pipelineStore } from '../http/pipeline-store.js';
import { apiRoot } from '../http/paths.js';
import type { RequestLine } from '../http/request.js';
import { getLinked } from '../linked/operations.js';
import type { Language } from '../model/language.js';
import { routeForPath } from '../routes/match.js';
import { eventRoutes } from '../routes/events.js';
import { ticketRoutes } from '../routes/tickets.js';
import { organizerRoutes, venueRoutes } from '../routes/linked.js';
import { categoryRoutes, tagRoutes } from '../routes/terms.js';
import type { Group, RouteSpec } from '../routes/types.js';
import { listTerms } from '../terms/list.js';
import { EDGE_HEADERS } from '../http/middleware/edge-origin.js';

export interface ApiAnswer {
  status: number;
  headers: Record<string, string>;
  /** The parsed JSON body (errors: {code, message, data}). */
  body: Record<string, unknown>;
}

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<{ statusCode: number; headers: Record<string, string>; body?: string }>;

const tickets = () => import('../tickets/tickets.js');
const attendees = () => import('../tickets/attendees.js');

/** Each API call is part of the page's request: one log line and one request in the metrics, one meter (lib/http/handler.ts). */
const NESTED = { nested: true };

/** The operations the pages use, per group (reads, and the reservations of §19); nothing else is reachable from a page. */
const GROUPS: Partial<Record<Group | string, () => Handler>> = {
  events: () => createGroupHandler('events', [...eventRoutes, ...ticketRoutes], {
    'events.list': (ctx) => listEvents(ctx), 'events.occurrences': listOccurrences, 'events.get': getEvent, 'events.getBySlug': getEvent,
    'tickets.ofEvent': async (ctx) => (await tickets()).listTickets(ctx),
    'attendees.create': async (ctx) => (await attendees()).createAttendee(ctx),
    'attendees.get': async (ctx) => (await attendees()).getAttendee(ctx),
    'attendees.delete': async (ctx) => (await attendees()).deleteAttendee(ctx),
  }, pipelineStore, NESTED),
  venues: () => createGroupHandler('venues', venueRoutes, { 'venues.getBySlug': getLinked('venue') }, pipelineStore, NESTED),
  organizers: () => createGroupHandler('organizers', organizerRoutes, { 'organizers.getBySlug': getLinked('organizer') }, pipelineStore, NESTED),
  categories: () => createGroupHandler('categories', categoryRoutes, { 'categories.list': (ctx) => listTerms('category', ctx) }, pipelineStore, NESTED),
  tags: () => createGroupHandler('tags', tagRoutes, { 'tags.list': (ctx) => listTerms('tag', ctx) }, pipelineStore, NESTED),
};
const built = new Map<string, Handler>();
const handlerOf = (group: string): Handler => {
  let h = built.get(group);
  if (!h) {
    const make = GROUPS[group];
    if (!make) throw new Error(`the pages call no operation of the ${group} group`);
    h = make();
    built.set(group, h);
  }
  return h;
};

export interface ApiClient {
  /** The absolute API root the visitor's language answers under, e.g. https://host/prod/de/calendar/events/v1. */
  readonly apiUrl: string;
  call(method: 'GET' | 'POST' | 'DELETE', rel: string, query?: Record<string, string | undefined>, form?: Record<string, string>): Promise<ApiAnswer>;
}

const HEADERS_KEPT = ['authorization', 'host', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-for', EDGE_HEADERS.secret, 'user-agent'];

/** An API client for one page request: every call carries the visitor's credentials, host and address. */
export function apiClient(event: APIGatewayProxyEventV2, context: Context, line: RequestLine, prefix: Language | null): ApiClient {
  const root = `${line.stagePath}${apiRoot(prefix)}`;
  const headers: Record<string, string> = {};
  for (const name of HEADERS_KEPT) if (line.headers[name] !== undefined) headers[name] = line.headers[name]!;
  return {
    apiUrl: `${line.origin}${root}`,
    async call(method, rel, query = {}, form) {
      const route: RouteSpec | null = routeForPath(rel);
      if (!route) throw new Error(`no API route for ${rel}`);
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.append(k, v);
      const rawPath = `${root}${rel}`;
      const body = form ? new URLSearchParams(form).toString() : undefined;
      const sub: APIGatewayProxyEventV2 = {
        ...event,
        rawPath,
        rawQueryString: qs.toString(),
        headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        requestContext: { ...event.requestContext, http: { ...event.requestContext.http, method, path: rawPath } },
        body,
        isBase64Encoded: false,
      };
      delete sub.queryStringParameters;
      delete sub.cookies;
      const result = await handlerOf(route.group)(sub, context);
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(result.body ?? '{}') as Record<string, unknown>;
      } catch {
        parsed = {};
      }
      return { status: result.statusCode, headers: result.headers, body: parsed };
    },
  };
}
