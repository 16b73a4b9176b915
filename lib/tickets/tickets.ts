/** Ticket writes and reads (contract §19): a ticket's item, its entries and its event's `ticketed`/cost in one transaction. */
import { canEdit, canRead } from '../auth/access.js';
import { config } from '../config.js';
import type { RequestContext } from '../http/context.js';
import { ApiError, forbidden, invalidParam } from '../http/errors.js';
import { recordJson } from '../http/etag.js';
import { json, type HttpResult } from '../http/response.js';
import { isEvent, isOccurrence, isSeries, type EventItem } from '../events/record.js';
import { eventFacts } from '../events/record.js';
import { eventLinkItems } from '../events/series-counts.js';
import { finishSeries, hold, holding } from '../events/series.js';
import type { TicketListParams, TicketReadParams, TicketWriteParams } from '../routes/tickets.js';
import { noted } from '../store/changes.js';
import { table } from '../store/client.js';
import { nextId } from '../store/ids.js';
import { commit, rewriteRecord } from '../store/kit.js';
import { postKey } from '../store/keys.js';
import { linkTransactItems } from '../store/links.js';
import { ReadSet } from '../store/reads.js';
import { batchGet, getItem, getPost } from '../store/records.js';
import { afterCommit, retryConflicts } from '../store/retry.js';
import {
  allTicketKey, eventTicketItem, eventTicketKey, placesCapacity, placesKey, readEventTickets, readPlaces, soldAttr, ticketKey, type TicketEntry,
} from '../store/tickets.js';
import type { TransactItem } from '../store/types.js';
import { sanitizeHtml } from '../text/sanitize.js';
import { nowUtcWall, wallToUtc } from '../time/format.js';
import { eventCostText, isTicket, TICKET_SHAPE, type TicketItem } from './record.js';

export const ticketNotFound = (): ApiError => new ApiError(404, 'rest-ticket-not-found', 'No ticket has this ID.');

/** The ticket a path names, when its caller may read its event (a trashed event's tickets only for whoever may edit it). */
export async function readableTicket(ctx: RequestContext, id: number, consistent = false): Promise<{ ticket: TicketItem; event: EventItem }> {
  const ticket = await getItem(ticketKey(id), consistent);
  if (!isTicket(ticket)) throw ticketNotFound();
  const event = await getPost(ticket.post, consistent);
  const userId = await ctx.userId();
  if (!isEvent(event) || !canRead(ctx.caller, userId, event) || (event.status === 'trash' && !canEdit(ctx.caller, userId, event))) {
    throw ticketNotFound();
  }
  return { ticket, event };
}

/** The ticket as shown for `occurrence` (its places and window), or without one: a series ticket's places are unknown then. */
export async function ticketJson(ctx: RequestContext, ticket: TicketItem, event: EventItem, occurrence: EventItem | null,
  places?: Record<string, unknown> | null): Promise<Record<string, unknown>> {
  const target = isSeries(event) ? occurrence : event;
  const p = places === undefined ? await readPlaces(ticket.id, false) : places;
  const sold = target ? Number(p?.[soldAttr(target.id)] ?? 0) : null;
  const untilUtc = ticket.until ?? (target ? target.startUtc : null);
  const now = nowUtcWall();
  const available = target !== null && target.status === 'publish' && target.endUtc > now && now >= (ticket.from ?? ticket.createdUtc)
    && untilUtc !== null && now <= untilUtc && (ticket.capacity < 0 || (sold ?? 0) < ticket.capacity);
  return TICKET_SHAPE.render({ item: ticket, ctx, sold, untilUtc, fromUtc: ticket.from ?? ticket.createdUtc, available });
}

/** What the change log sees of a ticket: its event's status and author decide who reads the change (contract §16). */
const audience = (t: TicketItem | null, event: EventItem) => t && { ...t, status: event.status, author: event.author };

/**
 * Commits a ticket's items with its event's rewrite when its tickets' providers or costs change: the event's `ticketed`
 * fact moves its list entries (the ticketed source) in the same transaction. A series' tickets reach its occurrences by
 * regenerating them, after the commit (as any series write).
 */
async function commitWithEvent(event: EventItem, entries: TicketEntry[], items: TransactItem[]): Promise<void> {
  const providers = [...new Set(entries.map((e) => e.provider))].sort();
  const costs = [...new Set(entries.map((e) => e.cost))].sort();
  const series = isSeries(event);
  const [pk, ck] = series ? (['tks', 'tksc'] as const) : (['tk', 'tkc'] as const);
  if (JSON.stringify(event[pk] ?? []) === JSON.stringify(providers) && JSON.stringify(event[ck] ?? []) === JSON.stringify(costs)) {
    await commit(items);
    return;
  }
  const next: EventItem = { ...event, v: event.v + 1, modifiedUtc: nowUtcWall() };
  if (providers.length) Object.assign(next, { [pk]: providers, [ck]: costs });
  else { delete next[pk]; delete next[ck]; }
  const reads = new ReadSet(true);
  if (series) {
    const h = hold(event.id);
    const held = holding(next, h);
    await rewriteRecord('event', event, held, [...await linkTransactItems(eventFacts(event), eventFacts(held), reads), h.item, ...items]);
    await afterCommit('giving the occurrences of a series its tickets', () => finishSeries(event.id, h));
    return;
  }
  const links = isOccurrence(event) ? await eventLinkItems(event, next, reads) : await linkTransactItems(eventFacts(event), eventFacts(next), reads);
  await rewriteRecord('event', event, next, [...links, ...items]);
}

const writableEvent = async (ctx: RequestContext, id: number): Promise<EventItem> => {
  const event = await getPost(id, true);
  if (!isEvent(event) || !canRead(ctx.caller, await ctx.userId(), event)) throw invalidParam('post_id', 'post_id must name an existing event');
  if (!canEdit(ctx.caller, await ctx.userId(), event)) throw forbidden(ctx.caller !== null);
  return event;
};

/** Applies a create or partial update's fields (contract §19 rules); `existing` null on create. */
function applyTicket(ctx: RequestContext<TicketWriteParams>, existing: TicketItem | null, id: number, post: number): TicketItem {
  const p = ctx.params;
  const now = nowUtcWall();
  const provider = p.provider ?? existing?.provider ?? 'rsvp';
  const text = { ...(existing?.tr[ctx.lang] ?? {}) };
  if (p.title !== undefined) text.title = p.title;
  if (p.description !== undefined) text.description = sanitizeHtml(p.description);
  const t: TicketItem = {
    ...ticketKey(id), kind: 'ticket', id, v: (existing?.v ?? 0) + 1, post, provider,
    tr: { ...(existing?.tr ?? {}), [ctx.lang]: text }, lang0: existing?.lang0 ?? ctx.lang,
    price: p.price ?? existing?.price ?? 0, currency: p.currency ?? existing?.currency ?? config().currency,
    capacity: p.capacity ?? existing?.capacity ?? -1, createdUtc: existing?.createdUtc ?? now, modifiedUtc: now,
  };
  const url = p.url ?? existing?.url;
  if (provider === 'external') {
    if (!url) throw invalidParam('url', 'url is required for an external ticket');
    t.url = url;
  } else if (p.url !== undefined) throw invalidParam('url', 'an rsvp ticket has no url: its places are reserved through this API');
  if (provider === 'rsvp' && t.price !== 0) throw invalidParam('price', 'an rsvp ticket is free: its price is 0');
  const tz = config().siteTimezone;
  for (const [name, key] of [['available_from', 'from'], ['available_until', 'until']] as const) {
    const v = p[name];
    const value = v === undefined ? existing?.[key] : v === '' ? undefined : wallToUtc(v, tz);
    if (value !== undefined) t[key] = value;
  }
  if (t.from && t.until && t.until < t.from) throw invalidParam('available_until', 'available_until must not be before available_from');
  return t;
}

const entryOf = (t: TicketItem): TicketEntry => ({ id: t.id, provider: t.provider, cost: eventCostText(t) });

export async function createTicket(ctx: RequestContext<TicketWriteParams>): Promise<HttpResult> {
  const event = await writableEvent(ctx, ctx.params.post_id!);
  const id = await nextId('ticket');
  return retryConflicts(async () => {
    const fresh = await getPost(event.id, true);
    if (!isEvent(fresh)) throw invalidParam('post_id', 'post_id must name an existing event');
    const ticket = applyTicket(ctx, null, id, fresh.id);
    const entries = [...await readEventTickets(fresh.id, true), entryOf(ticket)];
    await commitWithEvent(fresh, entries, [
      noted({ Put: { TableName: table(), Item: { ...ticket }, ConditionExpression: 'attribute_not_exists(PK)' } }, null, audience(ticket, fresh)),
      { Put: { TableName: table(), Item: eventTicketItem(fresh.id, entryOf(ticket)) } },
      { Put: { TableName: table(), Item: { ...allTicketKey(id), id, post: fresh.id, provider: ticket.provider } } },
      placesCapacity(id, ticket.capacity, null),
    ]);
    return recordJson(201, await ticketJson(ctx, ticket, fresh, null, null), ticket.v, { Location: `${ctx.apiUrl}/tickets/${id}` });
  });
}

export async function updateTicket(ctx: RequestContext<TicketWriteParams & { id: number }>): Promise<HttpResult> {
  return retryConflicts(async () => {
    const { ticket, event } = await readableTicket(ctx, ctx.params.id, true);
    if (!canEdit(ctx.caller, await ctx.userId(), event)) throw forbidden(ctx.caller !== null);
    if (ctx.params.post_id !== undefined && ctx.params.post_id !== ticket.post) throw invalidParam('post_id', 'a ticket stays on its event');
    const next = applyTicket(ctx, ticket, ticket.id, ticket.post);
    const places = await readPlaces(ticket.id, true);
    if (next.capacity >= 0) {
      const most = Math.max(0, ...Object.entries(places ?? {}).filter(([k]) => /^s\d+$/.test(k)).map(([, n]) => Number(n)));
      if (most > next.capacity) throw invalidParam('capacity', `capacity must not be below the ${most} places already taken`);
    }
    const entries = (await readEventTickets(event.id, true)).map((e) => (e.id === next.id ? entryOf(next) : e));
    await commitWithEvent(event, entries, [
      noted({ Put: { TableName: table(), Item: { ...next }, ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'v' },
        ExpressionAttributeValues: { ':v': ticket.v } } }, audience(ticket, event), audience(next, event)),
      { Put: { TableName: table(), Item: eventTicketItem(event.id, entryOf(next)) } },
      placesCapacity(ticket.id, next.capacity, places ? Number(places.n ?? 0) : null),
    ]);
    return recordJson(200, await ticketJson(ctx, next, event, null), next.v);
  });
}

export async function deleteTicket(ctx: RequestContext<{ id: number; force: boolean }>): Promise<HttpResult> {
  return retryConflicts(async () => {
    const { ticket, event } = await readableTicket(ctx, ctx.params.id, true);
    if (!canEdit(ctx.caller, await ctx.userId(), event)) throw forbidden(ctx.caller !== null);
    const places = await readPlaces(ticket.id, true);
    const taken = Object.entries(places ?? {}).some(([k, n]) => /^s\d+$/.test(k) && Number(n) > 0);
    if (taken && !(ctx.params.force && ctx.caller?.role === 'editor')) {
      if (ctx.params.force) throw forbidden(true);
      throw new ApiError(409, 'rest-ticket-has-attendees', 'The ticket has attendees; an editor may delete it with them using force=true.');
    }
    const body = await ticketJson(ctx, ticket, event, null, places);
    const entries = (await readEventTickets(event.id, true)).filter((e) => e.id !== ticket.id);
    await commitWithEvent(event, entries, [
      noted({ Delete: { TableName: table(), Key: ticketKey(ticket.id), ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'v' },
        ExpressionAttributeValues: { ':v': ticket.v } } }, audience(ticket, event), null),
      { Delete: { TableName: table(), Key: eventTicketKey(event.id, ticket.id) } },
      { Delete: { TableName: table(), Key: allTicketKey(ticket.id) } },
      { Delete: { TableName: table(), Key: placesKey(ticket.id), ...(places ? { ConditionExpression: '#n = :n',
        ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':n': Number(places.n ?? 0) } } : {}) } },
    ]);
    if (taken) await afterCommit('erasing the attendees of a deleted ticket', async () => (await import('./attendees.js')).eraseTicketAttendees(ticket.id, ticket.post));
    return json(200, body);
  });
}

export async function getTicket(ctx: RequestContext<TicketReadParams>): Promise<HttpResult> {
  const { ticket, event } = await readableTicket(ctx, ctx.params.id);
  const occurrence = await occurrenceFor(ctx, event, ctx.params.event);
  return recordJson(200, await ticketJson(ctx, ticket, event, occurrence), ticket.v);
}

/** `?event=` on a series ticket: one of its occurrences (else 400). */
async function occurrenceFor(ctx: RequestContext, event: EventItem, id: number | undefined): Promise<EventItem | null> {
  if (id === undefined || !isSeries(event)) return null;
  const occ = await getPost(id);
  if (!isEvent(occ) || occ.series !== event.id || !canRead(ctx.caller, await ctx.userId(), occ)) {
    throw invalidParam('event', 'event must name an occurrence of the ticket\'s series');
  }
  return occ;
}

/** GET /tickets and /events/{id}/tickets: the tickets of readable events, in id order, paged. */
export async function listTickets(ctx: RequestContext<TicketListParams>): Promise<HttpResult> {
  const p = ctx.params;
  const eventId = p.id ?? p.event ?? p.include_post;
  const userId = await ctx.userId();
  let rows: { id: number; post: number; occurrence: EventItem | null }[];
  if (eventId !== undefined) {
    const event = await getPost(eventId);
    const readable = isEvent(event) && canRead(ctx.caller, userId, event) && (event.status !== 'trash' || canEdit(ctx.caller, userId, event));
    if (!readable) {
      if (p.id !== undefined) throw new ApiError(404, 'rest-event-not-found', `Event with ID ${eventId} does not exist.`);
      throw invalidParam(p.event !== undefined ? 'event' : 'include_post', 'must name an existing event');
    }
    const own = (await readEventTickets(event.id)).map((t) => ({ id: t.id, post: event.id, occurrence: null }));
    const ofSeries = event.series !== undefined
      ? (await readEventTickets(event.series)).map((t) => ({ id: t.id, post: event.series!, occurrence: event })) : [];
    rows = [...own, ...ofSeries].sort((a, b) => a.id - b.id);
  } else {
    const { readAllTicketIds } = await import('../store/tickets.js');
    rows = (await readAllTicketIds()).map((t) => ({ ...t, occurrence: null }));
  }
  const tickets = (await batchGet(rows.map((r) => ticketKey(r.id)))).filter(isTicket);
  const events = new Map((await batchGet([...new Set(tickets.map((t) => t.post))].map(postKey))).filter(isEvent).map((e) => [e.id, e]));
  const shown: Record<string, unknown>[] = [];
  for (const r of rows) {
    const t = tickets.find((x) => x.id === r.id);
    const e = t && events.get(t.post);
    if (!t || !e || !canRead(ctx.caller, userId, e) || (e.status === 'trash' && !canEdit(ctx.caller, userId, e))) continue;
    if (p.provider !== undefined && t.provider !== p.provider) continue;
    const body = await ticketJson(ctx, t, e, r.occurrence);
    if (p.is_available !== undefined && body.is_available !== p.is_available) continue;
    shown.push(body);
  }
  const total = shown.length;
  const totalPages = Math.ceil(total / p.per_page);
  if (p.page > 1 && (p.page - 1) * p.per_page >= total) throw new ApiError(404, 'rest-ticket-archive-page-not-found', 'The requested page does not exist');
  const base = p.id !== undefined ? `${ctx.apiUrl}/events/${p.id}/tickets` : `${ctx.apiUrl}/tickets`;
  return json(200, { tickets: shown.slice((p.page - 1) * p.per_page, p.page * p.per_page), rest_url: base, total, total_pages: totalPages },
    { 'X-TEC-Total': String(total), 'X-TEC-TotalPages': String(totalPages) });
}
