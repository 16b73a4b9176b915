/**
 * Tickets and RSVP (contract §19) over HTTP against DynamoDB Local: ticket fields and roles, reservations with their
 * token, capacity under concurrency (on a server of its own with the per-address limit off), the limit with its
 * default, the event's ticketed/attendance/cost, the ticketed filter, and no personal data in the feed or the log.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { idempotentRequest, newIdempotencyStore } from '../../lib/store/idempotency.js';
import { api, tokenFor } from '../support/api.js';
import { send, startOwnServer, type OwnServer } from '../support/own-server.js';
import { TEST_JWT_SECRET } from '../support/global-setup.js';
import { createEvent, expectError, futureDay, uid } from './helpers/events.js';

let editor: string;
let subscriber: string;
beforeAll(async () => {
  editor = await tokenFor('editor', `tickets-editor-${uid()}`);
  subscriber = await tokenFor('subscriber', `tickets-sub-${uid()}`);
});

const rsvp = async (event: number, extra: Record<string, unknown> = {}) => {
  const res = await api('/tickets', { token: editor, body: { post_id: event, title: 'Entry', ...extra } });
  expect(res.status).toBe(201);
  return res.json;
};
const reserve = (ticket: number, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  api('/attendees', { body: { ticket_id: ticket, name: 'Ada Lovelace', email: 'ada@example.org', ...extra }, headers });

describe('tickets', () => {
  test('fields in order, cost, rsvp price rule, the event\'s ticketed and cost', async () => {
    const event = await createEvent({}, editor);
    const t = await rsvp(event.id, { capacity: 20 });
    expect(Object.keys(t)).toEqual(['id', 'post_id', 'provider', 'title', 'description', 'price', 'currency', 'cost', 'capacity',
      'capacity_details', 'available_from', 'available_until', 'is_available', 'rest_url']);
    expect([t.provider, t.price, t.cost, t.capacity_details]).toEqual(['rsvp', 0, 'Free', { max: 20, available: 20, sold: 0 }]);
    expect(t.is_available).toBe(true);
    expectError(await api('/tickets', { token: editor, body: { post_id: event.id, title: 'x', price: 5 } }), 400, 'rest_invalid_param');
    const ext = await api('/tickets', { token: editor, body: { post_id: event.id, title: 'Gala', provider: 'external', price: 15, currency: 'EUR',
      url: 'https://tickets.example.org/gala' } });
    expect([ext.status, ext.json.cost, ext.json.url]).toEqual([201, '€15.00', 'https://tickets.example.org/gala']);
    const read = await api(`/events/${event.id}`);
    expect(read.json.ticketed).toEqual(['external', 'rsvp']);
    expect(read.json.attendance).toBeUndefined();
    const own = await api(`/events/${event.id}/tickets`);
    expect([own.status, own.json.total, own.json.tickets.map((x: any) => x.id)]).toEqual([200, 2, [t.id, ext.json.id]]);
  });

  test('only editors of the event write tickets; a missing ticket is 404', async () => {
    const event = await createEvent({}, editor);
    expectError(await api('/tickets', { body: { post_id: event.id, title: 'x' } }), 401, 'rest_forbidden');
    expectError(await api('/tickets', { token: subscriber, body: { post_id: event.id, title: 'x' } }), 403, 'rest_forbidden');
    expectError(await api('/tickets/999999999'), 404, 'rest-ticket-not-found');
  });

  test('a ticket with attendees is 409 unless an editor forces; lowering capacity below places taken is 400', async () => {
    const event = await createEvent({}, editor);
    const t = await rsvp(event.id, { capacity: 5 });
    expect((await reserve(t.id, { quantity: 3 })).status).toBe(201);
    const low = await api(`/tickets/${t.id}`, { method: 'PATCH', token: editor, body: { capacity: 2 } });
    expect([low.status, Object.keys(low.json.data.params)]).toEqual([400, ['capacity']]);
    expectError(await api(`/tickets/${t.id}`, { method: 'DELETE', token: editor }), 409, 'rest-ticket-has-attendees');
    expect((await api(`/tickets/${t.id}`, { method: 'DELETE', token: editor, query: { force: true } })).status).toBe(200);
    expect((await api(`/events/${event.id}`)).json.ticketed).toBe(false);
  });
});

describe('attendees', () => {
  test('a reservation\'s token reads, changes and cancels it; anyone else gets 404; answers are private', async () => {
    const event = await createEvent({}, editor);
    const t = await rsvp(event.id, { capacity: 4 });
    const made = await reserve(t.id, { quantity: 2 });
    expect(made.status).toBe(201);
    expect(made.headers.get('cache-control')).toBe('private, no-store');
    expect(Object.keys(made.json)).toEqual(['id', 'ticket_id', 'event_id', 'name', 'email', 'quantity', 'checked_in', 'created_utc', 'token']);
    expect(made.json.token.length).toBeGreaterThanOrEqual(22);
    const id = made.json.id;
    const token = made.json.token;
    expectError(await api(`/attendees/${id}`), 404, 'rest-attendee-not-found');
    expectError(await api(`/attendees/${id}`, { query: { token: `${token}x` } }), 404, 'rest-attendee-not-found');
    expectError(await api(`/attendees/${id}`, { token: subscriber }), 404, 'rest-attendee-not-found');
    const read = await api(`/attendees/${id}`, { query: { token } });
    expect([read.status, read.json.token, read.headers.get('cache-control')]).toEqual([200, undefined, 'private, no-store']);
    expectError(await api(`/attendees/${id}`, { method: 'PATCH', query: { token }, body: { quantity: 5 } }), 409, 'rest-ticket-sold-out');
    expect((await api(`/attendees/${id}`, { method: 'PATCH', query: { token }, body: { quantity: 4 } })).json.quantity).toBe(4);
    const full = await reserve(t.id);
    expect([full.status, full.json.code, full.json.data.available]).toEqual([409, 'rest-ticket-sold-out', 0]);
    const organiser = await api(`/events/${event.id}`, { token: editor });
    expect(organiser.json.attendance).toEqual({ total_attendees: 4, checked_in: 0, not_checked_in: 4 });
    expect((await api(`/attendees/${id}`, { method: 'DELETE', query: { token } })).status).toBe(200);
    expect((await reserve(t.id)).status).toBe(201);
  });

  test('organisers list, check in and erase; others cannot list', async () => {
    const event = await createEvent({}, editor);
    const t = await rsvp(event.id);
    const a = (await reserve(t.id, { quantity: 2 })).json;
    await reserve(t.id, { email: 'grace@example.org', name: 'Grace' });
    const list = await api('/attendees', { token: editor, query: { event: event.id } });
    expect([list.status, list.json.total, list.headers.get('cache-control')]).toEqual([200, 2, 'private, no-store']);
    expectError(await api('/attendees', { token: subscriber, query: { event: event.id } }), 403, 'rest_forbidden');
    const checked = await api(`/attendees/${a.id}`, { method: 'PATCH', token: editor, body: { checked_in: true } });
    expect(checked.json.checked_in).toBe(true);
    expect((await api(`/events/${event.id}`, { token: editor })).json.attendance).toEqual({ total_attendees: 3, checked_in: 2, not_checked_in: 1 });
    expect((await api(`/attendees/${a.id}`, { method: 'DELETE', token: editor })).status).toBe(200);
    expectError(await api(`/attendees/${a.id}`, { token: editor }), 404, 'rest-attendee-not-found');
  });

  test('rules: unknown ticket 400, external 400, quantity bounds, unpublished event 409', async () => {
    const event = await createEvent({}, editor);
    const ext = (await api('/tickets', { token: editor, body: { post_id: event.id, title: 'x', provider: 'external', url: 'https://e.example/x' } })).json;
    expectError(await reserve(999999999), 400, 'rest_invalid_param');
    expectError(await reserve(ext.id), 400, 'rest_invalid_param');
    const t = await rsvp(event.id);
    expectError(await reserve(t.id, { quantity: 11 }), 400, 'rest_invalid_param');
    expectError(await reserve(t.id, { email: 'not-an-address' }), 400, 'rest_invalid_param');
    const draft = await createEvent({ status: 'draft' }, editor);
    const dt = await rsvp(draft.id);
    expectError(await api('/attendees', { token: editor, body: { ticket_id: dt.id, name: 'A', email: 'a@example.org' } }), 409, 'rest-ticket-not-available');
  });

  test('an anonymous Idempotency-Key replays the identical reservation only', async () => {
    const event = await createEvent({}, editor);
    const t = await rsvp(event.id, { capacity: 3 });
    const key = { 'Idempotency-Key': `rsvp-${uid()}` };
    const first = await reserve(t.id, {}, key);
    const again = await reserve(t.id, {}, key);
    expect([first.status, again.status, again.json.id, again.headers.get('idempotent-replayed')]).toEqual([201, 201, first.json.id, 'true']);
    expect((await reserve(t.id, { quantity: 2 }, key)).status).toBe(422);
    expect((await api(`/tickets/${t.id}`)).json.capacity_details.sold).toBe(1);
    // The stored first answer is sealed with the key: whoever reads the table finds neither the token nor the person.
    const raw = new DynamoDBClient({ endpoint: process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT, region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const store = newIdempotencyStore(process.env.CALENDAR_TEST_TABLE!, raw);
    // (Read with another payload hash: the store then hands the record over with its validation error.)
    const record = await store.getRecord(idempotentRequest(`anonymous#ticket#${t.id}`, key['Idempotency-Key'], ''))
      .catch((e: { existingRecord?: unknown }) => e.existingRecord as Awaited<ReturnType<typeof store.getRecord>>);
    raw.destroy();
    const stored = record.getResponse() as { body: string; iv?: string };
    expect(stored.iv).toBeDefined();
    const bytes = Buffer.from(stored.body, 'base64');
    for (const secret of [first.json.token, 'ada@example.org']) expect(bytes.includes(secret)).toBe(false);
    expect(() => gunzipSync(bytes)).toThrow();
  });

  test('the per-address limit with its default: the 11th reservation in a minute is 429 and takes no place', async () => {
    const event = await createEvent({}, editor);
    const t = await rsvp(event.id);
    for (let i = 0; i < 10; i++) expect((await reserve(t.id)).status).toBe(201);
    const refused = await reserve(t.id);
    expect([refused.status, refused.json.code, Number(refused.headers.get('retry-after')) > 0]).toEqual([429, 'rest_too_many_attempts', true]);
    expect((await api(`/tickets/${t.id}`)).json.capacity_details.sold).toBe(10);
  });

  test('reservations leave no entry in the changes feed and nothing personal in the server\'s output', async () => {
    const event = await createEvent({}, editor);
    const t = await rsvp(event.id);
    const cursor = (await api('/changes', { query: { since: 'latest' } })).json.next_cursor;
    const name = `Secret Person ${uid()}`;
    const email = `secret-${uid()}@example.org`;
    const made = await reserve(t.id, { name, email });
    await api(`/attendees/${made.json.id}`, { query: { token: made.json.token } });
    await api(`/attendees/${made.json.id}`, { method: 'DELETE', query: { token: 'wrong' } });
    const feed = await api('/changes', { token: editor, query: { since: cursor } });
    // Other test files write on the shared server meanwhile: nothing of this event, its ticket or any attendee.
    const ours = (c: any) => c.kind === 'attendee' || (c.kind === 'ticket' && c.id === t.id) || (c.kind === 'event' && c.id === event.id);
    expect(feed.json.changes.filter(ours)).toEqual([]);
    const log = readFileSync(process.env.CALENDAR_TEST_SERVER_LOG!, 'utf8');
    for (const secret of [name, email, made.json.token]) expect(log).not.toContain(secret);
  });

  test('ticket writes are in the changes feed as kind ticket', async () => {
    const event = await createEvent({}, editor);
    const cursor = (await api('/changes', { query: { since: 'latest' } })).json.next_cursor;
    const t = await rsvp(event.id);
    const feed = await api('/changes', { token: editor, query: { since: cursor } });
    expect(feed.json.changes.filter((c: any) => c.kind === 'ticket' && c.id === t.id).map((c: any) => [c.id, c.action])).toEqual([[t.id, 'created']]);
  });

  test('/events?ticketed=true|false', async () => {
    const day = '2031-03-0';
    const a = await createEvent({ start_date: `${day}4 10:00:00`, end_date: `${day}4 11:00:00` }, editor);
    const b = await createEvent({ start_date: `${day}4 12:00:00`, end_date: `${day}4 13:00:00` }, editor);
    await rsvp(a.id);
    const q = { start_date: `${day}4`, end_date: `${day}4 23:59:59` };
    const yes = await api('/events', { query: { ...q, ticketed: true } });
    const no = await api('/events', { query: { ...q, ticketed: false } });
    expect(yes.json.events.map((e: any) => e.id)).toContain(a.id);
    expect(yes.json.events.map((e: any) => e.id)).not.toContain(b.id);
    expect(no.json.events.map((e: any) => e.id)).toContain(b.id);
    expect(no.json.events.map((e: any) => e.id)).not.toContain(a.id);
    expect(yes.json.total + no.json.total).toBe((await api('/events', { query: q })).json.total);
  });
});

const series = async (count = 3) => {
  // Within the materialising horizon (so every occurrence exists) and not over.
  const day = new Date(Date.now() + (10 + Math.floor(Math.random() * 300)) * 86_400_000).toISOString().slice(0, 10);
  const s = await createEvent({ start_date: `${day} 18:00:00`, end_date: `${day} 20:00:00`, recurrence: [`RRULE:FREQ=DAILY;COUNT=${count}`] }, editor);
  const occ = await api(`/events/${s.id}/occurrences`, { token: editor, query: { start_date: '2000-01-01', per_page: 50 } });
  return { id: s.id as number, occurrences: occ.json.events.map((e: any) => e.id as number) as number[] };
};
const attendeeIds = async (event: number) =>
  (await api('/attendees', { token: editor, query: { event, per_page: 50 } })).json.attendees.map((a: any) => a.id).sort();

describe('series tickets', () => {
  test('a series ticket filled on one occurrence is open on the next', async () => {
    const s = await series(2);
    const [first, second] = s.occurrences;
    const t = await rsvp(s.id, { capacity: 2 });
    expect(t.capacity_details).toEqual({ max: 2, available: null, sold: null });
    expectError(await reserve(t.id), 400, 'rest_invalid_param');
    expect((await reserve(t.id, { event_id: first, quantity: 2 })).status).toBe(201);
    const full = await reserve(t.id, { event_id: first });
    expectError(full, 409, 'rest-ticket-sold-out');
    expect(full.json.data.available).toBe(0);
    expect((await reserve(t.id, { event_id: second })).status).toBe(201);
    expect((await api(`/tickets/${t.id}`, { query: { event: first } })).json.capacity_details).toEqual({ max: 2, available: 0, sold: 2 });
    expect((await api(`/tickets/${t.id}`, { query: { event: second } })).json.capacity_details).toEqual({ max: 2, available: 1, sold: 1 });
    const listed = await api(`/events/${second}/tickets`);
    expect(listed.json.tickets.map((x: any) => [x.id, x.capacity_details.sold, x.is_available])).toEqual([[t.id, 1, true]]);
  });
});

describe('series changes keep reservations', () => {
  test('an occurrence with attendees that a change would delete stays, an exception', async () => {
    const s = await series(4);
    const t = await rsvp(s.id);
    const made = (await reserve(t.id, { event_id: s.occurrences[3] })).json;
    const changed = await api(`/events/${s.id}`, { method: 'PATCH', token: editor, body: { recurrence: ['RRULE:FREQ=DAILY;COUNT=2'] } });
    expect(changed.status).toBe(200);
    const left = await api(`/events/${s.id}/occurrences`, { token: editor, query: { start_date: '2000-01-01', per_page: 50 } });
    expect(left.json.events.map((e: any) => e.id)).toEqual([s.occurrences[0], s.occurrences[1], s.occurrences[3]]);
    expect((await api(`/attendees/${made.id}`, { query: { token: made.token } })).json.event_id).toBe(s.occurrences[3]);
    expect((await api(`/tickets/${t.id}`, { query: { event: s.occurrences[3] } })).json.capacity_details.sold).toBe(1);
  });

  test('a split moves the occurrences\' reservations with them', async () => {
    const s = await series(4);
    const [first, , third] = s.occurrences;
    const t = await rsvp(s.id, { capacity: 2 });
    const early = (await reserve(t.id, { event_id: first })).json;
    const late = (await reserve(t.id, { event_id: third, quantity: 2 })).json;
    const split = await api(`/events/${third}`, { method: 'PATCH', token: editor, query: { scope: 'following' }, body: { title: 'Later part' } });
    expect(split.status).toBe(201);
    const later = split.json.id as number;
    expect(split.json.ticketed).toEqual(['rsvp']);
    const moved = (await api(`/events/${later}/tickets`)).json.tickets;
    expect(moved.map((x: any) => [x.post_id, x.capacity])).toEqual([[later, 2]]);
    const copy = moved[0].id as number;
    expect(copy).not.toBe(t.id);
    const c = await api(`/tickets/${copy}`, { query: { event: third } });
    expect([c.status, c.text]).toEqual([200, c.text]);
    expect(c.json.capacity_details).toEqual({ max: 2, available: 0, sold: 2 });
    expectError(await reserve(copy, { event_id: third }), 409, 'rest-ticket-sold-out');
    expect((await api(`/tickets/${t.id}`, { query: { event: first } })).json.capacity_details.sold).toBe(1);
    expectError(await reserve(t.id, { event_id: third }), 400, 'rest_invalid_param');
    const read = await api(`/attendees/${late.id}`, { query: { token: late.token } });
    expect([read.json.ticket_id, read.json.event_id]).toEqual([copy, third]);
    expect(await attendeeIds(later)).toEqual([late.id]);
    expect(await attendeeIds(s.id)).toEqual([early.id]);
    expect((await api(`/attendees/${late.id}`, { method: 'DELETE', query: { token: late.token } })).status).toBe(200);
    expect((await api(`/tickets/${copy}`, { query: { event: third } })).json.capacity_details.sold).toBe(0);
    expect((await reserve(copy, { event_id: third })).status).toBe(201);
  });
});

describe('deleting events for good', () => {
  test('a single event takes its tickets and attendees with it', async () => {
    const event = await createEvent({}, editor);
    const t = await rsvp(event.id, { capacity: 5 });
    const made = (await reserve(t.id)).json;
    const cursor = (await api('/changes', { query: { since: 'latest' } })).json.next_cursor;
    expect((await api(`/events/${event.id}`, { method: 'DELETE', token: editor, query: { force: true } })).status).toBe(200);
    expectError(await api(`/tickets/${t.id}`, { token: editor }), 404, 'rest-ticket-not-found');
    expectError(await api(`/attendees/${made.id}`, { query: { token: made.token } }), 404, 'rest-attendee-not-found');
    expect((await api('/tickets', { token: editor, query: { per_page: 50 } })).json.tickets.map((x: any) => x.id)).not.toContain(t.id);
    const feed = await api('/changes', { token: editor, query: { since: cursor } });
    expect(feed.json.changes.filter((c: any) => c.kind === 'ticket' && c.id === t.id).map((c: any) => [c.id, c.action])).toEqual([[t.id, 'deleted']]);
    // The event's ticketed facts went with it: a new event on no ticket is not ticketed.
    const ids = (await api('/events', { query: { ticketed: true, per_page: 50, start_date: '2000-01-01' } })).json.events.map((e: any) => e.id);
    expect(ids).not.toContain(event.id);
  });

  test('a series takes its tickets, its occurrences\' tickets and every attendee with it', async () => {
    const s = await series(3);
    const own = await rsvp(s.occurrences[1]!);
    const shared = await rsvp(s.id);
    const a = (await reserve(shared.id, { event_id: s.occurrences[0] })).json;
    const b = (await reserve(own.id)).json;
    expect((await api(`/events/${s.id}`, { method: 'DELETE', token: editor, query: { force: true } })).status).toBe(200);
    for (const t of [own, shared]) expectError(await api(`/tickets/${t.id}`, { token: editor }), 404, 'rest-ticket-not-found');
    for (const x of [a, b]) expectError(await api(`/attendees/${x.id}`, { query: { token: x.token } }), 404, 'rest-attendee-not-found');
  });

  test('an occurrence takes its places on the series\' ticket with it; the others keep theirs', async () => {
    const s = await series(3);
    const [first, second] = s.occurrences;
    const t = await rsvp(s.id, { capacity: 3 });
    const gone = (await reserve(t.id, { event_id: first, quantity: 2 })).json;
    const kept = (await reserve(t.id, { event_id: second })).json;
    expect((await api(`/events/${first}`, { method: 'DELETE', token: editor, query: { force: true } })).status).toBe(200);
    expectError(await api(`/attendees/${gone.id}`, { query: { token: gone.token } }), 404, 'rest-attendee-not-found');
    expect((await api(`/attendees/${kept.id}`, { query: { token: kept.token } })).status).toBe(200);
    expect(await attendeeIds(s.id)).toEqual([kept.id]);
    expect((await api(`/tickets/${t.id}`, { query: { event: second } })).json.capacity_details.sold).toBe(1);
    // The capacity may now go down to what the remaining occurrences hold.
    expect((await api(`/tickets/${t.id}`, { method: 'PATCH', token: editor, body: { capacity: 1 } })).status).toBe(200);
  });
});

describe('ticketed=false, counted', () => {
  test('pages skip the ticketed events and the total is exact, a series\' ticket counting for its occurrences', async () => {
    // A far day of its own (beyond the horizon, so no other test's daily series reaches it; a series' first occurrence exists).
    const day = futureDay();
    const at = (h: number) => ({ start_date: `${day} ${String(h).padStart(2, '0')}:00:00`, end_date: `${day} ${String(h).padStart(2, '0')}:30:00` });
    const made = [];
    for (let h = 8; h < 16; h++) made.push(await createEvent(at(h), editor));
    for (const e of made.filter((_, i) => i % 4 !== 3)) await rsvp(e.id);
    const s = await createEvent({ ...at(17), recurrence: [`RDATE:${day.replace(/-/g, '')}T180000`] }, editor);
    await rsvp(s.id);
    const plain = made.filter((_, i) => i % 4 === 3).map((e) => e.id);
    const q = { start_date: day, end_date: `${day} 23:59:59`, ticketed: false, per_page: 1 };
    const pages = [];
    for (let page = 1; page <= plain.length; page++) {
      const res = await api('/events', { query: { ...q, page } });
      expect([res.status, res.json.total]).toEqual([200, plain.length]);
      pages.push(...res.json.events.map((e: any) => e.id));
    }
    expect(pages).toEqual(plain);
    expect((await api('/events', { query: { ...q, page: plain.length + 1 } })).status).toBe(404);
    const yes = await api('/events', { query: { ...q, ticketed: true, per_page: 50 } });
    const occurrences = (await api(`/events/${s.id}/occurrences`, { query: { start_date: day, end_date: `${day} 23:59:59` } })).json.total;
    expect(occurrences).toBeGreaterThan(0);
    expect(yes.json.total).toBe(made.length - plain.length + occurrences);
  });
});

describe('capacity under concurrency (limit off)', () => {
  let server: OwnServer;
  let token: string;
  beforeAll(async () => {
    server = await startOwnServer('tickets-rush', { secret: TEST_JWT_SECRET, env: { CALENDAR_RSVP_RATE_LIMIT: '0' } });
    token = `Bearer ${await tokenFor('editor', `rush-${uid()}`)}`;
  }, 120_000);
  afterAll(() => server?.stop());

  const make = async (capacity: number) => {
    const start = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const e = await send(`${server.url}/events`, { method: 'POST', authorization: token,
      body: { title: 'Rush', start_date: `${start} 18:00:00`, end_date: `${start} 20:00:00` } });
    const t = await send(`${server.url}/tickets`, { method: 'POST', authorization: token, body: { post_id: e.json.id, title: 'Place', capacity } });
    return t.json.id as number;
  };
  const book = (ticket: number, i: number) => send(`${server.url}/attendees`, { method: 'POST',
    body: { ticket_id: ticket, name: `P${i}`, email: `p${i}@example.org` } });

  test('40 concurrent reservations for 10 places: exactly 10 created, the rest sold out', async () => {
    const ticket = await make(10);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => book(ticket, i)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 409 && a.json.code === 'rest-ticket-sold-out')).toHaveLength(30);
    expect((await send(`${server.url}/tickets/${ticket}`)).json.capacity_details).toEqual({ max: 10, available: 0, sold: 10 });
  }, 120_000);

  test('cancellations under concurrency free their places at once', async () => {
    const ticket = await make(5);
    const made = await Promise.all(Array.from({ length: 5 }, (_, i) => book(ticket, i)));
    const rush = await Promise.all([
      ...made.slice(0, 3).map((m) => send(`${server.url}/attendees/${m.json.id}?token=${m.json.token}`, { method: 'DELETE' })),
      ...Array.from({ length: 10 }, (_, i) => book(ticket, 100 + i)),
    ]);
    expect(rush.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
    const created = rush.slice(3).filter((r) => r.status === 201).length;
    const sold = (await send(`${server.url}/tickets/${ticket}`)).json.capacity_details.sold;
    expect(sold).toBe(2 + created);
    expect(sold).toBeLessThanOrEqual(5);
  }, 120_000);
});
