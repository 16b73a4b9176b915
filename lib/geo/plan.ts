/**
 * What a circle reads (lib/store/README.md "Geolocation"): the venues with coordinates in the cells covering it
 * (the byCell index), and the fewest counted event sources whose union is exactly the events of the venues inside —
 * whole geo cells whose venues all lie inside, down to the finest indexed level, else single venues' relationship
 * partitions. A city calendar's default circle is one or a few whole cells: it costs what the unfiltered list costs.
 */
import { geoSource, linkSource, type EventSource } from '../store/event-sources.js';
import { queryAll } from '../store/records.js';
import { coverCells, finerLevel } from './cells.js';
import { distanceKm, type LatLng } from './distance.js';

export interface GeoVenue {
  id: number;
  lat: number;
  lng: number;
  gh: string;
  status: string;
  author: number;
  pw: boolean;
  linked: number;
  /** Kilometres from the circle's centre. */
  km: number;
}

const GEO_VENUES = 'GEOV';

/** Every venue with coordinates in the cells covering the circle, with its distance from the centre. */
async function venuesAround(center: LatLng, cells: string[]): Promise<GeoVenue[]> {
  const parts = await Promise.all(cells.map((cell) => queryAll({
    IndexName: 'byCell',
    KeyConditionExpression: cell ? 'GSI3PK = :pk AND begins_with(GSI3SK, :cell)' : 'GSI3PK = :pk',
    ExpressionAttributeValues: cell ? { ':pk': GEO_VENUES, ':cell': cell } : { ':pk': GEO_VENUES },
  })));
  return parts.flat().map((item) => {
    const lat = Number(item.lat);
    const lng = Number(item.lng);
    return {
      id: Number(item.id), lat, lng, gh: String(item.GSI3SK).split('#')[0]!, status: String(item.status), author: Number(item.author),
      pw: Boolean(item.pw), linked: Number(item.linked ?? 0), km: distanceKm(center, { lat, lng }),
    };
  });
}

/** The venues around a circle and which of them lie inside it (on the circle counts as inside), nearest first. */
export interface Circle {
  /** The indexed cells covering it. */
  cells: string[];
  /** Every venue with coordinates in those cells. */
  around: GeoVenue[];
  inside: GeoVenue[];
}

export async function venuesWithin(center: LatLng, radiusKm: number): Promise<Circle> {
  const cells = coverCells(center, radiusKm);
  const around = await venuesAround(center, cells);
  const inside = around.filter((v) => v.km <= radiusKm).sort((a, b) => a.km - b.km || a.id - b.id);
  return { cells, around, inside };
}

/** The counted sources whose union is exactly the events of the venues inside the circle. */
export function circleSources({ cells, around, inside }: Circle): EventSource[] {
  const isInside = new Set(inside.map((v) => v.id));
  const plan = (cell: string, venues: GeoVenue[]): EventSource[] => {
    const within = venues.filter((v) => isInside.has(v.id));
    if (within.length === 0) return [];
    if (within.length === venues.length) return [geoSource(cell)];
    const single = within.map((v) => linkSource('venue', v.id));
    const finer = finerLevel(cell.length);
    if (finer === null) return single;
    const groups = new Map<string, GeoVenue[]>();
    for (const v of venues) groups.set(v.gh.slice(0, finer), [...(groups.get(v.gh.slice(0, finer)) ?? []), v]);
    const split = [...groups].flatMap(([c, vs]) => plan(c, vs));
    return split.length <= single.length ? split : single;
  };
  return cells.flatMap((cell) => plan(cell, around.filter((v) => v.gh.startsWith(cell))));
}
