/**
 * Step 3b (contract §17): idempotent creates. A create sent with `Idempotency-Key` takes the key for its caller, runs,
 * and leaves its answer under the key for 24 hours; a repeat of the same request by the same caller gets that answer
 * again (with `Idempotent-Replayed: true`) and runs nothing. The same key with another request is 422, a key whose
 * first request is still running 409 with Retry-After; a request that fails frees its key. Runs after authentication
 * and the body, before validation. Storage: lib/store/idempotency.ts (Powertools for AWS Lambda's persistence layer).
 */
import { isCreate, takesIdempotencyKey } from '../../routes/types.js';
import { invalidParam } from '../errors.js';
import type { HttpResult } from '../response.js';
import { stateOf, type Middleware, type PipelineRequest } from './state.js';

const HEADER = 'Idempotency-Key';
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

const keys = () => import('./idempotency-keys.js');

/** The requests that took a key (its holding, storing and replay: ./idempotency-keys.ts). */
const taking = new WeakSet<object>();

async function before(request: PipelineRequest): Promise<HttpResult | undefined> {
  const state = stateOf(request.event);
  const operation = state.match!.operation;
  const key = request.event.headers?.['idempotency-key'];
  if (key === undefined || !takesIdempotencyKey(operation)) return undefined;
  // An update takes the key only when it may create (contract §17: "and ?scope=following").
  if (!isCreate(operation) && String(state.raw.scope ?? '').trim().toLowerCase() !== 'following') return undefined;
  if (!VALID_KEY.test(key)) throw invalidParam(HEADER, 'must be 1 to 255 visible ASCII characters');
  // An anonymous create is refused (401) by the authorization step and takes no key, except a reservation (contract §19),
  // whose key is scoped to its ticket.
  const anonymousScope = operation.id === 'attendees.create' ? `anonymous#ticket#${String(state.raw.ticket_id ?? '')}` : null;
  if (!state.caller && !anonymousScope) return undefined;
  taking.add(request.event);
  return (await keys()).take(request, state.caller?.sub ?? anonymousScope!, key);
}

async function after(request: PipelineRequest): Promise<void> {
  if (taking.has(request.event)) await (await keys()).store(request);
}

async function onError(request: PipelineRequest): Promise<void> {
  if (taking.has(request.event)) await (await keys()).free(request);
}

export const idempotency = (): Middleware => ({ before, after, onError });
