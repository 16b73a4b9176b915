/** Step 2 (contract §3, §4): credentials. A bad token is 401 before the body or any parameter is looked at. */
import { authenticate } from '../../auth/authenticate.js';
import { stateOf, type Middleware } from './state.js';

export const authentication = (): Middleware => ({
  before: async (request) => {
    const state = stateOf(request.event);
    state.caller = await authenticate(state.line.headers.authorization, state.line.sourceIp);
  },
});
