import type { Role } from '../auth/roles.js';
import type { Language, Method, OperationSpec, RouteSpec } from '../routes/types.js';

export interface Caller {
  sub: string;
  role: Role;
}

/** Everything a handler needs to know about one request, after routing, authentication and validation. */
export interface RequestContext {
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
  /** Validated, normalised parameters; only present ones (and documented defaults). */
  params: Record<string, unknown>;
  caller: Caller | null;
  /** Absolute API root for emitted URLs, e.g. https://host/prod/de/calendar/events/v1 */
  apiUrl: string;
  /** scheme://host[:port] of the request. */
  origin: string;
  /** Host header (port included), for global_id. */
  host: string;
  /** Public site origin for `url` fields. */
  siteUrl: string;
  requestId: string;
  /** The caller's integer user id (allocated the first time a `sub` is seen); null when anonymous. */
  userId(): Promise<number | null>;
}

export const isEditor = (ctx: RequestContext): boolean => ctx.caller?.role === 'editor';
