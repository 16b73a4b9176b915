/**
 * Great-circle distance (contract §18): haversine on a sphere of 6,371.0088 km, through @turf/distance, whose earth
 * radius is exactly that mean radius (6,371,008.8 m). One mile is 1.609344 km.
 */
import turfDistance from '@turf/distance';

export type GeoUnit = 'mi' | 'km';

export interface LatLng {
  lat: number;
  lng: number;
}

export const KM_PER_MILE = 1.609344;

/** Kilometres between two points (haversine). */
export const distanceKm = (a: LatLng, b: LatLng): number =>
  turfDistance([a.lng, a.lat], [b.lng, b.lat], { units: 'kilometers' });

export const toKm = (value: number, unit: GeoUnit): number => (unit === 'mi' ? value * KM_PER_MILE : value);
export const fromKm = (km: number, unit: GeoUnit): number => (unit === 'mi' ? km / KM_PER_MILE : km);

/** A distance as the API shows it: in the request's unit, rounded to 2 decimals. */
export const shownDistance = (km: number, unit: GeoUnit): number => Math.round(fromKm(km, unit) * 100) / 100;
