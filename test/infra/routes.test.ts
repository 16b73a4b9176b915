/**
 * The HTTP API's routes (infra/routes.ts): greedy routes per top-level path segment, under both bases (ours and the
 * origin's, contract §12) and every language prefix, each to the function of the group that owns the segment — and
 * every concrete path of the contract lands on a route of the right function.
 */
import { ROUTES, type OperationSpec } from '../../lib/routes/index.js';
import {
  functionGroups, httpApiRoutes, NARROW_SEGMENTS, READ_ACTIONS, routeKey, ROUTES_PER_API_QUOTA, segmentKeys, segmentOwners, tableAccess, tableActions,
  WRITE_ACTIONS,
} from '../../infra/routes.js';
import { groupForPath } from '../../lib/local/server.js';
import { splitPagePath } from '../../lib/pages/paths.js';

const routes = httpApiRoutes();

/** The API Gateway route a concrete path would take (literal segments first, then {proxy+}), or null ($default). */
function routeFor(path: string) {
  const exact = routes.find((r) => r.path === path);
  if (exact) return exact;
  return routes.find((r) => r.path.endsWith('/{proxy+}') && path.startsWith(r.path.slice(0, -'{proxy+}'.length))) ?? null;
}

describe('httpApiRoutes()', () => {
  test('stay within API Gateway\'s quota of 300 routes with a margin of at least 45 (15%) for later routes', () => {
    // 209 today: 5 API roots (our base × 4 prefixes, the origin's unprefixed) × (3 documentation + 4 read-only + 2 account
    // + 5 segments × 4 keys) + 6 for tickets, attendees and imports; the pages: 4 prefixes × 2 paths × (4 read segments + 2
    // keys for the event pages).
    expect(routes.length).toBe(5 * 31 + 6 + 4 * 2 * 6);
    const withDefault = routes.length + 1;
    expect(withDefault).toBeLessThanOrEqual(280);
    expect(ROUTES_PER_API_QUOTA - withDefault).toBeGreaterThanOrEqual(45);
    expect(new Set(routes.map(routeKey)).size).toBe(routes.length);
  });

  test('reads and writes have route keys of their own on every path with public reads and writes', () => {
    const readsAndWrites = ROUTES.filter((r) => r.operations.some((o) => o.method !== 'GET')
      && r.operations.some((o) => o.method === 'GET' && o.capability === 'public'));
    expect(readsAndWrites.length).toBeGreaterThan(10);
    for (const spec of readsAndWrites) {
      const segment = spec.path.split('/')[1]!;
      // Narrow segments (tickets, attendees) have one ANY key under our base alone: the rest comes through $default.
      if (NARROW_SEGMENTS.has(segment)) {
        for (const path of [`/calendar/events/v1/${segment}`, `/calendar/events/v1/${segment}/{proxy+}`]) {
          expect(routes.filter((r) => r.path.endsWith(`/${segment}`) || r.path.endsWith(`/${segment}/{proxy+}`)).length).toBe(2);
          expect(routes.filter((r) => r.path === path).map((r) => [routeKey(r), r.traffic])).toEqual([[`ANY ${path}`, 'write']]);
        }
        continue;
      }
      for (const base of ['/calendar/events/v1', '/wp-json/tribe/events/v1']) {
        for (const prefix of ['', '/en', '/de', '/pt-pt']) {
          for (const path of [`${prefix}${base}/${segment}`, `${prefix}${base}/${segment}/{proxy+}`]) {
            const keys = routes.filter((r) => r.path === path).map((r) => [routeKey(r), r.traffic]);
            // The origin's base under a language prefix comes through $default.
            if (prefix && base.startsWith('/wp-json')) expect(keys).toEqual([]);
            else expect(keys).toEqual([[`ANY ${path}`, 'write'], [`GET ${path}`, 'read']]);
          }
        }
      }
    }
  });

  test('traffic classes follow the operations: documentation, reads only, account management, reads and writes', () => {
    const byKey = new Map(routes.map((r) => [routeKey(r), r.traffic]));
    expect(byKey.get('ANY /calendar/events/v1')).toBe('docs');
    expect(byKey.get('ANY /de/calendar/events/v1/doc')).toBe('docs');
    expect(byKey.get('ANY /wp-json/tribe/events/v1/doc')).toBe('docs');
    expect(byKey.get('ANY /calendar/events/v1/events.ics')).toBe('read');
    expect(byKey.get('ANY /calendar/events/v1/changes/{proxy+}')).toBe('read');
    expect(byKey.get('ANY /calendar/events/v1/application-passwords')).toBe('write');
    expect(byKey.has('GET /calendar/events/v1/application-passwords')).toBe(false);
    expect(byKey.get('GET /pt-pt/calendar/events/v1/tags/{proxy+}')).toBe('read');
    expect(byKey.get('ANY /pt-pt/calendar/events/v1/tags/{proxy+}')).toBe('write');
    const op = (id: string, method: 'GET' | 'POST', capability: 'public' | 'signed_in' = 'public'): OperationSpec =>
      ({ id, method, capability, summary: '', params: [], success: 200, errors: [], response: 'X' });
    expect(segmentKeys([op('root.x', 'GET')])).toEqual([{ method: 'ANY', traffic: 'docs' }]);
    expect(segmentKeys([op('a.list', 'GET')])).toEqual([{ method: 'ANY', traffic: 'read' }]);
    expect(segmentKeys([op('a.list', 'GET', 'signed_in'), op('a.create', 'POST', 'signed_in')])).toEqual([{ method: 'ANY', traffic: 'write' }]);
    expect(segmentKeys([op('a.list', 'GET'), op('a.create', 'POST', 'signed_in')]))
      .toEqual([{ method: 'ANY', traffic: 'write' }, { method: 'GET', traffic: 'read' }]);
  });

  test('every path of the contract reaches its group\'s function: our base under every prefix, the origin\'s unprefixed', () => {
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
          const routed = routeFor(path)?.group ?? null;
          // Through $default, the root function hands the rest to the owning function (lib/aws/forward.ts).
          expect([path, routed]).toEqual([path, prefix && base.startsWith('/wp-json') ? null : group]);
          expect([path, groupForPath(path)]).toEqual([path, group]);
        }
      }
    }
    expect(routeFor('/fr/calendar/events/v1/events')).toBeNull();
    expect(routeFor('/calendar/events/v2/events')).toBeNull();
  });

  test('the import routes (contract §20) reach the imports function: routed under our base, through $default elsewhere', () => {
    for (const rel of ['/imports', '/imports/3', '/imports/3/run']) {
      expect(routeFor(`/calendar/events/v1${rel}`)?.group).toBe('imports');
      expect(routeFor(`/calendar/events/v1${rel}`)?.traffic).toBe('write');
      expect(routeFor(`/de/calendar/events/v1${rel}`)).toBeNull();
      for (const prefix of ['', '/de', '/pt-pt']) {
        for (const base of ['/calendar/events/v1', '/wp-json/tribe/events/v1']) expect(groupForPath(`${prefix}${base}${rel}`)).toBe('imports');
      }
    }
  });

  test('every page path (contract §21), under every prefix, reaches the pages function — as the local server routes it', () => {
    const pages = ['/events', '/events/', '/events/month/', '/events/month/2026-03/', '/events/category/jazz/', '/events/embed.js',
      '/events/assets/site.css', '/tag/outdoor/', '/venue/hall/', '/organizer/org/', '/event/jazz-night/', '/event/jazz-night/2026-03-04/',
      '/event/jazz-night/reservation/12/'];
    for (const prefix of ['', '/en', '/de', '/pt-pt']) {
      for (const rel of pages) {
        const path = `${prefix}${rel}`;
        // API Gateway: `/events/` (a trailing slash on the bare segment) may not match `/events/{proxy+}`; it comes through
        // $default then, and the root function hands every page path to the pages function.
        const gateway = path.endsWith('/') && routeFor(path) === null ? routeFor(path.slice(0, -1)) : routeFor(path);
        expect([path, gateway?.group, groupForPath(path)]).toEqual([path, 'pages', 'pages']);
        expect(splitPagePath(path)).not.toBeNull();
      }
    }
    // The event pages take form posts (RSVP, cancel, password): writes get the write throttle, reads the read throttle.
    const keys = new Map(routes.map((r) => [routeKey(r), r.traffic]));
    expect([keys.get('GET /de/event/{proxy+}'), keys.get('ANY /de/event/{proxy+}'), keys.get('ANY /venue/{proxy+}')]).toEqual(['read', 'write', 'read']);
    expect(keys.has('GET /venue/{proxy+}')).toBe(false);
    // `/events` under the API's base is the events function's list; at the site's base it is the list page.
    expect([routeFor('/calendar/events/v1/events')?.group, groupForPath('/calendar/events/v1/events')]).toEqual(['events', 'events']);
    expect([routeFor('/events')?.group, groupForPath('/events')]).toEqual(['pages', 'pages']);
    // Outside the API and the pages: the root function's 404, through $default.
    for (const path of ['/fr/events/', '/eventsx/', '/calendar/events/v1/no-such-segment']) {
      expect([path, routeFor(path)?.group ?? null, groupForPath(path)]).toEqual([path, null, 'root']);
    }
  });

  test('each top-level segment belongs to exactly one group', () => {
    const owners = segmentOwners();
    expect(owners.get('')).toBe('root');
    expect(owners.get('events')).toBe('events');
    expect(() => segmentOwners([...ROUTES, { path: '/events/x', group: 'tags', operations: [] }])).toThrow(/belongs to both/);
  });
});

describe('functions and table access', () => {
  test('seven API groups, root first, then the pages', () => {
    expect(functionGroups()).toEqual(['root', 'events', 'venues', 'organizers', 'categories', 'tags', 'imports', 'pages']);
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
