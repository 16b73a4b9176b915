/**
 * Contract tests specific to venues: the record shape of reference §4.2 (key order, empty fields dropped,
 * show_map/show_map_link always present, derived stateprovince), the venue write fields of §10.2 and the
 * schema.org Place of single GETs. Behaviour shared with organizers: venues-common.test.ts; lists:
 * venues-list.test.ts; links to events: venues-events.test.ts.
 */
import { api, serverOrigin, tokenFor } from '../support/api.js';
import { expectInvalid, expectStatus, uid } from './helpers/events.js';

const KEY_ORDER = ['id', 'author', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url', 'venue', 'description', 'excerpt',
  'slug', 'image', 'address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince', 'geo_lat', 'geo_lng', 'json_ld',
  'show_map', 'show_map_link', 'global_id', 'global_id_lineage'];

let editor: string;
beforeAll(async () => {
  editor = await tokenFor('editor');
});

const create = (body: Record<string, unknown>) => api('/venues', { method: 'POST', token: editor, body });
async function make(extra: Record<string, unknown> = {}): Promise<any> {
  const res = await create({ venue: `Venue ${uid()}`, ...extra });
  if (res.status !== 201) throw new Error(`creating a fixture venue failed: ${res.status} ${res.text}`);
  return res.json;
}
const patch = (id: number, body: Record<string, unknown>) => api(`/venues/${id}`, { method: 'PATCH', token: editor, body });
const read = async (id: number) => (await api(`/venues/${id}`)).json;

const FULL = {
  description: '<p>A <strong>grand</strong> hall</p>', excerpt: '<p>Grand</p>', address: '100, Avenue du Temple', city: 'Paris',
  country: 'France', province: 'Ile de France', state: 'Paris', zip: '75003', phone: '+33 1 00 00 00 00',
  website: 'https://salle.example.org/', image: 'https://cdn.example.org/img/hall.webp', show_map: false, show_map_link: true,
};

describe('venue shape (reference §4.2)', () => {
  it('a full venue has every key, in the origin order; json_ld only on GET', async () => {
    const v = await make(FULL);
    expect(Object.keys(v)).toEqual(KEY_ORDER.filter((k) => k !== 'json_ld'));
    expect(v).toMatchObject({ ...FULL, image: { url: FULL.image, id: 0, extension: 'webp' }, stateprovince: 'Ile de France' });
    expect(v.url).toBe(`${serverOrigin()}/venue/${v.slug}/`);
    const got = await api(`/venues/${v.id}`);
    expect(Object.keys(got.json)).toEqual(KEY_ORDER);
  });

  it('drops every empty field, keeps geo_lat/geo_lng (0 when absent, contract §5), show_map/show_map_link (true by default) and the global ids', async () => {
    const v = await make();
    expect(Object.keys(v)).toEqual(['id', 'author', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url', 'venue', 'slug',
      'geo_lat', 'geo_lng', 'show_map', 'show_map_link', 'global_id', 'global_id_lineage']);
    expect([v.show_map, v.show_map_link]).toEqual([true, true]);
  });

  it('show_map/show_map_link accept the boolean forms and stay as set when an update omits them', async () => {
    const v = await make({ show_map: 'no', show_map_link: 0 });
    expect([v.show_map, v.show_map_link]).toEqual([false, false]);
    const res = await patch(v.id, { city: 'Lyon' });
    expect([res.json.show_map, res.json.show_map_link]).toEqual([false, false]); // the origin resets them to true
    const on = await patch(v.id, { show_map: 'on', show_map_link: 'TRUE' });
    expect([on.json.show_map, on.json.show_map_link]).toEqual([true, true]);
    expectInvalid(await patch(v.id, { show_map: 'perhaps' }), 'show_map');
  });

  it('an omitted image and status stay (the origin removes the image and publishes)', async () => {
    const v = await make({ image: 'https://cdn.example.org/a.png', status: 'draft' });
    const res = await patch(v.id, { phone: '1' });
    expect(res.json.image).toEqual({ url: 'https://cdn.example.org/a.png', id: 0, extension: 'png' });
    expect(res.json.status).toBe('draft');
  });

  it('country is free text and no address part is validated', async () => {
    const v = await make({ country: 'Atlantis', state: 'Nowhere', zip: 'ABC-123' });
    expect(v).toMatchObject({ country: 'Atlantis', state: 'Nowhere', zip: 'ABC-123' });
  });
});

describe('stateprovince (reference §10.2)', () => {
  it.each([
    [{ state: 'NY' }, 'NY'],
    [{ state: 'NY', country: 'US' }, 'NY'],
    [{ state: 'NY', country: 'United States' }, 'NY'],
    [{ state: 'NY', province: 'Ontario', country: 'Canada' }, 'Ontario'],
    [{ province: 'Ontario' }, 'Ontario'],
    [{ state: 'Bavaria', country: 'Germany' }, undefined],
    [{ state: 'NY', stateprovince: 'Explicit' }, 'Explicit'],
  ])('%j → %s', async (fields, expected) => {
    const v = await make(fields);
    expect(v.stateprovince).toBe(expected);
  });

  it('a derived value follows state/province/country changes; an explicit one stays until "" hands it back', async () => {
    const v = await make({ state: 'CA', country: 'US' });
    expect((await patch(v.id, { state: 'OR' })).json.stateprovince).toBe('OR');
    expect((await patch(v.id, { country: 'Canada', province: 'Quebec' })).json.stateprovince).toBe('Quebec');
    expect((await patch(v.id, { stateprovince: 'Mine' })).json.stateprovince).toBe('Mine');
    expect((await patch(v.id, { province: 'Yukon' })).json.stateprovince).toBe('Mine');
    expect((await patch(v.id, { stateprovince: '' })).json.stateprovince).toBe('Yukon');
  });
});

describe('venue json_ld', () => {
  it('is a schema.org Place with a PostalAddress, in the request language', async () => {
    const v = await make(FULL);
    const ld = (await api(`/venues/${v.id}`)).json.json_ld;
    expect(ld).toEqual({
      '@context': 'http://schema.org', '@type': 'Place', name: v.venue, inLanguage: 'en', url: v.url, description: 'Grand',
      image: FULL.image,
      address: { '@type': 'PostalAddress', streetAddress: FULL.address, addressLocality: 'Paris', addressRegion: 'Ile de France',
        postalCode: '75003', addressCountry: 'France' },
      telephone: FULL.phone, sameAs: FULL.website,
    });
  });

  it('is absent from create, update and delete responses', async () => {
    const v = await make(FULL);
    expect(v).not.toHaveProperty('json_ld');
    expect((await patch(v.id, { zip: '1' })).json).not.toHaveProperty('json_ld');
    expect((await api(`/venues/${v.id}`, { method: 'DELETE', token: editor })).json).not.toHaveProperty('json_ld');
  });
});

describe('venue writes', () => {
  it('website must be an absolute http(s) URL or ""', async () => {
    expectInvalid(await create({ venue: `V ${uid()}`, website: 'example.org' }), 'website');
    const v = await make({ website: 'http://example.org/path?q=1' });
    expect(v.website).toBe('http://example.org/path?q=1');
  });

  it('stores every venue field through a form body too (venue[...] nesting is the event side)', async () => {
    const res = await api('/venues', { method: 'POST', token: editor, form: { venue: `Form venue ${uid()}`, city: 'Oslo', show_map: 'false' } });
    expectStatus(res, 201);
    expect(res.json).toMatchObject({ city: 'Oslo', show_map: false });
  });

  it('ignores unknown and read-only keys (stateProvince, id, url, global_id)', async () => {
    const v = await make({ stateProvince: 'camel', id: 1, url: 'https://x.example/', global_id: 'nope' });
    expect(v).not.toHaveProperty('stateprovince');
    expect(v.id).not.toBe(1);
    expect(v.global_id).not.toBe('nope');
  });

  it('reads the record back as stored', async () => {
    const v = await make(FULL);
    const got = await read(v.id);
    expect({ ...got, json_ld: undefined }).toEqual({ ...v, json_ld: undefined });
  });
});
