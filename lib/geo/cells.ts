/**
 * Geohash cells (lib/store/README.md "Geolocation"): a venue's coordinates are kept with their geohash of
 * CELL_PRECISION characters; its events are indexed under the prefixes of that hash at each of LEVELS (the empty
 * prefix being the whole Earth), so a circle is read as a few whole cells. Geohash (ngeohash) because its cells are
 * string prefixes: one sort-key range per cell, nesting by construction, no native or wasm code in the bundle.
 */
import ngeohash from 'ngeohash';
import type { LatLng } from './distance.js';

export const CELL_PRECISION = 9;
/** Prefix lengths events are indexed at: 0 (everywhere), then ~1,250 km, ~156 km, ~39 km and ~4.9 km cells. */
export const LEVELS = [0, 2, 3, 4, 5] as const;

export const cellOf = (p: LatLng): string => ngeohash.encode(p.lat, p.lng, CELL_PRECISION);

/** The cells (prefixes) an event at a venue of this hash is indexed under, coarsest first. */
export const cellsOf = (hash: string): string[] => LEVELS.map((l) => hash.slice(0, l));

/** The next indexed level below a prefix length, or null at the finest. */
export const finerLevel = (length: number): number | null => LEVELS.find((l) => l > length) ?? null;

const EARTH_KM = 6371.0088;
const MAX_COVER = 8;

/**
 * The fewest-character-first prefixes at one indexed level that together cover every point within `radiusKm` of
 * `center`: the circle's bounding box (split at the antimeridian; widened to every longitude when it reaches a
 * pole), at the finest level whose cover takes at most MAX_COVER cells. [''] (the whole Earth) when none does.
 */
export function coverCells(center: LatLng, radiusKm: number): string[] {
  const angle = radiusKm / EARTH_KM;
  if (angle >= Math.PI / 2) return [''];
  const dLat = (angle * 180) / Math.PI;
  const south = center.lat - dLat;
  const north = center.lat + dLat;
  const boxes: [number, number, number, number][] = [];
  if (south <= -90 || north >= 90) boxes.push([Math.max(-90, south), -180, Math.min(90, north), 180]);
  else {
    const dLng = (Math.asin(Math.min(1, Math.sin(angle) / Math.cos((center.lat * Math.PI) / 180))) * 180) / Math.PI;
    const west = center.lng - dLng;
    const east = center.lng + dLng;
    if (dLng >= 180 || east - west >= 360) boxes.push([south, -180, north, 180]);
    else if (west < -180) boxes.push([south, west + 360, north, 180], [south, -180, north, east]);
    else if (east > 180) boxes.push([south, west, north, 180], [south, -180, north, east - 360]);
    else boxes.push([south, west, north, east]);
  }
  let best = [''];
  for (const level of LEVELS) {
    if (level === 0) continue;
    const parts = boxes.map(([s, w, n, e]) => boxCells(s, w, n, e, level));
    if (parts.some((p) => p === null)) break;
    const cells = new Set(parts.flatMap((p) => p!));
    if (cells.size > MAX_COVER) break;
    best = [...cells];
  }
  return best;
}

/** The cells of one precision covering a box; null when that would be more than MAX_COVER (the caller looks coarser). */
function boxCells(south: number, west: number, north: number, east: number, precision: number): string[] | null {
  const sw = ngeohash.decode_bbox(ngeohash.encode(south, west, precision));
  const ne = ngeohash.decode_bbox(ngeohash.encode(north, east, precision));
  const rows = Math.round((ne[0] - sw[0]) / (sw[2] - sw[0])) + 1;
  const cols = Math.round((ne[1] - sw[1]) / (sw[3] - sw[1])) + 1;
  return rows * cols > MAX_COVER ? null : ngeohash.bboxes(south, west, north, east, precision);
}
