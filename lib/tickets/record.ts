/** The stored ticket and attendee, and their wire shapes (contract §19, fields in order). */
import type { RequestContext } from '../http/context.js';
import { translated, type Language } from '../model/language.js';
import { apiLink, always, bool, dateTime, int, obj, sometimes, str, wireShape } from '../openapi/shape.js';
import type { Item } from '../store/records.js';
import { siteWall } from '../time/format.js';

export interface TicketText {
  title?: string;
  description?: string;
}

export interface TicketItem {
  PK: string;
  SK: string;
  kind: 'ticket';
  id: number;
  v: number;
  post: number;
  provider: 'rsvp' | 'external';
  tr: Partial<Record<Language, TicketText>>;
  lang0: Language;
  price: number;
  currency: string;
  url?: string;
  capacity: number;
  /** Explicit window bounds, UTC walls; absent: the defaults (creation, the event's start). */
  from?: string;
  until?: string;
  createdUtc: string;
  modifiedUtc: string;
}

export interface AttendeeItem {
  PK: string;
  SK: string;
  id: number;
  v: number;
  ticket: number;
  /** The event the places are for (the occurrence of a series ticket), and the ticket's own event. */
  event: number;
  post: number;
  name: string;
  email: string;
  quantity: number;
  checkedIn: boolean;
  createdUtc: string;
  /** SHA-256 of the token, hex. */
  th: string;
}

export const isTicket = (i: Item | null | undefined): i is Item & TicketItem => i?.kind === 'ticket';
export const isAttendee = (i: Item | null | undefined): i is Item & AttendeeItem => typeof i?.th === 'string' && String(i.PK).startsWith('ATTENDEE#');

/** The display cost of a price (contract §19): "Free", or the price with its currency as Intl writes it in English. */
export const ticketCost = (price: number, currency: string): string =>
  (price === 0 ? 'Free' : new Intl.NumberFormat('en', { style: 'currency', currency }).format(price));
/** The cost text an event shows from its tickets (its cost parser reads "0" as Free). */
export const eventCostText = (t: { price: number; currency: string }): string => (t.price === 0 ? '0' : ticketCost(t.price, t.currency));

export interface TicketView {
  item: TicketItem;
  ctx: RequestContext;
  /** For the places: the ticket's event window start default and its places, when known. */
  sold: number | null;
  untilUtc: string | null;
  fromUtc: string;
  available: boolean;
}

const capacityDetails = obj({
  max: int('the capacity in places; -1 when unlimited', { minimum: -1 }),
  available: { type: 'integer', nullable: true, description: 'places left; -1 when unlimited; null for a series ticket read without ?event=' },
  sold: { type: 'integer', nullable: true, description: 'places taken; null for a series ticket read without ?event=' },
}, ['max', 'available', 'sold'], 'places of the ticket');

export const TICKET_SHAPE = wireShape<TicketView>('A ticket of an event (contract §19)', {
  id: always(int('the ticket ID', { minimum: 1 }), (v) => v.item.id),
  post_id: always(int('the event the ticket belongs to', { minimum: 1 }), (v) => v.item.post),
  provider: always(str('rsvp or external', { enum: ['rsvp', 'external'] }), (v) => v.item.provider),
  title: always(str('the ticket title, in the request language'), (v) => translated(v.item, v.ctx.lang, 'title')),
  description: always(str('the ticket description (sanitised HTML), in the request language'), (v) => translated(v.item, v.ctx.lang, 'description')),
  price: always({ type: 'number', minimum: 0, description: 'the price' }, (v) => v.item.price),
  currency: always(str('ISO 4217 currency code'), (v) => v.item.currency),
  cost: always(str('the price as text: Free, or e.g. €15.00'), (v) => ticketCost(v.item.price, v.item.currency)),
  url: sometimes(str('where an external ticket is sold; absent for rsvp tickets', { format: 'uri' }), (v) => v.item.url),
  capacity: always(int('places, or -1 for unlimited', { minimum: -1 }), (v) => v.item.capacity),
  capacity_details: always(capacityDetails, (v) => ({
    max: v.item.capacity,
    available: v.sold === null ? null : v.item.capacity < 0 ? -1 : Math.max(0, v.item.capacity - v.sold),
    sold: v.sold,
  })),
  available_from: always(dateTime('reservations open, in the site time zone'), (v) => siteWall(v.fromUtc)),
  available_until: always({ ...dateTime('reservations close, in the site time zone; "" for a series ticket read without ?event='), nullable: false },
    (v) => (v.untilUtc === null ? '' : siteWall(v.untilUtc))),
  is_available: always(bool('inside the window, places left, event not over and published'), (v) => v.available),
  rest_url: always(apiLink('this ticket'), (v) => `${v.ctx.apiUrl}/tickets/${v.item.id}`),
});

export interface AttendeeView {
  item: AttendeeItem;
  token?: string;
}

const attendeeFields = {
  id: always(int('the attendee ID', { minimum: 1 }), (v: AttendeeView) => v.item.id),
  ticket_id: always(int('the ticket', { minimum: 1 }), (v: AttendeeView) => v.item.ticket),
  event_id: always(int('the event the places are for (an occurrence for a series ticket)', { minimum: 1 }), (v: AttendeeView) => v.item.event),
  name: always(str('the attendee\'s name'), (v: AttendeeView) => v.item.name),
  email: always(str('the attendee\'s email address'), (v: AttendeeView) => v.item.email),
  quantity: always(int('places', { minimum: 1 }), (v: AttendeeView) => v.item.quantity),
  checked_in: always(bool('whether the attendee came'), (v: AttendeeView) => v.item.checkedIn),
  created_utc: always(dateTime('when the reservation was made, UTC'), (v: AttendeeView) => v.item.createdUtc),
};

export const ATTENDEE_SHAPE = wireShape<AttendeeView>('A reservation on an rsvp ticket (contract §19)', attendeeFields);
export const NEW_ATTENDEE_SHAPE = wireShape<AttendeeView>('A new reservation, with its secret token (shown only in this answer)', {
  ...attendeeFields,
  token: always(str('the reservation\'s secret token: keep it to read, change or cancel the reservation'), (v) => v.token),
});

export const ATTENDANCE_SCHEMA = obj({
  total_attendees: int('places reserved', { minimum: 0 }),
  checked_in: int('places checked in', { minimum: 0 }),
  not_checked_in: int('places not checked in', { minimum: 0 }),
}, ['total_attendees', 'checked_in', 'not_checked_in'], 'An event\'s attendance in places (contract §19)');
