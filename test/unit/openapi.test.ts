/** The OpenAPI document (GET {api}/doc) and the namespace index (GET {api}), both generated from ROUTES. */
import { Validator } from '@seriousme/openapi-schema-validator';
import { allowedMethods } from '../../lib/routes/match.js';
import { ROUTES, type OperationSpec, type RouteSpec } from '../../lib/routes/index.js';
import { buildOpenApiDocument, buildServers } from '../../lib/openapi/document.js';
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

  it('has the top-level keys in order, OpenAPI 3.0.3 and the API info', () => {
    expect(Object.keys(doc)).toEqual(['openapi', 'info', 'servers', 'components', 'paths']);
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

  it('has one operation per OperationSpec with its id, summary and group tag', () => {
    const methods = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace'];
    for (const route of ROUTES) {
      const documented = Object.keys(doc.paths[route.path]).filter((k) => methods.includes(k));
      expect(documented.sort()).toEqual(route.operations.map((o) => o.method.toLowerCase()).sort());
      for (const op of route.operations) {
        const o = docOp(route, op);
        expect(o.operationId).toBe(op.id);
        expect(o.summary).toBe(op.summary);
        expect(o.tags).toEqual([route.group]);
      }
    }
    const ids = allOperations().map(({ route, op }) => docOp(route, op).operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(docOp(ROUTES.find((r) => r.path === '/events')!, ROUTES.find((r) => r.path === '/events')!.operations[1]!).operationId)
      .toBe('events.create');
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
        if (p.schema.type) expect(documented!.schema.type).toBe(p.schema.type);
        if (p.default !== undefined) expect(documented!.schema.default).toEqual(p.default);
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

  it('puts bearer security on exactly the operations that are not public', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(doc.security).toBeUndefined();
    let secured = 0;
    for (const { route, op } of allOperations()) {
      const o = docOp(route, op);
      if (op.capability === 'public') expect(o.security).toBeUndefined();
      else {
        expect(o.security).toEqual([{ bearerAuth: [] }]);
        secured += 1;
      }
    }
    expect(secured).toBeGreaterThan(0);
    expect(doc.paths['/events'].get.security).toBeUndefined();
    expect(doc.paths['/events'].post.security).toEqual([{ bearerAuth: [] }]);
  });

  it('documents the success response with the named component and every error status with Error', () => {
    for (const { route, op } of allOperations()) {
      const responses = docOp(route, op).responses;
      const success = responses[String(op.success)];
      expect(success.content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${responseSchemaName(op.response)}` });
      expect(success.description).toEqual(expect.any(String));
      for (const status of [...op.errors, 500]) {
        const error = responses[String(status)];
        expect(error).toBeDefined();
        expect(error.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
        expect(error.description.length).toBeGreaterThan(10);
      }
      const statuses = Object.keys(responses).map(Number);
      expect(statuses.every((s) => s === op.success || s >= 400)).toBe(true);
    }
    expect(doc.paths['/events/{id}'].delete.responses['410'].description).toMatch(/trash/);
    expect(doc.paths['/events/{id}'].post.responses['412'].description).toMatch(/ETag/);
    expect(doc.paths['/events'].post.responses['413'].description).toMatch(/1 MiB/);
    expect(doc.paths['/events'].get.responses['404'].description).toMatch(/past the last page/);
    expect(doc.paths['/venues/{id}'].get.responses['404'].description).toMatch(/rest-venue-not-found/);
    expect(doc.paths['/events'].post.responses['401'].description).toMatch(/Authentication required/);
    expect(doc.paths['/events'].get.responses['503']).toBeDefined();
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

  it('documents list headers, ETag on single GETs, Location on 201 and Content-Language', () => {
    const headerNames = (r: Json): string[] => Object.keys(r.headers ?? {});
    expect(headerNames(doc.paths['/events'].get.responses['200'])).toEqual(
      expect.arrayContaining(['X-TEC-Total', 'X-TEC-TotalPages', 'Link', 'Content-Language']));
    expect(headerNames(doc.paths['/tags'].get.responses['200'])).toEqual(expect.arrayContaining(['X-TEC-Total', 'X-TEC-TotalPages']));
    expect(headerNames(doc.paths['/events/{id}'].get.responses['200'])).toContain('ETag');
    expect(headerNames(doc.paths['/events/{id}'].get.responses['200'])).not.toContain('X-TEC-Total');
    expect(headerNames(doc.paths['/events'].post.responses['201'])).toContain('Location');
    expect(headerNames(doc.paths['/events/{id}'].post.responses['200'])).not.toContain('Location');
    expect(doc.paths['/events/{id}'].patch.parameters.some((p: Json) => p.in === 'header' && p.name === 'If-Match')).toBe(true);
    for (const { route, op } of allOperations()) {
      const headers = docOp(route, op).responses[String(op.success)].headers ?? {};
      expect('X-TEC-Total' in headers).toBe(/List$/.test(op.response));
      expect('ETag' in headers).toBe(op.method === 'GET' && route.path.includes('{'));
      expect('Location' in headers).toBe(op.success === 201);
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
    expect(list!.args.start_date).toEqual({ type: 'string', description: expect.stringMatching(/start on or after/), required: false });
    expect(list!.args.per_page).toMatchObject({ type: 'integer', default: 10, required: false });
    expect(list!.args.page).toMatchObject({ type: 'integer', default: 1, required: false });
    expect(list!.args.strict_dates).toMatchObject({ type: 'boolean', default: false });
    expect(list!.args.status).toMatchObject({ type: 'array', items: { type: 'string', enum: expect.arrayContaining(['publish', 'draft']) } });
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
    const allowed = new Set(['type', 'description', 'required', 'default', 'enum', 'items', 'format', 'oneOf', 'properties',
      'additionalProperties', 'minimum', 'maximum', 'maxLength']);
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
