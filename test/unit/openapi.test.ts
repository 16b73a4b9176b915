/** The OpenAPI document (GET {api}/doc) and the namespace index (GET {api}), both generated from ROUTES. */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv } from 'ajv';
import { TEXT_LIMITS } from '../../lib/routes/parsers.js';
import { allowedMethods } from '../../lib/routes/match.js';
import { ROUTES, type OperationSpec, type RouteSpec } from '../../lib/routes/index.js';
import { buildOpenApiDocument, buildServers, paramSchema } from '../../lib/openapi/document.js';
import { operationId } from '../../lib/openapi/operation-ids.js';
import { buildNamespaceIndex, routeKey, type NamespaceIndex } from '../../lib/openapi/namespace-index.js';
import { COMPONENT_SCHEMAS, responseSchemaName, type OpenApiSchema } from '../../lib/openapi/schemas.js';
import { splitApiUrl } from '../../lib/openapi/urls.js';

type Json = Record<string, any>;

const API = 'https://api.example.com/prod/calendar/events/v1';
const DE_API = 'https://api.example.com/prod/de/calendar/events/v1';

/** What goes over the wire. */
const wire = <T>(value: T): Json => JSON.parse(JSON.stringify(value));
const doc: Json = wire(buildOpenApiDocument({ apiUrl: API }));
const index: Json = wire(buildNamespaceIndex({ apiUrl: API }));

const allOperations = (): { route: RouteSpec; op: OperationSpec }[] =>
  ROUTES.flatMap((route) => route.operations.map((op) => ({ route, op })));
const docOp = (route: RouteSpec, op: OperationSpec): Json => doc.paths[route.path][op.method.toLowerCase()];

function resolve(document: Json, pointer: string): Json | undefined {
  if (!pointer.startsWith('#/')) return undefined;
  let node: any = document;
  for (const part of pointer.slice(2).split('/')) node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node;
}

/** Every object in a JSON tree, with its path. */
function* walk(node: unknown, path = '#'): Generator<[string, Json]> {
  if (!node || typeof node !== 'object') return;
  if (!Array.isArray(node)) yield [path, node as Json];
  for (const [k, v] of Object.entries(node)) yield* walk(v, `${path}/${k}`);
}

describe('OpenAPI document', () => {
  it('validates as OpenAPI 3.0 with a standard validator', async () => {
    const result = await new Validator().validate(wire(buildOpenApiDocument({ apiUrl: DE_API, serverUrls: [API] })));
    if (!result.valid) console.error(JSON.stringify(result.errors, null, 2));
    expect(result.valid).toBe(true);
  });

  it('is checked by that validator for real (a broken copy is rejected)', async () => {
    const broken = wire(doc);
    broken.paths['/events'].get.parameters[0].in = 'nowhere';
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('documents the methods a path does not support (405 with Allow)', () => {
    expect(doc.paths['/events'].description).toMatch(/405 rest_no_route with Allow: GET, POST, OPTIONS/);
    expect(doc.paths['/tags/{id}'].description).toMatch(/Allow: GET, POST, PUT, PATCH, DELETE, OPTIONS/);
  });

  it('has the top-level keys in order, OpenAPI 3.0.3 and the API info with a contact and a license', () => {
    expect(Object.keys(doc)).toEqual(['openapi', 'info', 'servers', 'tags', 'components', 'paths']);
    expect(doc.info.contact).toEqual({ name: expect.stringMatching(/\S/) });
    expect(doc.info.license).toEqual({ name: 'MIT', url: expect.stringMatching(/^https:\/\//) });
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.title).toBe('Calendar Events API');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.info.description).toMatch(/wire-compatible with The Events Calendar REST API v1/i);
    expect(doc.info.description).toMatch(/translation_language/);
  });

  it('documents exactly the paths of ROUTES, the root and /doc included, in route order', () => {
    expect(Object.keys(doc.paths)).toEqual(ROUTES.map((r) => r.path));
    expect(doc.paths['/']).toBeDefined();
    expect(doc.paths['/doc']).toBeDefined();
    expect(doc.paths['/events/{id}']).toBeDefined();
  });

  it('has one operation per OperationSpec with a declared group tag, its summary and a unique operationId without dots', () => {
    const methods = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace'];
    const declared = new Map((doc.tags as Json[]).map((t) => [t.name, t.description]));
    expect([...declared.keys()]).toEqual([...new Set(ROUTES.map((r) => r.group))]);
    for (const description of declared.values()) expect(description).toMatch(/\S{3}/);
    for (const route of ROUTES) {
      const documented = Object.keys(doc.paths[route.path]).filter((k) => methods.includes(k));
      expect(documented.sort()).toEqual(route.operations.map((o) => o.method.toLowerCase()).sort());
      for (const op of route.operations) {
        const o = docOp(route, op);
        expect(o.operationId).toBe(operationId(route, op));
        expect(o.operationId).toMatch(/^[a-z][A-Za-z0-9]*$/);
        expect(o.summary).toBe(op.summary);
        expect(o.tags).toEqual([route.group]);
        expect(declared.has(route.group)).toBe(true);
      }
    }
    const ids = allOperations().map(({ route, op }) => docOp(route, op).operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => id.includes('.'))).toEqual([]);
    const at = (path: string, method: string): string => doc.paths[path][method].operationId;
    expect([at('/', 'get'), at('/doc', 'get'), at('/events', 'get'), at('/events', 'post'), at('/events/by-slug/{slug}', 'get'),
      at('/events/{id}', 'put'), at('/tags/{id}', 'patch'), at('/venues/by-slug/{slug}', 'delete'), at('/categories', 'get')])
      .toEqual(['getNamespaceIndex', 'getOpenApiDocument', 'listEvents', 'createEvent', 'getEventBySlug', 'putEvent', 'patchTag',
        'deleteVenueBySlug', 'listCategories']);
  });

  it('documents every path and query parameter with its place, requirement, description and schema', () => {
    for (const { route, op } of allOperations()) {
      const parameters: Json[] = docOp(route, op).parameters ?? [];
      const seen = new Set(parameters.map((p) => `${p.in}:${p.name}`));
      expect(seen.size).toBe(parameters.length);
      for (const p of op.params.filter((x) => x.in !== 'body')) {
        const documented = parameters.find((d) => d.name === p.name && d.in === p.in);
        expect(documented).toBeDefined();
        expect(documented!.required).toBe(p.in === 'path' ? true : p.required === true);
        expect(documented!.description).toBe(p.description);
        expect(documented!.schema).toEqual(wire(paramSchema(p)));
        if (p.schema.type && p.schema.type !== 'boolean') expect(documented!.schema.type).toBe(p.schema.type);
        if (p.default !== undefined) expect(documented!.schema.default).toEqual(p.default);
        if (p.in === 'query' && p.schema.type === 'array') expect(documented!.schema.maxItems).toBe(100);
        if (p.in === 'query' && p.schema.type === 'array') expect(documented).toMatchObject({ style: 'form', explode: false });
      }
      // every {capture} of the path is a required path parameter
      for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) {
        expect(parameters.find((d) => d.in === 'path' && d.name === name)?.required).toBe(true);
      }
      expect(parameters.filter((d) => d.in === 'path').length).toBe([...route.path.matchAll(/\{(\w+)\}/g)].length);
    }
  });

  it('documents body parameters as a JSON and form request body with the required ones', () => {
    let bodies = 0;
    for (const { route, op } of allOperations()) {
      const body = op.params.filter((p) => p.in === 'body');
      const requestBody = docOp(route, op).requestBody;
      if (body.length === 0) {
        expect(requestBody).toBeUndefined();
        continue;
      }
      bodies += 1;
      expect(Object.keys(requestBody.content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
      for (const media of Object.values<Json>(requestBody.content)) {
        const schema = media.schema.$ref ? resolve(doc, media.schema.$ref)! : media.schema;
        expect(schema.type).toBe('object');
        expect(Object.keys(schema.properties).sort()).toEqual(body.map((p) => p.name).sort());
        for (const p of body) expect(schema.properties[p.name].description).toBe(p.description);
        const required = body.filter((p) => p.required).map((p) => p.name);
        if (required.length) expect([...schema.required].sort()).toEqual(required.sort());
        else expect(schema.required).toBeUndefined();
      }
      expect(requestBody.required).toBe(body.some((p) => p.required));
    }
    expect(bodies).toBeGreaterThan(0);
    const create = doc.paths['/events'].post.requestBody.content['application/json'].schema;
    expect([...resolve(doc, create.$ref)!.required].sort()).toEqual(['end_date', 'start_date', 'title']);
  });

  it('declares optional credentials (anonymous, Bearer or Basic) on reads and required ones on writes', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(doc.components.securitySchemes.basicAuth).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(doc.security).toBeUndefined();
    let reads = 0;
    let writes = 0;
    for (const { route, op } of allOperations()) {
      const o = docOp(route, op);
      if (op.capability === 'public') {
        expect(o.security).toEqual([{}, { bearerAuth: [] }, { basicAuth: [] }]);
        // Reads, and reservations (contract §19): anyone who may read the event reserves, with a token for the rest.
        if (op.method !== 'GET') expect(op.id).toMatch(/^attendees\./);
        reads += 1;
      } else {
        expect(o.security).toEqual([{ bearerAuth: [] }, { basicAuth: [] }]);
        // Only the caller's own application passwords are read with credentials required.
        // …and an event's attendees, by whoever may edit it (contract §19).
        // …and imports, which only editors see (contract §20).
        if (op.method === 'GET') expect(['appPasswords.list', 'attendees.list', 'imports.list', 'imports.get']).toContain(op.id);
        writes += 1;
      }
    }
    expect([reads, writes]).toEqual([31, 54]);
  });

  it('documents the success response with the named component and every error status with Error', () => {
    for (const { route, op } of allOperations()) {
      const responses = docOp(route, op).responses;
      const success = responses[String(op.success)];
      // JSON, but for the feeds (contract §14) and the reference page and its files (§10); errors JSON as everywhere
      const media = route.path.endsWith('.ics') ? 'text/calendar' : ({ '/doc.html': 'text/html', '/doc.html/redoc.standalone.js':
        'application/javascript', '/doc.html/redoc.standalone.js.LICENSE.txt': 'text/plain' } as Json)[route.path] ?? 'application/json';
      expect(Object.keys(success.content)).toEqual([media]);
      expect(success.content[media].schema).toEqual({ $ref: `#/components/schemas/${responseSchemaName(op.response)}` });
      expect(success.description).toEqual(expect.any(String));
      for (const [status, response] of Object.entries<Json>(responses)) {
        if (Number(status) === op.success || (op.alsoCreates && status === '201') || (op.alsoQueues && status === '202')) continue;
        if (status === '304') {
          expect([op.id, response]).toEqual([op.id, { $ref: '#/components/responses/NotModified' }]);
          continue;
        }
        const error = response.$ref ? resolve(doc, response.$ref)! : response;
        expect(error.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
        expect(error.description.length).toBeGreaterThan(10);
      }
      const statuses = Object.keys(responses).map(Number);
      expect(statuses.every((s) => s === op.success || (op.alsoCreates && s === 201) || (op.alsoQueues && s === 202)
        || (s === 304 && op.method === 'GET') || s >= 400))
        .toBe(true);
    }
    expect(doc.paths['/events/{id}'].delete.responses['410'].description).toMatch(/trash/);
    expect(doc.paths['/events/{id}'].post.responses['412'].description).toMatch(/ETag/);
    expect(doc.paths['/events'].post.responses['413'].description).toMatch(/1 MiB.*350 KB/);
    expect(doc.paths['/events'].get.responses['404'].description).toMatch(/past the last page/);
    expect(doc.paths['/venues/{id}'].get.responses['404'].description).toMatch(/rest-venue-not-found/);
    expect(resolve(doc, doc.paths['/events'].post.responses['401'].$ref)!.description).toMatch(/Credentials are needed/);
    expect(resolve(doc, doc.paths['/events'].get.responses['503'].$ref)!.description).toMatch(/Retry-After/);
    expect(resolve(doc, doc.paths['/events'].post.responses['415'].$ref)!.description).toMatch(/rest_unsupported_media_type/);
  });

  it('lists exactly the statuses each operation can answer (304 on every GET; 405 belongs to paths)', () => {
    /** Spelled out from the handlers and the pipeline (lib/http/middleware, lib/*\/operations.ts), not from the generator. */
    const expected = (route: RouteSpec, op: OperationSpec): number[] => {
      const trashable = ['events', 'venues', 'organizers'].includes(route.group);
      const terms = ['categories', 'tags'].includes(route.group);
      // parameters (operations that take any), a refused Authorization header, failures, the store or the clock
      const pipeline = [...(op.params.length ? [400] : []), 401, 500, 503];
      const conditional = op.method === 'GET' ? [304] : []; // If-None-Match (lib/http/middleware/conditional.ts)
      // Idempotency-Key on creates, the application password's excepted (lib/http/middleware/idempotency.ts)
      const keyed = (op.success === 201 || op.queuedCreate || op.alsoCreates) && op.id !== 'appPasswords.create' ? [409, 422] : [];
      const body = [413, 415]; // any method with a body, DELETE included
      const verb = op.id.startsWith('appPasswords.') ? `password-${op.id.split('.')[1]}` : op.id === 'changes.list' ? 'changes'
        : route.group === 'root' ? 'root' : op.id.split('.')[1]!.replace(/BySlug$/, '');
      const own: Record<string, number[]> = {
        root: [],
        'password-list': [],
        'password-create': body,
        'password-delete': [404, ...body],
        list: trashable ? [404] : [],
        changes: [410], // an expired cursor
        listFeed: [],
        getFeed: [403, 404],
        occurrences: [404],
        get: terms ? [404] : [403, 404],
        create: [403, ...body],
        update: [403, 404, 412, ...body],
        delete: [403, 404, 412, ...(trashable ? [410] : []), ...body],
      };
      // Tickets and attendees (contract §19, lib/tickets/): attendee routes answer 404 where others answer 401/403.
      const tickets: Record<string, number[]> = {
        'tickets.list': [404], 'tickets.ofEvent': [404], 'tickets.create': [403, ...body], 'tickets.get': [404],
        'tickets.update': [403, 404, ...body], 'tickets.delete': [403, 404, 409, ...body],
        'attendees.list': [403, 404], 'attendees.create': [409, 429, ...body], 'attendees.get': [404],
        'attendees.update': [404, 409, ...body], 'attendees.delete': [404, ...body],
      };
      // Imports (contract §20, lib/imports/operations.ts): editors only; 202 when queued; 409 while a run is queued or running, or at the limit.
      Object.assign(tickets, { 'imports.list': [403, 404], 'imports.create': [403, 409, ...body], 'imports.get': [403, 404],
        'imports.update': [403, 404, ...body], 'imports.delete': [202, 403, 404, ...body], 'imports.run': [403, 404, 409, ...body] });
      const mine = tickets[op.id.replace(/\.(put|patch)$/, '')];
      if (mine) return [...new Set([op.success, ...conditional, ...keyed, ...pipeline, ...mine])].sort((a, b) => a - b);
      return [...new Set([op.success, ...(op.alsoCreates ? [201] : []), ...conditional, ...keyed, ...pipeline, ...own[verb]!])].sort((a, b) => a - b);
    };
    const table = allOperations().map(({ route, op }) =>
      [`${op.method} ${route.path}`, Object.keys(docOp(route, op).responses).map(Number).sort((a, b) => a - b)]);
    expect(table).toEqual(allOperations().map(({ route, op }) => [`${op.method} ${route.path}`, expected(route, op)]));
    const answering = (status: number): string[] =>
      allOperations().filter(({ route, op }) => docOp(route, op).responses[String(status)]).map(({ route, op }) => `${op.method} ${route.path}`);
    expect(answering(422)).toEqual(['POST /events', 'POST /events/{id}', 'PUT /events/{id}', 'PATCH /events/{id}', 'POST /events/by-slug/{slug}',
      'PUT /events/by-slug/{slug}', 'PATCH /events/by-slug/{slug}', 'POST /venues', 'POST /organizers', 'POST /categories', 'POST /tags',
      'POST /tickets', 'POST /attendees', 'POST /imports']);
    const key = (method: string, path: string) => doc.paths[path][method].parameters.find((p: Json) => p.name === 'Idempotency-Key');
    expect(key('post', '/events')).toMatchObject({ in: 'header', schema: { maxLength: 255 } });
    expect(key('patch', '/events/{id}').description).toMatch(/scope=following/);
    expect(key('post', '/application-passwords')).toBeUndefined();
    expect(doc.paths['/events'].post.responses['201'].headers['Idempotent-Replayed']).toBeDefined();
    expect(answering(410)).toEqual(['DELETE /events/{id}', 'DELETE /events/by-slug/{slug}', 'DELETE /venues/{id}',
      'DELETE /venues/by-slug/{slug}', 'DELETE /organizers/{id}', 'DELETE /organizers/by-slug/{slug}', 'GET /changes']);
    expect(answering(304)).toEqual(allOperations().filter(({ op }) => op.method === 'GET').map(({ route, op }) => `${op.method} ${route.path}`));
    expect(answering(405)).toEqual([]);
    expect(answering(415)).toEqual(allOperations().filter(({ op }) => op.method !== 'GET').map(({ route, op }) => `${op.method} ${route.path}`));
    expect(answering(503).length).toBe(allOperations().length);
    // If-Match is a parameter exactly where 412 can be answered
    for (const { route, op } of allOperations()) {
      const o = docOp(route, op);
      expect([`${op.method} ${route.path}`, (o.parameters ?? []).some((p: Json) => p.in === 'header' && p.name === 'If-Match')])
        .toEqual([`${op.method} ${route.path}`, '412' in o.responses]);
    }
  });

  it('documents the feeds: text/calendar bodies, the /events filters and limit without paging, JSON errors', () => {
    const list = doc.paths['/events.ics'].get;
    const one = doc.paths['/events/{id}.ics'].get;
    expect([list.operationId, one.operationId]).toEqual(['listEventsFeed', 'getEventFeed']);
    for (const op of [list, one]) {
      expect(op.responses['200'].content).toEqual({ 'text/calendar': { schema: { $ref: '#/components/schemas/Calendar' } } });
      expect(op.responses['200'].headers.ETag).toEqual({ $ref: '#/components/headers/ETag' }); // contract §15: feeds too
    }
    expect(doc.components.schemas.Calendar.type).toBe('string');
    const names = (list.parameters as Json[]).map((p) => p.name);
    const listNames = (doc.paths['/events'].get.parameters as Json[]).map((p) => p.name);
    expect(names).toEqual([...listNames.filter((n) => n !== 'page' && n !== 'per_page' && n !== 'If-None-Match'), 'limit', 'If-None-Match']);
    expect(list.parameters.find((p: Json) => p.name === 'limit').schema).toMatchObject({ type: 'integer', minimum: 1, default: 500 });
    expect(one.responses['404'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(index.routes['/calendar/events/v1/events\\.ics']).toBeDefined();
    expect(index.routes['/calendar/events/v1/events/(?P<id>\\d+)\\.ics']).toBeDefined();
    expect(doc.info.description).toMatch(/text\/calendar/);
  });

  it('documents the reference page and the files it loads: text/html with its CSP, gzip-able application/javascript, text/plain', () => {
    const [page, script, license] = ['/doc.html', '/doc.html/redoc.standalone.js', '/doc.html/redoc.standalone.js.LICENSE.txt']
      .map((path) => doc.paths[path].get);
    expect([page.operationId, script.operationId, license.operationId])
      .toEqual(['getReferencePage', 'getReferencePageScript', 'getReferencePageScriptLicense']);
    expect(page.responses['200'].content).toEqual({ 'text/html': { schema: { $ref: '#/components/schemas/DocPage' } } });
    expect(script.responses['200'].content).toEqual({ 'application/javascript': { schema: { $ref: '#/components/schemas/DocScript' } } });
    expect(license.responses['200'].content).toEqual({ 'text/plain': { schema: { $ref: '#/components/schemas/DocScriptLicense' } } });
    expect(page.responses['200'].headers['Content-Security-Policy']).toEqual({ $ref: '#/components/headers/Content-Security-Policy' });
    expect(script.responses['200'].headers['Content-Encoding']).toEqual({ $ref: '#/components/headers/Content-Encoding' });
    expect(doc.components.headers['Content-Encoding'].schema).toEqual({ type: 'string', enum: ['gzip'] });
    for (const name of ['DocPage', 'DocScript', 'DocScriptLicense']) expect(doc.components.schemas[name].type).toBe('string');
    expect(doc.info.description).toMatch(/GET \/doc\.html answers text\/html/);
    expect(doc.info.description).toMatch(/application\/javascript/);
    expect(index.routes['/calendar/events/v1/doc\\.html']._links.self[0].href).toBe(`${API}/doc.html`);
  });

  it('says in info that every path also answers under the origin\'s base (contract §12)', () => {
    expect(doc.info.description).toMatch(/every path also answers under the origin's base, \/wp-json\/tribe\/events\/v1/);
    expect(doc.info.description).toContain('/de/wp-json/tribe/events/v1');
  });

  it('maps Category and Tag responses to Term and every response name to a component', () => {
    expect(responseSchemaName('Category')).toBe('Term');
    expect(responseSchemaName('Tag')).toBe('Term');
    expect(responseSchemaName('EventList')).toBe('EventList');
    expect(() => responseSchemaName('Nope')).toThrow(/Nope/);
    for (const { op } of allOperations()) expect(doc.components.schemas[responseSchemaName(op.response)]).toBeDefined();
    expect(doc.paths['/categories/{id}'].get.responses['200'].content['application/json'].schema.$ref)
      .toBe('#/components/schemas/Term');
  });

  it('documents list headers, ETag on single records and writes, Location on 201, and the headers every response has', () => {
    const headerNames = (r: Json): string[] => Object.keys((r.$ref ? resolve(doc, r.$ref)! : r).headers ?? {});
    expect(headerNames(doc.paths['/events'].get.responses['200'])).toEqual(
      expect.arrayContaining(['X-TEC-Total', 'X-TEC-TotalPages', 'Link', 'Content-Language']));
    expect(headerNames(doc.paths['/tags'].get.responses['200'])).toEqual(expect.arrayContaining(['X-TEC-Total', 'X-TEC-TotalPages']));
    expect(headerNames(doc.paths['/events/{id}'].get.responses['200'])).toContain('ETag');
    expect(headerNames(doc.paths['/events/{id}'].get.responses['200'])).not.toContain('X-TEC-Total');
    expect(headerNames(doc.paths['/events'].post.responses['201'])).toEqual(expect.arrayContaining(['Location', 'ETag']));
    expect(headerNames(doc.paths['/events/{id}'].post.responses['200'])).not.toContain('Location');
    expect(headerNames(doc.paths['/events/{id}'].delete.responses['200'])).toContain('ETag'); // the trashed record
    expect(headerNames(doc.paths['/tags/{id}'].delete.responses['200'])).not.toContain('ETag'); // terms are gone for good
    expect(doc.paths['/events/{id}'].patch.parameters.some((p: Json) => p.in === 'header' && p.name === 'If-Match')).toBe(true);
    for (const { route, op } of allOperations()) {
      const responses = docOp(route, op).responses as Json;
      const headers = responses[String(op.success)].headers ?? {};
      const list = /List$/.test(op.response);
      expect('X-TEC-Total' in headers).toBe(list);
      expect('Link' in headers).toBe(list);
      const record = route.group !== 'root' && !list;
      // A deleted term or import is gone: no version to name.
      const tagged = op.method === 'GET' || (record && !(op.method === 'DELETE' && /^(categories|tags|imports)\./.test(op.id)));
      expect([op.id, 'ETag' in headers]).toEqual([op.id, tagged]);
      expect([op.id, 'Cache-Control' in headers, 'Vary' in headers]).toEqual([op.id, true, op.method === 'GET']);
      expect('Location' in headers).toBe(op.success === 201 || op.success === 202);
      for (const [status, response] of Object.entries<Json>(responses)) {
        const names = headerNames(response);
        expect([op.id, status, names]).toEqual([op.id, status, expect.arrayContaining(['Content-Language', 'X-Content-Type-Options'])]);
        expect([op.id, status, names.includes('WWW-Authenticate')]).toEqual([op.id, status, status === '401']);
        expect([op.id, status, names.includes('Retry-After')]).toEqual([op.id, status, status === '503' || status === '409']);
      }
    }
  });

  it('has only references that resolve', () => {
    let refs = 0;
    for (const [path, node] of walk(doc)) {
      if (typeof node.$ref !== 'string') continue;
      refs += 1;
      expect(Object.keys(node)).toEqual(['$ref']); // no siblings: OpenAPI 3.0 would ignore them
      if (resolve(doc, node.$ref) === undefined) throw new Error(`${path}: ${node.$ref} does not resolve`);
    }
    expect(refs).toBeGreaterThan(50);
  });

  it('lists the request API root first, then the language-prefixed roots of the same base', () => {
    const servers = wire(buildOpenApiDocument({ apiUrl: `${API}/` })).servers as Json[];
    expect(servers[0]!.url).toBe(API);
    expect(servers.map((s) => s.url)).toEqual([
      API,
      'https://api.example.com/prod/en/calendar/events/v1',
      'https://api.example.com/prod/de/calendar/events/v1',
      'https://api.example.com/prod/pt-pt/calendar/events/v1',
    ]);
    expect(servers.every((s) => typeof s.description === 'string' && s.description.length > 0)).toBe(true);
    expect(servers[2]!.description).toMatch(/\bde\b.*translation_language/);

    const de = buildServers(DE_API).map((s) => s.url);
    expect(de[0]).toBe(DE_API);
    expect(de).toContain(API);
    expect(new Set(de).size).toBe(de.length);

    const local = buildServers('http://127.0.0.1:3000/calendar/events/v1', ['http://127.0.0.1:3000/de/calendar/events/v1/',
      'https://mirror.example.com/calendar/events/v1']).map((s) => s.url);
    expect(local.slice(0, 3)).toEqual(['http://127.0.0.1:3000/calendar/events/v1', 'http://127.0.0.1:3000/de/calendar/events/v1',
      'https://mirror.example.com/calendar/events/v1']);
    expect(local).toContain('http://127.0.0.1:3000/pt-pt/calendar/events/v1');
    expect(new Set(local).size).toBe(local.length);

    // a root that is not under the namespace is listed as given, without derived variants
    expect(buildServers('https://odd.example.com/api').map((s) => s.url)).toEqual(['https://odd.example.com/api']);
  });

  it('shares one frozen copy of components and paths between documents; only servers differ', () => {
    const a = buildOpenApiDocument({ apiUrl: API });
    const b = buildOpenApiDocument({ apiUrl: 'https://other.example.com/calendar/events/v1' });
    expect(a.paths).toBe(b.paths);
    expect(a.components).toBe(b.components);
    expect(a.servers[0]!.url).not.toBe(b.servers[0]!.url);
    expect(() => {
      (a.paths as Json)['/events']!.get.summary = 'changed';
    }).toThrow(TypeError);
    expect(b.paths['/events']!.get).toMatchObject({ summary: 'Lists events in a date window' });
  });
});

describe('component schemas', () => {
  const names = ['DateDetails', 'CostDetails', 'Image', 'EventTerm', 'Term', 'Venue', 'Organizer', 'Event', 'EventList',
    'VenueList', 'OrganizerList', 'CategoryList', 'TagList', 'Error', 'NamespaceIndex', 'OpenApiDocument'];

  it('defines every wire shape, in the document too', () => {
    for (const name of names) {
      expect(COMPONENT_SCHEMAS[name]).toBeDefined();
      expect(doc.components.schemas[name]).toEqual(wire(COMPONENT_SCHEMAS[name]));
    }
  });

  it('describes every property, requires only declared properties and uses no OpenAPI 3.1 keywords', () => {
    for (const [path, node] of walk(doc.components.schemas)) {
      if (node.properties) {
        for (const [key, prop] of Object.entries<Json>(node.properties)) {
          if (!prop.description) throw new Error(`${path}/properties/${key} has no description`);
        }
        for (const key of node.required ?? []) expect(Object.keys(node.properties)).toContain(key);
      }
      if ('type' in node && !path.endsWith('/properties')) expect(typeof node.type).toBe('string');
      for (const keyword of ['const', 'examples', '$defs', 'prefixItems', 'unevaluatedProperties']) {
        if (!path.endsWith('/properties') && keyword in node) throw new Error(`${path} uses ${keyword}`);
      }
    }
  });

  it('follows the contract decisions for events, venues, organizers and terms', () => {
    const s = COMPONENT_SCHEMAS as Record<string, OpenApiSchema>;
    const event = s.Event!.properties!;
    expect(event.author!.type).toBe('integer');
    expect(event.image!.oneOf).toEqual([{ $ref: '#/components/schemas/Image' }, { type: 'boolean', enum: [false] }]);
    expect(event.venue!.oneOf![0]).toEqual({ $ref: '#/components/schemas/Venue' });
    expect(event.venue!.oneOf![1]).toMatchObject({ type: 'array', maxItems: 0 });
    expect(event.organizer).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/Organizer' } });
    expect(event.categories!.items).toEqual({ $ref: '#/components/schemas/EventTerm' });
    expect(event.custom_fields).toMatchObject({ type: 'array', maxItems: 0 });
    expect(event.json_ld!.type).toBe('object');
    expect(s.Event!.required).not.toContain('json_ld');
    expect(event.password).toBeUndefined();
    expect(Object.keys(event).slice(0, 4)).toEqual(['id', 'global_id', 'global_id_lineage', 'author']);
    expect(s.Venue!.properties!.author!.type).toBe('integer');
    expect(s.Venue!.required).not.toContain('image');
    expect(s.Organizer!.required).not.toContain('image');
    expect(s.Image!.required).toEqual(['url', 'id', 'extension']);
    expect(s.Term!.properties!.parent).toBeDefined();
    expect(s.Term!.required).not.toContain('parent'); // tags have no parent key
    expect(s.EventTerm!.properties!.urls!.properties!.up).toBeDefined();
    expect(Object.keys(s.EventList!.properties!)).toEqual(['events', 'rest_url', 'next_rest_url', 'previous_rest_url', 'total',
      'total_pages']);
    expect(s.EventList!.required).toEqual(['events', 'rest_url', 'total', 'total_pages']);
    expect(Object.keys(s.CategoryList!.properties!)).toEqual(['rest_url', 'total', 'total_pages', 'categories', 'next_rest_url',
      'previous_rest_url']);
    expect(s.TagList!.properties!.tags!.items).toEqual({ $ref: '#/components/schemas/Term' });
    expect(s.Error!.required).toEqual(['code', 'message', 'data']);
    expect(s.Error!.properties!.data!.required).toEqual(['status']);
    expect(Object.keys(s.DateDetails!.properties!)).toEqual(['year', 'month', 'day', 'hour', 'minutes', 'seconds']);
  });
});

describe('namespace index', () => {
  it('has the namespace, one route per RouteSpec keyed by its WordPress route regex, in route order', () => {
    expect(Object.keys(index)).toEqual(['namespace', 'routes', '_links']);
    expect(index.namespace).toBe('calendar/events/v1');
    expect(Object.keys(index.routes)).toEqual(ROUTES.map((r) => routeKey(r.path)));
    expect(Object.keys(index.routes)).toEqual(expect.arrayContaining([
      '/calendar/events/v1',
      '/calendar/events/v1/doc',
      '/calendar/events/v1/events',
      '/calendar/events/v1/events/(?P<id>\\d+)',
      '/calendar/events/v1/events/by-slug/(?P<slug>[^/]+)',
      '/calendar/events/v1/categories/(?P<id>\\d+)',
    ]));
    for (const r of Object.values<Json>(index.routes)) expect(r.namespace).toBe('calendar/events/v1');
  });

  it('has route keys that match the paths they name, like the router', () => {
    const re = (key: string): RegExp => new RegExp(`^${key.replace(/\(\?P</g, '(?<')}$`);
    expect(re('/calendar/events/v1/events/(?P<id>\\d+)').exec('/calendar/events/v1/events/12')?.groups?.id).toBe('12');
    expect(re('/calendar/events/v1/events/(?P<id>\\d+)').test('/calendar/events/v1/events/abc')).toBe(false);
    expect(re('/calendar/events/v1/venues/by-slug/(?P<slug>[^/]+)').exec('/calendar/events/v1/venues/by-slug/hall')?.groups?.slug)
      .toBe('hall');
    for (const route of ROUTES) {
      const sample = route.path.replace('{id}', '7').replace(/\{\w+\}/g, 'some-slug');
      const matching = Object.keys(index.routes).filter((k) => re(k).test(`/calendar/events/v1${sample === '/' ? '' : sample}`));
      expect(matching).toEqual([routeKey(route.path)]);
    }
  });

  it('lists every method of each route and groups them into endpoints by handler', () => {
    for (const route of ROUTES) {
      const entry = index.routes[routeKey(route.path)];
      expect(entry.methods).toEqual([...new Set(route.operations.map((o) => o.method))]);
      expect(allowedMethods(route).filter((m) => m !== 'OPTIONS')).toEqual(entry.methods);
      const endpointMethods = entry.endpoints.flatMap((e: Json) => e.methods);
      expect(endpointMethods.sort()).toEqual([...entry.methods].sort());
      for (const endpoint of entry.endpoints as Json[]) {
        for (const method of endpoint.methods) {
          const op = route.operations.find((o) => o.method === method)!;
          expect(Object.keys(endpoint.args)).toEqual([...new Set(op.params.map((p) => p.name))]);
        }
      }
    }
    const byId = index.routes['/calendar/events/v1/events/(?P<id>\\d+)'];
    expect(byId.methods).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
    expect(byId.endpoints.map((e: Json) => e.methods)).toEqual([['GET'], ['POST', 'PUT', 'PATCH'], ['DELETE']]);
    expect(index.routes['/calendar/events/v1/events'].endpoints.map((e: Json) => e.methods)).toEqual([['GET'], ['POST']]);
    // same params but different handlers (GET and DELETE of a term) stay apart
    expect(index.routes['/calendar/events/v1/tags/(?P<id>\\d+)'].endpoints.map((e: Json) => e.methods))
      .toEqual([['GET'], ['POST', 'PUT', 'PATCH'], ['DELETE']]);
    expect(index.routes['/calendar/events/v1'].endpoints).toEqual([
      { methods: ['GET'], args: { translation_language: expect.objectContaining({ type: 'string', required: false }) } }]);
  });

  it('links to itself only on routes without captures', () => {
    for (const route of ROUTES) {
      const entry = index.routes[routeKey(route.path)];
      if (route.path.includes('{')) expect(entry._links).toBeUndefined();
      else expect(entry._links).toEqual({ self: [{ href: route.path === '/' ? API : `${API}${route.path}` }] });
    }
    expect(index.routes['/calendar/events/v1']._links.self[0].href).toBe('https://api.example.com/prod/calendar/events/v1');
    expect(index.routes['/calendar/events/v1/events']._links.self[0].href)
      .toBe('https://api.example.com/prod/calendar/events/v1/events');
  });

  it('links up to the API base, above any language prefix, with a trailing slash', () => {
    expect(index._links).toEqual({ up: [{ href: 'https://api.example.com/prod/' }] });
    const de = wire(buildNamespaceIndex({ apiUrl: `${DE_API}/` }));
    expect(de._links.up[0].href).toBe('https://api.example.com/prod/');
    expect(de.routes['/calendar/events/v1']._links.self[0].href).toBe(DE_API);
    expect(de.routes['/calendar/events/v1/tags']._links.self[0].href).toBe(`${DE_API}/tags`);
    const local = buildNamespaceIndex({ apiUrl: 'http://127.0.0.1:3000/pt-pt/calendar/events/v1' });
    expect(local._links.up[0]!.href).toBe('http://127.0.0.1:3000/');
  });

  it('describes the /events arguments with their types, defaults and requirement', () => {
    const [list, create] = index.routes['/calendar/events/v1/events'].endpoints as Json[];
    expect(list!.args.start_date).toEqual({ anyOf: [{ type: 'string', minLength: 1, pattern: '\\S' }, { type: 'integer' }],
      description: expect.stringMatching(/start on or after/), required: false });
    expect(list!.args.per_page).toMatchObject({ type: 'integer', default: 10, required: false });
    expect(list!.args.page).toMatchObject({ type: 'integer', default: 1, required: false });
    expect(list!.args.strict_dates).toMatchObject({ type: 'boolean', default: false });
    expect(list!.args.status).toMatchObject({ type: 'array', maxItems: 100,
      items: { anyOf: [{ type: 'string', enum: expect.arrayContaining(['publish', 'draft']) }, { type: 'string', pattern: expect.any(String) }] } });
    expect(list!.args.translation_language.enum).toEqual(['en', 'de', 'pt-pt']);
    expect(create!.args.title.required).toBe(true);
    expect(create!.args.start_date.required).toBe(true);
    expect(create!.args.description.required).toBe(false);
    const update = index.routes['/calendar/events/v1/events/(?P<id>\\d+)'].endpoints[1];
    expect(update.args.id).toMatchObject({ type: 'integer', required: true });
    expect(update.args.title.required).toBe(false);
    // a name that is both the path capture and a body field is described as the capture
    const bySlugUpdate = index.routes['/calendar/events/v1/events/by-slug/(?P<slug>[^/]+)'].endpoints[1];
    expect(bySlugUpdate.methods).toEqual(['POST', 'PUT', 'PATCH']);
    expect(bySlugUpdate.args.slug).toMatchObject({ type: 'string', required: true, description: 'the event slug' });
  });

  it('keeps only JSON-schema keywords, required and description in args', () => {
    const allowed = new Set(['type', 'description', 'required', 'default', 'enum', 'items', 'format', 'oneOf', 'anyOf', 'properties',
      'additionalProperties', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'maxItems', 'nullable']);
    let args = 0;
    for (const entry of Object.values<Json>(index.routes)) {
      for (const endpoint of entry.endpoints as Json[]) {
        for (const [name, arg] of Object.entries<Json>(endpoint.args)) {
          args += 1;
          for (const key of Object.keys(arg)) if (!allowed.has(key)) throw new Error(`${name} has ${key}`);
          expect(typeof arg.required).toBe('boolean');
          expect(typeof arg.description).toBe('string');
        }
      }
    }
    expect(args).toBeGreaterThan(100);
  });

  it('reuses the endpoint definitions between calls but builds fresh links', () => {
    const a: NamespaceIndex = buildNamespaceIndex({ apiUrl: API });
    const b: NamespaceIndex = buildNamespaceIndex({ apiUrl: DE_API });
    expect(a.routes['/calendar/events/v1/events']!.endpoints).toBe(b.routes['/calendar/events/v1/events']!.endpoints);
    expect(a.routes['/calendar/events/v1/events']!._links).not.toEqual(b.routes['/calendar/events/v1/events']!._links);
    expect(() => a.routes['/calendar/events/v1/events']!.endpoints.pop()).toThrow(TypeError);
  });
});

describe('API URL splitting', () => {
  it('finds the base and the language prefix', () => {
    expect(splitApiUrl(`${DE_API}/`)).toMatchObject({ apiUrl: DE_API, base: 'https://api.example.com/prod', prefix: 'de', recognised: true });
    expect(splitApiUrl('https://x.example.com/de/wp-json/tribe/events/v1').apiBase.namespace).toBe('tribe/events/v1');
    expect(splitApiUrl('http://localhost:3000/PT-PT/calendar/events/v1')).toMatchObject({ base: 'http://localhost:3000', prefix: 'pt-pt' });
    expect(splitApiUrl('https://x.example.com/fr/calendar/events/v1')).toMatchObject({ base: 'https://x.example.com/fr', prefix: null });
    expect(splitApiUrl('https://x.example.com/elsewhere')).toMatchObject({ base: 'https://x.example.com', recognised: false });
  });
});

describe('input schemas: no stricter than the service (contract §2, §10)', () => {
  const ajv = new Ajv({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: 'openapi.json', components: { schemas: doc.components.schemas } });
  const bodySchema = (path: string, method: string): string =>
    `openapi.json${doc.paths[path][method].requestBody.content['application/json'].schema.$ref}`;
  const bodyValid = (path: string, method: string, body: unknown): boolean => {
    const ok = ajv.validate(bodySchema(path, method), body);
    if (!ok && process.env.DEBUG_OPENAPI) console.error(JSON.stringify(ajv.errors));
    return ok;
  };
  const queryParam = (path: string, method: string, name: string): Json =>
    (doc.paths[path][method].parameters as Json[]).find((p) => p.name === name)!;
  const valid = (schema: Json, value: unknown): boolean => ajv.validate(schema, value);
  /** A query string value as a server deserialises it per the parameter's schema (style form, explode false). */
  const coercing = new Ajv({ strict: false, validateFormats: false, coerceTypes: true });
  const queryValid = (param: Json, value: unknown): boolean => {
    const data = { v: param.schema.type === 'array' && typeof value === 'string' ? value.split(',') : structuredClone(value) };
    return coercing.validate({ type: 'object', properties: { v: param.schema } }, data);
  };

  it('accepts every boolean spelling parseBoolean accepts, in the query and in bodies', () => {
    const accepted = [true, false, 1, 0, '1', '0', 'true', 'FALSE', 'yes', 'No', 'on', 'OFF', ' yes '];
    const refused = ['maybe', 2, '', 'y', null, []];
    const featured = queryParam('/events', 'get', 'featured').schema;
    const allDay = resolve(doc, doc.paths['/events'].post.requestBody.content['application/json'].schema.$ref)!.properties.all_day;
    for (const schema of [featured, allDay, queryParam('/events/{id}', 'delete', 'force').schema]) {
      for (const v of accepted) expect([v, valid(schema, v)]).toEqual([v, true]);
      for (const v of refused) expect([v, valid(schema, v)]).toEqual([v, false]);
    }
    const events = ROUTES.find((r) => r.path === '/events')!;
    for (const v of accepted) expect(() => (events.operations[0]!.params.find((p) => p.name === 'featured')!.parse(v, {} as never))).not.toThrow();
  });

  it('takes null venues, "" to clear, Unix timestamps, comma-separated lists and loose booleans in event bodies', () => {
    expect(bodyValid('/events/{id}', 'patch', { venue: null, image: '', start_date: 1767225600 })).toBe(true);
    expect(bodyValid('/events/by-slug/{slug}', 'post', { venue: null, image: '', start_date: 1767225600 })).toBe(true);
    expect(bodyValid('/events', 'post', {
      title: 'Jazz', start_date: 1767225600, end_date: '2026-01-01 23:00', timezone: 'Europe/Rome', all_day: 'yes', featured: 1,
      venue: 0, organizer: '3,4', categories: 'Concerts,jazz', tags: [], cost: null, website: '', image: '', status: 'Publish',
      author: '7',
    })).toBe(true);
    for (const venue of [null, 0, '', '0', 12, '12', [12], [], { id: 12 }, { venue: 'Hall', city: 'Rome' }]) {
      expect([venue, bodyValid('/events/{id}', 'post', { venue })]).toEqual([venue, true]);
    }
    for (const organizer of [null, 0, '', '1,2', [1, '2', { id: 3 }, { organizer: 'Club' }], 4, { organizer: 'Club' }]) {
      expect([organizer, bodyValid('/events/{id}', 'post', { organizer })]).toEqual([organizer, true]);
    }
    for (const value of [null, '', 'a,b', [], [1, 'jazz'], 5]) {
      expect([value, bodyValid('/events/{id}', 'post', { categories: value, tags: value })]).toEqual([value, true]);
    }
    for (const date of ['2026-01-01', '2026-01-01 20:00:00', '2026-01-01T20:00:00+02:00', 'tomorrow 9am', '1767225600', 1767225600]) {
      expect([date, bodyValid('/events/{id}', 'post', { start_date: date, date_utc: date })]).toEqual([date, true]);
      expect([date, bodyValid('/venues/{id}', 'post', { date: date })]).toEqual([date, true]);
      expect([date, queryValid(queryParam('/events', 'get', 'start_date'), String(date))]).toEqual([date, true]);
    }
    expect(bodyValid('/venues/{id}', 'patch', { website: '', image: '', show_map: 'off' })).toBe(true);
    expect(bodyValid('/categories/{id}', 'post', { parent: null })).toBe(true);
    expect(bodyValid('/categories/{id}', 'post', { parent: '0' })).toBe(true);
    // and still says what is refused
    expect(bodyValid('/events/{id}', 'post', { image: 42 })).toBe(false);
    expect(bodyValid('/events/{id}', 'post', { image: 'ftp://example.org/a.png' })).toBe(false);
    expect(bodyValid('/events/{id}', 'post', { start_date: 1.5 })).toBe(false);
    expect(bodyValid('/events/{id}', 'post', { venue: [1, 2] })).toBe(false);
    expect(bodyValid('/events/{id}', 'post', { organizer: Array.from({ length: 101 }, (_, i) => i + 1) })).toBe(false);
    expect(bodyValid('/events/{id}', 'post', { status: 'published' })).toBe(false);
    expect(bodyValid('/events', 'post', { title: 'No dates' })).toBe(false);
  });

  it('documents the real text bounds', () => {
    const cases: [string, string, string, number][] = [
      ['/events', 'post', 'title', TEXT_LIMITS.title],
      ['/events', 'post', 'description', TEXT_LIMITS.description],
      ['/events', 'post', 'excerpt', TEXT_LIMITS.excerpt],
      ['/events', 'post', 'slug', TEXT_LIMITS.name],
      ['/venues', 'post', 'venue', TEXT_LIMITS.title],
      ['/venues', 'post', 'city', TEXT_LIMITS.other],
      ['/organizers', 'post', 'organizer', TEXT_LIMITS.title],
      ['/organizers', 'post', 'email', TEXT_LIMITS.other],
      ['/categories', 'post', 'name', TEXT_LIMITS.name],
      ['/tags', 'post', 'slug', TEXT_LIMITS.name],
      ['/tags', 'post', 'description', TEXT_LIMITS.description],
    ];
    for (const [path, method, field, max] of cases) {
      const props = resolve(doc, bodySchema(path, method).replace('openapi.json', ''))!.properties;
      expect([path, field, props[field].maxLength]).toEqual([path, field, max]);
      // code points, as the service counts them: an astral character is one
      expect([path, field, valid(props[field], '😀'.repeat(max))]).toEqual([path, field, true]);
      expect([path, field, valid(props[field], 'a'.repeat(max + 1))]).toEqual([path, field, false]);
    }
    expect(queryParam('/events', 'get', 'search').schema.maxLength).toBe(TEXT_LIMITS.other);
  });

  /**
   * Every value a parameter's parser accepts must validate against the document (query values deserialised as a
   * server would). What the document deliberately does not promise, though a parser lets it through:
   * - a JSON number for a text field (parseString turns it into text),
   * - any non-null `parent` of a tag (the handler refuses it with 400 rest_taxonomy_not_hierarchical),
   * - a non-integer number as a venue's or organizer's date (the handler refuses it with 400),
   * - empty entries in a comma-separated list of ids ("1,,2": the parser skips them).
   */
  it('accepts every value the parsers accept', () => {
    const strings = ['', ' ', '0', '1', '12', ' 12 ', '-3', 'yes', 'No', 'x', 'publish', 'PUBLISH', 'Draft,publish', 'view', 'Edit',
      'asc', 'DESC', 'name', 'term_group', 'en', 'de', 'pt-pt', 'EN', '2026-01-01', '2026-01-01 10:00', 'tomorrow 9am', '1767225600',
      'http://example.org', 'HTTPS://example.org/a.jpg', 'ftp://x', 'Europe/Berlin', 'UTC+2', 'a,b', '1,2', '1,,2', 'a'.repeat(201)];
    const json = [...strings, true, false, 0, 1, 2, -1, 1.5, 1767225600, null, [], [1], [1, 2], ['a'], ['1', '2'], [''], [1, 'a'],
      {}, { id: 3 }, { venue: 'Hall' }, { organizer: 'Org' }, Array.from({ length: 101 }, (_, i) => i + 1)];
    const ctx = { caller: { sub: 'e', role: 'editor' }, lang: 'en' } as never;
    const failures: string[] = [];
    let checked = 0;
    for (const { route, op } of allOperations()) {
      const o = docOp(route, op);
      const body = o.requestBody ? resolve(doc, o.requestBody.content['application/json'].schema.$ref)! : null;
      for (const p of op.params) {
        const accepted = (v: unknown): boolean => {
          try {
            p.parse(structuredClone(v), ctx);
            return true;
          } catch {
            return false;
          }
        };
        if (p.in === 'body') {
          const schema = body!.properties[p.name];
          for (const v of json) {
            if (!accepted(v)) continue;
            if (typeof v === 'number' && !valid(schema, 1) && !valid(schema, 1.5)) continue; // numbers as text
            if (route.group === 'tags' && p.name === 'parent') continue;
            if (['date', 'date_utc'].includes(p.name) && typeof v === 'number' && !Number.isInteger(v)) continue;
            checked += 1;
            if (!valid(schema, v)) failures.push(`${op.id} body ${p.name}: ${JSON.stringify(v)}`);
          }
        } else {
          const param = (o.parameters as Json[]).find((d) => d.name === p.name && d.in === p.in)!;
          const values = p.in === 'path' ? (p.name === 'id' ? ['0', '7', '0012'] : strings.filter((v) => v !== '' && !v.includes('/')))
            : [...strings, ['a', 'b'], ['1', '2'], ['publish', 'Draft']];
          for (const v of values) {
            if (!accepted(v)) continue;
            if (param.schema.items?.type === 'integer' && typeof v === 'string' && v.split(',').includes('')) continue;
            checked += 1;
            if (!queryValid(param, v)) failures.push(`${op.id} ${p.in} ${p.name}: ${JSON.stringify(v)}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(1000);
  });
});
