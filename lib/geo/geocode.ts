/**
 * Geocoding of venues (contract §18; deployed only, with `-c geocoding=true`: docs/geolocation.md). The table's stream
 * hands every venue write to functions/geocode.ts; a venue whose coordinates no client ever set or cleared (`geoOwn`)
 * and whose address text differs from the one last placed (`geoAddr`) is placed through a Geocoder, and the result is
 * written back at the version read (a client's newer write wins: the geocoder then reads again and finds it no longer
 * due). An address that cannot be placed, or an emptied one, leaves the venue without coordinates. Its events move
 * with it exactly as after a client's move (lib/geo/relocate.ts).
 */
import { indexCoordinates, type LinkedItem } from '../linked/item.js';
import { rewriteRecord } from '../store/kit.js';
import { getPost, type Item } from '../store/records.js';
import { afterCommit, retryConflicts } from '../store/retry.js';
import { nowUtcWall } from '../time/format.js';
import type { LatLng } from './distance.js';
import { relocateEvents, relocationItems } from './relocate.js';

/** Places an address: its coordinates, or null when it cannot be placed. */
export type Geocoder = (text: string) => Promise<LatLng | null>;

const ADDRESS = ['address', 'city', 'stateprovince', 'zip', 'country'] as const;

/** The address a venue is placed by: its address fields, comma-joined ('' when it has none). */
export const addressText = (venue: Item): string =>
  ADDRESS.map((k) => venue[k]).filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim()).join(', ');

/** Whether a stored item is a venue due for geocoding: not trashed, coordinates never set by a client, address changed. */
export function needsGeocoding(item: Item): boolean {
  if (item.kind !== 'venue' || item.SK !== 'POST' || item.geoOwn === true || item.status === 'trash') return false;
  return addressText(item) !== (typeof item.geoAddr === 'string' ? item.geoAddr : '');
}

export type GeocodeOutcome = 'placed' | 'unplaced' | 'skipped';

const readVenue = async (id: number): Promise<LinkedItem | null> => {
  const item = await getPost(id, true);
  return item?.kind === 'venue' ? (item as LinkedItem) : null;
};

/** Geocodes venue `id` if it is due (read consistently); 'skipped' when it is not, or stopped being meanwhile. */
export async function geocodeVenue(id: number, geocode: Geocoder): Promise<GeocodeOutcome> {
  const first = await readVenue(id);
  if (!first || !needsGeocoding(first)) return 'skipped';
  const text = addressText(first);
  const at = text ? await geocode(text) : null;
  let moved = false;
  const outcome = await retryConflicts(async (attempt): Promise<GeocodeOutcome> => {
    const existing = attempt === 0 ? first : await readVenue(id);
    if (!existing || !needsGeocoding(existing) || addressText(existing) !== text) return 'skipped';
    const next: LinkedItem = { ...existing, v: existing.v + 1, modifiedUtc: nowUtcWall() };
    if (at) {
      next.lat = at.lat;
      next.lng = at.lng;
    } else {
      delete next.lat;
      delete next.lng;
    }
    if (text) next.geoAddr = text;
    else delete next.geoAddr;
    indexCoordinates(next);
    const markers = relocationItems(existing, next);
    await rewriteRecord('venue', existing, next, markers);
    moved = markers.length > 0;
    return at ? 'placed' : 'unplaced';
  });
  if (moved) await afterCommit(`moving the events of venue ${id}`, () => relocateEvents(id));
  return outcome;
}
