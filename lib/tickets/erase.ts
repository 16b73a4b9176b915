/**
 * The tickets and attendees of an event deleted for good (contract §19: "deleting an event for good deletes its tickets
 * and attendees"). The event's delete commits with a hold in the series busy registry (lib/store/series.ts); this work
 * runs before the hold is released (lib/events/series.ts `finishSeries`), so when the request dies the horizon job
 * takes it over and finishes it. Idempotent: every step deletes what is still there.
 */
import { table } from '../store/client.js';
import { noted } from '../store/changes.js';
import { transact } from '../store/kit.js';
import { backoff } from '../store/retry.js';
import { batchGet, queryAll } from '../store/records.js';
import {
  allTicketKey, attendeeEntryKey, attendeeKey, checkedAttr, eventTicketKey, placesKey, readAttendeeEntries, readEventTickets, readPlaces, soldAttr, ticketKey,
} from '../store/tickets.js';
import type { TransactItem } from '../store/types.js';
import type { EventItem } from '../events/record.js';
import { isAttendee, isTicket } from './record.js';

/** Whether an event has tickets or attendees of its own (whose erasure a permanent delete must then hold for). */
export async function hasTicketsOrAttendees(event: number): Promise<boolean> {
  for (const pk of [`TICKETS#${event}`, `ATTENDEES#${event}`]) {
    const found = await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, Limit: 1, ConsistentRead: true });
    if (found.length) return true;
  }
  return false;
}

/** One transaction of deletes, tried again while another transaction is in the way; a failed condition is what it wanted. */
async function settle(items: TransactItem[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const reasons = await transact(items);
    if (!reasons?.includes('TransactionConflict')) return;
    if (attempt >= 8) throw new Error('erasing the tickets of a deleted event kept meeting other writes');
    await backoff(Math.min(attempt, 4));
  }
}

/**
 * Deletes an event's tickets (each with its entries and places item, a `deleted` ticket change in the feed) and every
 * attendee listed under it, erasing their data; places an attendee held on another event's ticket (an occurrence's on
 * its series' ticket) leave that ticket's places item.
 */
export async function eraseEventTickets(event: number): Promise<void> {
  const entries = await readEventTickets(event, true);
  const tickets = (await batchGet(entries.map((e) => ticketKey(e.id)), undefined, true)).filter(isTicket);
  for (const t of tickets) {
    await settle([
      noted({ Delete: { TableName: table(), Key: ticketKey(t.id) } }, t, null),
      { Delete: { TableName: table(), Key: eventTicketKey(event, t.id) } },
      { Delete: { TableName: table(), Key: allTicketKey(t.id) } },
      { Delete: { TableName: table(), Key: placesKey(t.id) } },
    ]);
  }
  for (const e of entries.filter((x) => !tickets.some((t) => t.id === x.id))) {
    await settle([{ Delete: { TableName: table(), Key: eventTicketKey(event, e.id) } }]);
  }
  const gone = new Set(entries.map((e) => e.id));
  const elsewhere = new Map<string, { ticket: number; event: number }>();
  const listed = await readAttendeeEntries(event);
  const attendees = new Map((await batchGet(listed.map((e) => attendeeKey(e.id)), undefined, true)).filter(isAttendee).map((a) => [a.id, a]));
  for (const entry of listed) {
    const a = attendees.get(entry.id);
    const keys = a ? [attendeeKey(a.id), attendeeEntryKey(a.event, a.id), attendeeEntryKey(a.post, a.id)] : [attendeeEntryKey(event, entry.id)];
    await settle([...new Map(keys.map((k) => [`${k.PK}|${k.SK}`, k])).values()].map((Key) => ({ Delete: { TableName: table(), Key } })));
    if (a && !gone.has(a.ticket) && a.event === event) elsewhere.set(`${a.ticket}#${a.event}`, { ticket: a.ticket, event: a.event });
  }
  for (const { ticket, event: on } of elsewhere.values()) {
    // The places the deleted occurrence held on its series' ticket; `n` moves, as any places write, for capacity changes.
    await settle([{ Update: { TableName: table(), Key: placesKey(ticket), UpdateExpression: 'REMOVE #s, #c ADD #n :one',
      ConditionExpression: 'attribute_exists(#cap)', ExpressionAttributeNames: { '#s': soldAttr(on), '#c': checkedAttr(on), '#n': 'n', '#cap': 'cap' },
      ExpressionAttributeValues: { ':one': 1 } } }]);
  }
}

/**
 * Of the occurrences a regeneration of `series` would delete: those with attendees (on their own tickets or with places
 * on the series' tickets), and those with tickets or attendees at all. One Query per occurrence that has tickets of its
 * own (`tk`) or places taken on a series ticket, none for the rest.
 */
export async function occurrencesWithTickets(series: number, occurrences: EventItem[]): Promise<{ attended: Set<number>; ticketed: Set<number> }> {
  const attended = new Set<number>();
  const ticketed = new Set<number>();
  if (!occurrences.length) return { attended, ticketed };
  const places = await Promise.all((await readEventTickets(series, true)).map((t) => readPlaces(t.id)));
  for (const o of occurrences) {
    const placed = places.some((p) => Number(p?.[soldAttr(o.id)] ?? 0) > 0);
    if (!placed && !o.tk?.length) continue;
    ticketed.add(o.id);
    const found = await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `ATTENDEES#${o.id}` }, Limit: 1,
      ConsistentRead: true });
    if (found.length) attended.add(o.id);
  }
  return { attended, ticketed };
}
