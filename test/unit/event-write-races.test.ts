/**
 * Event writes racing other writers, on the test harness's real DynamoDB (a table of this file's own): another
 * request is run just before the event's TransactWriteItems, between the plan's reads and its write. The plan's
 * decisions are conditions of the transaction, so the write plans again and ends as if it had come second:
 * a deleted category or venue is a 400 naming the parameter (and nothing is stored), a slug or a venue name
 * taken meanwhile is planned around or reused. Contention that never ends is retried until the request's time runs
 * out and then answered 503 rest_unavailable (contract §3, §7: never a 409, never a 500). A venue trashed meanwhile
 * is refused like a deleted one, as its unlinking may already have passed. Reads racing writers: a record trashed
 * between a list's index read and its page read is left out, and a trashed venue or organizer whose unlinking has
 * not reached an event yet is not embedded in it.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { handler as categories } from '../../functions/categories.js';
import { handler as events } from '../../functions/events.js';
import { handler as organizers } from '../../functions/organizers.js';
import { handler as root } from '../../functions/root.js';
import { handler as venues } from '../../functions/venues.js';
import { resetConfig } from '../../lib/config.js';
import { ensureTable } from '../../lib/local/dynamodb-local.js';
import { signLocalToken } from '../../lib/local/token-sign.js';
import { setClient } from '../../lib/store/client.js';
import { repairRelocations } from '../../lib/geo/relocate.js';
import { postKey } from '../../lib/store/keys.js';
import { slugify } from '../../lib/text/slug.js';
import { captureOutput } from '../support/capture-output.js';
import { gatewayEvent, lambdaContext } from '../support/gateway-event.js';
import { restoreAndDropTable } from '../support/own-table.js';

// The harness's DynamoDB (global-setup.ts); a run without it must fail here, not skip these tests.
const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
if (!endpoint) throw new Error('CALENDAR_TEST_DYNAMODB_ENDPOINT is not set: the global setup did not start DynamoDB Local');

type Result = { status: number; json: any };
const HANDLERS = { events, venues, organizers, categories, root } as const;

describe('event writes racing other writers (real DynamoDB)', () => {
  const table = `races-${randomUUID().slice(0, 8)}`;
  const secret = 'races-secret-0123456789abcdef0123456789';
  const raw = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION || 'local',
    credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID || 'local', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || 'local' } });
  const real = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false } });

  /** Runs once, just before the next TransactWriteItems any handler sends. */
  let beforeNextTransaction: (() => Promise<unknown>) | null = null;
  /** Runs once, just after the next TransactWriteItems that commits. */
  let afterNextTransaction: (() => unknown) | null = null;
  /** Runs once, just before the next BatchGetItem (a list's page read, an event's linked records). */
  let beforeNextBatchGet: (() => Promise<unknown>) | null = null;
  /** Every transaction is cancelled as DynamoDB cancels one that collides with another. */
  let contention = false;
  let transactions = 0;
  const client = Object.create(real) as DynamoDBDocumentClient;
  client.send = (async (command: Parameters<typeof real.send>[0]) => {
    if (command instanceof BatchGetCommand && beforeNextBatchGet) {
      const hook = beforeNextBatchGet;
      beforeNextBatchGet = null;
      await hook();
    }
    if (command instanceof TransactWriteCommand) {
      transactions++;
      const hook = beforeNextTransaction;
      beforeNextTransaction = null;
      if (hook) await hook();
      if (contention) {
        throw Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException',
          CancellationReasons: command.input.TransactItems!.map((_, i) => ({ Code: i === 1 ? 'TransactionConflict' : 'None' })) });
      }
      const out = await real.send(command as never);
      const after = afterNextTransaction;
      afterNextTransaction = null;
      after?.();
      return out;
    }
    return real.send(command as never);
  }) as typeof real.send;

  const saved = { ...process.env };
  let token: string;
  beforeAll(async () => {
    Object.assign(process.env, { CALENDAR_TABLE_NAME: table, CALENDAR_JWT_SECRET: secret, CALENDAR_TIMEZONE: 'UTC', CALENDAR_SITE_URL: '',
      CALENDAR_JWT_ISSUER: '' });
    resetConfig();
    await ensureTable(raw, table);
    setClient(client);
    token = await signLocalToken({ secret, role: 'editor', sub: 'races-editor' });
  }, 60_000);

  afterAll(() => restoreAndDropTable(raw, table, saved));

  beforeEach(() => {
    beforeNextTransaction = null;
    afterNextTransaction = null;
    beforeNextBatchGet = null;
    contention = false;
    transactions = 0;
  });

  /** The function's time limit each call gets (as Lambda reports it through getRemainingTimeInMillis). */
  let timeLimitMs = 10_000;
  const contextFor = lambdaContext;

  async function call(group: keyof typeof HANDLERS, method: string, path: string, body?: unknown, query = ''): Promise<Result> {
    const res = await HANDLERS[group](gatewayEvent(method, `/calendar/events/v1${path}`, { body, query, token }), contextFor(timeLimitMs)) as
      { statusCode: number; body: string };
    return { status: res.statusCode, json: JSON.parse(res.body) };
  }

  const uid = () => randomUUID().slice(0, 8);
  const event = (extra: Record<string, unknown>) =>
    call('events', 'POST', '/events', { title: `Race ${uid()}`, start_date: '2044-02-03 20:00:00', end_date: '2044-02-03 22:00:00', ...extra });
  const created = (r: Result) => {
    expect({ status: r.status, body: r.json }).toMatchObject({ status: 201 });
    return r.json;
  };
  const venuesNamed = async (name: string): Promise<number> =>
    (await call('venues', 'GET', '/venues', undefined, `search=${encodeURIComponent(name)}&status=publish`)).json.total;

  it('a category deleted between plan and write → 400 rest_invalid_param (categories); nothing is stored', async () => {
    const cat = created(await call('categories', 'POST', '/categories', { name: `Doomed ${uid()}` }));
    const name = `Race hall ${uid()}`;
    beforeNextTransaction = () => call('categories', 'DELETE', `/categories/${cat.id}`);
    const res = await event({ venue: { venue: name }, categories: [cat.id] });
    expect(res).toEqual({ status: 400, json: { code: 'rest_invalid_param', message: expect.any(String),
      data: { status: 400, params: { categories: `categories: no category ${cat.id}` } } } });
    expect((await call('categories', 'GET', `/categories/${cat.id}`)).status).toBe(404);
    expect(await venuesNamed(name)).toBe(0);
  });

  it('a linked venue deleted between plan and write → 400 rest_invalid_param (venue)', async () => {
    const venue = created(await call('venues', 'POST', '/venues', { venue: `Doomed hall ${uid()}` }));
    beforeNextTransaction = () => call('venues', 'DELETE', `/venues/${venue.id}`, undefined, 'force=true');
    const res = await event({ venue: venue.id });
    expect(res.status).toBe(400);
    expect(res.json.data.params).toEqual({ venue: `venue: no venue ${venue.id}` });
  });

  it('a linked venue trashed between plan and write → 400 rest_invalid_param (venue); no event links the trashed venue', async () => {
    // Trashing commits, then unlinks the venue from the events its relationship items list: an event write that
    // read the venue before the trash and commits after the unlinking must not add a link to it.
    const venue = created(await call('venues', 'POST', '/venues', { venue: `Trashed hall ${uid()}` }));
    beforeNextTransaction = () => call('venues', 'DELETE', `/venues/${venue.id}`);
    const title = `Late link ${uid()}`;
    const res = await event({ title, venue: venue.id });
    expect({ status: res.status, params: res.json.data?.params }).toEqual({ status: 400, params: { venue: `venue: no venue ${venue.id}` } });
    expect((await call('events', 'GET', '/events', undefined, `search=${encodeURIComponent(title)}&start_date=2044-01-01`)).json.total).toBe(0);
    expect((await call('venues', 'GET', `/venues/${venue.id}`)).json).toMatchObject({ status: 'trash' });
  });

  it('an event whose venue was trashed but not yet unlinked shows it as unlinked', async () => {
    // The unlinking follows the trash's commit (here it fails, as after a crash, until the next DELETE finishes it):
    // meanwhile no reader sees the trashed venue embedded in the event.
    const venue = created(await call('venues', 'POST', '/venues', { venue: `Half-unlinked hall ${uid()}` }));
    const organizer = created(await call('organizers', 'POST', '/organizers', { organizer: `Half-unlinked org ${uid()}` }));
    const ev = created(await event({ venue: venue.id, organizer: [organizer.id] }));
    const warnings = captureOutput();
    try {
      for (const [group, path] of [['venues', `/venues/${venue.id}`], ['organizers', `/organizers/${organizer.id}`]] as const) {
        afterNextTransaction = () => (contention = true);
        timeLimitMs = 1500;
        expect((await call(group, 'DELETE', path)).json).toMatchObject({ status: 'trash' });
        timeLimitMs = 10_000;
        contention = false;
      }
      expect(warnings.lines().filter((l) => l.level === 'WARN').map((l) => l.message)).toEqual([
        `unlinking venue ${venue.id} did not finish; the next write of the record finishes it`,
        `unlinking organizer ${organizer.id} did not finish; the next write of the record finishes it`,
      ]);
    } finally {
      warnings.restore();
    }
    const single = (await call('events', 'GET', `/events/${ev.id}`)).json;
    expect({ venue: single.venue, organizer: single.organizer }).toEqual({ venue: [], organizer: [] });
    const listed = (await call('events', 'GET', '/events', undefined, `include=${ev.id}`)).json.events;
    expect(listed.map((e: any) => ({ id: e.id, venue: e.venue, organizer: e.organizer }))).toEqual([{ id: ev.id, venue: [], organizer: [] }]);
    // A second DELETE answers 410 and finishes the unlinking.
    expect((await call('venues', 'DELETE', `/venues/${venue.id}`)).status).toBe(410);
    const stored = (await real.send(new GetCommand({ TableName: table, Key: postKey(ev.id), ConsistentRead: true }))).Item!;
    expect({ venue: stored.venue, organizers: stored.organizers }).toEqual({ venue: undefined, organizers: [organizer.id] });
  });

  it('a venue trashed between a list\'s index read and its page read is left out of the page', async () => {
    const name = `Listed hall ${uid()}`;
    const venue = created(await call('venues', 'POST', '/venues', { venue: name }));
    beforeNextBatchGet = () => call('venues', 'DELETE', `/venues/${venue.id}`);
    const page = (await call('venues', 'GET', '/venues', undefined, 'per_page=50')).json.venues;
    expect(beforeNextBatchGet).toBeNull();
    expect(page.filter((v: any) => v.id === venue.id || v.status !== 'publish')).toEqual([]);
  });

  it('a slug taken between plan and write → planned again onto a free one', async () => {
    const title = `Same title ${uid()}`;
    let other: any;
    beforeNextTransaction = async () => (other = created(await event({ title })));
    const mine = created(await event({ title }));
    expect(other.slug).toBe(slugify(title));
    expect(mine.slug).toMatch(new RegExp(`^${slugify(title)}-[23]$`));
  });

  it('a venue of the same name created between plan and write → the event reuses it', async () => {
    const name = `Raced hall ${uid()}`;
    let other: any;
    beforeNextTransaction = async () => (other = created(await call('venues', 'POST', '/venues', { venue: name })));
    const ev = created(await event({ venue: { venue: name, city: 'Porto' } }));
    expect(ev.venue).toMatchObject({ id: other.id, venue: name, city: 'Porto' });
    expect(await venuesNamed(name)).toBe(1);
  });

  it('the matched venue changed between plan and write → both changes survive', async () => {
    const venue = created(await call('venues', 'POST', '/venues', { venue: `Busy hall ${uid()}`, phone: '1' }));
    beforeNextTransaction = () => call('venues', 'PATCH', `/venues/${venue.id}`, { city: 'Faro' });
    const ev = created(await event({ venue: { venue: venue.venue, phone: '2' } }));
    expect(ev.venue).toMatchObject({ id: venue.id, phone: '2', city: 'Faro' });
    expect((await call('venues', 'GET', `/venues/${venue.id}`)).json).toMatchObject({ phone: '2', city: 'Faro' });
  });

  describe('the geo index (contract §18) stays exact when venues move', () => {
    const near = async (lat: number, lng: number, query = '') => (await call('events', 'GET', '/events', undefined,
      `geoloc_lat=${lat}&geoloc_lng=${lng}&start_date=2044-01-01&end_date=2045-01-01&per_page=50${query}`)).json.events.map((e: any) => e.id);
    const storedCell = async (id: number) =>
      (await real.send(new GetCommand({ TableName: table, Key: postKey(id), ConsistentRead: true }))).Item!.gh;
    const marker = async (venueId: number) =>
      (await real.send(new GetCommand({ TableName: table, Key: { PK: 'GSYNC', SK: String(venueId).padStart(10, '0') }, ConsistentRead: true }))).Item;

    it('a venue given coordinates between an event\'s plan and its write → the event is indexed in the venue\'s cell', async () => {
      // The venue's move queries its relationship partition before the new link exists: the link's condition on the
      // venue's cell ("none" included) makes the event's write plan again with the new one.
      const venue = created(await call('venues', 'POST', '/venues', { venue: `Placed hall ${uid()}` }));
      beforeNextTransaction = () => call('venues', 'PATCH', `/venues/${venue.id}`, { geo_lat: 48.8566, geo_lng: 2.3522 });
      const ev = created(await event({ venue: venue.id }));
      expect(beforeNextTransaction).toBeNull();
      expect(ev.venue).toMatchObject({ geo_lat: 48.8566, geo_lng: 2.3522 });
      expect(await near(48.85, 2.35)).toContain(ev.id);
      expect(await storedCell(ev.id)).toBe(await storedCell(venue.id));
    });

    it('a venue whose coordinates are cleared between an event\'s plan and its write → the event is in no cell', async () => {
      const venue = created(await call('venues', 'POST', '/venues', { venue: `Unplaced hall ${uid()}`, geo_lat: 41.15, geo_lng: -8.61 }));
      beforeNextTransaction = () => call('venues', 'PATCH', `/venues/${venue.id}`, { geo_lat: null, geo_lng: null });
      const ev = created(await event({ venue: venue.id }));
      expect(beforeNextTransaction).toBeNull();
      expect(await near(41.15, -8.61)).not.toContain(ev.id);
      expect(await storedCell(ev.id)).toBeUndefined();
      const without = (await call('events', 'GET', '/events', undefined, 'geoloc=false&start_date=2044-01-01&end_date=2045-01-01&per_page=50')).json;
      expect(without.events.map((e: any) => e.id)).toContain(ev.id);
    });

    it('a move whose request dies before moving every event leaves its marker; the repair finishes it exactly once', async () => {
      const venue = created(await call('venues', 'POST', '/venues', { venue: `Moving hall ${uid()}`, geo_lat: 38.72, geo_lng: -9.14 }));
      const ev = created(await event({ venue: venue.id }));
      expect(await near(38.72, -9.14)).toContain(ev.id);
      const warnings = captureOutput();
      try {
        afterNextTransaction = () => (contention = true);
        timeLimitMs = 1500;
        expect((await call('venues', 'PATCH', `/venues/${venue.id}`, { geo_lat: 37.02, geo_lng: -7.93 })).status).toBe(200);
        timeLimitMs = 10_000;
        contention = false;
        expect(warnings.lines().filter((l) => l.level === 'WARN').map((l) => l.message))
          .toContain(`moving the events of venue ${venue.id} did not finish; the next write of the record finishes it`);
      } finally {
        warnings.restore();
      }
      const left = await marker(venue.id);
      expect(left).toMatchObject({ v: expect.any(Number) });
      // Not yet due (the request that put it may still be working): nothing moves.
      expect(await repairRelocations(10)).toBe(0);
      expect(await near(37.02, -7.93)).not.toContain(ev.id);
      // Due a minute later: the events move once, the marker goes; a second run finds nothing to do.
      expect(await repairRelocations(10, Date.now() + 61_000)).toBe(1);
      expect(await marker(venue.id)).toBeUndefined();
      expect(await near(37.02, -7.93)).toContain(ev.id);
      expect(await near(38.72, -9.14)).not.toContain(ev.id);
      const version = (await call('events', 'GET', `/events/${ev.id}`)).json;
      expect(await repairRelocations(10, Date.now() + 61_000)).toBe(0);
      expect(await storedCell(ev.id)).toBe(await storedCell(venue.id));
      expect((await call('events', 'GET', `/events/${ev.id}`)).json.modified).toBe(version.modified);
    });

    it('an event write that changes a reused inline venue\'s coordinates moves the venue\'s other events', async () => {
      const name = `Shared hall ${uid()}`;
      const venue = created(await call('venues', 'POST', '/venues', { venue: name, geo_lat: 40.41, geo_lng: -3.70 }));
      const first = created(await event({ venue: venue.id }));
      const second = created(await event({ venue: { venue: name, geo_lat: 39.47, geo_lng: -0.38 } }));
      expect(second.venue).toMatchObject({ id: venue.id, geo_lat: 39.47, geo_lng: -0.38 });
      expect(await near(39.47, -0.38)).toEqual(expect.arrayContaining([first.id, second.id]));
      expect(await near(40.41, -3.70)).not.toContain(first.id);
      expect(await marker(venue.id)).toBeUndefined();
    });
  });

  it('contention that does not end is retried until the time runs out → 503 rest_unavailable; nothing is stored', async () => {
    const name = `Contended hall ${uid()}`;
    contention = true;
    timeLimitMs = 3000;
    const res = await event({ venue: { venue: name } });
    timeLimitMs = 10_000;
    expect(res).toEqual({ status: 503, json: { code: 'rest_unavailable', message: expect.any(String), data: { status: 503 } } });
    expect(transactions).toBeGreaterThan(5);
    contention = false;
    expect(await venuesNamed(name)).toBe(0);
  });

  describe('the change log (contract §16): writes that commit out of their numbers\' order', () => {
    const changes = async (since: string) => (await call('root', 'GET', '/changes', undefined, `since=${since}&per_page=500`)).json;
    const ids = (feed: { changes: { id: number; action: string }[] }) => feed.changes.map((c) => `${c.id}:${c.action}`);

    it('a write that took the lower number but commits last is still delivered, to a follower and to since=latest', async () => {
      const start = (await changes('latest')).next_cursor;
      // Writer A takes its number, then stalls before its transaction while writer B (the next number) commits.
      let release!: () => void;
      let stalled!: () => void;
      const stall = new Promise<void>((r) => (stalled = r));
      beforeNextTransaction = () => {
        stalled();
        return new Promise<void>((r) => (release = r));
      };
      const a = event({});
      await stall;
      const b = created(await event({}));
      const mid = await changes(start);
      expect(ids(mid)).toEqual([`${b.id}:created`]);
      const latest = (await changes('latest')).next_cursor;
      release();
      const aid = created(await a).id;
      expect(ids(await changes(mid.next_cursor))).toEqual([`${aid}:created`]);
      expect(ids(await changes(latest))).toEqual([`${aid}:created`]);
      expect(ids(await changes(start))).toEqual([`${b.id}:created`, `${aid}:created`].sort((x, y) => Number(x.split(':')[0]) - Number(y.split(':')[0])));
    });

    it('a refused transaction leaves its numbers void: readers do not wait at them', async () => {
      const start = (await changes('latest')).next_cursor;
      contention = true;
      setTimeout(() => (contention = false), 50);
      const e = created(await event({}));
      const feed = await changes(start);
      expect(ids(feed)).toEqual([`${e.id}:created`]);
      expect(feed.more).toBe(false);
      // Nothing is waited for: the cursor holds no pending numbers.
      expect(Buffer.from(feed.next_cursor, 'base64url').toString()).toMatch(/:$/);
    });
  });
});
