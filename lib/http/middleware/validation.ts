/**
 * Step 4 (contract §3): required parameters (400 rest_missing_callback_param), then every parameter's own parser and
 * the existence of the records it names (400 rest_invalid_param, all reasons at once). Builds the RequestContext.
 */
import { config } from '../../config.js';
import type { RefKind } from '../../routes/types.js';
import { isLanguage } from '../../model/language.js';
import type { RequestContext } from '../context.js';
import { invalidParams, missingParams, ParamError } from '../errors.js';
import { apiRoot } from '../paths.js';
import { stateOf, type Middleware } from './state.js';

/**
 * What the pipeline itself reads from the store: reference checks and the caller's user id. Functions that own data
 * pass lib/store/pipeline.ts; the root function passes none and so bundles no database code.
 */
export interface PipelineStore {
  /**
   * Per value, the id of the record it names, or null. `filter` references (query values) must name records the
   * caller may read; `link` references (write bodies) must exist, and be readable to an anonymous caller — the
   * handler decides for signed-in writers, who may re-send a link their record already has (contract §7).
   */
  resolveRefs(kind: RefKind, values: (string | number)[], ctx: RequestContext, use: 'filter' | 'link'): Promise<(number | null)[]>;
  userIdForSub(sub: string): Promise<number>;
}

export const validation = (store: PipelineStore | null): Middleware => ({
  before: async (request) => {
    const state = stateOf(request.event);
    const { line, api, match, caller, raw } = state;
    let userId: Promise<number | null> | null = null;
    const ctx: RequestContext = {
      method: match!.operation.method,
      route: match!.route,
      operation: match!.operation,
      lang: api!.prefix ?? 'en',
      prefix: api!.prefix,
      headers: line.headers,
      raw,
      queryNames: new Set(Object.keys(state.query)),
      params: {},
      caller,
      apiUrl: `${line.origin}${line.stagePath}${apiRoot(api!.prefix, api!.base)}`,
      namespace: api!.base.namespace,
      origin: line.origin,
      host: line.host,
      siteUrl: config().siteUrl ?? line.origin,
      requestId: line.requestId,
      sourceIp: line.sourceIp,
      userId: () => (userId ??= caller && store ? store.userIdForSub(caller.sub) : Promise.resolve(null)),
    };
    state.ctx = ctx;

    const specs = match!.operation.params;
    const missing = specs.filter((p) => p.required && (raw[p.name] === undefined || raw[p.name] === null)).map((p) => p.name);
    if (missing.length) throw missingParams(missing);

    const invalid: Record<string, string> = {};
    for (const spec of specs) {
      if (state.invalid[spec.name]) {
        invalid[spec.name] = state.invalid[spec.name]!;
        continue;
      }
      const value = raw[spec.name];
      if (value === undefined) {
        if (spec.default !== undefined) ctx.params[spec.name] = spec.default;
        continue;
      }
      try {
        ctx.params[spec.name] = await spec.parse(value, ctx);
      } catch (e) {
        if (!(e instanceof ParamError)) throw e;
        invalid[spec.name] = `${spec.name} ${e.message}`;
      }
    }
    for (const spec of specs) {
      if (!spec.refs || invalid[spec.name] || ctx.params[spec.name] === undefined) continue;
      const value = ctx.params[spec.name];
      const list = spec.refIds ? spec.refIds(value) : ((Array.isArray(value) ? value : [value]) as (string | number)[]);
      if (!store) throw new Error(`${spec.name} needs the store to check its references`);
      const ids = await store.resolveRefs(spec.refs, list, ctx, spec.in === 'body' ? 'link' : 'filter');
      const unknown = list.filter((_, i) => ids[i] === null);
      if (unknown.length) invalid[spec.name] = `${spec.name}: no ${spec.refs} ${unknown.join(', ')}`;
      else if (!spec.refIds) ctx.params[spec.name] = Array.isArray(value) ? [...new Set(ids)] : ids[0];
    }
    if (Object.keys(invalid).length) throw invalidParams(invalid);
    const lang = ctx.params.translation_language;
    if (isLanguage(lang)) ctx.lang = lang;
    state.lang = ctx.lang;
  },
});
