/** Step 2 (contract §3, §4): credentials. A bad token is 401 before the body or any parameter is looked at. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { authenticate } from '../../auth/authenticate.js';
import type { Caller } from '../../auth/caller.js';
import { stateOf, type Middleware } from './state.js';

/**
 * Who calls an in-process handler (lib/imports/api.ts runs API operations as an import's owner): the caller is given
 * with the event object itself, never read from a header. Handlers built with it serve no HTTP request.
 */
export type InProcessCaller = (event: APIGatewayProxyEventV2) => Caller;

export const authentication = (inProcess?: InProcessCaller): Middleware => ({
  before: async (request) => {
    const state = stateOf(request.event);
    state.caller = inProcess ? inProcess(request.event) : await authenticate(state.line.headers.authorization, state.line.sourceIp);
  },
});
