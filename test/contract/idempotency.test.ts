/**
 * Idempotent creates (contract §17): a repeat of a create with the same Idempotency-Key replays the first answer and
 * runs nothing again (inline records included); another request under the key is 422; a key still held by a running
 * request is 409 with Retry-After, and lapses when that request's time limit passes; failures free the key.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { idempotentRequest, newIdempotencyStore } from '../../lib/store/idempotency.js';
import { api, tokenFor, type ApiResponse } from '../support/api.js';
import { uid } from './helpers/events.js';

let editor: string;
let other: string;
beforeAll(async () => {
  editor = await tokenFor('editor', 'idem-editor');
  other = await tokenFor('editor', 'idem-other');
});

const post = (path: string, body: Record<string, unknown>, key: string | undefined, token = editor, query?: Record<string, string>) =>
  api(path, { method: 'POST', token, body, query, headers: key === undefined ? {} : { 'idempotency-key': key } });

const event = (word: string, extra: Record<string, unknown> = {}) =>
  ({ title: `Retry ${word}`, start_date: '2027-05-03 10:00', end_date: '2027-05-03 11:00', ...extra });

/** How many events hold the word (all published: an editor made them). */
async function eventsWith(word: string): Promise<number> {
  const res = await api('/events', { token: editor, query: { search: word, start_date: '2027-01-01' } });
  expect(res.status).toBe(200);
  return res.json.total;
}

function expectError(res: ApiResponse, status: number, code: string): void {
  expect([res.status, res.json?.code]).toEqual([status, code]);
}

describe('Idempotency-Key on creates (contract §17)', () => {
  it('a repeat replays the first answer (status, body, Location) with Idempotent-Replayed and creates nothing more', async () => {
    const word = uid();
    const key = `key-${word}`;
    const first = await post('/events', event(word), key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await post('/events', event(word), key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(await eventsWith(word)).toBe(1);
    // Without the key, the same request creates again.
    expect((await post('/events', event(word), undefined)).status).toBe(201);
    expect(await eventsWith(word)).toBe(2);
  });

  it('replays a create that made inline records without making them again', async () => {
    const word = uid();
    const body = event(word, { venue: { venue: `Hall ${word}` }, organizer: [{ organizer: `Org ${word}` }], categories: [`Cat ${word}`] });
    const first = await post('/events', body, `inline-${word}`);
    expect(first.status).toBe(201);
    const again = await post('/events', body, `inline-${word}`);
    expect([again.status, again.json.venue.id, again.headers.get('idempotent-replayed')]).toEqual([201, first.json.venue.id, 'true']);
    for (const [path, query] of [['/venues', { search: word }], ['/organizers', { search: word }], ['/categories', { search: word }]] as const) {
      const list = await api(path, { token: editor, query });
      expect([path, list.json.total ?? Number(list.headers.get('x-tec-total'))]).toEqual([path, 1]);
    }
    expect(await eventsWith(word)).toBe(1);
  });

  it('the same key with another request is 422 rest_idempotency_key_reused, on any collection', async () => {
    const word = uid();
    const key = `reuse-${word}`;
    expect((await post('/events', event(word), key)).status).toBe(201);
    expectError(await post('/events', event(word, { title: `Other ${word}` }), key), 422, 'rest_idempotency_key_reused');
    expectError(await post('/events', event(word), key, editor, { translation_language: 'de' }), 422, 'rest_idempotency_key_reused');
    expectError(await post('/venues', { venue: `Hall ${word}` }, key), 422, 'rest_idempotency_key_reused');
    expectError(await api('/events', { method: 'POST', token: editor, form: event(word), headers: { 'idempotency-key': key } }), 422,
      'rest_idempotency_key_reused');
    expect(await eventsWith(word)).toBe(1);
  });

  it('keys are per user: another user\'s same key and request is a create of their own', async () => {
    const word = uid();
    const key = `shared-${word}`;
    const mine = await post('/tags', { name: `Tag ${word}` }, key);
    expect(mine.status).toBe(201);
    const theirs = await post('/tags', { name: `Tag ${word}` }, key, other);
    // The same name: the term exists — their own request ran (and failed on its own merits), nothing was replayed.
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expectError(theirs, 400, 'term_exists');
  });

  it('a request that fails leaves the key free for the next request', async () => {
    const word = uid();
    const key = `failed-${word}`;
    expectError(await post('/events', event(word, { start_date: 'not a date' }), key), 400, 'rest_invalid_param');
    const next = await post('/events', event(word), key);
    expect([next.status, next.headers.get('idempotent-replayed')]).toEqual([201, null]);
    const refused = await post('/events', event(`${word}x`), `denied-${word}`, await tokenFor('subscriber', 'idem-sub'));
    expect(refused.status).toBe(403);
    expect((await post('/events', event(`${word}x`), `denied-${word}`)).status).toBe(201);
  });

  it('concurrent creates with one key make one record: the others are replays or 409 with Retry-After', async () => {
    const word = uid();
    const key = `race-${word}`;
    const answers = await Promise.all(Array.from({ length: 6 }, () => post('/events', event(word), key)));
    const made = answers.filter((a) => a.status === 201);
    expect(made.length).toBeGreaterThanOrEqual(1);
    expect(new Set(made.map((a) => a.json.id)).size).toBe(1);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expectError(a, 409, 'rest_idempotency_in_progress');
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(await eventsWith(word)).toBe(1);
    // Afterwards every repeat is a replay of that one create.
    const later = await post('/events', event(word), key);
    expect([later.status, later.json.id, later.headers.get('idempotent-replayed')]).toEqual([201, made[0]!.json.id, 'true']);
  });

  it('a key held by a running request is 409; once that request\'s time limit has passed, the key is taken over', async () => {
    const word = uid();
    const key = `held-${word}`;
    const raw = new DynamoDBClient({ endpoint: process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT, region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const store = newIdempotencyStore(process.env.CALENDAR_TEST_TABLE!, raw);
    // A request that took the key (as the service does) with a minute left, then is still running.
    await store.saveInProgress(idempotentRequest('idem-editor', key, 'another request'), 60_000);
    const busy = await post('/events', event(word), key);
    expectError(busy, 409, 'rest_idempotency_in_progress');
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(await eventsWith(word)).toBe(0);
    // A request that took the key and died: its time limit (1 ms left) has passed by the time the next one comes.
    await store.deleteRecord(idempotentRequest('idem-editor', key, ''));
    await store.saveInProgress(idempotentRequest('idem-editor', key, 'another request'), 1);
    const taken = await post('/events', event(word), key);
    expect([taken.status, taken.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect((await post('/events', event(word), key)).headers.get('idempotent-replayed')).toBe('true');
    raw.destroy();
  });

  it('the key must be 1 to 255 visible ASCII characters (400 naming Idempotency-Key); nothing is created', async () => {
    const word = uid();
    for (const bad of ['', 'has space', 'x'.repeat(256), 'caf\u00e9', 'tab\there']) {
      const res = await api('/events', { method: 'POST', token: editor, body: event(word),
        headers: { 'idempotency-key': Buffer.from(bad, 'utf8').toString('latin1') } });
      expectError(res, 400, 'rest_invalid_param');
      expect(Object.keys(res.json.data.params)).toEqual(['Idempotency-Key']);
    }
    expect(await eventsWith(word)).toBe(0);
    expect((await post('/events', event(word), 'k'.repeat(255))).status).toBe(201);
  });

  it('other writes ignore the key; an update with scope=following takes it and replays its 201', async () => {
    const word = uid();
    const made = await post('/events', event(word), undefined);
    const id = made.json.id;
    const key = `update-${word}`;
    const a = await api(`/events/${id}`, { method: 'PATCH', token: editor, body: { title: `A ${word}` }, headers: { 'idempotency-key': key } });
    const b = await api(`/events/${id}`, { method: 'PATCH', token: editor, body: { title: `B ${word}` }, headers: { 'idempotency-key': key } });
    expect([a.status, b.status, b.json.title, b.headers.get('idempotent-replayed')]).toEqual([200, 200, `B ${word}`, null]);

    const series = await post('/events', event(word, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] }), undefined);
    expect(series.status).toBe(201);
    const occurrences = await api(`/events/${series.json.id}/occurrences`, { token: editor, query: { start_date: '2027-01-01' } });
    const fourth = occurrences.json.events[3].id;
    const split = () => api(`/events/${fourth}`, { method: 'PATCH', token: editor, query: { scope: 'following' },
      body: { title: `Later ${word}` }, headers: { 'idempotency-key': `split-${word}` } });
    const first = await split();
    expect(first.status).toBe(201);
    const again = await split();
    expect([again.status, again.headers.get('location'), again.headers.get('idempotent-replayed')])
      .toEqual([201, first.headers.get('location'), 'true']);
    expect(again.json.id).toBe(first.json.id);
  });
});
