/**
 * The changes feed (contract §16): entries in commit order from opaque cursors, every record a write creates,
 * changes or deletes (occurrences as events, term counts as their terms), visibility by caller, no change skipped
 * under concurrent writers, 410 for an expired cursor and 400 for a malformed one.
 */
import { decodeCursor, encodeCursor } from '../../lib/routes/changes.js';
import { api, tokenFor } from '../support/api.js';
import { startOwnServer, type OwnServer } from '../support/own-server.js';
import { uid } from './helpers/events.js';

interface Change {
  kind: string;
  id: number;
  action: string;
  modified_utc: string;
  rest_url: string;
}

let editor: string;
let author: string;
let otherAuthor: string;
beforeAll(async () => {
  editor = await tokenFor('editor', 'changes-editor');
  author = await tokenFor('author', 'changes-author');
  otherAuthor = await tokenFor('contributor', 'changes-other');
});

const latest = async (token?: string): Promise<string> => {
  const res = await api('/changes', { token, query: { since: 'latest' } });
  expect([res.status, res.json.changes, res.json.more]).toEqual([200, [], false]);
  return res.json.next_cursor;
};

/** Every change after `cursor` as `token` sees it, following next_cursor while more is true. */
async function follow(cursor: string, token?: string, perPage = 500): Promise<{ changes: Change[]; cursor: string }> {
  const changes: Change[] = [];
  for (let i = 0; i < 100; i++) {
    const res = await api('/changes', { token, query: { since: cursor, per_page: perPage } });
    expect(res.status).toBe(200);
    changes.push(...res.json.changes);
    cursor = res.json.next_cursor;
    if (!res.json.more) return { changes, cursor };
  }
  throw new Error('the feed did not end');
}

const about = (changes: Change[], kind: string, id: number): string[] =>
  changes.filter((c) => c.kind === kind && c.id === id).map((c) => c.action);

async function made(path: string, body: Record<string, unknown>, token = editor): Promise<any> {
  const res = await api(path, { method: 'POST', token, body });
  if (res.status !== 201) throw new Error(`creating ${path} failed: ${res.status} ${res.text}`);
  return res.json;
}

const event = (title: string, extra: Record<string, unknown> = {}) =>
  ({ title, start_date: '2027-06-01 10:00', end_date: '2027-06-01 11:00', ...extra });

describe('GET /changes (contract §16)', () => {
  it('a create with inline records yields one entry per record, contiguous, with the shape and URLs of the contract', async () => {
    const from = await latest(editor);
    const word = uid();
    const e = await made('/events', event(`Sync ${word}`, { venue: { venue: `Hall ${word}` }, categories: [`Cat ${word}`] }));
    const { changes } = await follow(from, editor);
    const mine = changes.filter((c) => (c.kind === 'event' && c.id === e.id) || (c.kind === 'venue' && c.id === e.venue.id)
      || (c.kind === 'category' && c.id === e.categories[0].id));
    expect(mine.map((c) => [c.kind, c.action])).toEqual([['event', 'created'], ['venue', 'created'], ['category', 'created']]);
    const start = changes.indexOf(mine[0]!);
    expect(changes.slice(start, start + 3)).toEqual(mine);
    expect(mine[0]).toEqual({ kind: 'event', id: e.id, action: 'created', modified_utc: e.modified_utc,
      rest_url: expect.stringMatching(new RegExp(`/calendar/events/v1/events/${e.id}$`)) });
    expect(mine[1]!.rest_url).toMatch(new RegExp(`/venues/${e.venue.id}$`));
    expect(mine[2]!.rest_url).toMatch(new RegExp(`/categories/${e.categories[0].id}$`));
    for (const c of mine) expect(c.modified_utc).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it('updates, trash, restore and deletion: trash and deletion read deleted for everyone, a restore created', async () => {
    const e = await made('/events', event(`Life ${uid()}`));
    const anon = await latest();
    const ed = await latest(editor);
    expect((await api(`/events/${e.id}`, { method: 'PATCH', token: editor, body: { title: 'Renamed' } })).status).toBe(200);
    expect((await api(`/events/${e.id}`, { method: 'DELETE', token: editor })).status).toBe(200);
    expect((await api(`/events/${e.id}`, { method: 'PATCH', token: editor, body: { status: 'publish' } })).status).toBe(200);
    expect((await api(`/events/${e.id}`, { method: 'DELETE', token: editor, query: { force: true } })).status).toBe(200);
    expect(about((await follow(anon)).changes, 'event', e.id)).toEqual(['updated', 'deleted', 'created', 'deleted']);
    expect(about((await follow(ed, editor)).changes, 'event', e.id)).toEqual(['updated', 'deleted', 'created', 'deleted']);
  });

  it('callers see what they may read: a draft is created for its author and editors only, and for everyone when published', async () => {
    const anon = await latest();
    const mine = await latest(author);
    const theirs = await latest(otherAuthor);
    const ed = await latest(editor);
    const draft = await made('/events', event(`Draft ${uid()}`, { status: 'draft' }), author);
    expect((await api(`/events/${draft.id}`, { method: 'PATCH', token: author, body: { excerpt: 'still a draft' } })).status).toBe(200);
    expect((await api(`/events/${draft.id}`, { method: 'PATCH', token: editor, body: { status: 'publish' } })).status).toBe(200);
    expect((await api(`/events/${draft.id}`, { method: 'PATCH', token: editor, body: { status: 'draft' } })).status).toBe(200);
    expect(about((await follow(anon)).changes, 'event', draft.id)).toEqual(['created', 'deleted']);
    expect(about((await follow(theirs, otherAuthor)).changes, 'event', draft.id)).toEqual(['created', 'deleted']);
    expect(about((await follow(mine, author)).changes, 'event', draft.id)).toEqual(['created', 'updated', 'updated', 'updated']);
    expect(about((await follow(ed, editor)).changes, 'event', draft.id)).toEqual(['created', 'updated', 'updated', 'updated']);
  });

  it('events hidden from listings are in the feed; a term whose count changes is updated, the events embedding it are not', async () => {
    const word = uid();
    const category = await made('/categories', { name: `Count ${word}` });
    const e = await made('/events', event(`Quiet ${word}`, { hide_from_listings: true }));
    const from = await latest();
    expect((await api(`/events/${e.id}`, { method: 'PATCH', token: editor, body: { categories: [category.id] } })).status).toBe(200);
    const { changes } = await follow(from);
    expect(about(changes, 'event', e.id)).toEqual(['updated']);
    expect(about(changes, 'category', category.id)).toEqual(['updated']);
    const other = await made('/events', event(`Linked ${word}`, { categories: [category.id] }));
    const next = await latest();
    expect((await api(`/categories/${category.id}`, { method: 'PATCH', token: editor, body: { name: `Renamed ${word}` } })).status).toBe(200);
    const after = (await follow(next)).changes;
    expect(about(after, 'category', category.id)).toEqual(['updated']);
    expect(about(after, 'event', other.id)).toEqual([]);
  });

  it('a recurring series yields its own entry and one per occurrence, as events', async () => {
    const from = await latest();
    const series = await made('/events', event(`Weekly ${uid()}`, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] }));
    const occurrences = await api(`/events/${series.id}/occurrences`, { query: { start_date: '2027-01-01' } });
    expect(occurrences.json.events).toHaveLength(4);
    const { changes } = await follow(from);
    expect(about(changes, 'event', series.id)).toEqual(['created']);
    for (const o of occurrences.json.events) expect(about(changes, 'event', o.id)).toEqual(['created']);
  });

  it('a follower polling during 50 creates by 10 concurrent writers sees each exactly once', async () => {
    let cursor = await latest();
    const seen: Change[] = [];
    let writing = true;
    const follower = (async () => {
      while (writing) {
        const res = await api('/changes', { query: { since: cursor, per_page: 7 } });
        expect(res.status).toBe(200);
        seen.push(...res.json.changes);
        cursor = res.json.next_cursor;
      }
    })();
    const word = uid();
    const ids = (await Promise.all(Array.from({ length: 10 }, async (_, w) => {
      const mine: number[] = [];
      for (let i = 0; i < 5; i++) mine.push((await made('/events', event(`Burst ${word} ${w}-${i}`))).id);
      return mine;
    }))).flat();
    writing = false;
    await follower;
    seen.push(...(await follow(cursor)).changes);
    for (const id of ids) expect([id, about(seen, 'event', id)]).toEqual([id, ['created']]);
    expect(new Set(ids).size).toBe(50);
  });

  it('since=latest, paging and cursors: next_cursor always present, more says whether to read on', async () => {
    const from = await latest(editor);
    const word = uid();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await made('/tags', { name: `Page ${word} ${i}` })).id);
    const first = await api('/changes', { token: editor, query: { since: from, per_page: 1 } });
    expect(first.json.changes).toHaveLength(1);
    expect(first.json.more).toBe(true);
    const rest = await follow(first.json.next_cursor, editor, 1);
    const all = [...first.json.changes, ...rest.changes].filter((c: Change) => c.kind === 'tag' && ids.includes(c.id));
    expect(all.map((c: Change) => c.id)).toEqual(ids);
    const end = await api('/changes', { token: editor, query: { since: rest.cursor } });
    expect([end.status, end.json.more, typeof end.json.next_cursor]).toEqual([200, false, 'string']);
  });

  it('per_page clamps to 500 (contract §2): 600 answers 200 with at most 500 changes; only a non-positive-integer is 400', async () => {
    const from = await latest(editor);
    await made('/tags', { name: `Clamp ${uid()}` });
    const res = await api('/changes', { token: editor, query: { since: from, per_page: 600 } });
    expect(res.status).toBe(200);
    expect(res.json.changes.length).toBeGreaterThanOrEqual(1);
    expect(res.json.changes.length).toBeLessThanOrEqual(500);
    const huge = await api('/changes', { query: { per_page: '99999999999' } });
    expect(huge.status).toBe(200);
    expect(huge.json.changes.length).toBeLessThanOrEqual(500);
  });

  it('an expired cursor is 410 rest_changes_expired; a malformed one or per_page out of range 400 rest_invalid_param', async () => {
    const old = encodeCursor({ seq: 1, issued: Math.floor(Date.now() / 1000) - 31 * 86_400, pending: [] });
    const gone = await api('/changes', { query: { since: old } });
    expect([gone.status, gone.json.code]).toEqual([410, 'rest_changes_expired']);
    const fresh = encodeCursor({ seq: 1, issued: Math.floor(Date.now() / 1000) - 29 * 86_400, pending: [] });
    expect((await api('/changes', { query: { since: fresh, per_page: 1 } })).status).toBe(200);
    for (const [query, name] of [[{ since: 'yesterday' }, 'since'], [{ since: 'YzE6eDox' }, 'since'], [{ since: '%%%' }, 'since'],
      [{ per_page: 0 }, 'per_page'], [{ per_page: -3 }, 'per_page'], [{ per_page: '1.5' }, 'per_page'], [{ per_page: 'ten' }, 'per_page']] as const) {
      const res = await api('/changes', { query });
      expect([JSON.stringify(query), res.status, res.json.code, Object.keys(res.json.data.params)])
        .toEqual([JSON.stringify(query), 400, 'rest_invalid_param', [name]]);
    }
  });

  describe('a calendar of its own, with a retention of one day', () => {
    let server: OwnServer;
    const secret = 'changes-secret-0123456789abcdef0123456789';
    beforeAll(async () => {
      server = await startOwnServer('calendar-changes', { secret, env: { CALENDAR_CHANGES_RETENTION_SECONDS: '86400' } });
    });
    afterAll(() => server?.stop());

    it('without since the feed starts at the oldest change kept; a cursor older than the retention is 410', async () => {
      const { signLocalToken } = await import('../../lib/local/token-sign.js');
      const token = await signLocalToken({ secret, role: 'editor' });
      const empty: any = await (await fetch(`${server.url}/changes`)).json();
      expect([empty.changes, empty.more]).toEqual([[], false]);
      for (const name of ['One', 'Two']) {
        const res = await fetch(`${server.url}/tags`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name }) });
        expect(res.status).toBe(201);
      }
      const all: any = await (await fetch(`${server.url}/changes`)).json();
      expect(all.changes.map((c: Change) => [c.kind, c.id, c.action])).toEqual([['tag', 1, 'created'], ['tag', 2, 'created']]);
      const twoDays = encodeCursor({ seq: 0, issued: Math.floor(Date.now() / 1000) - 2 * 86_400, pending: [] });
      expect((await fetch(`${server.url}/changes?since=${twoDays}`)).status).toBe(410);
    });

    it('an unchanged poll answers 304 to If-None-Match with its ETag', async () => {
      const { next_cursor: from }: any = await (await fetch(`${server.url}/changes?since=latest`)).json();
      const first = await fetch(`${server.url}/changes?since=${from}`);
      const again = await fetch(`${server.url}/changes?since=${from}`, { headers: { 'if-none-match': first.headers.get('etag')! } });
      expect([first.status, again.status]).toEqual([200, 304]);
    });
  });

  describe('a calendar of its own, with a retention of four seconds (contract §16: whatever the retention)', () => {
    let server: OwnServer;
    const secret = 'changes-short-secret-0123456789abcdef01234';
    beforeAll(async () => {
      server = await startOwnServer('calendar-changes-short', { secret, env: { CALENDAR_CHANGES_RETENTION_SECONDS: '4' } });
    });
    afterAll(() => server?.stop());

    it('a fresh cursor reads on; once older than the retention it is 410 rest_changes_expired, a later change notwithstanding', async () => {
      const { signLocalToken } = await import('../../lib/local/token-sign.js');
      const token = await signLocalToken({ secret, role: 'editor' });
      const start: any = await (await fetch(`${server.url}/changes?since=latest`)).json();
      const cursor = decodeCursor(start.next_cursor)!;
      expect(cursor.issued * 1000).toBeLessThanOrEqual(Date.now());
      expect((await fetch(`${server.url}/changes?since=${start.next_cursor}`)).status).toBe(200);
      // The rule is about time: wait until the cursor is older than the four seconds kept (its issue time is exact to
      // the second at this retention), then change something.
      await new Promise((resolve) => setTimeout(resolve, (cursor.issued + 5) * 1000 - Date.now()));
      const made = await fetch(`${server.url}/tags`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Later' }) });
      expect(made.status).toBe(201);
      const gone = await fetch(`${server.url}/changes?since=${start.next_cursor}`);
      expect([gone.status, ((await gone.json()) as any).code]).toEqual([410, 'rest_changes_expired']);
    });
  });
});
