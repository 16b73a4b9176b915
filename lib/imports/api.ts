/**
 * The API's own operations, run in this process as an import's owner (contract §20: "Imported events are ordinary events"):
 * each call goes through the same pipeline as an HTTP request — validation, permissions, the operation — with the owner
 * given as the caller of the event object itself (lib/http/middleware/authentication.ts `InProcessCaller`); a create may
 * be made once for a reference (`once`, lib/store/create-once.ts), which no HTTP request can ask for. The handlers built
 * here are reachable only through `ownerApi`: no function hands them an HTTP request, and an event
 * this module did not build has no caller, so it fails.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { Caller } from '../auth/caller.js';
import { listEvents } from '../events/list.js';
import { getEvent } from '../events/read.js';
import { createGroupHandler } from '../http/handler.js';
import { EDGE_HEADERS, ORIGIN_SECRET_VARIABLE } from '../http/middleware/edge-origin.js';
import { pipelineStore } from '../http/pipeline-store.js';
import { apiRoot } from '../http/paths.js';
import type { HttpResult } from '../http/response.js';
import { listLinked } from '../linked/list.js';
import { createLinked } from '../linked/operations.js';
import type { Language } from '../model/language.js';
import { eventRoutes } from '../routes/events.js';
import { organizerRoutes, venueRoutes } from '../routes/linked.js';
import { routeForPath } from '../routes/match.js';
import { categoryRoutes, tagRoutes } from '../routes/terms.js';
import type { Group } from '../routes/types.js';
import { createTermOp } from '../terms/operations.js';
import { creatingOnce } from '../store/create-once.js';

export interface ApiAnswer {
  status: number;
  /** The parsed JSON body (errors: {code, message, data}). */
  body: Record<string, unknown>;
}

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<HttpResult>;

/** Each call's time limit, as the events function has in AWS. */
const CALL_MS = 25_000;

/** The caller of each event this module built, and only of those. */
const callers = new WeakMap<APIGatewayProxyEventV2, Caller>();
const callerOf = (event: APIGatewayProxyEventV2): Caller => {
  const caller = callers.get(event);
  if (!caller) throw new Error('an in-process API call without its caller');
  return caller;
};

const options = { nested: true, inProcess: callerOf };
const writes = () => import('../events/operations.js');

/** The operations an import runs: event writes and reads, and finding or creating the records events link to. */
const GROUPS: Partial<Record<Group, () => Handler>> = {
  events: () => createGroupHandler('events', eventRoutes, {
    'events.create': async (ctx) => (await writes()).createEvent(ctx),
    'events.update.patch': async (ctx) => (await writes()).updateEvent(ctx),
    'events.delete': async (ctx) => (await writes()).deleteEvent(ctx),
    'events.get': getEvent,
    'events.list': (ctx) => listEvents(ctx),
  }, pipelineStore, options),
  venues: () => createGroupHandler('venues', venueRoutes, { 'venues.create': createLinked('venue') }, pipelineStore, options),
  organizers: () => createGroupHandler('organizers', organizerRoutes, {
    'organizers.create': createLinked('organizer'), 'organizers.list': listLinked('organizer'),
  }, pipelineStore, options),
  categories: () => createGroupHandler('categories', categoryRoutes, { 'categories.create': (ctx) => createTermOp('category', ctx) },
    pipelineStore, options),
  tags: () => createGroupHandler('tags', tagRoutes, { 'tags.create': (ctx) => createTermOp('tag', ctx) }, pipelineStore, options),
};

const built = new Map<Group, Handler>();
function handlerOf(group: Group): Handler {
  let h = built.get(group);
  if (!h) {
    const make = GROUPS[group];
    if (!make) throw new Error(`an import calls no operation of the ${group} group`);
    h = make();
    built.set(group, h);
  }
  return h;
}

export interface CallOptions {
  query?: Record<string, string>;
  body?: unknown;
  /**
   * A create that happens once for this ref (lib/store/create-once.ts): sent again, it answers 409 `created_before` with
   * the `id` of the event the first send made.
   */
  once?: string;
}

export interface OwnerApi {
  call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', rel: string, options?: CallOptions): Promise<ApiAnswer>;
}

/**
 * API calls as `owner`, in `language`, each given the time left until `deadline` (ms) as its function time limit.
 * Emitted URLs name the site (CALENDAR_SITE_URL) or localhost: nothing an import keeps depends on them.
 */
export function ownerApi(owner: Caller, language: Language, deadline: number): OwnerApi {
  const site = URL.parse(process.env.CALENDAR_SITE_URL ?? '');
  const host = site?.host || 'localhost';
  const secret = process.env[ORIGIN_SECRET_VARIABLE];
  return {
    async call(method, rel, { query = {}, body, once } = {}) {
      const route = routeForPath(rel);
      if (!route) throw new Error(`no API route for ${rel}`);
      const rawPath = `${apiRoot(null)}${rel}`;
      const headers: Record<string, string> = { host, 'x-forwarded-proto': site?.protocol === 'http:' ? 'http' : 'https' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (secret) headers[EDGE_HEADERS.secret] = secret;
      const requestId = randomUUID();
      const event: APIGatewayProxyEventV2 = {
        version: '2.0', routeKey: '$default', rawPath, rawQueryString: new URLSearchParams({ ...query, translation_language: language }).toString(),
        headers, isBase64Encoded: false, ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        requestContext: {
          accountId: 'import', apiId: 'import', domainName: host, domainPrefix: host.split('.')[0]!, requestId, routeKey: '$default',
          stage: '$default', time: new Date().toUTCString(), timeEpoch: Date.now(),
          http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'calendar-import' },
        },
      };
      callers.set(event, once === undefined ? owner : creatingOnce(owner, once));
      const result = await handlerOf(route.group)(event, context(requestId, Math.min(deadline, Date.now() + CALL_MS)));
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(result.body ?? '{}') as Record<string, unknown>;
      } catch {
        parsed = {};
      }
      return { status: result.statusCode, body: parsed };
    },
  };
}

function context(requestId: string, deadline: number): Context {
  return {
    callbackWaitsForEmptyEventLoop: false, functionName: 'calendar-import', functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:calendar-import', memoryLimitInMB: '1024', awsRequestId: requestId,
    logGroupName: 'calendar-import', logStreamName: 'calendar-import', getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {}, fail: () => {}, succeed: () => {},
  };
}

/** An error answer as one line: its message and, for invalid parameters, each reason. */
export function answerMessage(answer: ApiAnswer): string {
  const message = typeof answer.body.message === 'string' ? answer.body.message : `HTTP ${answer.status}`;
  const data = answer.body.data;
  const params = typeof data === 'object' && data !== null && 'params' in data ? data.params : undefined;
  if (params && typeof params === 'object' && !Array.isArray(params)) {
    return `${message} (${Object.entries(params).map(([name, reason]) => `${name}: ${String(reason)}`).join('; ')})`;
  }
  return message;
}
