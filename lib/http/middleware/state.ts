/** What the pipeline's middlewares learn about one request, step by step, and hand to the next. */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { MiddlewareObj, Request } from '@middy/core';
import type { Language } from '../../routes/types.js';
import type { RouteMatch } from '../../routes/matcher.js';
import type { Caller, RequestContext } from '../context.js';
import type { ApiPath } from '../paths.js';
import type { RequestLine } from '../request.js';
import type { HttpResult } from '../response.js';

export interface State {
  line: RequestLine;
  api: ApiPath | null;
  match: RouteMatch | null;
  /** The language responses (errors included) are in; settled by validation. */
  lang: Language;
  /** Query values and the names whose lists broke the limits (contract §2). */
  query: Record<string, unknown>;
  invalid: Record<string, string>;
  caller: Caller | null;
  /** Merged parameters, path > body > query. */
  raw: Record<string, unknown>;
  ctx: RequestContext | null;
}

export type PipelineRequest = Request<APIGatewayProxyEventV2, HttpResult, Error, Context>;
export type Middleware = MiddlewareObj<APIGatewayProxyEventV2, HttpResult, Error, Context>;

/** What `line` holds until the first middleware reads the request's (lib/http/handler.ts). */
const unreadLine = (): RequestLine => ({ method: '', path: '', stagePath: '', headers: {}, origin: '', host: '', requestId: '', sourceIp: '' });

/** One state per request, keyed by its event object (the middlewares and the operation all see that object). */
const states = new WeakMap<APIGatewayProxyEventV2, State>();

export function stateOf(event: APIGatewayProxyEventV2): State {
  let state = states.get(event);
  if (!state) {
    // `line` is set by the first middleware (lib/http/handler.ts) before anything reads it.
    state = { line: unreadLine(), api: null, match: null, lang: 'en', query: {}, invalid: {}, caller: null, raw: {}, ctx: null };
    states.set(event, state);
  }
  return state;
}
