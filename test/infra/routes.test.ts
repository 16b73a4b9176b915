/** infra/routes.ts: the HTTP API route list generated from the handlers' route definitions. */
import '../../lib/routes/match.js';
import { LANGUAGES, ROUTES } from '../../lib/routes/index.js';
import {
  apiPath,
  functionGroups,
  httpApiRoutes,
  READ_ACTIONS,
  tableAccess,
  tableActions,
  WRITE_ACTIONS,
} from '../../infra/routes.js';

const operations = ROUTES.flatMap((r) => r.operations.map((o) => ({ route: r, op: o })));

describe('httpApiRoutes()', () => {
  const routes = httpApiRoutes();

  test('one route per operation of the definitions, times 4 path variants (none, en, de, pt-pt)', () => {
    expect(LANGUAGES).toEqual(['en', 'de', 'pt-pt']);
    expect(routes).toHaveLength(operations.length * 4);
    expect(new Set(routes.map((r) => `${r.method} ${r.path}`)).size).toBe(routes.length);
  });

  test('every definition appears under every prefix with its group and write flag', () => {
    for (const { route, op } of operations) {
      const found = routes.filter((r) => r.method === op.method && r.operationId === op.id);
      expect(found.map((r) => r.language)).toEqual([null, 'en', 'de', 'pt-pt']);
      for (const r of found) expect(r).toMatchObject({ group: route.group, isWrite: op.capability !== 'public' });
    }
  });

  test('the paths are the contract\'s, spelled out (§1)', () => {
    const keys = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const key of [
      'GET /calendar/events/v1', 'GET /calendar/events/v1/doc', 'GET /de/calendar/events/v1',
      'GET /calendar/events/v1/events', 'POST /calendar/events/v1/events', 'GET /calendar/events/v1/events/{id}',
      'PATCH /pt-pt/calendar/events/v1/events/{id}', 'DELETE /en/calendar/events/v1/events/by-slug/{slug}',
      'GET /calendar/events/v1/venues/by-slug/{slug}', 'PUT /de/calendar/events/v1/organizers/{id}',
      'GET /calendar/events/v1/categories/{id}', 'DELETE /pt-pt/calendar/events/v1/tags/{id}',
    ]) expect([key, keys.has(key)]).toEqual([key, true]);
    expect(keys.has('GET /fr/calendar/events/v1/events')).toBe(false);
  });

  test('the root route maps to the namespace itself; path variables stay API Gateway variables', () => {
    expect(apiPath('/')).toBe('/calendar/events/v1');
    expect(apiPath('/', 'pt-pt')).toBe('/pt-pt/calendar/events/v1');
    expect(apiPath('/events/{id}', 'de')).toBe('/de/calendar/events/v1/events/{id}');
    for (const r of routes) {
      expect(r.path).toMatch(/^(\/(en|de|pt-pt))?\/calendar\/events\/v1(\/[a-z-]+|\/\{(id|slug)\})*$/);
    }
  });

  test('reads are exactly the public operations', () => {
    const writes = routes.filter((r) => r.isWrite);
    expect(writes.length).toBe(operations.filter(({ op }) => op.capability !== 'public').length * 4);
    expect(writes.every((r) => r.method !== 'GET')).toBe(true);
  });
});

describe('functions and table access', () => {
  test('six groups, root first', () => {
    expect(functionGroups()).toEqual(['root', 'events', 'venues', 'organizers', 'categories', 'tags']);
  });

  test('root has no table access; a group writes iff one of its operations is not public', () => {
    expect(tableAccess('root')).toBe('none');
    expect(tableActions('none')).toEqual([]);
    for (const group of functionGroups().filter((g) => g !== 'root')) {
      const writes = ROUTES.some((r) => r.group === group && r.operations.some((o) => o.capability !== 'public'));
      expect(tableAccess(group)).toBe(writes ? 'read-write' : 'read');
    }
    expect(tableAccess('events', [{ path: '/events', group: 'events', operations: [{ ...operations[2]!.op, capability: 'public' }] }])).toBe('read');
  });

  test('no Scan, no wildcard, no BatchWriteItem; transactions are covered by the item actions', () => {
    const all = [...READ_ACTIONS, ...WRITE_ACTIONS];
    expect(all).not.toContain('dynamodb:Scan');
    expect(all.some((a) => a.includes('*'))).toBe(false);
    expect(READ_ACTIONS).toEqual(['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query']);
    expect(WRITE_ACTIONS).toEqual(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem']);
  });
});
