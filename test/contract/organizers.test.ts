/**
 * Contract tests specific to organizers: the record shape of reference §4.3 (key order, empty fields dropped,
 * no show_map), the organizer write fields of §10.3 and the schema.org Organization of single GETs.
 * Behaviour shared with venues: venues-common.test.ts; lists: venues-list.test.ts; links to events:
 * venues-events.test.ts.
 */
import { api, serverOrigin, tokenFor } from '../support/api.js';
import { expectInvalid, uid } from './helpers/events.js';

const KEY_ORDER = ['id', 'author', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url', 'organizer', 'description',
  'excerpt', 'slug', 'image', 'phone', 'website', 'email', 'json_ld', 'global_id', 'global_id_lineage'];

let editor: string;
beforeAll(async () => {
  editor = await tokenFor('editor');
});

const create = (body: Record<string, unknown>) => api('/organizers', { method: 'POST', token: editor, body });
async function make(extra: Record<string, unknown> = {}): Promise<any> {
  const res = await create({ organizer: `Organizer ${uid()}`, ...extra });
  if (res.status !== 201) throw new Error(`creating a fixture organizer failed: ${res.status} ${res.text}`);
  return res.json;
}

const FULL = {
  description: '<p>We run <em>concerts</em></p>', excerpt: 'Concerts', image: 'https://cdn.example.org/logo.svg',
  phone: '+1 555 0100', website: 'https://org.example.org/', email: 'hello@org.example.org',
};

describe('organizer shape (reference §4.3)', () => {
  it('a full organizer has every key in the origin order; json_ld only on GET; no show_map', async () => {
    const o = await make(FULL);
    expect(Object.keys(o)).toEqual(KEY_ORDER.filter((k) => k !== 'json_ld'));
    expect(o).toMatchObject({ ...FULL, image: { url: FULL.image, id: 0, extension: 'svg' } });
    expect(o.url).toBe(`${serverOrigin()}/organizer/${o.slug}/`);
    expect(Object.keys((await api(`/organizers/${o.id}`)).json)).toEqual(KEY_ORDER);
  });

  it('drops every empty field', async () => {
    const o = await make();
    expect(Object.keys(o)).toEqual(['id', 'author', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url', 'organizer', 'slug',
      'global_id', 'global_id_lineage']);
  });

  it('email is any string (the origin does not validate it); website must be a URL', async () => {
    expect((await make({ email: 'not an e-mail' })).email).toBe('not an e-mail');
    expectInvalid(await create({ organizer: `O ${uid()}`, website: 'org.example' }), 'website');
  });

  it('ignores venue fields', async () => {
    const o = await make({ address: 'Somewhere', show_map: true, city: 'X' });
    for (const k of ['address', 'show_map', 'city']) expect(o).not.toHaveProperty(k);
  });
});

describe('organizer json_ld', () => {
  it('is a schema.org Organization in the request language', async () => {
    const o = await make(FULL);
    const ld = (await api(`/organizers/${o.id}`)).json.json_ld;
    expect(ld).toEqual({
      '@context': 'http://schema.org', '@type': 'Organization', name: o.organizer, inLanguage: 'en', url: o.url,
      description: 'Concerts', image: FULL.image, email: FULL.email, telephone: FULL.phone, sameAs: FULL.website,
    });
  });
});

describe('organizer updates', () => {
  it('change only the fields sent', async () => {
    const o = await make(FULL);
    const res = await api(`/organizers/${o.id}`, { method: 'PATCH', token: editor, body: { email: 'new@org.example.org' } });
    expect(res.json).toMatchObject({ ...FULL, email: 'new@org.example.org', image: o.image });
  });
});
