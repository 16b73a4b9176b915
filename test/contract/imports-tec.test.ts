/**
 * Import runs (contract §20) from a site that runs the origin's API — a second local instance of this service, which
 * speaks it under /wp-json/tribe/events/v1 — into a target instance, over HTTP against DynamoDB Local: what a first run
 * creates, field by field, with venues, organizers and terms matched by name (or email) or created; reruns that write
 * nothing when nothing changed and exactly the difference when something did (the changes feed shows it); removal of
 * what left the source; each `authority`; delete_events; an application password that is used, never shown, never
 * logged and kept sealed; scheduled runs queued by the dispatcher; and the limit of 100 imports under concurrency.
 * Each test has a month of its own at the source, and imports only that month.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  changesCursor, changesSince, eventsIn, finished, type Instance, rerun, SOURCE_SECRET, startInstance, TARGET_ENV, TARGET_SECRET, tecUrl,
} from './helpers/imports.js';

const TABLE = `imports-tec-target-${Date.now()}`;
/** Runs, polls and waits for the worker: longer than the suite's default per test. */
const SLOW = 90_000;
let source: Instance;
let target: Instance;

beforeAll(async () => {
  [source, target] = await Promise.all([
    startInstance('imports-tec-source', SOURCE_SECRET),
    startInstance('imports-tec-target', TARGET_SECRET, { ...TARGET_ENV, CALENDAR_TABLE_NAME: TABLE }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([source?.server.stop(), target?.server.stop()]);
});

const at = (month: string, day: number, hour: number) => `2032-${month}-${String(day).padStart(2, '0')} ${String(hour).padStart(2, '0')}:00:00`;
const seed = (month: string, day: number, extra: Record<string, unknown> = {}) => source.ok('POST', '/events', {
  title: `Event ${month}-${day}`, status: 'publish', timezone: 'UTC', start_date: at(month, day, 18), end_date: at(month, day, 20), ...extra });

/** An import of one month of the source. */
async function importMonth(month: string, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await target.call('POST', '/imports', { name: `Month ${month}`, source: { type: 'tec', url: tecUrl(source) },
    start_date: `2032-${month}-01`, end_date: `2032-${month}-28`, ...extra });
  if (res.status !== 202) throw new Error(`POST /imports: ${res.status} ${res.text}`);
  return finished(target, res.json.id);
}

const monthAtTarget = (month: string) => eventsIn(target, `2032-${month}-01`, `2032-${month}-28`);

describe('a first run and reruns', () => {
  const M = '01';
  let imp: any;
  let seeded: any[];
  let existingVenue: any;
  let existingOrganizer: any;

  beforeAll(async () => {
    existingVenue = await target.ok('POST', '/venues', { venue: 'Town Hall', address: 'Old Street 1', city: 'Oldtown' });
    existingOrganizer = await target.ok('POST', '/organizers', { organizer: 'A. Person', email: 'person@example.org' });
    seeded = [
      await seed(M, 3, { title: 'Concert & Co', description: '<p>Loud <b>music</b></p>', excerpt: '<p>Short</p>', timezone: 'Europe/Berlin',
        slug: 'concert-and-co', website: 'https://example.org/concert?a=1&b=2', cost: '15€', featured: true, categories: ['Music', 'Live'],
        tags: ['night'], venue: { venue: 'Harbour Stage', address: 'Pier 4', city: 'Hamburg', country: 'Germany', geo_lat: 53.54, geo_lng: 9.98 },
        organizer: [{ organizer: 'Acme Events', email: 'team@acme.example.org', phone: '+49 40 1234' }] }),
      await seed(M, 5, { title: 'Market', all_day: true, start_date: '2032-01-05', end_date: '2032-01-06', venue: { venue: 'Town Hall',
        address: 'New Road 9' }, organizer: [{ organizer: 'Someone Else', email: 'Person@Example.org' }], categories: ['Music'] }),
      await seed(M, 7, { title: 'Workshop', timezone: 'America/New_York' }),
      await seed(M, 9, { title: 'Talk' }),
    ];
    await seed('02', 1, { title: 'Outside the window' });
    imp = await importMonth(M);
  }, 120_000);

  test('creates every event of the window, counted; outside the window nothing', async () => {
    expect(imp.last_run).toMatchObject({ state: 'done', total: 4, processed: 4, created: 4, updated: 0, unchanged: 0, removed: 0, failed: 0,
      errors: [], message: '' });
    const events = await monthAtTarget(M);
    expect(events.map((e) => e.title)).toEqual(seeded.map((e) => e.title));
    expect((await eventsIn(target, '2032-02-01', '2032-02-28')).map((e) => e.title)).not.toContain('Outside the window');
  }, SLOW);

  test('maps each field as the source shows it: dates and zones, text, links, terms, status, slug', async () => {
    const events = await monthAtTarget(M);
    for (const [i, theirs] of seeded.entries()) {
      const ours = events[i]!;
      for (const key of ['title', 'description', 'excerpt', 'start_date', 'end_date', 'utc_start_date', 'utc_end_date', 'all_day', 'timezone', 'cost',
        'featured', 'status'] as const) {
        expect([theirs.title, key, ours[key]]).toEqual([theirs.title, key, theirs[key]]);
      }
      expect(ours.categories.map((c: any) => c.name).sort()).toEqual(theirs.categories.map((c: any) => c.name).sort());
      expect(ours.tags.map((c: any) => c.name)).toEqual(theirs.tags.map((c: any) => c.name));
      expect(ours.author).toBeGreaterThan(0);
    }
    const [concert, market] = events;
    // The URL as sent (the source escapes it as the origin does; the reader decodes it once, the target escapes it again).
    expect([concert.slug, concert.website]).toEqual(['concert-and-co', seeded[0].website]);
    expect(concert.venue).toMatchObject({ venue: 'Harbour Stage', address: 'Pier 4', city: 'Hamburg', country: 'Germany', geo_lat: 53.54, geo_lng: 9.98 });
    expect(concert.organizer.map((o: any) => [o.organizer, o.email])).toEqual([['Acme Events', 'team@acme.example.org']]);
    // A venue of that name exists: linked as it is (its address is not the source's); an organizer matched by email.
    expect([market.venue.id, market.venue.address]).toEqual([existingVenue.id, 'Old Street 1']);
    expect(market.organizer.map((o: any) => o.id)).toEqual([existingOrganizer.id]);
  }, SLOW);

  test('a rerun with nothing changed writes nothing: every event unchanged, the changes feed empty', async () => {
    const cursor = await changesCursor(target);
    const again = await rerun(target, imp.id);
    expect(again.last_run).toMatchObject({ state: 'done', total: 4, processed: 4, created: 0, updated: 0, unchanged: 4, removed: 0, failed: 0 });
    expect(await changesSince(target, cursor)).toEqual([]);
  }, SLOW);

  test('a rerun after changes at the source writes exactly the difference: one updated, one created, one removed', async () => {
    await source.ok('PATCH', `/events/${seeded[2].id}`, { title: 'Workshop (moved)', start_date: at(M, 8, 10), end_date: at(M, 8, 12) });
    const added = await seed(M, 11, { title: 'Added' });
    await source.ok('DELETE', `/events/${seeded[3].id}`);
    const before = await monthAtTarget(M);
    const cursor = await changesCursor(target);
    const again = await rerun(target, imp.id);
    expect(again.last_run).toMatchObject({ state: 'done', total: 4, processed: 4, created: 1, updated: 1, unchanged: 2, removed: 1, failed: 0 });
    const after = await monthAtTarget(M);
    expect(after.map((e) => e.title)).toEqual([seeded[0].title, 'Market', 'Workshop (moved)', 'Added']);
    const workshop = after.find((e) => e.title === 'Workshop (moved)');
    expect([workshop.id, workshop.start_date]).toEqual([before[2].id, '2032-01-08 10:00:00']);
    const talk = before[3];
    expect((await eventsIn(target, `2032-${M}-01`, `2032-${M}-28`, '&status=trash')).map((e) => e.id)).toEqual([talk.id]);
    const changes = await changesSince(target, cursor);
    const created = after.find((e) => e.title === 'Added');
    expect(changes.filter((c) => c.kind === 'event').sort((a, b) => a.id - b.id))
      .toEqual([{ kind: 'event', id: workshop.id, action: 'updated' }, { kind: 'event', id: talk.id, action: 'deleted' },
        { kind: 'event', id: created.id, action: 'created' }].sort((a, b) => a.id - b.id));
    expect(added.title).toBe('Added');
  }, SLOW);

  test('an event that comes back at the source is restored; one made password-protected there is removed', async () => {
    await source.ok('POST', `/events/${seeded[3].id}`, { status: 'publish' }); // out of the source's trash
    await source.ok('PATCH', `/events/${seeded[1].id}`, { password: 'secret' });
    const again = await rerun(target, imp.id);
    expect(again.last_run).toMatchObject({ created: 0, updated: 1, removed: 1, failed: 0 });
    const titles = (await monthAtTarget(M)).map((e) => e.title);
    expect(titles).toContain('Talk');
    expect(titles).not.toContain('Market');
  }, SLOW);
});

describe('authority', () => {
  test('retain: an imported event is never touched again, neither updated nor removed', async () => {
    const M = '02';
    const [a, b] = [await seed(M, 10, { title: 'Kept as imported' }), await seed(M, 12, { title: 'Kept though gone' })];
    const imp = await importMonth(M, { authority: 'retain', start_date: '2032-02-09', end_date: '2032-02-20' });
    expect(imp.last_run.created).toBe(2);
    await source.ok('PATCH', `/events/${a.id}`, { title: 'Changed at the source' });
    await source.ok('DELETE', `/events/${b.id}`);
    const cursor = await changesCursor(target);
    const again = await rerun(target, imp.id);
    expect(again.last_run).toMatchObject({ total: 1, created: 0, updated: 0, unchanged: 1, removed: 0 });
    expect((await eventsIn(target, '2032-02-09', '2032-02-20')).map((e) => e.title)).toEqual(['Kept as imported', 'Kept though gone']);
    expect(await changesSince(target, cursor)).toEqual([]);
  }, SLOW);

  test('preserve: fields changed through the API since the import are kept, the others follow the source', async () => {
    const M = '03';
    const [a, b] = [await seed(M, 2, { title: 'First', description: '<p>One</p>' }), await seed(M, 4, { title: 'Second', cost: '5' })];
    const imp = await importMonth(M, { authority: 'preserve' });
    const [ourA, ourB] = await monthAtTarget(M);
    await target.ok('PATCH', `/events/${ourA.id}`, { title: 'Our own title' });
    await source.ok('PATCH', `/events/${a.id}`, { title: 'First, renamed', description: '<p>One, rewritten</p>' });
    await source.ok('PATCH', `/events/${b.id}`, { title: 'Second, renamed', cost: '7' });
    const again = await rerun(target, imp.id);
    expect(again.last_run).toMatchObject({ updated: 2, failed: 0 });
    const [newA, newB] = await monthAtTarget(M);
    expect([newA.id, newA.title, newA.description]).toEqual([ourA.id, 'Our own title', '<p>One, rewritten</p>']);
    expect([newB.id, newB.title, newB.cost]).toEqual([ourB.id, 'Second, renamed', '7']);
    // The field edited here stays ours on later runs too.
    await source.ok('PATCH', `/events/${a.id}`, { title: 'First, renamed again', cost: '9' });
    await rerun(target, imp.id);
    expect((await target.ok('GET', `/events/${ourA.id}`)).title).toBe('Our own title');
    expect((await target.ok('GET', `/events/${ourA.id}`)).cost).toBe('9');
    // An event trashed here stays trashed, whatever the source changes.
    await target.ok('DELETE', `/events/${ourB.id}`);
    await source.ok('PATCH', `/events/${b.id}`, { title: 'Second, once more' });
    expect((await rerun(target, imp.id)).last_run).toMatchObject({ updated: 0, failed: 0 });
    expect((await eventsIn(target, `2032-${M}-01`, `2032-${M}-28`, '&status=trash')).map((e) => [e.id, e.title])).toEqual([[ourB.id, 'Second, renamed']]);
  }, SLOW);

  test('overwrite (the default): the source wins on every run that brings a change', async () => {
    const M = '04';
    const a = await seed(M, 2, { title: 'Theirs', description: '<p>Theirs</p>' });
    const imp = await importMonth(M);
    expect(imp.authority).toBe('overwrite');
    const [ours] = await monthAtTarget(M);
    await target.ok('PATCH', `/events/${ours.id}`, { title: 'Ours' });
    await source.ok('PATCH', `/events/${a.id}`, { description: '<p>Theirs, again</p>' });
    await rerun(target, imp.id);
    const after = await target.ok('GET', `/events/${ours.id}`);
    expect([after.title, after.description]).toEqual(['Theirs', '<p>Theirs, again</p>']);
  }, SLOW);
});

describe('delete', () => {
  test('DELETE ?delete_events=true trashes every event the import brought in; a plain DELETE leaves them', async () => {
    const M = '05';
    await seed(M, 2, { title: 'Goes with its import' });
    await seed(M, 3, { title: 'Goes too' });
    await seed(M, 20, { title: 'Stays with its import' });
    const gone = await importMonth(M, { end_date: '2032-05-10' });
    const kept = await importMonth(M, { start_date: '2032-05-15' });
    const del = await target.call('DELETE', `/imports/${gone.id}?delete_events=true`);
    expect(del.status).toBe(202);
    const plain = await target.call('DELETE', `/imports/${kept.id}`);
    expect(plain.status).toBe(200);
    for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
      if ((await eventsIn(target, '2032-05-01', '2032-05-10')).length === 0) break;
    }
    expect((await eventsIn(target, '2032-05-01', '2032-05-10')).map((e) => e.title)).toEqual([]);
    expect((await eventsIn(target, '2032-05-01', '2032-05-10', '&status=trash')).map((e) => e.title)).toEqual(['Goes with its import', 'Goes too']);
    expect((await eventsIn(target, '2032-05-15', '2032-05-28')).map((e) => e.title)).toEqual(['Stays with its import']);
    // What is left of both in the table goes too (the removal runs in the worker).
    const db = rawTable();
    for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
      if ((await itemsOf(db, gone.id)).length + (await itemsOf(db, kept.id)).length === 0) break;
    }
    expect([...await itemsOf(db, gone.id), ...await itemsOf(db, kept.id)]).toEqual([]);
  }, SLOW);
});

describe('an application password of the source', () => {
  const PASSWORD_FILE = join(tmpdir(), `imports-tec-target-${process.pid}.log`);

  test('reads what anonymous readers cannot see, keeps each source event\'s status; never shown, never logged, sealed at rest', async () => {
    const M = '06';
    await seed(M, 2, { title: 'Published' });
    await seed(M, 3, { title: 'Draft', status: 'draft' });
    await seed(M, 4, { title: 'Private', status: 'private' });
    const pw = await source.ok('POST', '/application-passwords', { name: 'importer' });
    const anonymous = await importMonth(M, { name: 'anonymous' });
    expect(anonymous.last_run.created).toBe(1);
    await target.ok('DELETE', `/imports/${anonymous.id}?delete_events=true`);
    for (const end = Date.now() + 30_000; Date.now() < end && (await eventsIn(target, '2032-06-01', '2032-06-28')).length;) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const res = await target.call('POST', '/imports', { name: 'signed in', source: { type: 'tec', url: tecUrl(source), username: pw.username,
      password: pw.password }, start_date: '2032-06-01', end_date: '2032-06-28' });
    expect(res.status).toBe(202);
    const secret = pw.password.replace(/ /g, '');
    const imp = await finished(target, res.json.id);
    expect(imp.last_run).toMatchObject({ state: 'done', created: 3, failed: 0 });
    expect((await eventsIn(target, '2032-06-01', '2032-06-28')).map((e) => [e.title, e.status]))
      .toEqual([['Published', 'publish'], ['Draft', 'draft'], ['Private', 'private']]);
    for (const text of [res.text, JSON.stringify(imp), JSON.stringify(await target.ok('GET', '/imports?per_page=50'))]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(pw.password);
    }
    expect(imp.source).toEqual({ type: 'tec', url: tecUrl(source), username: pw.username });
    const log = readFileSync(PASSWORD_FILE, 'utf8');
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(secret);
    expect(log).not.toContain(pw.password.split(' ')[0]);
    const stored = JSON.stringify(await itemsOf(rawTable(), res.json.id));
    expect(stored).toContain('"sealed":"aes:');
    expect(stored).not.toContain(secret);
    // A wrong password: the run fails and says so.
    await target.ok('PATCH', `/imports/${res.json.id}`, { source: { type: 'tec', url: tecUrl(source), username: pw.username, password: 'wrong0password0wrong0pass' } });
    const refused = await rerun(target, res.json.id);
    expect([refused.last_run.state, refused.last_run.message]).toEqual(['failed', expect.stringMatching(/HTTP 401.*application password/)]);
  }, SLOW);
});

describe('schedules', () => {
  test('the dispatcher queues a run when it is due, and moves next_run_utc past now', async () => {
    const M = '07';
    await seed(M, 2, { title: 'Scheduled' });
    const res = await target.call('POST', '/imports', { name: 'hourly', source: { type: 'tec', url: tecUrl(source) }, schedule: 'hourly',
      start_date: `2032-${M}-01`, end_date: `2032-${M}-28` });
    const first = await finished(target, res.json.id);
    const due = Date.parse(`${first.next_run_utc.replace(' ', 'T')}Z`);
    expect(due - Date.parse(`${first.created_utc.replace(' ', 'T')}Z`)).toBeGreaterThanOrEqual(3_599_000);
    // An hour passes: the run is due (the table says so), and the dispatcher (every second here) queues it.
    const past = new Date(Date.now() - 60_000).toISOString().slice(0, 19).replace('T', ' ');
    await rawTable().send(new UpdateCommand({ TableName: TABLE, Key: { PK: 'IMPORTS', SK: `I#${String(res.json.id).padStart(10, '0')}` },
      UpdateExpression: 'SET #due = :past', ExpressionAttributeNames: { '#due': 'due' }, ExpressionAttributeValues: { ':past': past } }));
    let imp = first;
    for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
      imp = await target.ok('GET', `/imports/${res.json.id}`);
      // The second run is told by its counts (it may start within the second the first one finished in).
      if (imp.last_run.state === 'done' && imp.last_run.unchanged === 1) break;
    }
    expect(first.last_run).toMatchObject({ state: 'done', created: 1, unchanged: 0 });
    expect(imp.last_run).toMatchObject({ state: 'done', created: 0, unchanged: 1 });
    expect(imp.next_run_utc).not.toBe(first.next_run_utc);
    const next = Date.parse(`${imp.next_run_utc.replace(' ', 'T')}Z`);
    expect(next).toBeGreaterThan(Date.now());
    expect(next).toBeLessThanOrEqual(Date.now() + 3_600_000);
  }, SLOW);
});

describe('npm run import', () => {
  test('imports a site of the origin through the running service, shows its progress and says what it did', async () => {
    const M = '08';
    await seed(M, 2, { title: 'From the command line' });
    await seed(M, 3, { title: 'And another' });
    const root = new URL('../..', import.meta.url).pathname;
    const child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/import-cli.ts', tecUrl(source), '--name', 'CLI', '--start', `2032-${M}-01`,
      '--end', `2032-${M}-28`, '--api', target.server.url], { cwd: root, env: { ...process.env, CALENDAR_JWT_SECRET: TARGET_SECRET },
      stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect([code, stderr]).toEqual([0, expect.stringMatching(/^Import \d+ \(http:\/\/127\.0\.0\.1:\d+\/calendar\/events\/v1\/imports\/\d+\) queued\./)]);
    expect(stdout).toMatch(/^Import \d+ done: 2 events: 2 created, 0 updated, 0 unchanged, 0 removed, 0 failed\n$/);
    expect((await eventsIn(target, `2032-${M}-01`, `2032-${M}-28`)).map((e) => e.title)).toEqual(['From the command line', 'And another']);
    // Not a file, not a URL: a usage error before anything is sent.
    const wrong = spawn(process.execPath, ['--import', 'tsx', 'lib/local/import-cli.ts', 'no-such-file.ics', '--api', target.server.url], { cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'] });
    expect(await new Promise((resolve) => wrong.on('close', resolve))).toBe(2);
  }, SLOW);
});

describe('the limit', () => {
  test('at most 100 imports, exactly, however many are created at once: the 101st is 409 rest-import-limit', async () => {
    const file = { type: 'ics', content: 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nEND:VCALENDAR\r\n' };
    const have = (await target.ok('GET', '/imports?per_page=50')).total;
    const free = 100 - have;
    const answers = await Promise.all(Array.from({ length: free + 5 }, (_, i) => target.call('POST', '/imports', { name: `Limit ${i}`, source: file })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 202)).toHaveLength(free);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.json.code).toBe('rest-import-limit');
    expect((await target.ok('GET', '/imports?per_page=50')).total).toBe(100);
    const one = answers.find((a) => a.status === 202)!;
    expect((await target.call('DELETE', `/imports/${one.json.id}`)).status).toBe(200);
    expect((await target.call('POST', '/imports', { name: 'After a delete', source: file })).status).toBe(202);
    expect((await target.call('POST', '/imports', { name: 'One too many', source: file })).status).toBe(409);
  }, SLOW);
});

function rawTable(): DynamoDBDocumentClient {
  const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('CALENDAR_TEST_DYNAMODB_ENDPOINT is not set');
  return DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: process.env.AWS_REGION || 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
}

async function itemsOf(db: DynamoDBDocumentClient, id: number): Promise<Record<string, unknown>[]> {
  const out = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `IMPORT#${id}` } }));
  return out.Items ?? [];
}
