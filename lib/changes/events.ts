/**
 * Change events for other systems: every committed change-log entry (lib/store/changes.ts), read from the table's
 * stream, becomes one EventBridge event on the stack's change bus — `source` "calendar.events", `detail-type`
 * "<kind>.<action>" (e.g. "event.created"), and as detail the fields of the changes feed (contract §16). Unlike the
 * feed, which shows each caller what they may read, the bus is the deployer's own: it gets every change, drafts too.
 */
import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { ChangeEntry, ChangeKind } from '../store/changes.js';

export const CHANGE_EVENT_SOURCE = 'calendar.events';

const PLURAL: Record<ChangeKind, string> = { event: 'events', venue: 'venues', organizer: 'organizers', category: 'categories', tag: 'tags',
  ticket: 'tickets' };
const ACTION = { c: 'created', u: 'updated', d: 'deleted' } as const;

/** The event of one entry (null for a void one), for the bus `bus`; `apiUrl` is the API root for `rest_url`. */
export function changeEvent(entry: ChangeEntry, bus: string, apiUrl: string): PutEventsRequestEntry | null {
  if (entry.void) return null;
  const action = ACTION[entry.a];
  return {
    EventBusName: bus,
    Source: CHANGE_EVENT_SOURCE,
    DetailType: `${entry.kind}.${action}`,
    Time: new Date(entry.at),
    Detail: JSON.stringify({ kind: entry.kind, id: entry.id, action, modified_utc: entry.t, rest_url: `${apiUrl}/${PLURAL[entry.kind]}/${entry.id}` }),
  };
}
