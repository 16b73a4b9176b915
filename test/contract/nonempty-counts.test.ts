/**
 * The non-empty counts (lib/store/README.md "Non-empty counts") over HTTP, on a table of this file's own: the totals of
 * the default /tags and /categories (hide_empty) and of /venues and /organizers with has_events, which come from count
 * items moved only where a counter crosses zero, are checked after every kind of write against a model the test keeps
 * of what it wrote — publishes, unpublishes, trash and restore, permanent deletes, term deletes, venue trashes,
 * reparented categories, inline creations — and against the lists that count by reading every entry; many concurrent
 * writes flipping the same tag, category chain and venue between empty and not must leave them exact; and a table
 * whose counts are missing gets them back when a server starts on it.
 */
import { createWriteStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../lib/local/dynamodb-local.js';
import { signLocalToken } from '../../lib/local/token-sign.js';
import { startLocalApi, stopLocalApi } from '../support/global-setup.js';
import { send, type Answer } from '../support/own-server.js';

const SECRET = 'nonempty-counts-secret-0123456789abcdef';
const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT!;
const table = `nonempty-${randomUUID().slice(0, 8)}`;
const raw = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const doc = DynamoDBDocumentClient.from(raw);
const root = fileURLToPath(new URL('../..', import.meta.url));

let child: ChildProcess;
let base: string;
let editor: string;

async function startServer(): Promise<void> {
  const started = await startLocalApi(root, {
    PORT: '0', HOST: '127.0.0.1', CALENDAR_DATA_DIR: ':memory:', DYNAMODB_ENDPOINT: endpoint, CALENDAR_TABLE_NAME: table,
    CALENDAR_JWT_SECRET: SECRET, CALENDAR_JWT_ISSUER: '', CALENDAR_TIMEZONE: 'UTC', CALENDAR_SITE_URL: '', CALENDAR_METER: '1',
  }, createWriteStream(join(tmpdir(), `nonempty-counts-${process.pid}.log`), { flags: 'a' }));
  child = started.child;
  base = started.url;
}

beforeAll(async () => {
  await ensureTable(raw, table);
  await startServer();
  editor = `Bearer ${await signLocalToken({ secret: SECRET, role: 'editor', sub: 'nonempty-editor' })}`;
}, 90_000);
afterAll(async () => {
  if (child) await stopLocalApi(child);
  await raw.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
  raw.destroy();
});

const call = (method: string, path: string, body?: unknown): Promise<Answer> =>
  send(`${base}${path}`, { method, authorization: editor, body });
async function write(method: string, path: string, body?: unknown): Promise<any> {
  const res = await call(method, path, body);
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
  return res.json;
}
const get = (path: string, asEditor = false): Promise<Answer> => send(`${base}${path}`, asEditor ? { authorization: editor } : {});

// ------------------------------------------------------------------------------------------------ the model

interface Ev { status: string; tags: number[]; categories: number[]; venue?: number; organizers: number[] }
const events = new Map<number, Ev>();
const tags = new Set<number>();
const parents = new Map<number, number>(); // every category and its parent
const posts = { venue: new Map<number, string>(), organizer: new Map<number, string>() }; // id → status

const published = (): Ev[] => [...events.values()].filter((e) => e.status === 'publish');

function expected() {
  const usedTags = new Set(published().flatMap((e) => e.tags));
  const filledCats = new Set<number>();
  for (const id of new Set(published().flatMap((e) => e.categories))) {
    for (let c: number | undefined = id; c && !filledCats.has(c); c = parents.get(c)) filledCats.add(c);
  }
  const withEvents = (kind: 'venue' | 'organizer', statuses: string[]) => {
    const used = new Set(published().flatMap((e) => (kind === 'venue' ? (e.venue ? [e.venue] : []) : e.organizers)));
    const all = [...posts[kind]].filter(([, s]) => statuses.includes(s));
    return { yes: all.filter(([id]) => used.has(id)).length, no: all.filter(([id]) => !used.has(id)).length };
  };
  const editorStatuses = ['publish', 'future', 'draft', 'pending', 'private'];
  return {
    tags: { filled: [...usedTags].filter((t) => tags.has(t)).length, all: tags.size },
    categories: { filled: [...filledCats].filter((c) => parents.has(c)).length, all: parents.size },
    venues: { anonymous: withEvents('venue', ['publish']), editor: withEvents('venue', editorStatuses) },
    organizers: { anonymous: withEvents('organizer', ['publish']), editor: withEvents('organizer', editorStatuses) },
  };
}

const total = async (path: string, asEditor = false): Promise<number> => {
  const res = await get(path, asEditor);
  expect([path, res.status]).toEqual([path, 200]);
  expect(res.headers.get('x-tec-total')).toBe(String(res.json.total));
  return res.json.total;
};

/** What the lists say: the counted totals, and the same totals from the lists that read every entry. */
async function observed() {
  const linked = async (plural: string, asEditor: boolean) => ({
    yes: await total(`/${plural}?has_events=true`, asEditor), no: await total(`/${plural}?has_events=false`, asEditor),
  });
  return {
    tags: { filled: await total('/tags'), all: await total('/tags?hide_empty=false') },
    categories: { filled: await total('/categories'), all: await total('/categories?hide_empty=false') },
    venues: { anonymous: await linked('venues', false), editor: await linked('venues', true) },
    organizers: { anonymous: await linked('organizers', false), editor: await linked('organizers', true) },
    // The same by reading every entry (orderby=id reads the taxonomy; search matches every record's name).
    read: {
      tags: await total('/tags?orderby=id'), categories: await total('/categories?orderby=id'),
      venues: await total('/venues?has_events=true&search=nonempty'), organizers: await total('/organizers?has_events=true&search=nonempty'),
    },
  };
}

async function check(step: string): Promise<void> {
  const want = expected();
  const got = await observed();
  const { read, ...counted } = got;
  expect({ step, ...counted }).toEqual({ step, ...want });
  expect({ step, ...read }).toEqual({ step, tags: want.tags.filled, categories: want.categories.filled,
    venues: want.venues.anonymous.yes, organizers: want.organizers.anonymous.yes });
}

// ------------------------------------------------------------------------------------------------ writes that keep the model

let seq = 0;
const tag = async (name: string): Promise<number> => {
  const t = await write('POST', '/tags', { name: `${name} ${++seq}` });
  tags.add(t.id);
  return t.id;
};
const category = async (name: string, parent = 0): Promise<number> => {
  const c = await write('POST', '/categories', { name: `${name} ${++seq}`, ...(parent ? { parent } : {}) });
  parents.set(c.id, parent);
  return c.id;
};
const record = async (kind: 'venue' | 'organizer', status = 'publish'): Promise<number> => {
  const r = await write('POST', `/${kind}s`, { [kind]: `Nonempty ${kind} ${++seq}`, status });
  posts[kind].set(r.id, status);
  return r.id;
};
const eventOf = (json: any): Ev => ({
  status: json.status,
  tags: json.tags.map((t: any) => t.id),
  categories: json.categories.map((c: any) => c.id),
  ...(Array.isArray(json.venue) ? {} : { venue: json.venue.id }),
  organizers: json.organizer.map((o: any) => o.id),
});
const event = async (body: Record<string, unknown>): Promise<number> => {
  const ev = await write('POST', '/events', { title: `Nonempty event ${++seq}`, start_date: '2033-05-01 10:00:00',
    end_date: '2033-05-01 12:00:00', status: 'publish', ...body });
  events.set(ev.id, eventOf(ev));
  return ev.id;
};
const update = async (id: number, body: Record<string, unknown>): Promise<void> => {
  events.set(id, eventOf(await write('POST', `/events/${id}`, body)));
};

/** Trashing or deleting a venue/organizer unlinks it from every event; a term delete likewise. */
const unlink = (kind: 'venue' | 'organizer' | 'tag' | 'category', id: number) => {
  for (const e of events.values()) {
    if (kind === 'venue' && e.venue === id) delete e.venue;
    if (kind === 'organizer') e.organizers = e.organizers.filter((o) => o !== id);
    if (kind === 'tag') e.tags = e.tags.filter((t) => t !== id);
    if (kind === 'category') e.categories = e.categories.filter((c) => c !== id);
  }
};

describe('non-empty counts through every kind of write', () => {
  it('start at zero on a new table', async () => {
    await check('empty table');
  });

  it('follow creates, publishes, unpublishes, trash and restore of events', async () => {
    const [t1, t2] = [await tag('One'), await tag('Two')];
    const a = await category('Alpha');
    const b = await category('Beta', a);
    const c = await category('Gamma', b);
    const d = await category('Delta');
    const e = await category('Epsilon', d);
    const [v1, v2] = [await record('venue'), await record('venue')];
    const v3 = await record('venue', 'draft');
    const [o1, o2] = [await record('organizer'), await record('organizer', 'draft')];
    await check('terms and records, no events');

    const e1 = await event({ tags: [t1], categories: [c], venue: v1, organizer: [o1] });
    await check('published event: a tag, a category deep in a chain, a venue, an organizer');
    const e2 = await event({ status: 'draft', tags: [t2, t1], categories: [e], venue: v3, organizer: [o2, o1] });
    await check('a draft changes nothing');
    await update(e2, { status: 'publish' });
    await check('the draft published: its draft venue and organizer count for editors only');
    await update(e1, { status: 'draft' });
    await check('unpublished: t1 and o1 stay (e2), the Alpha chain empties');
    await update(e1, { status: 'publish' });
    await check('published again');
    await write('DELETE', `/events/${e1}`);
    events.get(e1)!.status = 'trash';
    await check('trashed');
    await update(e1, { status: 'publish' });
    await check('restored');
    await update(e1, { categories: [b, d], tags: [], venue: v2 });
    await check('links moved: Beta and Delta instead of Gamma, no tag, another venue');
    await update(e2, { status: 'private' });
    await check('private: counts as not published');
    await update(e2, { status: 'publish' });
    await write('DELETE', `/events/${e2}?force=true`);
    events.delete(e2);
    await check('deleted permanently');
  });

  it('follow term deletes, reparented categories and venue trashes', async () => {
    const t = await tag('Doomed');
    const top = await category('Top');
    const mid = await category('Mid', top);
    const leaf = await category('Leaf', mid);
    const other = await category('Other');
    const v = await record('venue');
    const o = await record('organizer');
    await event({ tags: [t], categories: [leaf], venue: v, organizer: [o] });
    await check('a chain of three through its leaf');

    await write('DELETE', `/tags/${t}?force=true`);
    tags.delete(t);
    unlink('tag', t);
    await check('tag deleted');

    await write('POST', `/categories/${leaf}`, { parent: other });
    parents.set(leaf, other);
    await check('the non-empty leaf moved under Other: Top and Mid empty');
    await write('POST', `/categories/${other}`, { parent: mid });
    parents.set(other, mid);
    await check('Other (non-empty through Leaf) moved under Mid: the chain fills again');
    await write('POST', `/categories/${other}`, { parent: 0 });
    parents.set(other, 0);
    await write('POST', `/categories/${leaf}`, { parent: mid });
    parents.set(leaf, mid);
    await check('back under Mid');

    await write('DELETE', `/categories/${mid}?force=true`);
    parents.delete(mid);
    parents.set(leaf, top);
    unlink('category', mid);
    await check('Mid deleted: Leaf moves up to Top, which stays non-empty');
    await write('DELETE', `/categories/${leaf}?force=true`);
    parents.delete(leaf);
    unlink('category', leaf);
    await check('Leaf deleted: Top empties');

    await write('DELETE', `/venues/${v}`);
    posts.venue.set(v, 'trash');
    unlink('venue', v);
    await check('venue trashed (and unlinked)');
    await write('POST', `/venues/${v}`, { status: 'publish' });
    posts.venue.set(v, 'publish');
    await check('venue restored, without its events');
    await write('DELETE', `/organizers/${o}?force=true`);
    posts.organizer.delete(o);
    unlink('organizer', o);
    await check('organizer deleted permanently');
    const w = await record('venue');
    await event({ venue: w });
    await write('POST', `/venues/${w}`, { status: 'draft' });
    posts.venue.set(w, 'draft');
    await check('a venue with events unpublished: counted under its new status');
  });

  it('follow inline creations and de-duplication in event writes', async () => {
    const id = await event({ tags: [`Fresh tag ${++seq}`], categories: [`Fresh category ${++seq}`],
      venue: { venue: `Nonempty inline venue ${++seq}` }, organizer: [{ organizer: `Nonempty inline organizer ${++seq}` }] });
    const ev = events.get(id)!;
    tags.add(ev.tags[0]!);
    parents.set(ev.categories[0]!, 0);
    posts.venue.set(ev.venue!, 'publish');
    posts.organizer.set(ev.organizers[0]!, 'publish');
    await check('a published event creating its tag, category, venue and organizer');

    const draft = await event({ status: 'draft', tags: [`Draft tag ${++seq}`], venue: { venue: `Nonempty draft-linked venue ${++seq}` } });
    tags.add(events.get(draft)!.tags[0]!);
    posts.venue.set(events.get(draft)!.venue!, 'publish');
    await check('a draft creating a tag and a venue: both empty');

    const existing = await record('venue', 'draft');
    const name = (await write('GET', `/venues/${existing}`)).venue as string;
    await event({ venue: { venue: name.toUpperCase(), status: 'publish' } });
    posts.venue.set(existing, 'publish');
    expect([...events.values()].at(-1)!.venue).toBe(existing);
    await check('an inline object de-duplicated onto a draft venue that it publishes and links');
  });
});

describe('concurrent writes', () => {
  it('many events flipping the same tag, category chain and venue between empty and not leave the counts exact', async () => {
    const t = await tag('Contested');
    const top = await category('Contested top');
    const kid = await category('Contested kid', top);
    const elsewhere = await category('Contested elsewhere');
    const v = await record('venue');
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) ids.push(await event({ status: 'draft', tags: [t], categories: [kid], venue: v }));
    await check('eight drafts');

    const flip = (status: string) => Promise.all(ids.map((id) => update(id, { status })));
    for (let round = 0; round < 3; round++) {
      await flip('publish');
      await check(`round ${round}: all published at once`);
      await flip('draft');
      await check(`round ${round}: all unpublished at once`);
    }
    // Each event toggled several times on its own worker, all workers at once, while the kid category moves back and forth.
    const toggles = ids.map(async (id, i) => {
      for (let k = 0; k < 5; k++) await update(id, { status: (i + k) % 2 ? 'publish' : 'draft' });
    });
    const moves = (async () => {
      for (let k = 0; k < 4; k++) {
        const to = k % 2 ? top : elsewhere;
        await write('POST', `/categories/${kid}`, { parent: to });
        parents.set(kid, to);
      }
    })();
    await Promise.all([...toggles, moves]);
    await check('after concurrent toggles and moves');
    const counted = (await get(`/tags/${t}`)).json.count;
    expect(counted).toBe(published().filter((e) => e.tags.includes(t)).length);
  }, 120_000);
});

describe('a table whose counts are missing', () => {
  it('lists exactly by reading, and gets its counts back when a server starts on it', async () => {
    const before = expected();
    // As a table written before the counts existed: no count items, categories without `linked`.
    for (const kind of ['venue', 'organizer', 'category', 'tag']) {
      await doc.send(new DeleteCommand({ TableName: table, Key: { PK: 'NONEMPTY', SK: kind } }));
    }
    for (const id of parents.keys()) {
      await doc.send(new UpdateCommand({ TableName: table, Key: { PK: `TERM#${id}`, SK: 'TERM' }, UpdateExpression: 'REMOVE linked' }));
    }
    await check('no count items: the lists read every entry');
    const meter = (await get('/tags')).headers.get('x-calendar-meter');
    expect(meter).toMatch(/requests=\d+/);

    await stopLocalApi(child);
    await startServer();
    for (const kind of ['venue', 'organizer', 'category', 'tag']) {
      const item = (await doc.send(new GetCommand({ TableName: table, Key: { PK: 'NONEMPTY', SK: kind }, ConsistentRead: true }))).Item;
      expect(item?.built).toBe(true);
    }
    expect(expected()).toEqual(before);
    await check('rebuilt at start');
    // And they are kept from there on.
    const id = await event({ tags: [[...tags][0]!], categories: [[...parents.keys()][0]!] });
    await check('a write after the rebuild');
    await write('DELETE', `/events/${id}?force=true`);
    events.delete(id);
    await check('and its delete');
  }, 120_000);
});
