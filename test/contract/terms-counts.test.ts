/**
 * `count` of categories and tags is the exact number of PUBLISHED events linked, at all times (reference §4.4,
 * contract §7, §9 "Totals are exact"): through link, unlink, publish, unpublish, trash, restore and delete of
 * events, inline term creation from event writes, and deletion of the term itself.
 */
import { api, tokenFor } from '../support/api.js';
import { eventBody, expectStatus } from './helpers/events.js';
import { uniqueWord } from './helpers/list.js';

let editor: string;
beforeAll(async () => {
  editor = await tokenFor('editor', 'terms-count-editor');
});

async function term(kind: 'categories' | 'tags', name: string): Promise<any> {
  const res = await api(`/${kind}`, { method: 'POST', token: editor, body: { name } });
  expectStatus(res, 201);
  return res.json;
}

async function event(fields: Record<string, unknown>): Promise<any> {
  const res = await api('/events', { method: 'POST', token: editor, body: eventBody(fields) });
  expectStatus(res, 201);
  return res.json;
}

async function patchEvent(id: number, fields: Record<string, unknown>): Promise<any> {
  const res = await api(`/events/${id}`, { method: 'PATCH', token: editor, body: fields });
  expectStatus(res, 200);
  return res.json;
}

/** count of the term on its own route, in the list (hide_empty=false), and as embedded in an event (if given). */
async function counts(kind: 'categories' | 'tags', id: number): Promise<number> {
  const single = await api(`/${kind}/${id}`);
  expectStatus(single, 200);
  const listed = await api(`/${kind}`, { query: { include: [id], hide_empty: false } });
  expectStatus(listed, 200);
  expect(listed.json[kind].map((t: any) => t.count)).toEqual([single.json.count]);
  return single.json.count;
}

describe('count follows the published events linked', () => {
  it('link, unlink, publish, unpublish, trash, restore, permanent delete', async () => {
    const w = uniqueWord();
    const cat = await term('categories', `Count cat ${w}`);
    const tag = await term('tags', `Count tag ${w}`);
    expect(await counts('categories', cat.id)).toBe(0);
    expect(await counts('tags', tag.id)).toBe(0);

    // a published event links both
    const e1 = await event({ categories: [cat.id], tags: [tag.id] });
    expect(await counts('categories', cat.id)).toBe(1);
    expect(await counts('tags', tag.id)).toBe(1);
    expect(e1.categories.map((c: any) => [c.id, c.count])).toEqual([[cat.id, 1]]);

    // a draft does not count, until it is published
    const e2 = await event({ categories: [cat.id], tags: [tag.id], status: 'draft' });
    expect(await counts('categories', cat.id)).toBe(1);
    await patchEvent(e2.id, { status: 'publish' });
    expect(await counts('categories', cat.id)).toBe(2);
    expect(await counts('tags', tag.id)).toBe(2);

    // unpublish (back to draft, or pending, or private)
    await patchEvent(e2.id, { status: 'draft' });
    expect(await counts('categories', cat.id)).toBe(1);
    await patchEvent(e2.id, { status: 'private' });
    expect(await counts('categories', cat.id)).toBe(1);
    await patchEvent(e2.id, { status: 'publish' });
    expect(await counts('categories', cat.id)).toBe(2);

    // unlink and re-link through updates
    await patchEvent(e1.id, { categories: [] });
    expect(await counts('categories', cat.id)).toBe(1);
    expect(await counts('tags', tag.id)).toBe(2);
    await patchEvent(e1.id, { categories: [cat.id], tags: [] });
    expect(await counts('categories', cat.id)).toBe(2);
    expect(await counts('tags', tag.id)).toBe(1);
    // an update that does not mention the terms leaves the count alone
    await patchEvent(e1.id, { title: `Renamed ${w}` });
    expect(await counts('categories', cat.id)).toBe(2);

    // trash and restore
    expectStatus(await api(`/events/${e1.id}`, { method: 'DELETE', token: editor }), 200);
    expect(await counts('categories', cat.id)).toBe(1);
    await patchEvent(e1.id, { status: 'publish' });
    expect(await counts('categories', cat.id)).toBe(2);

    // permanent delete
    expectStatus(await api(`/events/${e1.id}`, { method: 'DELETE', token: editor, query: { force: 'true' } }), 200);
    expect(await counts('categories', cat.id)).toBe(1);
    expectStatus(await api(`/events/${e2.id}`, { method: 'DELETE', token: editor, query: { force: 'true' } }), 200);
    expect(await counts('categories', cat.id)).toBe(0);
    expect(await counts('tags', tag.id)).toBe(0);
  });

  it('hide_empty follows the count', async () => {
    const w = uniqueWord();
    const cat = await term('categories', `Shown ${w}`);
    const visible = async () => (await api('/categories', { query: { search: w } })).json.categories.map((c: any) => c.id);
    expect(await visible()).toEqual([]);
    const ev = await event({ categories: [cat.id] });
    expect(await visible()).toEqual([cat.id]);
    await patchEvent(ev.id, { status: 'draft' });
    expect(await visible()).toEqual([]);
  });

  it('terms created by name from an event write start at 1 (published) or 0 (draft)', async () => {
    const w = uniqueWord();
    const pub = await event({ categories: [`Inline pub ${w}`], tags: [`inline tag ${w}`] });
    expect(pub.categories).toHaveLength(1);
    expect(await counts('categories', pub.categories[0].id)).toBe(1);
    expect(await counts('tags', pub.tags[0].id)).toBe(1);
    const draft = await event({ categories: [`Inline draft ${w}`], status: 'draft' });
    expect(await counts('categories', draft.categories[0].id)).toBe(0);
    // the same name again links the existing term (by name, any case, or by slug)
    const again = await event({ categories: [`INLINE PUB ${w}`, pub.categories[0].slug] });
    expect(again.categories.map((c: any) => c.id)).toEqual([pub.categories[0].id]);
    expect(await counts('categories', pub.categories[0].id)).toBe(2);
  });

  it('deleting a term unlinks it; the other terms of those events keep their counts', async () => {
    const w = uniqueWord();
    const doomed = await term('categories', `Doomed ${w}`);
    const kept = await term('categories', `Kept ${w}`);
    const e1 = await event({ categories: [doomed.id, kept.id] });
    const e2 = await event({ categories: [doomed.id], status: 'draft' });
    expect(await counts('categories', doomed.id)).toBe(1);
    const res = await api(`/categories/${doomed.id}`, { method: 'DELETE', token: editor });
    expectStatus(res, 200);
    expect(res.json.count).toBe(1);
    expect(await counts('categories', kept.id)).toBe(1);
    for (const id of [e1.id, e2.id]) {
      const ev = await api(`/events/${id}`, { token: editor });
      expect(ev.json.categories.map((c: any) => c.id)).not.toContain(doomed.id);
    }
    // unlinking the term did not disturb the event otherwise
    expect((await api(`/events/${e1.id}`)).json.categories.map((c: any) => c.id)).toEqual([kept.id]);
  });

  it('a term linked twice by one event counts once', async () => {
    const w = uniqueWord();
    const cat = await term('categories', `Twice ${w}`);
    await event({ categories: [cat.id, cat.id, cat.slug] });
    expect(await counts('categories', cat.id)).toBe(1);
  });
});
