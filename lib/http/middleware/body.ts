/**
 * Step 3 (contract §2, §3): the body — size (413), type (415), syntax (400 rest_invalid_json) — and the merged
 * parameters: path values win over body values, which win over query values. middy's body parsers are not used:
 * they know neither PHP-style nested forms with limits nor the content-type fallback `curl -d` needs.
 */
import { parseBody } from '../request.js';
import { LANGUAGES, type Language } from '../../routes/types.js';
import { stateOf, type Middleware } from './state.js';

const WITHOUT_BODY = new Set(['GET', 'HEAD', 'OPTIONS']);

export const body = (): Middleware => ({
  before: (request) => {
    const state = stateOf(request.event);
    const parsed = WITHOUT_BODY.has(state.line.method) ? { values: {}, invalid: {} } : parseBody(request.event, state.line.headers);
    state.raw = { ...state.query, ...parsed.values, ...state.match!.pathParams };
    state.invalid = { ...state.invalid, ...parsed.invalid };
    // Errors from here on answer in the request's language (a body translation_language included).
    const lang = state.raw.translation_language;
    if ((LANGUAGES as readonly unknown[]).includes(lang)) state.lang = lang as Language;
  },
});
