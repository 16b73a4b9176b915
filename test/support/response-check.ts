/**
 * Every JSON response the contract tests receive through `api()` is checked against the OpenAPI document the server
 * serves (GET {api}/doc): its status must be one the operation documents, and its body must validate against the
 * schema documented for that status. The serialisers and the document's schemas are written apart; this keeps them
 * in agreement on every response the suite sees.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { splitApiPath } from '../../lib/http/paths.js';
import { operationIds } from '../../lib/openapi/operation-ids.js';
import { ROUTES } from '../../lib/routes/all.js';
import { routeMatcher } from '../../lib/routes/matcher.js';

type Doc = { paths: Record<string, Record<string, { operationId?: string; responses: Record<string, Response> }>>;
  components: { responses?: Record<string, Response> } };
type Response = { $ref?: string; content?: Record<string, { schema?: unknown }> };

const matcher = routeMatcher(ROUTES);
const ids = operationIds(ROUTES);

interface Checker {
  check(method: string, url: URL, status: number, body: unknown): string | null;
}

let loading: Promise<Checker> | null = null;

/** The checker for the served document (fetched once per test worker). */
export function responseChecker(apiUrl: string): Promise<Checker> {
  loading ??= (async () => {
    const res = await fetch(`${apiUrl}/doc`);
    if (res.status !== 200) throw new Error(`GET /doc answered ${res.status}: responses cannot be checked`);
    return checkerFor((await res.json()) as Doc);
  })();
  return loading;
}

const pointer = (...parts: string[]): string => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function checkerFor(doc: Doc): Checker {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(doc, 'doc');
  const byId = new Map<string, { path: string; method: string }>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) if (op.operationId) byId.set(op.operationId, { path, method });
  }
  const compiled = new Map<string, ValidateFunction | null>();

  /** The validator of an operation's documented response (null when it documents no JSON body); undefined: not documented. */
  function validatorFor(path: string, method: string, status: number): ValidateFunction | null | undefined {
    const key = `${method} ${path} ${status}`;
    if (compiled.has(key)) return compiled.get(key);
    const responses = doc.paths[path]![method]!.responses;
    const code = String(status) in responses ? String(status) : 'default' in responses ? 'default' : null;
    if (code === null) return undefined;
    let response = responses[code]!;
    let at = `doc#/${pointer('paths', path, method, 'responses', code)}`;
    if (response.$ref) {
      const name = response.$ref.replace('#/components/responses/', '');
      response = doc.components.responses![name]!;
      at = `doc#/${pointer('components', 'responses', name)}`;
    }
    const validate = response.content?.['application/json']?.schema
      ? ajv.compile({ $ref: `${at}/${pointer('content', 'application/json', 'schema')}` }) : null;
    compiled.set(key, validate);
    return validate;
  }

  return {
    check(method, url, status, body) {
      const api = splitApiPath(url.pathname);
      if (!api || status === 304 || method === 'HEAD' || method === 'OPTIONS') return null;
      const match = matcher.matchRoute(api.rel.replace(/\/+$/, '') || '/', method);
      if (!('operation' in match)) return null; // 404/405 before any operation: the error shape is checked by its own tests
      const opId = ids.get(match.operation)!;
      const at = byId.get(opId);
      if (!at) return `${method} ${url.pathname}: operation ${opId} is not in the document`;
      const validate = validatorFor(at.path, at.method, status);
      if (validate === undefined) return `${method} ${url.pathname} answered ${status}, which ${opId} does not document`;
      if (validate === null || body === undefined) return null;
      if (validate(body)) return null;
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(body)'} ${e.message}`).join('; ');
      return `${method} ${url.pathname} ${status}: the body does not match ${opId}'s documented schema: ${errors}`;
    },
  };
}
