/**
 * The HTTP API's routes (infra/routes.ts): greedy routes per top-level path segment, under both bases (ours and the
 * origin's, contract §12) and every language prefix, each to the function of the group that owns the segment — and
 * every concrete path of the contract lands on a route of the right function.
 */
import { ROUTES } from '../../lib/routes/index.js';
import {
  functionGroups, httpApiRoutes, READ_ACTIONS, segmentOwners, tableAccess, tableActions, WRITE_ACTIONS,
} from '../../infra/routes.js';

const routes = httpApiRoutes();

/** The API Gateway route a concrete path would take (literal segments first, then {proxy+}), or null ($default). */
function routeFor(path: string) {
  const exact = routes.find((r) => r.path === path);
  if (exact) return exact;
  return routes.find((r) => r.path.endsWith('/{proxy+}') && path.startsWith(r.path.slice(0, -'{proxy+}'.length))) ?? null;
}

describe('httpApiRoutes()', () => {
  test('stay far within API Gateway\'s quota of 300 routes, with room for later routes', () => {
    expect(routes.length).toBeLessThanOrEqual(200);
    expect(new Set(routes.map((r) => r.path)).size).toBe(routes.length);
  });

  test('every path of the contract, under both bases and every prefix, reaches its group\'s function', () => {
    const cases: [string, string][] = [
      ['', 'root'], ['/doc', 'root'], ['/doc.html', 'root'], ['/doc.html/redoc.standalone.js', 'root'],
      ['/application-passwords', 'root'], ['/application-passwords/0b0c5e6e-1d5a-4b4e-9a40-4f3d9c0b2a11', 'root'],
      ['/events', 'events'], ['/events/12', 'events'], ['/events/by-slug/jazz-night', 'events'], ['/events.ics', 'events'],
      ['/events/12.ics', 'events'],
      ['/venues', 'venues'], ['/venues/3', 'venues'], ['/venues/by-slug/hall', 'venues'],
      ['/organizers', 'organizers'], ['/organizers/by-slug/org', 'organizers'],
      ['/categories', 'categories'], ['/categories/7', 'categories'], ['/tags', 'tags'], ['/tags/9', 'tags'],
    ];
    for (const base of ['/calendar/events/v1', '/wp-json/tribe/events/v1']) {
      for (const prefix of ['', '/en', '/de', '/pt-pt']) {
        for (const [rel, group] of cases) {
          const path = `${prefix}${base}${rel}`;
          expect([path, routeFor(path)?.group]).toEqual([path, group]);
        }
      }
    }
    expect(routeFor('/fr/calendar/events/v1/events')).toBeNull();
    expect(routeFor('/calendar/events/v2/events')).toBeNull();
  });

  test('each top-level segment belongs to exactly one group', () => {
    const owners = segmentOwners();
    expect(owners.get('')).toBe('root');
    expect(owners.get('events')).toBe('events');
    expect(() => segmentOwners([...ROUTES, { path: '/events/x', group: 'tags', operations: [] }])).toThrow(/belongs to both/);
  });
});

describe('functions and table access', () => {
  test('six groups, root first', () => {
    expect(functionGroups()).toEqual(['root', 'events', 'venues', 'organizers', 'categories', 'tags']);
  });

  test('the root function reaches only account items; the data functions the whole table', () => {
    expect(tableAccess('root')).toBe('accounts');
    for (const group of functionGroups().filter((g) => g !== 'root')) expect(tableAccess(group)).toBe('read-write');
    expect(tableActions('read-write')).toEqual([...READ_ACTIONS, ...WRITE_ACTIONS]);
  });

  test('no Scan, no wildcard, no BatchWriteItem; transactions are covered by the item actions', () => {
    const all = [...READ_ACTIONS, ...WRITE_ACTIONS];
    expect(all).not.toContain('dynamodb:Scan');
    expect(all.some((a) => a.includes('*'))).toBe(false);
    expect(READ_ACTIONS).toEqual(['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query']);
    expect(WRITE_ACTIONS).toEqual(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem']);
  });
});
