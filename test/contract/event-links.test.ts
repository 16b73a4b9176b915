/**
 * Events and the records they link to (contract §7, reference §4.1/§4.4(a)/§6): atomic writes with inline
 * records, the embedded shapes, and the list filters served by relationship items.
 */
import { api, tokenFor } from '../support/api.js';
import { createEvent, eventBody, expectError, futureDay, uid } from './helpers/events.js';

let editor: string;
beforeAll(async () => {
  editor = await tokenFor('editor');
});

const post = (body: Record<string, unknown>) => api('/events', { method: 'POST', token: editor, body });
const countOf = async (path: string, search: string): Promise<number> =>
  (await api(path, { query: { search, ...(path.startsWith('/categories') || path.startsWith('/tags') ? { hide_empty: 'false' } : {}) } })).json.total;

describe('an event write is one atomic unit with everything it creates', () => {
  it('a rejected inline organizer leaves no venue behind', async () => {
    const word = `atomic${uid()}`;
    const res = await post(eventBody({ venue: { venue: `Hall ${word}` }, organizer: [{ email: 'no-name@example.org' }] }));
    expectError(res, 400, 'rest_invalid_param');
    expect(Object.keys(res.json.data.params)).toEqual(['organizer']);
    expect(await countOf('/venues', word)).toBe(0);
  });

  it('a request too large for one transaction stores nothing at all', async () => {
    const word = `big${uid()}`;
    const res = await post(eventBody({
      venue: { venue: `Hall ${word}` },
      organizer: Array.from({ length: 10 }, (_, i) => ({ organizer: `Org ${i} ${word}` })),
      categories: Array.from({ length: 20 }, (_, i) => `Cat ${i} ${word}`),
      tags: Array.from({ length: 20 }, (_, i) => `Tag ${i} ${word}`),
    }));
    expectError(res, 400, 'rest_too_many_changes');
    expect(await countOf('/venues', word)).toBe(0);
    expect(await countOf('/organizers', word)).toBe(0);
    expect(await countOf('/categories', word)).toBe(0);
    expect(await countOf('/tags', word)).toBe(0);
  });

  it('creates the venue, the organizers and the named terms with the event', async () => {
    const word = `inline${uid()}`;
    const res = await post(eventBody({
      venue: { venue: `Hall ${word}`, city: 'Milano' },
      organizer: [{ organizer: `B org ${word}` }, { organizer: `A org ${word}` }],
      categories: [`Zeta ${word}`, `Alpha ${word}`],
      tags: `live ${word},jazz ${word}`,
    }));
    expect(res.status).toBe(201);
    const ev = res.json;
    expect(ev.venue).toMatchObject({ venue: `Hall ${word}`, city: 'Milano', show_map: true });
    expect(ev.organizer.map((o: { organizer: string }) => o.organizer)).toEqual([`B org ${word}`, `A org ${word}`]);
    expect(ev.categories.map((c: { name: string }) => c.name)).toEqual([`Alpha ${word}`, `Zeta ${word}`]);
    expect(Object.keys(ev.categories[0])).toEqual(['name', 'slug', 'term_group', 'term_taxonomy_id', 'taxonomy', 'description',
      'parent', 'count', 'filter', 'id', 'urls']);
    expect(ev.categories[0]).toMatchObject({ taxonomy: 'tribe_events_cat', count: 1, filter: 'raw' });
    expect(ev.tags.map((t: { taxonomy: string }) => t.taxonomy)).toEqual(['post_tag', 'post_tag']);
    expect(await countOf('/venues', word)).toBe(1);
    expect(await countOf('/organizers', word)).toBe(2);
  });
});

describe('list filters on links', () => {
  it('categories and tags by id or slug, venue and organizer by id; OR within a list, AND across filters', async () => {
    const day = futureDay();
    const window = { start_date: day, end_date: day };
    const word = `flt${uid()}`;
    const a = await createEvent({ start_date: `${day} 10:00`, end_date: `${day} 11:00`,
      categories: [`Cat A ${word}`], tags: [`tag-a-${word}`], venue: { venue: `Venue A ${word}` } });
    const b = await createEvent({ start_date: `${day} 12:00`, end_date: `${day} 13:00`,
      categories: [`Cat B ${word}`], organizer: [{ organizer: `Org B ${word}` }] });
    const c = await createEvent({ start_date: `${day} 14:00`, end_date: `${day} 15:00`, categories: [a.categories[0].id] });
    const ids = async (query: Record<string, string>) =>
      (await api('/events', { query: { ...window, ...query } })).json.events.map((e: { id: number }) => e.id);

    expect(await ids({ categories: String(a.categories[0].id) })).toEqual([a.id, c.id]);
    expect(await ids({ categories: a.categories[0].slug })).toEqual([a.id, c.id]);
    expect(await ids({ categories: `${a.categories[0].id},${b.categories[0].slug}` })).toEqual([a.id, b.id, c.id]);
    expect(await ids({ tags: a.tags[0].slug })).toEqual([a.id]);
    expect(await ids({ venue: String(a.venue.id) })).toEqual([a.id]);
    expect(await ids({ organizer: String(b.organizer[0].id) })).toEqual([b.id]);
    expect(await ids({ categories: String(a.categories[0].id), venue: String(a.venue.id) })).toEqual([a.id]);
    const total = await api('/events', { query: { ...window, categories: String(a.categories[0].id) } });
    expect(total.json.total).toBe(2);
    expect(total.headers.get('x-tec-total')).toBe('2');
  });

  it('follows link changes: an unlinked or trashed event leaves the filter', async () => {
    const day = futureDay();
    const word = `chg${uid()}`;
    const ev = await createEvent({ start_date: `${day} 10:00`, end_date: `${day} 11:00`, categories: [`Cat ${word}`] });
    const category = String(ev.categories[0].id);
    const list = async () => (await api('/events', { query: { start_date: day, end_date: day, categories: category } })).json.total;
    expect(await list()).toBe(1);
    await api(`/events/${ev.id}`, { method: 'PATCH', token: editor, body: { categories: [] } });
    expect(await list()).toBe(0);
    await api(`/events/${ev.id}`, { method: 'PATCH', token: editor, body: { categories: [Number(category)] } });
    expect(await list()).toBe(1);
    await api(`/events/${ev.id}`, { method: 'DELETE', token: editor });
    expect(await list()).toBe(0);
  });
});
