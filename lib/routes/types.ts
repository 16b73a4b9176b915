/**
 * Declarative route and parameter definitions: the one source for request validation, the namespace index
 * (GET /), the OpenAPI document (GET /doc), the local server's routing and the CDK routes.
 */
import type { Caller } from '../auth/caller.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Group = 'root' | 'events' | 'venues' | 'organizers' | 'categories' | 'tags';

/**
 * A JSON-schema fragment (OpenAPI 3.0 dialect), as it appears in the namespace index and the OpenAPI document. It
 * describes what the parameter's parser accepts on the wire, no stricter. `type: 'boolean'` keeps its WordPress
 * meaning (true/false, 1/0, yes/no, on/off in any case; contract §2): the OpenAPI document spells that out
 * (lib/openapi/inputs.ts), the namespace index shows it as WordPress does.
 */
export type Schema = {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
  format?: string;
  enum?: readonly unknown[];
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  maxItems?: number;
  default?: unknown;
  description?: string;
  $ref?: string;
  nullable?: boolean;
};

/** What a parameter's parser may know of the request besides the value: who is calling. */
export interface ParseContext {
  caller: Caller | null;
}

export interface ParamSpec {
  name: string;
  /** Where the OpenAPI document places it. At run time path > body > query for every parameter. */
  in: 'path' | 'query' | 'body';
  description: string;
  schema: Schema;
  required?: boolean;
  /** Documented default (dynamic defaults are documented by their description). */
  default?: unknown;
  /** Validates and normalises a present value; throws ParamError with a human-readable reason. */
  parse: (raw: unknown, ctx: ParseContext) => unknown;
  /**
   * The ids (or, for terms, ids/slugs/names) in the parsed value must name existing records of this kind
   * (checked by the request pipeline against the store; unknown → 400 rest_invalid_param). Term references
   * are replaced by their ids.
   */
  refs?: RefKind;
  /** For values that are not plain ids (e.g. `{id}` or inline objects): the ids to check; the value is kept. */
  refIds?: (value: unknown) => (string | number)[];
}

import type { RefKind } from '../model/kinds.js';
export type { RefKind };

/** Who may call an operation before the handler looks at a record (contract §3 processing order). */
export type Capability =
  | 'public'
  | 'signed_in' // any authenticated caller, subscribers included
  | 'create_posts' // contributor and above
  | 'edit_posts' // contributor and above; the handler checks the record itself
  | 'manage_categories' // author and above
  | 'manage_tags'; // editor

export interface OperationSpec {
  /**
   * Unique internal id, e.g. "events.list": the key of the handler tables and of the CDK routes. The OpenAPI
   * operationId is derived from it (lib/openapi/operation-ids.ts: "events.list" → "listEvents").
   */
  id: string;
  method: Method;
  summary: string;
  params: ParamSpec[];
  capability: Capability;
  /** Success status. */
  success: 200 | 201;
  /**
   * The error statuses of this operation's own checks and handler (403, 404, 410, 412…). The OpenAPI document adds
   * those the request pipeline can answer on any operation (400, 401, 413/415 with a body, 500, 503).
   */
  errors: number[];
  /** Component schema name of the success body, e.g. "Event" or "EventList". */
  response: string;
}

export interface RouteSpec {
  /** Path relative to the API root with {id} (digits) and {slug} captures; "/" is the namespace index. */
  path: string;
  group: Group;
  operations: OperationSpec[];
}

export const NAMESPACE = 'calendar/events/v1';

/**
 * The path bases every route answers under (contract §1, §12): ours, and the origin's, so that its clients work
 * unchanged. Responses under a base emit URLs under it, and the root index names its namespace.
 */
export const BASES = [
  { path: NAMESPACE, namespace: NAMESPACE },
  { path: 'wp-json/tribe/events/v1', namespace: 'tribe/events/v1' },
] as const;
export type Base = (typeof BASES)[number];
export { LANGUAGES, type Language } from '../model/language.js';
