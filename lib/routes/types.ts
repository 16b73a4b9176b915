/**
 * Declarative route and parameter definitions: the one source for request validation, the namespace index
 * (GET /), the OpenAPI document (GET /doc), the local server's routing and the CDK routes.
 */
import type { Caller } from '../auth/caller.js';
import type { RefKind } from '../model/kinds.js';

export type { RefKind };

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Group = 'root' | 'events' | 'venues' | 'organizers' | 'categories' | 'tags' | 'imports';
/** The functions: one per route group, and `pages` for the calendar pages (contract §21), outside the API (lib/pages/paths.ts). */
export type FunctionGroup = Group | 'pages';

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

/**
 * One parameter: where the document places it, its schema, and the parser that validates and normalises a present
 * value into a `T` (or throws ParamError with a reason a client can act on). `Present` is true when the handler always
 * gets a value (the parameter is required, or has a default), which types the handler's `ctx.params`.
 */
export interface ParamSpec<N extends string = string, T = unknown, Present extends boolean = boolean, Out = T> {
  name: N;
  /** Where the OpenAPI document places it. At run time path > body > query for every parameter. */
  in: 'path' | 'query' | 'body';
  description: string;
  schema: Schema;
  required?: boolean;
  /** Documented default (dynamic defaults are documented by their description). */
  default?: T;
  /** Validates and normalises a present value; throws ParamError with a human-readable reason. */
  parse(raw: unknown, ctx: ParseContext): T;
  /**
   * The ids (or, for terms, ids/slugs/names) in the parsed value must name existing records of this kind
   * (checked by the request pipeline against the store; unknown → 400 rest_invalid_param). Term references
   * are replaced by their ids.
   */
  refs?: RefKind;
  /** For values that are not plain ids (e.g. `{id}` or inline objects): the ids to check; the value is kept. */
  refIds?(value: T): (string | number)[];
  /** Type-level only: whether the handler always gets a value. */
  readonly present?: Present;
  /** Type-level only: what the handler gets (`T`, or the ids the pipeline resolved `refs` to). */
  readonly out?: Out;
}

/** The parsed parameters of an operation, as its handler gets them: `{ page: number; search?: string; … }`. */
export type ParamValues<L extends readonly ParamSpec[]> = {
  [S in L[number] as S extends ParamSpec<infer N, unknown, true, unknown> ? N : never]: S extends ParamSpec<string, unknown, true, infer O> ? O : never;
} & {
  [S in L[number] as S extends ParamSpec<string, unknown, true, unknown> ? never : S['name']]?: S extends ParamSpec<string, unknown, boolean, infer O> ? O : never;
};

/** Who may call an operation before the handler looks at a record (contract §3 processing order). */
/** The path parameters of a single-record route: its id, or its slug on the by-slug routes (id wins: `slug` may be a body field). */
export type RecordRefParams = { id: number } | { id?: undefined; slug: string };

export type Capability =
  | 'public'
  | 'signed_in' // any authenticated caller, subscribers included
  | 'create_posts' // contributor and above
  | 'edit_posts' // contributor and above; the handler checks the record itself
  | 'manage_categories' // author and above
  | 'manage_tags' // editor
  | 'manage_imports'; // editor (contract §20: only editors see imports)

// biome-ignore lint/suspicious/noExplicitAny: any parameter spec, whatever its value and default types
export type AnyParam = ParamSpec<string, any, boolean, any>;

export interface OperationSpec<L extends readonly AnyParam[] = readonly AnyParam[]> {
  /**
   * Unique internal id, e.g. "events.list": the key of the handler tables and of the CDK routes. The OpenAPI
   * operationId is derived from it (lib/openapi/operation-ids.ts: "events.list" → "listEvents").
   */
  id: string;
  method: Method;
  summary: string;
  params: L;
  capability: Capability;
  /** Success status; 202 when the work is queued (contract §20: an import and its runs). */
  success: 200 | 201 | 202;
  /** A create answered 202 (its work is queued): it takes Idempotency-Key and its answer names the new record in Location. */
  queuedCreate?: boolean;
  /** A second success status the operation answers in one case (an update that creates: a split series), and when. */
  alsoCreates?: string;
  /** 202 instead of the success status in one case (work queued for a worker: deleting an import with its events), and when. */
  alsoQueues?: string;
  /**
   * The error statuses of this operation's own checks and handler (403, 404, 410, 412…). The OpenAPI document adds
   * those the request pipeline can answer on any operation (400, 401, 413/415 with a body, 500, 503).
   */
  errors: number[];
  /** Component schema name of the success body, e.g. "Event" or "EventList". */
  response: string;
  /** Why a create does not take Idempotency-Key (contract §17), when it does not. */
  noReplay?: string;
  /** Media type of the success body when it is not JSON (the feeds' text/calendar, the reference page and its script). */
  mediaType?: 'text/calendar' | 'text/html' | 'application/javascript' | 'text/plain';
  /** Headers of the success answer beyond those every answer of its kind has (names of the document's component headers). */
  headers?: readonly string[];
}

/** Whether an operation takes Idempotency-Key (contract §17): creates, and updates that may create (with scope=following). */
export const takesIdempotencyKey = (op: OperationSpec): boolean =>
  (isCreate(op) || op.alsoCreates !== undefined) && !op.noReplay;

/** Whether an operation creates a record: 201, or 202 for a create whose work is queued (contract §3, §17). */
export const isCreate = (op: OperationSpec): boolean => op.success === 201 || op.queuedCreate === true;

export interface RouteSpec {
  /** Path relative to the API root with {id} (digits) and {slug} captures; "/" is the namespace index. */
  path: string;
  group: Group;
  operations: readonly OperationSpec[];
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
