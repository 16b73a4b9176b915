/**
 * The geo parameters of contract §18: venue coordinates on writes, and the filters of /events, /events.ics and
 * /venues (a point, a radius and its unit), parsed once here for the route definitions and resolved for a request.
 */
import { config } from '../config.js';
import { invalidParam } from '../http/errors.js';
import { ParamError } from '../model/errors.js';
import { toKm, type GeoUnit, type LatLng } from './distance.js';

/** Half the Earth's circumference is about 20,015 km: larger radii cover the whole Earth. */
export const MAX_RADIUS = 25_000;

/** A decimal number: a JSON number or a string such as "-33.8688" (no hex, exponent-only or empty strings). */
function decimal(raw: unknown): number {
  const n = typeof raw === 'number' ? raw
    : typeof raw === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(n)) throw new ParamError('must be a decimal number');
  return n;
}

const inRange = (n: number, limit: number): number => {
  if (n < -limit || n > limit) throw new ParamError(`must be between -${limit} and ${limit}`);
  return n;
};

export const parseLatitude = (raw: unknown): number => inRange(decimal(raw), 90);
export const parseLongitude = (raw: unknown): number => inRange(decimal(raw), 180);

/** A venue coordinate on a write: a decimal number in range, or null / "" to clear it. */
export const parseCoordinateWrite = (limit: 90 | 180) => (raw: unknown): number | null =>
  (raw === null || (typeof raw === 'string' && raw.trim() === '') ? null : inRange(decimal(raw), limit));

export function parseRadius(raw: unknown): number {
  const n = decimal(raw);
  if (!(n > 0) || n > MAX_RADIUS) throw new ParamError(`must be a number greater than 0 and at most ${MAX_RADIUS}`);
  return n;
}

export function parseUnit(raw: unknown): GeoUnit {
  const s = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (s !== 'mi' && s !== 'km') throw new ParamError('must be mi or km');
  return s;
}

/** The geo parameters as the routes parse them. */
export interface GeoParams {
  geoloc?: boolean;
  geoloc_lat?: number;
  geoloc_lng?: number;
  geoloc_radius?: number;
  geoloc_unit?: GeoUnit;
}

/** A request's geo filter: with or without coordinates, or within `radiusKm` of `point`. */
export type GeoFilter = { has: boolean } | { point: LatLng; radiusKm: number; unit: GeoUnit };

export const isCircle = (f: GeoFilter | null): f is { point: LatLng; radiusKm: number; unit: GeoUnit } => f !== null && 'point' in f;

/**
 * The request's geo filter (null: none), or a 400 rest_invalid_param naming the parameter that is missing or may not be combined:
 * half a point, a radius or unit without a point, a point with geoloc=false.
 */
export function geoFilterOf(p: GeoParams): GeoFilter | null {
  const hasLat = p.geoloc_lat !== undefined;
  const hasLng = p.geoloc_lng !== undefined;
  if (hasLat !== hasLng) {
    const missing = hasLat ? 'geoloc_lng' : 'geoloc_lat';
    throw invalidParam(missing, `${missing} is required with ${hasLat ? 'geoloc_lat' : 'geoloc_lng'}`);
  }
  if (!hasLat) {
    for (const name of ['geoloc_radius', 'geoloc_unit'] as const) {
      if (p[name] !== undefined) throw invalidParam(name, `${name} needs a point: geoloc_lat and geoloc_lng`);
    }
    return p.geoloc === undefined ? null : { has: p.geoloc };
  }
  if (p.geoloc === false) throw invalidParam('geoloc', 'geoloc=false cannot be combined with geoloc_lat and geoloc_lng');
  const { geolocRadius, geolocUnit } = config();
  const unit = p.geoloc_unit ?? geolocUnit;
  // Without a radius the default geofence applies in its own unit, whatever the request's unit (contract §18).
  const radiusKm = p.geoloc_radius !== undefined ? toKm(p.geoloc_radius, unit) : toKm(geolocRadius, geolocUnit);
  return { point: { lat: p.geoloc_lat!, lng: p.geoloc_lng! }, radiusKm, unit };
}

/** The circle a request filters by, kept for the serialisers that add `distance` (set by the list handlers). */
const circles = new WeakMap<object, { point: LatLng; radiusKm: number; unit: GeoUnit }>();
export const rememberCircle = (request: object, filter: GeoFilter | null): void => {
  if (isCircle(filter)) circles.set(request, filter);
};
export const circleOf = (request: object): { point: LatLng; radiusKm: number; unit: GeoUnit } | undefined => circles.get(request);
