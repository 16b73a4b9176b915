/** infra/routes.ts: the HTTP API route list generated from the handlers' route definitions. */
import '../../lib/routes/match.js';
import { LANGUAGES, NAMESPACE, ROUTES } from '../../lib/routes/index.js';
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
      for (const prefix of ['', '/en', '/de', '/pt-pt']) {
        const path = `${prefix}/${NAMESPACE}${route.path === '/' ? '' : route.path}`;
        const found = routes.filter((r) => r.method === op.method && r.path === path);
        expect(found).toEqual([
          expect.objectContaining({ group: route.group, isWrite: op.capability !== 'public', operationId: op.id }),
        ]);
      }
    }
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
