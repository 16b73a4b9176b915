/**
 * Tickets and attendees (contract §19; keys, conditions and costs: lib/store/README.md "Tickets and RSVP"). Places are
 * counted on one item per ticket (`PLACES#<ticket>`), one attribute per event the ticket is offered on, and every
 * reservation, change and cancellation moves them with a conditional `ADD` in the same transaction as the attendee:
 * places taken never pass the capacity, whatever runs at once, and a cancelled place is free when the call returns.
 * Names, emails and token hashes live only in attendee items (`ATTENDEE#<id>`), which only the attendee routes read.
 */
import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from './client.js';
import { pad } from './keys.js';
import { getItem, queryAll, type Item } from './records.js';
import type { TransactItem } from './types.js';

export const ticketKey = (id: number) => ({ PK: `TICKET#${id}`, SK: 'TICKET' });
/** One event's tickets (its own; a series' tickets are under the series). */
export const eventTicketKey = (event: number, id: number) => ({ PK: `TICKETS#${event}`, SK: pad(id) });
/** Every ticket, in id order. */
export const allTicketKey = (id: number) => ({ PK: 'TICKETS', SK: pad(id) });
export const placesKey = (ticket: number) => ({ PK: `PLACES#${ticket}`, SK: 'PLACES' });
export const attendeeKey = (id: number) => ({ PK: `ATTENDEE#${id}`, SK: 'ATTENDEE' });
/** The attendees of one event (and of a series: its occurrences'), in id order; no personal data. */
export const attendeeEntryKey = (event: number, id: number) => ({ PK: `ATTENDEES#${event}`, SK: pad(id) });

/** The place attributes of an event on a places item: places taken (`s`) and checked in (`c`). */
export const soldAttr = (event: number) => `s${event}`;
export const checkedAttr = (event: number) => `c${event}`;

export interface TicketEntry {
  id: number;
  provider: string;
  cost: string;
}

/** A ticket's entry under its event: what the event's `ticketed` and cost are computed from. */
export const eventTicketItem = (event: number, e: TicketEntry): Item => ({ ...eventTicketKey(event, e.id), id: e.id, provider: e.provider, cost: e.cost });

export const readEventTickets = async (event: number, consistent = false): Promise<TicketEntry[]> =>
  (await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `TICKETS#${event}` }, ConsistentRead: consistent }))
    .map((i) => ({ id: i.id as number, provider: String(i.provider), cost: String(i.cost) }));

export const readAllTicketIds = async (): Promise<{ id: number; post: number }[]> =>
  (await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'TICKETS' } }))
    .map((i) => ({ id: i.id as number, post: i.post as number }));

export const readPlaces = (ticket: number, consistent = true): Promise<Item | null> => getItem(placesKey(ticket), consistent);

export const readAttendeeEntries = async (event: number): Promise<{ id: number; ticket: number }[]> =>
  (await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `ATTENDEES#${event}` }, ConsistentRead: true }))
    .map((i) => ({ id: i.id as number, ticket: i.ticket as number }));

/**
 * The places item's update for a reservation, change or cancellation of `delta` places on `event`: `ADD` with, when
 * it takes places from a limited capacity, the condition that they fit (`s<event> <= capacity − delta`) and that the
 * capacity is the one the check used. Every such write also counts in `n`, which a capacity change conditions on.
 */
export function placesMove(ticket: number, event: number, delta: number, capacity: number, checkedDelta = 0): TransactItem {
  const names: Record<string, string> = { '#s': soldAttr(event), '#n': 'n', '#cap': 'cap' };
  const values: Record<string, unknown> = { ':d': delta, ':one': 1, ':cap': capacity };
  let add = 'ADD #s :d, #n :one';
  if (checkedDelta !== 0) {
    names['#c'] = checkedAttr(event);
    values[':c'] = checkedDelta;
    add += ', #c :c';
  }
  let condition = 'attribute_exists(#cap)';
  if (delta > 0) {
    condition = '#cap = :cap';
    if (capacity >= 0) {
      condition += ' AND (attribute_not_exists(#s) OR #s <= :lim)';
      values[':lim'] = capacity - delta;
    }
  } else delete values[':cap'];
  return { Update: { TableName: table(), Key: placesKey(ticket), UpdateExpression: add, ConditionExpression: condition,
    ExpressionAttributeNames: names, ExpressionAttributeValues: values } };
}

/** A ticket write's places item: sets the capacity, conditioned on no reservation having moved places since `n` was read. */
export function placesCapacity(ticket: number, capacity: number, readN: number | null): TransactItem {
  return { Update: { TableName: table(), Key: placesKey(ticket), UpdateExpression: 'SET #cap = :cap',
    ConditionExpression: readN === null ? 'attribute_not_exists(#n)' : '#n = :n',
    ExpressionAttributeNames: { '#cap': 'cap', '#n': 'n' },
    ExpressionAttributeValues: { ':cap': capacity, ...(readN === null ? {} : { ':n': readN }) } } };
}

const minuteMs = 60_000;

/**
 * Counts one reservation attempt of a client address on a ticket in the current minute; false when `limit` attempts
 * were already counted (the attempt then takes nothing). The address is kept only as a hash, and the item expires.
 */
export async function takeRateSlot(ticket: number, address: string, limit: number, now = Date.now()): Promise<boolean> {
  const minute = Math.floor(now / minuteMs);
  const who = createHash('sha256').update(address).digest('base64url').slice(0, 22);
  try {
    await db().send(new UpdateCommand({
      TableName: table(),
      Key: { PK: `RSVPRATE#${ticket}#${who}`, SK: String(minute) },
      UpdateExpression: 'ADD #c :one SET #e = :e',
      ConditionExpression: 'attribute_not_exists(#c) OR #c < :limit',
      ExpressionAttributeNames: { '#c': 'c', '#e': 'expires' },
      ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':e': Math.floor(now / 1000) + 180 },
    }));
    return true;
  } catch (e) {
    if ((e as Error).name === 'ConditionalCheckFailedException') return false;
    throw e;
  }
}

/** Seconds until the current minute's slots are free again. */
export const secondsToNextMinute = (now = Date.now()): number => Math.max(1, Math.ceil((minuteMs - (now % minuteMs)) / 1000));
