/**
 * The Geocoder of a deployed stack (lib/geo/geocode.ts): Amazon Location Service's SearchPlaceIndexForText on the
 * stack's place index (infra/stack.ts, `-c geocoding=true`), the best match only.
 */
import { type LocationClient, SearchPlaceIndexForTextCommand } from '@aws-sdk/client-location';
import type { Geocoder } from './geocode.js';

export const placeIndexGeocoder = (client: LocationClient, indexName: string): Geocoder => async (text) => {
  const out = await client.send(new SearchPlaceIndexForTextCommand({ IndexName: indexName, Text: text, MaxResults: 1 }));
  const [lng, lat] = out.Results?.[0]?.Place?.Geometry?.Point ?? [];
  return typeof lat === 'number' && typeof lng === 'number' ? { lat, lng } : null;
};
