/**
 * Term lists in name order (contract §9, reference §5.2/§8; lib/store/README.md "Terms"): pages, order and exact
 * totals of the index-read lists checked against an independent computation over a seeded set, in a table of this
 * file's own (so that the set is exactly what it seeded), in English and in German (translated names sort apart),
 * with hide_empty and the hierarchical rule, and with names renamed and terms deleted.
 */
import { signLocalToken } from '../../lib/local/token-sign.js';
import { meterOf as meter } from '../support/api.js';
import { startOwnServer, send, type Answer, type OwnServer } from '../support/own-server.js';

const SECRET = 'terms-order-secret-0123456789abcdef01';
let server: OwnServer;
let editor: string;

beforeAll(async () => {
  server = await startOwnServer('terms-order', { secret: SECRET, env: { CALENDAR_METER: '1' } });
  editor = `Bearer ${await signLocalToken({ secret: SECRET, role: 'editor', sub: 'terms-order-editor' })}`;
}, 60_000);
afterAll(() => server?.stop());

const apiAt = (lang?: string): string => (lang ? server.url.replace('/calendar/', `/${lang}/calendar/`) : server.url);
const post = async (path: string, body: unknown, lang?: string): Promise<any> => {
  const res = await send(`${apiAt(lang)}${path}`, { method: 'POST', authorization: editor, body });
  if (res.status !== 200 && res.status !== 201) throw new Error(`POST ${path} → ${res.status} ${res.text}`);
  return res.json;
};
const get = (path: string, lang?: string): Promise<Answer> => send(`${apiAt(lang)}${path}`);

/** The test's own idea of the order: lower case, Latin accents dropped, then id. */
const fold = (s: string): string => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
interface Seeded { id: number; names: Record<string, string>; count: number; parent: number }
function expected(terms: Seeded[], lang: string, hideEmpty: boolean, hierarchical: boolean): number[] {
  const filled = new Set<number>();
  for (const t of terms) {
    if (t.count === 0) continue;
    for (let id: number | undefined = t.id; id; id = terms.find((x) => x.id === id)?.parent) {
      filled.add(id);
      if (!hierarchical) break;
    }
  }
  const name = (t: Seeded) => fold(t.names[lang] ?? t.names.en!);
  return terms.filter((t) => !hideEmpty || filled.has(t.id))
    .sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : a.id - b.id)).map((t) => t.id);
}

/** Every page of a list, checking each page's total, headers and links. */
async function allPages(plural: string, query: string, lang: string | undefined, perPage: number): Promise<{ ids: number[]; total: number }> {
  const ids: number[] = [];
  let total = -1;
  for (let page = 1; ; page++) {
    const res = await get(`/${plural}?per_page=${perPage}&page=${page}${query}`, lang);
    expect(res.status).toBe(200);
    if (total === -1) total = res.json.total;
    expect(res.json.total).toBe(total);
    expect(res.headers.get('x-tec-total')).toBe(String(total));
    expect(res.json.total_pages).toBe(Math.ceil(total / perPage));
    const got = res.json[plural].map((t: any) => t.id);
    if (got.length === 0) break;
    expect(got.length).toBeLessThanOrEqual(perPage);
    ids.push(...got);
    if (page > 20) throw new Error('too many pages');
  }
  return { ids, total };
}

const TAG_NAMES = ['Zebra', 'émile', 'Eagle', 'ab c', 'ab', 'Ábc', 'abd', 'Mango', 'mangold', 'Öl', 'Oboe', 'quartz', 'Quiet', 'x-ray',
  'Yak', 'äther', 'Ahorn', 'banana', 'Bär', 'cello', 'Cembalo', 'delta', 'Dach', 'fern'];
/** German names for some tags (sorting elsewhere than their English name), by index in TAG_NAMES. */
const GERMAN: Record<number, string> = { 0: 'Aaa Zebra', 7: 'Zz Mango', 11: 'Bergkristall', 19: 'Violoncello' };

const tags: Seeded[] = [];
const categories: Seeded[] = [];

beforeAll(async () => {
  for (const [i, name] of TAG_NAMES.entries()) {
    const t = await post('/tags', { name });
    tags.push({ id: t.id, names: { en: name, 'pt-pt': name, de: name }, count: 0, parent: 0 });
    if (GERMAN[i]) {
      await post(`/tags/${t.id}`, { name: GERMAN[i] }, 'de');
      tags[i]!.names.de = GERMAN[i]!;
    }
  }
  // Categories: top-level A (empty) > B (empty) > C (used); D used; E empty; F empty child of D.
  const cat = async (name: string, parent = 0): Promise<Seeded> => {
    const c = await post('/categories', { name, ...(parent ? { parent } : {}) });
    const s = { id: c.id, names: { en: name, de: name, 'pt-pt': name }, count: 0, parent };
    categories.push(s);
    return s;
  };
  const a = await cat('Alpha');
  const b = await cat('Beta', a.id);
  const c = await cat('Gamma', b.id);
  const d = await cat('Delta');
  await cat('Epsilon');
  await cat('Zeta', d.id);

  // Published events make terms non-empty; a draft does not.
  const used = [1, 3, 4, 7, 8, 10, 11, 15, 19, 23];
  for (const [n, i] of used.entries()) {
    await post('/events', { title: `Order ${n}`, start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00', status: 'publish',
      tags: [tags[i]!.id], categories: n === 0 ? [c.id] : n === 1 ? [d.id] : [] });
    tags[i]!.count++;
    if (n === 0) c.count++;
    if (n === 1) d.count++;
  }
  await post('/events', { title: 'Draft', start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00', status: 'draft',
    tags: [tags[2]!.id] });
}, 120_000);

describe('GET /tags and /categories in name order', () => {
  it.each([
    ['en', undefined, true], ['de', 'de', true], ['pt-pt', 'pt-pt', true], ['en', undefined, false], ['de', 'de', false],
  ] as const)('tags in %s (prefix %s, hide_empty %s): pages, order and total match an independent computation', async (lang, prefix, hideEmpty) => {
    const want = expected(tags, lang, hideEmpty, false);
    const query = hideEmpty ? '' : '&hide_empty=false';
    const asc = await allPages('tags', query, prefix, 4);
    expect(asc).toEqual({ ids: want, total: want.length });
    const desc = await allPages('tags', `${query}&order=desc`, prefix, 3);
    expect(desc).toEqual({ ids: [...want].reverse(), total: want.length });
  });

  it('agrees with the in-memory order of a filtered list (exclude)', async () => {
    const indexed = await allPages('tags', '&hide_empty=false', 'de', 50);
    const filtered = await allPages('tags', `&hide_empty=false&exclude=${indexed.ids[0]}`, 'de', 50);
    expect(filtered.ids).toEqual(indexed.ids.slice(1));
  });

  it('categories: an empty category with a non-empty descendant is listed, and the total counts it', async () => {
    const want = expected(categories, 'en', true, true);
    const names = (ids: number[]) => ids.map((id) => categories.find((c) => c.id === id)!.names.en);
    expect(names(want)).toEqual(['Alpha', 'Beta', 'Delta', 'Gamma']);
    expect(await allPages('categories', '', undefined, 3)).toEqual({ ids: want, total: 4 });
    expect(await allPages('categories', '&hide_empty=0', undefined, 4)).toEqual({ ids: expected(categories, 'en', false, true), total: 6 });
  });

  it('a rename moves the term in every language it shows the name in; a delete takes it out', async () => {
    const t = tags.find((x) => x.names.en === 'fern')!;
    await post(`/tags/${t.id}`, { name: 'Aardvark' });
    t.names.en = 'Aardvark';
    t.names['pt-pt'] = 'Aardvark';
    t.names.de = 'Aardvark'; // German falls back to the first language
    for (const lang of ['en', 'de', 'pt-pt']) {
      expect((await allPages('tags', '', lang === 'en' ? undefined : lang, 50)).ids).toEqual(expected(tags, lang, true, false));
    }
    await post(`/tags/${t.id}`, { name: 'Farn' }, 'de');
    t.names.de = 'Farn';
    expect((await allPages('tags', '', 'de', 50)).ids).toEqual(expected(tags, 'de', true, false));
    expect((await allPages('tags', '', undefined, 50)).ids).toEqual(expected(tags, 'en', true, false));

    const gone = tags.find((x) => x.names.en === 'quartz')!; // translated (Bergkristall): has a name-order item
    const res = await send(`${server.url}/tags/${gone.id}?force=true`, { method: 'DELETE', authorization: editor });
    expect(res.status).toBe(200);
    tags.splice(tags.indexOf(gone), 1);
    for (const lang of ['en', 'de']) {
      expect((await allPages('tags', '&hide_empty=false', lang === 'en' ? undefined : lang, 50)).ids).toEqual(expected(tags, lang, false, false));
    }
  });

  it('page n reads about n pages of small index items, not the taxonomy', async () => {
    const first = meter(await get('/tags?per_page=2&hide_empty=false'));
    const third = meter(await get('/tags?per_page=2&page=3&hide_empty=false'));
    // items: the count (every tag's small entry), then the page's reach of the index and its 2 records.
    expect(first.items).toBeLessThanOrEqual(tags.length + 10 + 2);
    expect(third.items - first.items).toBeLessThanOrEqual(2 * 2 + 2);
    const filtered = meter(await get(`/tags?per_page=2&hide_empty=false&exclude=${tags[0]!.id}`));
    expect(filtered.items).toBeGreaterThanOrEqual(tags.length);
  });
});
