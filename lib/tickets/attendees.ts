/**
 * Reservations on rsvp tickets (contract §19). Places move only by conditional `ADD`s on the ticket's places item in
 * the attendee's own transaction (lib/store/tickets.ts), never by reading and writing back. Reservations write no
 * change-log entry and never touch the event or the ticket record. Tokens: 256 random bits, stored as SHA-256, compared
 * in constant time; a wrong or missing token answers as a missing attendee.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { canEdit, canRead } from '../auth/access.js';
import { config } from '../config.js';
import type { RequestContext } from '../http/context.js';
import { ApiError, invalidParam } from '../http/errors.js';
import { json, type HttpResult } from '../http/response.js';
import { isEvent, isSeries, type EventItem } from '../events/record.js';
import type { AttendeeCreateParams, AttendeeListParams, AttendeeReadParams, AttendeeUpdateParams } from '../routes/tickets.js';
import { table } from '../store/client.js';
import { nextId } from '../store/ids.js';
import { transact } from '../store/kit.js';
import { batchGet, getItem, getPost } from '../store/records.js';
import { backoff } from '../store/retry.js';
import { timeLeft } from '../store/scope.js';
import {
  attendeeEntryKey, attendeeKey, placesMove, readAttendeeEntries, readPlaces, secondsToNextMinute, soldAttr, takeRateSlot, ticketKey,
} from '../store/tickets.js';
import type { TransactItem } from '../store/types.js';
import { StoreUnavailable } from '../store/errors.js';
import { nowUtcWall } from '../time/format.js';
import { ATTENDEE_SHAPE, isAttendee, isTicket, NEW_ATTENDEE_SHAPE, type AttendeeItem, type TicketItem } from './record.js';

const PRIVATE = { 'Cache-Control': 'private, no-store' };
const notFound = (): ApiError => new ApiError(404, 'rest-attendee-not-found', 'No attendee has this ID.');
const hashOf = (token: string): Buffer => createHash('sha256').update(token).digest();

const tokenMatches = (a: AttendeeItem, token: string | undefined): boolean =>
  token !== undefined && timingSafeEqual(hashOf(token), Buffer.from(a.th, 'hex'));

const soldOut = (available: number): ApiError => new ApiError(409, 'rest-ticket-sold-out', 'Not enough places are left on this ticket.',
  { available });
const notAvailable = (): ApiError => new ApiError(409, 'rest-ticket-not-available', 'This ticket cannot be reserved now.');

/**
 * Sends a transaction that moves places; when the places item's condition fails, reads it again and either answers
 * sold out (the places do not fit) or tries again (the capacity changed, another transaction was in the way).
 */
async function movePlaces(ticket: TicketItem, event: number, delta: number, items: (capacity: number) => TransactItem[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const places = await readPlaces(ticket.id, true);
    if (!places) throw notAvailable();
    // A split series' copy of a ticket takes no places until the moved reservations are counted (lib/tickets/split.ts).
    if (delta > 0 && places.mv) {
      if (timeLeft() < 300 || attempt > 200) throw new StoreUnavailable(false);
      await backoff(Math.min(attempt, 4));
      continue;
    }
    const capacity = Number(places.cap);
    const sold = Number(places[soldAttr(event)] ?? 0);
    if (delta > 0 && capacity >= 0 && sold + delta > capacity) throw soldOut(Math.max(0, capacity - sold));
    const reasons = await transact(items(capacity));
    if (!reasons) return;
    if (reasons.slice(1).some((r) => r === 'ConditionalCheckFailed')) throw notFound();
    if (timeLeft() < 300 || attempt > 200) throw new StoreUnavailable(false);
    await backoff(Math.min(attempt, 4));
  }
}

/** The event a reservation's places are for, checked against the ticket (contract §19). */
async function placesEvent(ctx: RequestContext, ticket: TicketItem, ticketEvent: EventItem, eventId: number | undefined): Promise<EventItem> {
  if (isSeries(ticketEvent)) {
    if (eventId === undefined) throw invalidParam('event_id', 'event_id is required for a series ticket: name the occurrence');
    const occ = await getPost(eventId);
    if (!isEvent(occ) || occ.series !== ticketEvent.id || !canRead(ctx.caller, await ctx.userId(), occ)) {
      throw invalidParam('event_id', 'event_id must name an occurrence of the ticket\'s series');
    }
    return occ;
  }
  if (eventId !== undefined && eventId !== ticket.post) throw invalidParam('event_id', 'event_id must name the ticket\'s event');
  return ticketEvent;
}

export async function createAttendee(ctx: RequestContext<AttendeeCreateParams>): Promise<HttpResult> {
  const p = ctx.params;
  const ticket = await getItem(ticketKey(p.ticket_id));
  const ticketEvent = isTicket(ticket) ? await getPost(ticket.post) : null;
  if (!isTicket(ticket) || !isEvent(ticketEvent) || !canRead(ctx.caller, await ctx.userId(), ticketEvent) || ticketEvent.status === 'trash') {
    throw invalidParam('ticket_id', 'ticket_id must name a ticket of an event you can read');
  }
  if (ticket.provider !== 'rsvp') throw invalidParam('ticket_id', 'this ticket is sold elsewhere (external): follow its url');
  const event = await placesEvent(ctx, ticket, ticketEvent, p.event_id);
  const limit = config().rsvpRateLimit;
  if (limit > 0 && !await takeRateSlot(ticket.id, ctx.sourceIp, limit)) {
    throw new ApiError(429, 'rest_too_many_attempts', 'Too many reservations from this address; try again in a minute.', {},
      { 'Retry-After': String(secondsToNextMinute()) });
  }
  const now = nowUtcWall();
  const until = ticket.until ?? event.startUtc;
  if (event.status !== 'publish' || event.endUtc <= now || now < (ticket.from ?? ticket.createdUtc) || now > until) throw notAvailable();
  const id = await nextId('attendee');
  const token = randomBytes(32).toString('base64url');
  const attendee: AttendeeItem = { ...attendeeKey(id), id, v: 1, ticket: ticket.id, event: event.id, post: ticket.post, name: p.name, email: p.email,
    quantity: p.quantity, checkedIn: false, createdUtc: now, th: hashOf(token).toString('hex') };
  await movePlaces(ticket, event.id, p.quantity, (capacity) => [
    placesMove(ticket.id, event.id, p.quantity, capacity),
    { Put: { TableName: table(), Item: { ...attendee }, ConditionExpression: 'attribute_not_exists(PK)' } },
    ...entryKeys(attendee).map((key) => ({ Put: { TableName: table(), Item: { ...key, id, ticket: ticket.id } } })),
  ]);
  return json(201, NEW_ATTENDEE_SHAPE.render({ item: attendee, token }), { ...PRIVATE, Location: `${ctx.apiUrl}/attendees/${id}` });
}

/** An attendee's list entries: under its event and, for an occurrence, under the ticket's series too. */
const entryKeys = (a: AttendeeItem) => [attendeeEntryKey(a.event, a.id), ...(a.post !== a.event ? [attendeeEntryKey(a.post, a.id)] : [])];

/** The attendee a path names, for a caller with its token or the right to edit its event; anyone else: 404. */
async function reachable(ctx: RequestContext<AttendeeReadParams>): Promise<{ attendee: AttendeeItem; organiser: boolean; ticket: TicketItem }> {
  const attendee = await getItem(attendeeKey(ctx.params.id), true);
  if (!isAttendee(attendee)) throw notFound();
  const byToken = tokenMatches(attendee, ctx.params.token);
  const event = await getPost(attendee.post);
  const organiser = isEvent(event) && canEdit(ctx.caller, await ctx.userId(), event);
  if (!byToken && !organiser) throw notFound();
  const ticket = await getItem(ticketKey(attendee.ticket), true);
  if (!isTicket(ticket)) throw notFound();
  return { attendee, organiser, ticket };
}

export async function getAttendee(ctx: RequestContext<AttendeeReadParams>): Promise<HttpResult> {
  const { attendee } = await reachable(ctx);
  return json(200, ATTENDEE_SHAPE.render({ item: attendee }), PRIVATE);
}

export async function updateAttendee(ctx: RequestContext<AttendeeUpdateParams>): Promise<HttpResult> {
  const { attendee, organiser, ticket } = await reachable(ctx);
  const p = ctx.params;
  if (p.checked_in !== undefined && !organiser) throw notFound();
  const next: AttendeeItem = { ...attendee, v: attendee.v + 1, quantity: p.quantity ?? attendee.quantity, checkedIn: p.checked_in ?? attendee.checkedIn };
  const delta = next.quantity - attendee.quantity;
  const checked = (next.checkedIn ? next.quantity : 0) - (attendee.checkedIn ? attendee.quantity : 0);
  await movePlaces(ticket, attendee.event, delta, (capacity) => [
    placesMove(ticket.id, attendee.event, delta, capacity, checked),
    { Put: { TableName: table(), Item: { ...next }, ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'v' },
      ExpressionAttributeValues: { ':v': attendee.v } } },
  ]);
  return json(200, ATTENDEE_SHAPE.render({ item: next }), PRIVATE);
}

export async function deleteAttendee(ctx: RequestContext<AttendeeReadParams>): Promise<HttpResult> {
  const { attendee, ticket } = await reachable(ctx);
  await movePlaces(ticket, attendee.event, -attendee.quantity, (capacity) => [
    placesMove(ticket.id, attendee.event, -attendee.quantity, capacity, attendee.checkedIn ? -attendee.quantity : 0),
    { Delete: { TableName: table(), Key: attendeeKey(attendee.id), ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'v' },
      ExpressionAttributeValues: { ':v': attendee.v } } },
    ...entryKeys(attendee).map((Key) => ({ Delete: { TableName: table(), Key } })),
  ]);
  return json(200, ATTENDEE_SHAPE.render({ item: attendee }), PRIVATE);
}

export async function listAttendees(ctx: RequestContext<AttendeeListParams>): Promise<HttpResult> {
  const p = ctx.params;
  const event = await getPost(p.event);
  if (!isEvent(event) || !canRead(ctx.caller, await ctx.userId(), event)) throw invalidParam('event', 'event must name an existing event');
  if (!canEdit(ctx.caller, await ctx.userId(), event)) throw new ApiError(403, 'rest_forbidden', 'Only whoever may edit the event sees its attendees.');
  const entries = (await readAttendeeEntries(event.id)).filter((e) => p.ticket === undefined || e.ticket === p.ticket);
  const total = entries.length;
  const totalPages = Math.ceil(total / p.per_page);
  if (p.page > 1 && (p.page - 1) * p.per_page >= total) throw new ApiError(404, 'rest-attendee-archive-page-not-found', 'The requested page does not exist');
  const slice = entries.slice((p.page - 1) * p.per_page, p.page * p.per_page);
  const items = new Map((await batchGet(slice.map((e) => attendeeKey(e.id)))).filter(isAttendee).map((a) => [a.id, a]));
  const attendees = slice.map((e) => items.get(e.id)).flatMap((item) => (item ? [ATTENDEE_SHAPE.render({ item })] : []));
  return json(200, { attendees, rest_url: `${ctx.apiUrl}/attendees?event=${event.id}`, total, total_pages: totalPages },
    { ...PRIVATE, 'X-TEC-Total': String(total), 'X-TEC-TotalPages': String(totalPages) });
}

/** Erases the attendees of a deleted ticket: every one has an entry under the ticket's own event (`post`). */
export async function eraseTicketAttendees(ticket: number, post: number): Promise<void> {
  const entries = (await readAttendeeEntries(post)).filter((e) => e.ticket === ticket);
  for (const a of (await batchGet(entries.map((e) => attendeeKey(e.id)), undefined, true)).filter(isAttendee)) {
    await transact([{ Delete: { TableName: table(), Key: attendeeKey(a.id) } },
      ...entryKeys(a).map((Key) => ({ Delete: { TableName: table(), Key } }))]);
  }
}
