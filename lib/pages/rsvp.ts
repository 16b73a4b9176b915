/**
 * The RSVP form and the reservation pages (contract §19, §21), through the API's attendee operations: the event page's
 * form posts a reservation and answers with it and its cancel link; the link (carrying the reservation's token) opens
 * a confirmation form, and only posting that form cancels. Every answer here is private, no-store.
 */
import { htmlToText } from '../text/sanitize.js';
import type { PageRoute } from './paths.js';
import { render } from './templates.js';
import { failed, PageError, type PageParts, type View } from './views.js';

type EventRoute = Extract<PageRoute, { kind: 'event' }>;
type ReservationRoute = Extract<PageRoute, { kind: 'reservation' }>;

const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');
const eventHref = (v: View, slug: string, occurrence: string | null) =>
  `${v.base}/event/${encodeURIComponent(slug)}/${occurrence ? `${occurrence}/` : ''}`;

function reservationParts(v: View, status: number, path: string, data: object): PageParts {
  return { status, path, title: v.t('reservation'), description: v.t('reservation'), private: true,
    body: render('reservation', { t: v.t, ...data }) };
}

/** The event id a reservation names: the event page's own (an occurrence's id for an occurrence page). */
async function eventIdOf(v: View, r: EventRoute): Promise<number> {
  const series = await v.api.call('GET', `/events/by-slug/${encodeURIComponent(r.slug)}`);
  if (series.status !== 200) throw failed(series);
  if (r.occurrence === null) return Number(series.body.id);
  const day = r.occurrence.slice(0, 10);
  const list = await v.api.call('GET', `/events/${Number(series.body.id)}/occurrences`, { start_date: day, end_date: day, per_page: '50' });
  if (list.status !== 200) throw failed(list);
  const events = Array.isArray(list.body.events) ? (list.body.events as Record<string, unknown>[]) : [];
  const hit = events.find((e) => typeof e.url === 'string' && e.url.endsWith(`/${r.occurrence}/`));
  if (!hit) throw new PageError(404, 'notFound');
  return Number(hit.id);
}

/** POST of the event page's RSVP form → the reservation, with its cancel link. */
export async function rsvpPost(v: View, r: EventRoute, form: Record<string, unknown>): Promise<PageParts> {
  const eventId = await eventIdOf(v, r);
  const answer = await v.api.call('POST', '/attendees', {}, {
    ticket_id: text(form.ticket_id, 20), event_id: String(eventId), name: text(form.name, 1000), email: text(form.email, 300),
    quantity: text(form.quantity, 5) || '1',
  });
  const back = eventHref(v, r.slug, r.occurrence);
  if (answer.status === 409) {
    const message = typeof answer.body.message === 'string' ? answer.body.message : v.t('notAvailable');
    return reservationParts(v, 409, back.slice(v.base.length), { heading: v.t('notAvailable'), intro: message, eventHref: back });
  }
  if (answer.status !== 201) throw failed(answer);
  const a = answer.body;
  const id = Number(a.id);
  const cancel = `${v.base}/event/${encodeURIComponent(r.slug)}/reservation/${id}/?token=${encodeURIComponent(String(a.token))}`;
  return reservationParts(v, 201, back.slice(v.base.length), {
    heading: v.t('reservation'), intro: v.t('reservationIntro'),
    details: v.t('reservationFor', { quantity: Number(a.quantity), name: htmlToText(String(a.name)), email: String(a.email) }),
    cancelLink: cancel, eventHref: back,
  });
}

/** GET: the reservation and a confirmation form (a link changes nothing); POST of that form: the cancellation. */
export async function reservationPage(v: View, r: ReservationRoute, method: string, form: Record<string, unknown>): Promise<PageParts> {
  const token = method === 'POST' ? text(form.token, 500) : (v.query.token ?? '').slice(0, 500);
  const self = `${v.base}/event/${encodeURIComponent(r.slug)}/reservation/${r.id}/`;
  const back = eventHref(v, r.slug, null);
  if (!token) throw new PageError(404, 'notFound');
  if (method === 'POST') {
    const answer = await v.api.call('DELETE', `/attendees/${r.id}`, { token });
    if (answer.status !== 200) throw failed(answer);
    return reservationParts(v, 200, self.slice(v.base.length), { heading: v.t('cancelled'), eventHref: back });
  }
  const answer = await v.api.call('GET', `/attendees/${r.id}`, { token });
  if (answer.status !== 200) throw failed(answer);
  const a = answer.body;
  return reservationParts(v, 200, self.slice(v.base.length), {
    heading: v.t('cancelTitle'),
    details: v.t('reservationFor', { quantity: Number(a.quantity), name: htmlToText(String(a.name)), email: String(a.email) }),
    cancelForm: self, token, eventHref: back,
  });
}
