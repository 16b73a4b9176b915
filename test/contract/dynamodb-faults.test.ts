/**
 * DynamoDB faults (contract §3): a fault proxy (test/support/dynamodb-fault-proxy.ts) sits between a server of this
 * file's own and DynamoDB Local, and throttles, fails, drops, hangs or refuses chosen DynamoDB calls. Over HTTP:
 * throttled and failed calls are retried or answered 503 `rest_unavailable` with `Retry-After` (never another 5xx);
 * a write whose answer was lost answers 2xx or 503 with `outcome: "unknown"` and is stored exactly once; a committed
 * write is never answered with an error; a hanging call ends as a 503 within the function's time and does not
 * commit later; rejected writes store nothing; and after a run of faulted writes every counter equals a recount.
 *
 * The server gets a short function time (CALENDAR_FUNCTION_TIMEOUT_MS) so that the hanging calls end quickly.
 */
import { signLocalToken } from '../../lib/local/token-sign.js';
import { startFaultProxy, stopFaultProxy, type FaultProxy, type FaultRule } from '../support/dynamodb-fault-proxy.js';
import { send, startOwnServer, type Answer, type OwnServer } from '../support/own-server.js';

const SECRET = 'dynamodb-faults-secret-0123456789abcdef';
/** The function time the server reports to the handlers (its store deadline is 1 s earlier). */
const FUNCTION_MS = 5000;
/** Every event of this file starts in this year, so one window lists them all. */
const WINDOW = { start_date: '2031-01-01 00:00:00', end_date: '2031-12-31 23:59:59' };

let proxy: FaultProxy;
let server: OwnServer;
let base: string;
let editor: string;

const call = (method: string, path: string, init: { token?: string; body?: unknown } = {}): Promise<Answer> =>
  send(`${base}${path}`, { method, authorization: init.token ? `Bearer ${init.token}` : undefined, body: init.body });

const get = (path: string, token?: string) => call('GET', path, { token });
const qs = (query: Record<string, string | number>) => new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();

function expectStatus(res: Answer, status: number): void {
  expect({ status: res.status, body: res.text.slice(0, 400) }).toEqual({ status, body: res.text.slice(0, 400) });
}

/** 503 `rest_unavailable` in the contract's error shape, with Retry-After; `outcome: "unknown"` exactly when asked. */
function expectUnavailable(res: Answer, outcome: 'unknown' | 'none' | 'any' = 'none'): void {
  expectStatus(res, 503);
  expect(res.json).toEqual({ code: 'rest_unavailable', message: expect.any(String), data: expect.objectContaining({ status: 503 }) });
  expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  if (outcome === 'unknown') expect(res.json.data.outcome).toBe('unknown');
  if (outcome === 'none') expect(res.json.data).not.toHaveProperty('outcome');
  if (outcome === 'any' && 'outcome' in res.json.data) expect(res.json.data.outcome).toBe('unknown');
}

/** Faults apply to the next calls only; every test starts with none. */
function fault(...rules: FaultRule[]): void {
  for (const rule of rules) proxy.addRule(rule);
}

let n = 0;
const unique = (what: string): string => `${what} ${Date.now().toString(36)}${n++}`;

async function createEvent(title: string, extra: Record<string, unknown> = {}): Promise<Answer> {
  return call('POST', '/events', { token: editor, body: { title, status: 'publish', start_date: '2031-03-10 10:00:00',
    end_date: '2031-03-10 11:00:00', ...extra } });
}

/** The events whose title contains `text` (a filtered list: read from the index and the records, not from counts). */
async function eventsTitled(text: string): Promise<{ id: number; title: string }[]> {
  const res = await get(`/events?${qs({ ...WINDOW, search: text, per_page: 50, status: 'publish,draft,pending,private,future' })}`, editor);
  expectStatus(res, 200);
  return res.json.events;
}

/** Every record of a list, page by page (a recount independent of the count items plain lists use for `total`). */
async function everything(path: string, key: string, query: Record<string, string | number> = {}, token?: string): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; page <= 40; page++) {
    const res = await get(`${path}?${qs({ ...query, per_page: 50, page })}`, token);
    if (res.status === 404 || (res.status === 400 && page > 1)) break; // past the last page
    expectStatus(res, 200);
    out.push(...res.json[key]);
    if (page >= Number(res.headers.get('x-tec-totalpages') ?? 1)) break;
  }
  return out;
}

/** What the lists say is stored: totals of the plain lists, as anonymous and editor callers see them. */
async function totals(): Promise<Record<string, number>> {
  const lists: [string, string, Record<string, string>?][] = [
    ['events', `/events?${qs(WINDOW)}`], ['events (editor)', `/events?${qs({ ...WINDOW, status: 'publish,draft,pending,private' })}`, { editor: '1' }],
    ['venues', '/venues'], ['organizers', '/organizers'], ['categories', `/categories?hide_empty=false`], ['tags', `/tags?hide_empty=false`],
  ];
  const out: Record<string, number> = {};
  for (const [name, path, opts] of lists) {
    const res = await get(path, opts?.editor ? editor : undefined);
    expectStatus(res, 200);
    out[name] = Number(res.headers.get('x-tec-total'));
  }
  return out;
}

/** Polls `check` (bounded) until it holds; for effects that are not instantaneous. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`not so within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the request that started at `t0` is past its function time, so none of its work can still land. */
async function pastDeadline(t0: number): Promise<void> {
  await eventually(async () => Date.now() > t0 + FUNCTION_MS + 200, FUNCTION_MS + 1000);
}

beforeAll(async () => {
  const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('CALENDAR_TEST_DYNAMODB_ENDPOINT is not set: the global setup did not start DynamoDB Local');
  proxy = await startFaultProxy(endpoint);
  server = await startOwnServer('dynamodb-faults', { secret: SECRET, dynamodb: proxy.url,
    env: { CALENDAR_FUNCTION_TIMEOUT_MS: String(FUNCTION_MS) } });
  base = server.url;
  editor = await signLocalToken({ secret: SECRET, role: 'editor', sub: 'fault-editor' });
  // Load every function and register the editor before any fault, so no test pays for a cold start.
  for (const path of ['', '/events', '/venues', '/organizers', '/categories', '/tags']) expectStatus(await get(path, editor), 200);
  expectStatus(await call('POST', '/tags', { token: editor, body: { name: unique('warm-up') } }), 201);
}, 90_000);

beforeEach(() => proxy.resetCounts());

afterEach(async () => {
  proxy.clearRules();
  await proxy.outage(false);
});

afterAll(async () => {
  await server?.stop();
  if (proxy) await stopFaultProxy(proxy);
});

describe('throttled and failing reads', () => {
  it('are retried (2xx) or answered 503 rest_unavailable with Retry-After, never another 5xx', async () => {
    const ev = await createEvent(unique('Read target'), { venue: { venue: unique('Read hall') }, categories: [unique('read-cat')] });
    expectStatus(ev, 201);

    fault({ target: 'GetItem', fault: 'throttle', times: 2 });
    expectStatus(await get(`/events/${ev.json.id}`), 200);
    expect(proxy.faults('GetItem')).toBe(2);

    fault({ target: 'DynamoDB_20120810.GetItem', fault: 'provisioned', times: 3 });
    expectUnavailable(await get(`/events/${ev.json.id}`));
    expect(proxy.faults('GetItem')).toBe(5);

    fault({ target: 'Query', fault: 'throttle', times: 1 }, { target: 'BatchGetItem', fault: 'internal', times: 1 });
    const list = await get(`/events?${qs(WINDOW)}`);
    expectStatus(list, 200);
    expect(list.json.events.map((e: { id: number }) => e.id)).toContain(ev.json.id);

    fault({ target: 'BatchGetItem', fault: 'internal', times: 3 });
    expectUnavailable(await get(`/events?${qs(WINDOW)}`));

    fault({ target: 'GetItem', fault: 'internal', times: 2 });
    expectStatus(await get(`/venues/${ev.json.venue.id}`), 200);
    fault({ target: 'Query', fault: 'internal', times: 3 });
    expectUnavailable(await get(`/venues?${qs({ has_events: 'true' })}`));

    fault({ target: '*', fault: 'reset-before', times: 3 });
    expectUnavailable(await get(`/categories/${ev.json.categories[0].id}`));
    expect(proxy.pendingFaults()).toBe(0);
    expectStatus(await get(`/categories/${ev.json.categories[0].id}`), 200);
  });
});

describe('throttled writes', () => {
  it('are retried and succeed: UpdateItem, PutItem, TransactWriteItems and a transaction cancelled for throttling', async () => {
    const before = await totals();
    const titles: string[] = [];
    const create = async (rules: FaultRule[]) => {
      const title = unique('Throttled write');
      titles.push(title);
      fault(...rules);
      const res = await createEvent(title, { categories: [unique('throttled-cat')] });
      expect(proxy.pendingFaults()).toBe(0);
      proxy.clearRules();
      expectStatus(res, 201);
      expect(res.json.title).toBe(title);
      return res;
    };
    await create([{ target: 'UpdateItem', fault: 'throttle', times: 1 }]);
    await create([{ target: 'TransactWriteItems', fault: 'throttle', times: 2 }]);
    await create([{ target: 'TransactWriteItems', fault: 'provisioned', times: 1 }]);
    const cancelled = await create([{ target: 'TransactWriteItems', fault: 'txn-throttle', times: 4 }]);

    // An update through a throttled transaction and a failed read.
    fault({ target: 'TransactWriteItems', fault: 'txn-throttle', times: 2 }, { target: 'GetItem', fault: 'internal', times: 1 });
    const updated = await call('POST', `/events/${cancelled.json.id}`, { token: editor, body: { description: 'updated under throttling' } });
    expect(proxy.pendingFaults()).toBe(0);
    expectStatus(updated, 200);
    expect(updated.json.description).toContain('updated under throttling');

    // PutItem (application passwords are the service's one PutItem).
    fault({ target: 'PutItem', fault: 'throttle', times: 1 });
    const password = await call('POST', '/application-passwords', { token: editor, body: { name: unique('throttled') } });
    expect(proxy.pendingFaults()).toBe(0);
    expectStatus(password, 201);

    for (const title of titles) expect((await eventsTitled(title)).map((e) => e.title)).toEqual([title]);
    const after = await totals();
    expect(after).toEqual({ ...before, events: before.events! + 4, 'events (editor)': before['events (editor)']! + 4,
      categories: before.categories! + 4 });
  });

  it('that stay throttled answer 503 without outcome, and store nothing', async () => {
    const before = await totals();
    const title = unique('Never stored');
    for (const rule of [
      { target: 'TransactWriteItems', fault: 'throttle', times: 3 },
      { target: 'TransactWriteItems', fault: 'txn-throttle', times: 100 },
      // A read of the write's plan that fails: nothing was sent, so nothing is unknown.
      { target: 'BatchGetItem', fault: 'internal', times: 3 },
    ] as FaultRule[]) {
      fault(rule);
      const res = await createEvent(title, { venue: { venue: unique('Never hall') }, organizer: [{ organizer: unique('Never org') }],
        categories: [unique('never-cat')], tags: [unique('never-tag')] });
      proxy.clearRules();
      expectUnavailable(res, 'none');
    }
    fault({ target: 'TransactWriteItems', fault: 'txn-throttle', times: 100 });
    const venue = await call('POST', '/venues', { token: editor, body: { venue: unique('Never venue') } });
    proxy.clearRules();
    expectUnavailable(venue, 'none');
    expect(await eventsTitled(title)).toEqual([]);
    expect(await totals()).toEqual(before);
  });
});

describe('failed writes (500 from DynamoDB)', () => {
  it('are retried, or answered 503 with outcome unknown, storing nothing when nothing landed', async () => {
    const before = await totals();
    const retried = unique('Internal retried');
    fault({ target: 'TransactWriteItems', fault: 'internal', times: 2 });
    const ok = await createEvent(retried);
    proxy.clearRules();
    expectStatus(ok, 201);

    const failed = unique('Internal failed');
    fault({ target: 'TransactWriteItems', fault: 'internal', times: 3 });
    const res = await createEvent(failed, { venue: { venue: unique('Internal hall') } });
    proxy.clearRules();
    expectUnavailable(res, 'unknown'); // a 500 answer to a write: DynamoDB may or may not have applied it

    expect((await eventsTitled(retried)).length).toBe(1);
    expect(await eventsTitled(failed)).toEqual([]);
    expect(await totals()).toEqual({ ...before, events: before.events! + 1, 'events (editor)': before['events (editor)']! + 1 });
  });
});

describe('a write whose answer is lost', () => {
  it('is stored exactly once: 2xx, or 503 with outcome unknown', async () => {
    const before = await totals();
    const titles: string[] = [];
    for (const rule of [
      { target: 'TransactWriteItems', fault: 'reset-after', times: 1 },
      { target: 'TransactWriteItems', fault: 'reset-after', times: 3 },
      { target: 'TransactWriteItems', fault: 'reset-before', times: 1 },
      { target: 'UpdateItem', fault: 'reset-after', times: 1 },
      // The retry of a transaction whose first attempt DynamoDB is still applying.
      [{ target: 'TransactWriteItems', fault: 'reset-after', times: 1 }, { target: 'TransactWriteItems', fault: 'txn-in-progress', times: 2 }],
    ] as (FaultRule | FaultRule[])[]) {
      const rules = [rule].flat();
      const title = unique(`Lost answer ${rules.map((r) => `${r.fault} ${r.times}`).join(' ')}`);
      titles.push(title);
      fault(...rules);
      const res = await createEvent(title, { venue: { venue: unique('Lost hall') }, categories: [unique('lost-cat')] });
      expect(proxy.pendingFaults()).toBe(0);
      proxy.clearRules();
      if (res.status !== 201) expectUnavailable(res, 'unknown');
      const found = await eventsTitled(title);
      // One record, the one the answer named (the SDK's retry of the transaction did not apply it twice).
      expect(found.length).toBe(1);
      if (res.status === 201) expect(found[0]!.id).toBe(res.json.id);
      const byId = await get(`/events/${found[0]!.id}`);
      expectStatus(byId, 200);
      expect(byId.json.title).toBe(title);
    }
    const after = await totals();
    expect(after.events).toBe(before.events! + titles.length);
    expect(after.venues).toBe(before.venues! + titles.length);
    expect(after.categories).toBe(before.categories! + titles.length);
  });

  it('application passwords: a lost PutItem or DeleteItem answer is not an error', async () => {
    const name = unique('lost put');
    fault({ target: 'PutItem', fault: 'reset-after', times: 1 });
    const created = await call('POST', '/application-passwords', { token: editor, body: { name } });
    expect(proxy.pendingFaults()).toBe(0);
    proxy.clearRules();
    if (created.status !== 201) expectUnavailable(created, 'unknown');
    const listed = await get('/application-passwords', editor);
    expectStatus(listed, 200);
    const mine = listed.json.filter((p: { name: string }) => p.name === name);
    expect(mine.length).toBe(1);
    if (created.status === 201) expect(mine[0].uuid).toBe(created.json.uuid);

    fault({ target: 'DeleteItem', fault: 'reset-after', times: 1 });
    const deleted = await call('DELETE', `/application-passwords/${mine[0].uuid}`, { token: editor });
    expect(proxy.pendingFaults()).toBe(0);
    proxy.clearRules();
    if (deleted.status !== 200) expectUnavailable(deleted, 'unknown');
    const after = await get('/application-passwords', editor);
    expect(after.json.filter((p: { name: string }) => p.name === name)).toEqual([]);
  });
});

describe('a committed write is never answered with an error', () => {
  it('DELETE of an event whose later reads are throttled answers 200 and the event is in the trash', async () => {
    const ev = await createEvent(unique('Deleted under throttling'), { venue: { venue: unique('Delete hall') },
      organizer: [{ organizer: unique('Delete org') }], categories: [unique('delete-cat')] });
    expectStatus(ev, 201);
    for (const target of ['GetItem', 'BatchGetItem', 'Query']) fault({ target, fault: 'throttle', times: 50, after: 'TransactWriteItems' });
    proxy.resetCounts();
    const res = await call('DELETE', `/events/${ev.json.id}`, { token: editor });
    proxy.clearRules();
    expectStatus(res, 200);
    expect(proxy.calls('TransactWriteItems')).toBe(1);
    expect(res.json).toMatchObject({ id: ev.json.id, status: 'trash', venue: { id: ev.json.venue.id } });
    expectStatus(await call('DELETE', `/events/${ev.json.id}`, { token: editor }), 410);
  });

  it('DELETE of a venue whose unlinking reads are throttled answers 200; the next DELETE (410) finishes the unlinking', async () => {
    const ev = await createEvent(unique('Linked to a deleted venue'), { venue: { venue: unique('Unlinked hall') } });
    expectStatus(ev, 201);
    const venueId = ev.json.venue.id as number;
    for (const target of ['GetItem', 'BatchGetItem', 'Query']) fault({ target, fault: 'provisioned', times: 50, after: 'TransactWriteItems' });
    const res = await call('DELETE', `/venues/${venueId}`, { token: editor });
    expect(proxy.faults('*')).toBeGreaterThan(0); // the unlinking after the commit was refused
    proxy.clearRules();
    expectStatus(res, 200);
    expect(res.json).toMatchObject({ id: venueId, status: 'trash' });
    expectStatus(await call('DELETE', `/venues/${venueId}`, { token: editor }), 410);
    const event = await get(`/events/${ev.json.id}`);
    expectStatus(event, 200);
    expect(event.json.venue).toEqual([]);
  });
});

describe('a write that committed part of its work', () => {
  it('a forced venue delete whose unlinking landed and whose own delete stays throttled answers 503 outcome unknown', async () => {
    const ev = await createEvent(unique('Linked to a force-deleted venue'), { venue: { venue: unique('Doomed hall') } });
    expectStatus(ev, 201);
    const venueId = ev.json.venue.id as number;
    // The unlinking transaction commits; every transaction after it is cancelled for throttling.
    fault({ target: 'TransactWriteItems', fault: 'txn-throttle', times: 200, after: 'TransactWriteItems' });
    const res = await call('DELETE', `/venues/${venueId}?force=true`, { token: editor });
    proxy.clearRules();
    expectUnavailable(res, 'unknown');
    expect((await get(`/events/${ev.json.id}`)).json.venue).toEqual([]); // the part that landed
    expectStatus(await call('DELETE', `/venues/${venueId}?force=true`, { token: editor }), 200); // a retry finishes it
  });
});

describe('calls that hang', () => {
  it('end as 503 rest_unavailable with Retry-After within the function time; an unsent write never lands, a sent one lands once', async () => {
    const ev = await createEvent(unique('Hanging read'));
    expectStatus(ev, 201);
    const before = await totals();
    const unsent = unique('Hanging unsent');
    const sent = unique('Hanging sent');
    fault({ target: 'GetItem', fault: 'hang', times: 10, match: `"POST#${ev.json.id}"` },
      { target: 'TransactWriteItems', fault: 'hang', times: 10, match: unsent },
      { target: 'TransactWriteItems', fault: 'hang-after', times: 10, match: sent });
    const t0 = Date.now();
    // Concurrently: a read whose GetItem never answers; a create whose transaction never reaches DynamoDB; a create
    // whose transaction is applied but never answered.
    const [read, lost, landed] = await Promise.all([get(`/events/${ev.json.id}`), createEvent(unsent), createEvent(sent)]);
    proxy.clearRules(); // from here on, anything the requests still sent would land
    expectUnavailable(read, 'none');
    expectUnavailable(lost, 'unknown');
    expectUnavailable(landed, 'unknown');
    for (const res of [read, lost, landed]) expect(res.ms).toBeLessThan(FUNCTION_MS - 300);
    await pastDeadline(t0);
    expect(await eventsTitled(unsent)).toEqual([]);
    expect((await eventsTitled(sent)).map((e) => e.title)).toEqual([sent]);
    expect(await totals()).toEqual({ ...before, events: before.events! + 1, 'events (editor)': before['events (editor)']! + 1 });
    expectStatus(await get(`/events/${ev.json.id}`), 200);
  });
});

describe('counters after faulted writes', () => {
  it('category count, venue and organizer totals and the event total equal a recount', async () => {
    const catName = unique('counted-cat');
    const cat = await call('POST', '/categories', { token: editor, body: { name: catName } });
    expectStatus(cat, 201);
    const venue = await call('POST', '/venues', { token: editor, body: { venue: unique('Counted hall') } });
    expectStatus(venue, 201);
    const organizer = await call('POST', '/organizers', { token: editor, body: { organizer: unique('Counted org') } });
    expectStatus(organizer, 201);
    const links = { categories: [cat.json.id], venue: venue.json.id, organizer: [organizer.json.id] };

    const creates: FaultRule[][] = [
      [{ target: 'TransactWriteItems', fault: 'txn-throttle', times: 3 }],
      [{ target: 'TransactWriteItems', fault: 'reset-after', times: 1 }],
      [{ target: 'TransactWriteItems', fault: 'reset-after', times: 3 }],
      [{ target: 'TransactWriteItems', fault: 'txn-throttle', times: 100 }],
      [{ target: 'TransactWriteItems', fault: 'internal', times: 3 }],
      [{ target: 'TransactWriteItems', fault: 'reset-before', times: 3 }],
      [{ target: 'UpdateItem', fault: 'reset-after', times: 2 }],
      [{ target: 'TransactWriteItems', fault: 'internal', times: 1 }],
      [],
    ];
    const ids: number[] = [];
    for (const [i, rules] of creates.entries()) {
      fault(...rules);
      const res = await createEvent(unique('Counted event'), { ...links, status: i % 3 === 2 ? 'draft' : 'publish' });
      proxy.clearRules();
      if (res.status === 201) ids.push(res.json.id);
      else expectUnavailable(res, 'any');
    }
    expect(ids.length).toBeGreaterThanOrEqual(5);
    // Deletes and updates through faults: lost answers, throttled transactions, refused ones.
    const changes: [string, FaultRule[]][] = [
      ['DELETE', [{ target: 'TransactWriteItems', fault: 'reset-after', times: 1 }]],
      ['DELETE', [{ target: 'TransactWriteItems', fault: 'txn-throttle', times: 2 }]],
      ['DELETE', [{ target: 'TransactWriteItems', fault: 'txn-throttle', times: 100 }]],
      ['DRAFT', [{ target: 'TransactWriteItems', fault: 'reset-after', times: 3 }]],
      ['DRAFT', [{ target: 'TransactWriteItems', fault: 'internal', times: 3 }]],
    ];
    for (const [i, [what, rules]] of changes.entries()) {
      fault(...rules);
      const res = what === 'DELETE' ? await call('DELETE', `/events/${ids[i]}`, { token: editor })
        : await call('POST', `/events/${ids[i]}`, { token: editor, body: { status: 'draft' } });
      proxy.clearRules();
      if (res.status !== 200) expectUnavailable(res, 'any');
    }
    // A venue and an organizer created and trashed through faults.
    fault({ target: 'TransactWriteItems', fault: 'reset-after', times: 1 });
    const v2 = await call('POST', '/venues', { token: editor, body: { venue: unique('Counted hall 2') } });
    proxy.clearRules();
    if (v2.status !== 201) expectUnavailable(v2, 'unknown');
    fault({ target: 'TransactWriteItems', fault: 'txn-throttle', times: 2 });
    const o2 = await call('POST', '/organizers', { token: editor, body: { organizer: unique('Counted org 2') } });
    proxy.clearRules();
    expectStatus(o2, 201);
    fault({ target: 'TransactWriteItems', fault: 'reset-after', times: 3 });
    const trashed = await call('DELETE', `/organizers/${o2.json.id}`, { token: editor });
    proxy.clearRules();
    if (trashed.status !== 200) expectUnavailable(trashed, 'unknown');

    // Recounts: every event, page by page, as the editor and as anonymous.
    const all = await everything('/events', 'events', { ...WINDOW, status: 'publish,draft,pending,private' }, editor);
    const published = await everything('/events', 'events', WINDOW);
    expect(published.every((e) => e.status === 'publish')).toBe(true);
    const listed = await get(`/events?${qs(WINDOW)}`);
    expect(listed.json.total).toBe(published.length);
    expect(Number(listed.headers.get('x-tec-total'))).toBe(published.length);
    const listedAll = await get(`/events?${qs({ ...WINDOW, status: 'publish,draft,pending,private' })}`, editor);
    expect(listedAll.json.total).toBe(all.length);
    const ours = all.filter((e) => e.categories.some((c: { id: number }) => c.id === cat.json.id));
    const publishedOurs = ours.filter((e) => e.status === 'publish');
    const category = await get(`/categories/${cat.json.id}`);
    expectStatus(category, 200);
    expect(category.json.count).toBe(publishedOurs.length);
    const byCategory = await get(`/events?${qs({ ...WINDOW, categories: cat.json.id })}`);
    expect(byCategory.json.total).toBe(publishedOurs.length);
    // Venues and organizers: the list totals (from the status counts) against the records listed.
    for (const kind of ['venues', 'organizers'] as const) {
      const records = await everything(`/${kind}`, kind);
      const res = await get(`/${kind}`);
      expect([kind, Number(res.headers.get('x-tec-total'))]).toEqual([kind, records.length]);
      const statuses = { status: 'publish,draft,pending,private,trash' };
      const editorRecords = await everything(`/${kind}`, kind, statuses, editor);
      const editorRes = await get(`/${kind}?${qs(statuses)}`, editor);
      expect([kind, Number(editorRes.headers.get('x-tec-total'))]).toEqual([kind, editorRecords.length]);
    }
    // has_events follows the venue's counter of linked events that are not drafts.
    const withEvents = await everything('/venues', 'venues', { has_events: 'true' });
    expect(withEvents.some((v) => v.id === venue.json.id)).toBe(ours.some((e) => e.status !== 'draft' && e.status !== 'trash'));
  });
});

describe('a full outage', () => {
  it('answers 503 to reads and writes, stores nothing, and everything answers again once it ends', async () => {
    const ev = await createEvent(unique('Before the outage'));
    expectStatus(ev, 201);
    const before = await totals();
    await proxy.outage(true);
    expectUnavailable(await get(`/events/${ev.json.id}`));
    expectUnavailable(await get(`/events?${qs(WINDOW)}`));
    const title = unique('During the outage');
    expectUnavailable(await createEvent(title), 'none'); // refused connections: nothing was sent
    expectUnavailable(await call('DELETE', `/events/${ev.json.id}`, { token: editor }), 'none');
    expectUnavailable(await call('POST', '/categories', { token: editor, body: { name: unique('outage-cat') } }), 'none');
    await proxy.outage(false);
    const root = await get('');
    expectStatus(root, 200);
    expect(root.json.namespace).toBe('calendar/events/v1');
    expectStatus(await get(`/events/${ev.json.id}`), 200);
    expect(await eventsTitled(title)).toEqual([]);
    expect(await totals()).toEqual(before);
  });
});
