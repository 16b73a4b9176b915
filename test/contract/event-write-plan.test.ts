/**
 * Event writes plan in one read (issue 6, budget 8; lib/store/README.md "Writes that plan"): what the DynamoDB
 * meter (`X-Calendar-Meter`, the test server runs with CALENDAR_METER=1) says a create costs, that the response
 * built from the plan is the record a GET returns, inline de-duplication (other languages, long names, several
 * inline records of one name in one request) and concurrent creates of one title or one new venue name.
 */
import { api, tokenFor, type ApiResponse, etagVersion, meterOf as meter } from '../support/api.js';
import { eventBody, expectInvalid, expectStatus, uid } from './helpers/events.js';

let editor: string;
beforeAll(async () => {
  editor = await tokenFor('editor', `plan-editor-${uid()}`);
  // The server learns the subject's user id once; the measured calls come after.
  expectStatus(await api('/events', { method: 'POST', token: editor, body: eventBody({ status: 'draft' }) }), 201);
});

const post = (body: Record<string, unknown>, path = '/events') => api(path, { method: 'POST', token: editor, body });


const newCategory = async (name = `Plan cat ${uid()}`): Promise<any> => {
  const res = await post({ name }, '/categories');
  expectStatus(res, 201);
  return res.json;
};

/**
 * A write's answer is the record as stored: the same body a GET returns, without what only a single GET carries
 * (json_ld, as reference §10 says, and an editor's `attendance`, contract §19, which costs reads of its own).
 */
async function expectSameAsGet(res: ApiResponse): Promise<void> {
  const read = await api(`/events/${res.json.id}`, { token: editor });
  expectStatus(read, 200);
  const withoutLd = ({ json_ld: _ld, ...rest }: Record<string, unknown>) => rest;
  const { venue, organizer, attendance: _attendance, ...rest } = withoutLd(read.json);
  expect(res.json).toEqual({ ...rest, venue: Array.isArray(venue) ? venue : withoutLd(venue as Record<string, unknown>),
    organizer: (organizer as Record<string, unknown>[]).map(withoutLd) });
  expect(etagVersion(res)).toBe(etagVersion(read));
}

describe('POST /events with one inline venue and two categories (budget 8)', () => {
  // Budget 8 allowed two other requests; the change log (contract §16, lib/store/changes.ts) adds one to every write: the
  // UpdateItem that numbers its entries.
  it('is one TransactWriteItems plus at most three other DynamoDB requests (one numbers the change log), and answers the stored record',
    async () => {
    const [a, b] = [await newCategory(), await newCategory()];
    const name = `Budget hall ${uid()}`;
    const res = await post(eventBody({ status: 'publish', venue: { venue: name, city: 'Lisboa', country: 'Portugal' }, categories: [a.id, b.id] }));
    expectStatus(res, 201);
    const m = meter(res);
    expect({ tx: m.tx, others: m.requests - m.tx }).toEqual({ tx: 1, others: 3 });
    expect(res.json.venue).toMatchObject({ venue: name, city: 'Lisboa', country: 'Portugal' });
    // Counts after this write, though the plan read the terms before it.
    expect(res.json.categories.map((c: { id: number; count: number }) => [c.id, c.count]).sort())
      .toEqual([[a.id, 1], [b.id, 1]].sort());
    await expectSameAsGet(res);
  });

  it('the same with organizers, tags by name (existing and new) and a draft: the answer is still the stored record', async () => {
    const org = await post({ organizer: `Plan org ${uid()}` }, '/organizers');
    const tag = await post({ name: `Plan tag ${uid()}` }, '/tags');
    const cat = await newCategory();
    const res = await post(eventBody({
      venue: { venue: `Plan hall ${uid()}` },
      organizer: [org.json.id, { organizer: `Plan inline org ${uid()}`, email: 'x@example.org' }],
      categories: [cat.slug],
      tags: [tag.json.name.toUpperCase(), `Plan new tag ${uid()}`],
    }));
    expectStatus(res, 201);
    expect(res.json.organizer).toHaveLength(2);
    expect(res.json.tags).toHaveLength(2);
    await expectSameAsGet(res);
    const draft = await post(eventBody({ status: 'draft', categories: [cat.id], tags: [tag.json.id] }));
    expectStatus(draft, 201);
    await expectSameAsGet(draft);
    expect(draft.json.categories[0].count).toBe(1); // the published event above; a draft does not count
  });

  it('updates answer the stored record too, with counts after the write', async () => {
    const cat = await newCategory();
    const created = await post(eventBody({ status: 'draft', categories: [cat.id], venue: { venue: `Plan upd hall ${uid()}` } }));
    expectStatus(created, 201);
    expect(created.json.categories[0].count).toBe(0);
    const published = await api(`/events/${created.json.id}`, { method: 'PATCH', token: editor, body: { status: 'publish' } });
    expectStatus(published, 200);
    expect(published.json.categories[0].count).toBe(1);
    expect(published.json.venue.id).toBe(created.json.venue.id);
    await expectSameAsGet(published);
    const other = await newCategory();
    const moved = await api(`/events/${created.json.id}`, { method: 'PATCH', token: editor, body: { categories: [other.id] } });
    expectStatus(moved, 200);
    // The event, the plan's read, the change log's number, the transaction.
    expect(meter(moved)).toMatchObject({ requests: 4, tx: 1 });
    await expectSameAsGet(moved);
    expect((await api(`/categories/${cat.id}`)).json.count).toBe(0);
  });

  it('an unknown category id or venue id is 400 naming the parameter, and nothing is stored', async () => {
    const name = `Plan rejected hall ${uid()}`;
    expectInvalid(await post(eventBody({ venue: { venue: name }, categories: [999_999_999] })), 'categories');
    const notAnOrganizer = (await post({ venue: `Plan venue ${uid()}` }, '/venues')).json;
    expectInvalid(await post(eventBody({ organizer: [notAnOrganizer.id] })), 'organizer');
    expect((await api('/venues', { query: { search: name }, token: editor })).json.total).toBe(0);
  });
});

describe('inline de-duplication (reference §10.2)', () => {
  it('matches a name shown in another language', async () => {
    const de = await post({ venue: `Stadthalle ${uid()}`, translation_language: 'de' }, '/venues');
    expectStatus(de, 201);
    const res = await post(eventBody({ venue: { venue: de.json.venue.toUpperCase(), city: 'Bonn' } }));
    expectStatus(res, 201);
    expect(res.json.venue).toMatchObject({ id: de.json.id, city: 'Bonn' });
  });

  it('matches a name too long for a key (hashed) and keeps case-insensitivity', async () => {
    const name = `Ä${'ö'.repeat(300)} ${uid()}`; // over 400 bytes
    const first = await post({ organizer: name }, '/organizers');
    expectStatus(first, 201);
    const res = await post(eventBody({ organizer: [{ organizer: name.toLowerCase() }] }));
    expectStatus(res, 201);
    expect(res.json.organizer.map((o: { id: number }) => o.id)).toEqual([first.json.id]);
  });

  it('several inline records of one name in one request: one record unless their descriptions differ', async () => {
    const name = `Twin org ${uid()}`;
    const same = await post(eventBody({ organizer: [{ organizer: name }, { organizer: name.toUpperCase(), phone: '1' }] }));
    expectStatus(same, 201);
    expect(same.json.organizer).toHaveLength(1);

    const other = `Twin org ${uid()}`;
    const res = await post(eventBody({ organizer: [
      { organizer: other, description: 'First' }, { organizer: other, description: 'Second' }, { organizer: other },
    ] }));
    expectStatus(res, 201);
    const ids = res.json.organizer.map((o: { id: number }) => o.id);
    expect(ids).toHaveLength(2); // the third (no description) reuses the first
    expect(res.json.organizer.map((o: { slug: string }) => o.slug)).toEqual([expect.any(String), `${res.json.organizer[0].slug}-2`]);
    // Both are found by name afterwards: with a description, the one that has it; without, the lowest id.
    const again = await post(eventBody({ organizer: [{ organizer: other, description: 'second' }, { organizer: other }] }));
    expect(again.json.organizer.map((o: { id: number }) => o.id)).toEqual([ids[1], ids[0]]);
  });

  it('trashing drops a record from its name, restoring brings it back', async () => {
    const name = `Trash hall ${uid()}`;
    const v = (await post({ venue: name }, '/venues')).json;
    expectStatus(await api(`/venues/${v.id}`, { method: 'DELETE', token: editor }), 200);
    const fresh = await post(eventBody({ venue: { venue: name } }));
    expect(fresh.json.venue.id).not.toBe(v.id);
    expectStatus(await api(`/venues/${fresh.json.venue.id}`, { method: 'DELETE', token: editor }), 200);
    expectStatus(await api(`/venues/${v.id}`, { method: 'PATCH', token: editor, body: { status: 'publish' } }), 200);
    expect((await post(eventBody({ venue: { venue: name } }))).json.venue.id).toBe(v.id);
  });
});

describe('concurrent creates', () => {
  it('of one title all succeed, with distinct slugs', async () => {
    const title = `Race title ${uid()}`;
    const results = await Promise.all(Array.from({ length: 5 }, () => post(eventBody({ title }))));
    for (const r of results) expectStatus(r, 201);
    expect(new Set(results.map((r) => r.json.slug)).size).toBe(5);
  });

  it('of one new venue name create it once and link every event to it', async () => {
    const name = `Race hall ${uid()}`;
    const results = await Promise.all(Array.from({ length: 4 }, () => post(eventBody({ venue: { venue: name } }))));
    for (const r of results) expectStatus(r, 201);
    expect(new Set(results.map((r) => r.json.venue.id)).size).toBe(1);
    expect((await api('/venues', { query: { search: name }, token: editor })).json.total).toBe(1);
  });
});
