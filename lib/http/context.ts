import type { Caller } from '../auth/caller.js';
import type { Language, Method, OperationSpec, RouteSpec } from '../routes/types.js';

export type { Caller } from '../auth/caller.js';

/** Everything a handler needs to know about one request, after routing, authentication and validation. */
export interface RequestContext<P = Record<string, unknown>> {
  method: Method;
  route: RouteSpec;
  operation: OperationSpec;
  /** Request language: translation_language, else the path prefix, else en (contract §8). */
  lang: Language;
  /** The language path prefix the request came in under, if any. */
  prefix: Language | null;
  headers: Record<string, string>;
  /** Raw merged parameters (path > body > query). */
  raw: Record<string, unknown>;
  /** Names of parameters present in the query string (the events window needs to know). */
  queryNames: Set<string>;
  /** Validated, normalised parameters; only present ones (and documented defaults), typed by the route definitions. */
  params: P;
  caller: Caller | null;
  /** Absolute API root for emitted URLs, e.g. https://host/prod/de/calendar/events/v1 (or …/wp-json/tribe/events/v1) */
  apiUrl: string;
  /** The namespace of the base the request came in under: calendar/events/v1 or the origin's tribe/events/v1. */
  namespace: string;
  /** scheme://host[:port] of the request. */
  origin: string;
  /** Host header (port included), for global_id. */
  host: string;
  /** Public site origin for `url` fields. */
  siteUrl: string;
  requestId: string;
  /** The client's address (the per-address reservation limit, contract §19). */
  sourceIp: string;
  /** The caller's integer user id (allocated the first time a `sub` is seen); null when anonymous. */
  userId(): Promise<number | null>;
}
