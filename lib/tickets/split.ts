/**
 * A split (`?scope=following`, contract §13) moves the occurrences' reservations with them (contract §19). The new series
 * is the old one from the split on, tickets included: its transaction copies each of the old series' tickets onto it
 * (a new ticket, its entry carrying `from` = the old ticket, its places item marked `mv` so that no reservation takes
 * its places before the moved ones are counted). After the occurrences have moved, each of their reservations moves in
 * one transaction of its own (its places leave the old ticket's item and join the new one's, the attendee and its
 * entries point at the new ticket and series); then the entry loses `from` and the places item `mv`. The new series'
 * regeneration runs this (lib/events/series.ts `finishSeries`), so the horizon job finishes it when the request dies.
 */
import type { EventItem } from '../events/record.js';
import { noted } from '../store/changes.js';
import { table } from '../store/client.js';
import { transact } from '../store/kit.js';
import { batchGet, getItem, queryAll } from '../store/records.js';
import { backoff } from '../store/retry.js';
import {
  allTicketKey, attendeeEntryKey, attendeeKey, checkedAttr, eventTicketItem, placesKey, readAttendeeEntries, soldAttr, ticketKey,
} from '../store/tickets.js';
import type { TransactItem } from '../store/types.js';
import { eventCostText, isAttendee, isTicket, type AttendeeItem, type TicketItem } from './record.js';

/** The old series' tickets, read for the split's transaction. */
export async function seriesTickets(series: number): Promise<TicketItem[]> {
  const entries = await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `TICKETS#${series}` }, ConsistentRead: true });
  return (await batchGet(entries.map((e) => ticketKey(Number(e.id))), undefined, true)).filter(isTicket);
}

/** The split transaction's items that give the new series a copy of each of the old series' tickets (`ids`: one each). */
export function copyTickets(tickets: TicketItem[], ids: number[], next: EventItem, now: string): TransactItem[] {
  return tickets.flatMap((t, i) => {
    const id = ids[i]!;
    const copy: TicketItem = { ...t, ...ticketKey(id), id, v: 1, post: next.id, modifiedUtc: now };
    return [
      noted({ Put: { TableName: table(), Item: { ...copy }, ConditionExpression: 'attribute_not_exists(PK)' } }, null,
        { ...copy, status: next.status, author: next.author }),
      { Put: { TableName: table(), Item: { ...eventTicketItem(next.id, { id, provider: t.provider, cost: eventCostText(t) }), from: t.id } } },
      { Put: { TableName: table(), Item: { ...allTicketKey(id), id, post: next.id, provider: t.provider } } },
      { Put: { TableName: table(), Item: { ...placesKey(id), cap: t.capacity, n: 0, mv: true }, ConditionExpression: 'attribute_not_exists(PK)' } },
    ];
  });
}

/** Moves one reservation to the copy of its ticket (re-read on each attempt: a change or a cancellation may come first). */
async function moveOne(id: number, to: { ticket: number; series: number }): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const a = await getItem(attendeeKey(id), true);
    if (!isAttendee(a) || a.ticket === to.ticket) return;
    const next: AttendeeItem = { ...a, v: a.v + 1, ticket: to.ticket, post: to.series };
    const checked = a.checkedIn ? a.quantity : 0;
    const places = (ticket: number, sign: number): TransactItem => ({ Update: { TableName: table(), Key: placesKey(ticket),
      UpdateExpression: 'ADD #s :q, #c :c, #n :one', ExpressionAttributeNames: { '#s': soldAttr(a.event), '#c': checkedAttr(a.event), '#n': 'n' },
      ExpressionAttributeValues: { ':q': sign * a.quantity, ':c': sign * checked, ':one': 1 } } });
    const old = await getItem(placesKey(a.ticket), true);
    const reasons = await transact([
      ...(old ? [places(a.ticket, -1)] : []),
      places(to.ticket, 1),
      { Put: { TableName: table(), Item: { ...next }, ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'v' },
        ExpressionAttributeValues: { ':v': a.v } } },
      { Delete: { TableName: table(), Key: attendeeEntryKey(a.post, a.id) } },
      { Put: { TableName: table(), Item: { ...attendeeEntryKey(to.series, a.id), id: a.id, ticket: to.ticket } } },
      { Put: { TableName: table(), Item: { ...attendeeEntryKey(a.event, a.id), id: a.id, ticket: to.ticket } } },
    ]);
    if (!reasons) return;
    if (attempt >= 8) throw new Error('moving a reservation to its split series kept meeting other writes');
    await backoff(Math.min(attempt, 4));
  }
}

/**
 * Finishes the split of the series `series` (idempotent; nothing when none of its tickets is still a copy in progress):
 * the reservations of its occurrences (`occurrences`) on the old series' tickets move to the copies.
 */
export async function moveSplitReservations(series: number, occurrences: () => Promise<number[]>): Promise<void> {
  const copies = (await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `TICKETS#${series}` }, ConsistentRead: true }))
    .filter((e) => typeof e.from === 'number');
  if (!copies.length) return;
  const ours = new Set(await occurrences());
  for (const copy of copies) {
    const from = await getItem(ticketKey(Number(copy.from)), true);
    if (isTicket(from)) {
      for (const e of (await readAttendeeEntries(from.post)).filter((x) => x.ticket === from.id)) {
        const a = await getItem(attendeeKey(e.id), true);
        if (isAttendee(a) && ours.has(a.event)) await moveOne(a.id, { ticket: Number(copy.id), series });
      }
    }
    const { from: _from, ...entry } = copy;
    await transact([{ Put: { TableName: table(), Item: entry } },
      { Update: { TableName: table(), Key: placesKey(Number(copy.id)), UpdateExpression: 'REMOVE mv', ConditionExpression: 'attribute_exists(cap)' } }]);
  }
}
