/** An event's attendance in places (contract §19): its own tickets' and its series' tickets' places for it. */
import type { EventItem } from '../events/record.js';
import type { Attendance } from '../events/serialize.js';
import { batchGet } from '../store/records.js';
import { checkedAttr, placesKey, readEventTickets, soldAttr } from '../store/tickets.js';

export async function attendanceOf(event: EventItem): Promise<Attendance> {
  const tickets = [...await readEventTickets(event.id), ...(event.series !== undefined ? await readEventTickets(event.series) : [])];
  const places = tickets.length ? await batchGet(tickets.map((t) => placesKey(t.id))) : [];
  const total = places.reduce((n, p) => n + Number(p[soldAttr(event.id)] ?? 0), 0);
  const checked = places.reduce((n, p) => n + Number(p[checkedAttr(event.id)] ?? 0), 0);
  return { total_attendees: total, checked_in: checked, not_checked_in: total - checked };
}
