/**
 * Contract §18 (geolocation) over HTTP against DynamoDB Local: venue coordinates on writes, the geo filters of
 * /events, /events.ics and /venues, distances, ordering, exact totals and paging, and a venue's events moving with it.
 * Each group uses a year of its own, so events of other test files never fall in its windows.
 */
import { api, tokenFor } from '../support/api.js';
import { createEvent, expectInvalid, expectStatus, uid } from './helpers/events.js';

const R = 6371.0088;
const MI = 1.609344;
/** The point `km` due north of (lat, lng): on a meridian the great-circle distance is the latitude difference. */
const north = (lat: number, lng: number, km: number) => ({ lat: lat + (km / R) * (180 / Math.PI), lng });

let editor: string;
beforeAll(async () => {
  editor = await tokenFor('editor');
});

async function venue(name: string, at: { lat: number; lng: number } | null, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await api('/venues', { method: 'POST', token: editor,
    body: { venue: `${name} ${uid()}`, ...(at ? { geo_lat: at.lat, geo_lng: at.lng } : {}), ...extra } });
  expectStatus(res, 201);
  return res.json;
}

const on = (year: number, day = 10) => ({ start_date: `${year}-03-${day} 10:00:00`, end_date: `${year}-03-${day} 11:00:00` });
const window = (year: number) => ({ start_date: `${year}-01-01`, end_date: `${year}-12-31` });
const ids = (res: { json: any }) => ((res.json.events ?? []) as { id: number }[]).map((e) => e.id);

describe('venue coordinates', () => {
  test('are written as numbers or decimal strings, returned after stateprovince, and read 0 when absent', async () => {
    const v = await venue('Geo', null, { city: 'Sydney', province: 'NSW', country: 'Australia', geo_lat: '-33.8688', geo_lng: 151.2093 });
    expect(v.geo_lat).toBe(-33.8688);
    expect(v.geo_lng).toBe(151.2093);
    const keys = Object.keys(v);
    expect(keys.indexOf('geo_lat')).toBe(keys.indexOf('stateprovince') + 1);
    expect(keys.indexOf('geo_lng')).toBe(keys.indexOf('geo_lat') + 1);
    expect(keys.indexOf('show_map')).toBeGreaterThan(keys.indexOf('geo_lng'));
    const plain = await venue('Plain', null);
    expect([plain.geo_lat, plain.geo_lng]).toEqual([0, 0]);
    const single = await api(`/venues/${v.id}`, { token: editor });
    expect(single.json.json_ld.geo).toEqual({ '@type': 'GeoCoordinates', latitude: -33.8688, longitude: 151.2093 });
    expect((await api(`/venues/${plain.id}`, { token: editor })).json.json_ld.geo).toBeUndefined();
  });

  test('both or neither; null or "" clears both; ranges and numbers are checked', async () => {
    const v = await venue('Pair', { lat: 10, lng: 20 });
    expectInvalid(await api(`/venues/${v.id}`, { method: 'POST', token: editor, body: { geo_lat: null } }), 'geo_lat');
    expectInvalid(await api('/venues', { method: 'POST', token: editor, body: { venue: 'Half', geo_lng: 3 } }), 'geo_lat');
    expectInvalid(await api('/venues', { method: 'POST', token: editor, body: { venue: 'Far', geo_lat: 91, geo_lng: 0 } }), 'geo_lat');
    expectInvalid(await api('/venues', { method: 'POST', token: editor, body: { venue: 'Far', geo_lat: 0, geo_lng: -180.5 } }), 'geo_lng');
    expectInvalid(await api('/venues', { method: 'POST', token: editor, body: { venue: 'Word', geo_lat: 'north', geo_lng: 1 } }), 'geo_lat');
    expectInvalid(await api('/venues', { method: 'POST', token: editor, body: { venue: 'Obj', geo_lat: { a: 1 }, geo_lng: 1 } }), 'geo_lat');
    const moved = await api(`/venues/${v.id}`, { method: 'POST', token: editor, body: { geo_lat: 11 } });
    expectStatus(moved, 200);
    expect([moved.json.geo_lat, moved.json.geo_lng]).toEqual([11, 20]);
    const cleared = await api(`/venues/${v.id}`, { method: 'POST', token: editor, body: { geo_lat: null, geo_lng: '' } });
    expectStatus(cleared, 200);
    expect([cleared.json.geo_lat, cleared.json.geo_lng]).toEqual([0, 0]);
  });

  test('inline venues in event writes take them, and events embed them', async () => {
    const ev = await createEvent({ venue: { venue: `Inline ${uid()}`, geo_lat: 48.8566, geo_lng: '2.3522' } });
    expect([ev.venue.geo_lat, ev.venue.geo_lng]).toEqual([48.8566, 2.3522]);
    expect(ev.venue.distance).toBeUndefined();
    const single = await api(`/events/${ev.id}`, { token: editor });
    expect(single.json.json_ld.location.geo).toEqual({ '@type': 'GeoCoordinates', latitude: 48.8566, longitude: 2.3522 });
  });
});

describe('events near a point', () => {
  const year = 2091;
  const P = { lat: 40, lng: -100 };
  let inside: any;
  let outside: any;
  let bare: any;
  const events: Record<string, number> = {};
  beforeAll(async () => {
    inside = await venue('At 24.9 miles', north(P.lat, P.lng, 24.9 * MI));
    outside = await venue('At 25.1 miles', north(P.lat, P.lng, 25.1 * MI));
    bare = await venue('No coordinates', null);
    events.inside1 = (await createEvent({ ...on(year, 10), venue: inside.id, title: `Harbourfest ${uid()}` })).id;
    events.inside2 = (await createEvent({ ...on(year, 11), venue: inside.id })).id;
    events.inside3 = (await createEvent({ ...on(year, 12), venue: inside.id })).id;
    events.outside = (await createEvent({ ...on(year, 13), venue: outside.id })).id;
    events.bare = (await createEvent({ ...on(year, 14), venue: bare.id })).id;
    events.none = (await createEvent({ ...on(year, 15) })).id;
  });
  const list = (query: Record<string, string | number>) => api('/events', { query: { ...window(year), ...query } });

  test('a circle of the default 25 miles passes between venues 24.9 and 25.1 miles away; distance in the unit', async () => {
    const res = await list({ geoloc_lat: P.lat, geoloc_lng: P.lng });
    expectStatus(res, 200);
    expect(ids(res)).toEqual([events.inside1, events.inside2, events.inside3]);
    expect(res.json.total).toBe(3);
    expect(res.json.events[0].venue.distance).toBe(24.9);
    const km = await list({ geoloc_lat: P.lat, geoloc_lng: P.lng, geoloc_unit: 'KM' });
    expect(ids(km)).toEqual([events.inside1, events.inside2, events.inside3]);
    expect(km.json.events[0].venue.distance).toBe(Math.round(24.9 * MI * 100) / 100);
    const wider = await list({ geoloc_lat: P.lat, geoloc_lng: P.lng, geoloc_radius: 40.4, geoloc_unit: 'km' });
    expect(ids(wider)).toEqual([events.inside1, events.inside2, events.inside3, events.outside]);
    const narrower = await list({ geoloc_lat: P.lat, geoloc_lng: P.lng, geoloc_radius: 24.8 });
    expect(narrower.json.total).toBe(0);
    const plain = await list({});
    expect(plain.json.events.every((e: any) => Array.isArray(e.venue) || e.venue.distance === undefined)).toBe(true);
  });

  test('paging keeps exact totals', async () => {
    const first = await list({ geoloc_lat: P.lat, geoloc_lng: P.lng, per_page: 2 });
    expect(first.json.total).toBe(3);
    expect(first.json.total_pages).toBe(2);
    expect(first.headers.get('x-tec-total')).toBe('3');
    expect(first.json.next_rest_url).toContain('geoloc_lat=40');
    const second = await list({ geoloc_lat: P.lat, geoloc_lng: P.lng, per_page: 2, page: 2 });
    expect(ids(second)).toEqual([events.inside3]);
  });

  test('geoloc=true and geoloc=false split the window by whether the venue has coordinates', async () => {
    const withCoords = await list({ geoloc: 'true' });
    expect(ids(withCoords)).toEqual([events.inside1, events.inside2, events.inside3, events.outside]);
    expect(withCoords.json.total).toBe(4);
    const without = await list({ geoloc: 'false' });
    expect(ids(without)).toEqual([events.bare, events.none]);
    expect(without.json.total).toBe(2);
  });

  test('combines with a date window, a category and search', async () => {
    const cat = await api('/categories', { method: 'POST', token: editor, body: { name: `Geo cat ${uid()}` } });
    await api(`/events/${events.inside2}`, { method: 'POST', token: editor, body: { categories: [cat.json.id] } });
    await api(`/events/${events.outside}`, { method: 'POST', token: editor, body: { categories: [cat.json.id] } });
    const byCat = await list({ geoloc_lat: P.lat, geoloc_lng: P.lng, categories: cat.json.id });
    expect(ids(byCat)).toEqual([events.inside2]);
    expect(byCat.json.total).toBe(1);
    const searched = await list({ geoloc_lat: P.lat, geoloc_lng: P.lng, search: 'harbourfest' });
    expect(ids(searched)).toEqual([events.inside1]);
    const day = await api('/events', { query: { start_date: `${year}-03-11`, end_date: `${year}-03-12`, geoloc_lat: P.lat, geoloc_lng: P.lng } });
    expect(ids(day)).toEqual([events.inside2, events.inside3]);
    expect(day.json.total).toBe(2);
  });

  test('feeds filter the same way and carry GEO', async () => {
    const res = await api('/events.ics', { query: { ...window(year), geoloc_lat: P.lat, geoloc_lng: P.lng } });
    expectStatus(res, 200);
    expect(res.text.match(/BEGIN:VEVENT/g)).toHaveLength(3);
    expect(res.text).toMatch(/\r\nGEO:40\.36\d*;-100\r\n/);
    const bareFeed = await api('/events.ics', { query: { ...window(year), geoloc: 'false' } });
    expect(bareFeed.text.match(/BEGIN:VEVENT/g)).toHaveLength(2);
    expect(bareFeed.text).not.toContain('GEO:');
  });

  test('moving a venue moves its events', async () => {
    const mover = await venue('Mover', north(P.lat, P.lng, 1));
    const ev = await createEvent({ ...on(year, 20), venue: mover.id });
    expect(ids(await list({ geoloc_lat: P.lat, geoloc_lng: P.lng }))).toContain(ev.id);
    const far = north(P.lat, P.lng, 500);
    expectStatus(await api(`/venues/${mover.id}`, { method: 'POST', token: editor, body: { geo_lat: far.lat, geo_lng: far.lng } }), 200);
    const near = await list({ geoloc_lat: P.lat, geoloc_lng: P.lng });
    expect(ids(near)).not.toContain(ev.id);
    expect(near.json.total).toBe(3);
    const there = await list({ geoloc_lat: far.lat, geoloc_lng: far.lng, geoloc_radius: 1 });
    expect(ids(there)).toEqual([ev.id]);
    expect(there.json.total).toBe(1);
    expectStatus(await api(`/venues/${mover.id}`, { method: 'POST', token: editor, body: { geo_lat: null, geo_lng: null } }), 200);
    expect(ids(await list({ geoloc: 'false' }))).toContain(ev.id);
    expect((await list({ geoloc_lat: far.lat, geoloc_lng: far.lng, geoloc_radius: 1 })).json.total).toBe(0);
  });

  test('each invalid input is a 400 naming the parameter', async () => {
    expectInvalid(await list({ geoloc_lat: 10 }), 'geoloc_lng');
    expectInvalid(await list({ geoloc_lng: 10 }), 'geoloc_lat');
    expectInvalid(await list({ geoloc_lat: 91, geoloc_lng: 0 }), 'geoloc_lat');
    expectInvalid(await list({ geoloc_lat: 0, geoloc_lng: 181 }), 'geoloc_lng');
    expectInvalid(await list({ geoloc_lat: 'x', geoloc_lng: 0 }), 'geoloc_lat');
    expectInvalid(await list({ geoloc_lat: 0, geoloc_lng: 0, geoloc: 'false' }), 'geoloc');
    expectInvalid(await list({ geoloc_radius: 5 }), 'geoloc_radius');
    expectInvalid(await list({ geoloc_unit: 'km' }), 'geoloc_unit');
    expectInvalid(await list({ geoloc_lat: 0, geoloc_lng: 0, geoloc_radius: 0 }), 'geoloc_radius');
    expectInvalid(await list({ geoloc_lat: 0, geoloc_lng: 0, geoloc_radius: 25001 }), 'geoloc_radius');
    expectInvalid(await list({ geoloc_lat: 0, geoloc_lng: 0, geoloc_unit: 'yd' }), 'geoloc_unit');
    expectInvalid(await api('/events.ics', { query: { geoloc_lat: 1 } }), 'geoloc_lng');
    expectInvalid(await api('/venues', { query: { geoloc_lng: 1 } }), 'geoloc_lat');
  });
});

describe('edges of the sphere', () => {
  test('a circle across the antimeridian', async () => {
    const year = 2092;
    const east = await venue('East of the line', { lat: -17, lng: 179.95 });
    const west = await venue('West of the line', { lat: -17, lng: -179.95 });
    const a = await createEvent({ ...on(year, 10), venue: east.id });
    const b = await createEvent({ ...on(year, 11), venue: west.id });
    const res = await api('/events', { query: { ...window(year), geoloc_lat: -17, geoloc_lng: -179.99, geoloc_radius: 20, geoloc_unit: 'km' } });
    expect(ids(res)).toEqual([a.id, b.id]);
    expect(res.json.total).toBe(2);
  });

  test('near a pole, across every longitude', async () => {
    const year = 2093;
    const one = await venue('Polar one', { lat: 89.95, lng: 0 });
    const other = await venue('Polar other', { lat: 89.95, lng: 180 });
    const far = await venue('Polar far', { lat: 88, lng: 90 });
    const a = await createEvent({ ...on(year, 10), venue: one.id });
    const b = await createEvent({ ...on(year, 11), venue: other.id });
    await createEvent({ ...on(year, 12), venue: far.id });
    const res = await api('/events', { query: { ...window(year), geoloc_lat: 89.95, geoloc_lng: 90, geoloc_radius: 20, geoloc_unit: 'km' } });
    expect(ids(res)).toEqual([a.id, b.id]);
    expect(res.json.total).toBe(2);
  });
});

describe('/venues near a point', () => {
  test('lists the venues inside nearest first, each with its distance', async () => {
    const C = { lat: -40, lng: 60 };
    const v3 = await venue('Third', north(C.lat, C.lng, 30));
    const v1 = await venue('First', north(C.lat, C.lng, 10));
    const v2 = await venue('Second', north(C.lat, C.lng, 20));
    await venue('Too far', north(C.lat, C.lng, 60));
    const res = await api('/venues', { query: { geoloc_lat: C.lat, geoloc_lng: C.lng, geoloc_radius: 50, geoloc_unit: 'km' } });
    expectStatus(res, 200);
    expect(res.json.venues.map((v: any) => v.id)).toEqual([v1.id, v2.id, v3.id]);
    expect(res.json.venues.map((v: any) => v.distance)).toEqual([10, 20, 30]);
    expect(res.json.total).toBe(3);
    const withCoords = await api('/venues', { query: { geoloc: 'true', per_page: 50 } });
    expect(withCoords.json.venues.every((v: any) => v.geo_lat !== 0 || v.geo_lng !== 0)).toBe(true);
    const without = await api('/venues', { query: { geoloc: 'false', per_page: 50 } });
    expect(without.json.venues.every((v: any) => v.geo_lat === 0 && v.geo_lng === 0)).toBe(true);
  });
});
