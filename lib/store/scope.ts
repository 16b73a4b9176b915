/**
 * What the store knows about the request it runs for: a meter of DynamoDB requests and consumed capacity
 * (every request has one: its metrics report it, lib/http/middleware/observability.ts; benchmarks and tests read it
 * with CALENDAR_METER=1), and the deadline by which every DynamoDB call must have answered (the time the
 * function has left, so a hanging call ends as a 503 instead of a function timeout). No AWS SDK here, so code that
 * never talks to DynamoDB (the root function) can run requests in a scope without bundling the SDK.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { setMaxListeners } from 'node:events';

export interface Meter {
  requests: number;
  readUnits: number;
  writeUnits: number;
  /** Items DynamoDB evaluated (Query ScannedCount, BatchGet/Get items returned). */
  itemsRead: number;
  /** TransactWriteItems requests (among `requests`). */
  transactions: number;
}

export interface RequestScope {
  meter: Meter | null;
  /** Epoch milliseconds by which DynamoDB calls are abandoned; null for no limit. */
  deadline: number | null;
  signal?: AbortSignal;
  memo?: Map<string, Promise<unknown>>;
  /** Set once a transaction of this request has committed: a later failure cannot say that nothing changed. */
  committed?: boolean;
}

const scopes = new AsyncLocalStorage<RequestScope>();

export const newMeter = (): Meter => ({ requests: 0, readUnits: 0, writeUnits: 0, itemsRead: 0, transactions: 0 });

/** Runs fn in a request scope; every DynamoDB call inside it is metered and bounded by the deadline. */
export const runInScope = <T>(scope: RequestScope, fn: () => Promise<T>): Promise<T> => scopes.run(scope, fn);

export const currentMeter = (): Meter | null => scopes.getStore()?.meter ?? null;

/** Aborts when the request's deadline passes (one signal per request); undefined outside a scope or without one. */
export function deadlineSignal(): AbortSignal | undefined {
  const scope = scopes.getStore();
  if (!scope || scope.deadline === null) return undefined;
  if (!scope.signal) {
    scope.signal = AbortSignal.timeout(Math.max(0, scope.deadline - Date.now()));
    // Every DynamoDB call of the request listens to it, and a list runs dozens at once.
    setMaxListeners(1000, scope.signal);
  }
  return scope.signal;
}

/** Notes that a transaction of the current request committed. */
export function markCommitted(): void {
  const scope = scopes.getStore();
  if (scope) scope.committed = true;
}

/** Whether a transaction of the current request has committed (e.g. the unlinking that precedes a forced delete). */
export const committedInRequest = (): boolean => scopes.getStore()?.committed === true;

/** Milliseconds left before the deadline (Infinity without one). */
export function timeLeft(): number {
  const deadline = scopes.getStore()?.deadline;
  return deadline == null ? Infinity : deadline - Date.now();
}

/** A value computed once per request (e.g. the events meta item every window read of one list needs). */
export function perRequest<T>(key: string, compute: () => Promise<T>): Promise<T> {
  const scope = scopes.getStore();
  if (!scope) return compute();
  scope.memo ??= new Map();
  let value = scope.memo.get(key) as Promise<T> | undefined;
  if (!value) {
    value = compute();
    scope.memo.set(key, value);
    value.catch(() => scope.memo!.delete(key));
  }
  return value;
}
