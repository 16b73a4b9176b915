/**
 * GET /tags?search= and /categories?search= against a scan (contract §9): on a table of this file's own, seeded with
 * tags and categories named in several languages, with accents, case, prefixes, Greek and Han/Kana text, some linked
 * by published events (not empty), every one-word query's results, order (name order, both directions) and total, with
 * and without hide_empty, equal what the plain name-ordered list (which reads every term, and says which are empty)
 * filtered by matching the name as shown and the slug word by word returns. Then writes — renames in two languages, a
 * slug change, deletes, a category moved and one deleted with children, terms created inside event writes, events
 * making terms empty and not empty — and the same comparison again. The matcher is written from the contract's words.
 */
import { signLocalToken } from '../../lib/local/token-sign.js';
import { meterOf } from '../support/api.js';
import { startOwnServer, send, type Answer, type OwnServer } from '../support/own-server.js';
import { matches } from './helpers/scan-words.js';

const SECRET = 'terms-search-secret-0123456789abcdef01';
let server: OwnServer;
let token = '';

type Tax = 'tag' | 'category';
type Lang = 'en' | 'de';
const PLURAL = { tag: 'tags', category: 'categories' } as const;


const apiAt = (lang?: Lang): string => (lang && lang !== 'en' ? server.url.replace('/calendar/', `/${lang}/calendar/`) : server.url);

async function write(method: string, path: string, body: unknown, lang?: Lang): Promise<Answer> {
  const res = await send(`${apiAt(lang)}${path}`, { method, authorization: `Bearer ${token}`, body });
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
  return res;
}

/** Every page of a list (per_page `per`), checking that each page agrees on the total. */
async function listAll(tax: Tax, lang: Lang, params: Record<string, string>, per = 4): Promise<{ items: any[]; total: number }> {
  const items: any[] = [];
  let total = -1;
  for (let page = 1; page < 200; page++) {
    const q = new URLSearchParams({ per_page: String(per), page: String(page), ...params });
    const res = await send(`${apiAt(lang)}/${PLURAL[tax]}?${q}`);
    if (res.status === 400 && page > 1) break;
    expect([params, res.status]).toEqual([params, 200]);
    if (total === -1) total = res.json.total;
    expect([params, res.json.total]).toEqual([params, total]);
    items.push(...(res.json[PLURAL[tax]] as any[]));
    if (!res.json.next_rest_url) break;
  }
  return { items, total };
}

const VOCABULARY = ['Café', 'cafe', 'CAFÉ', 'Straße', 'strasse', 'naïve', 'Ελλάδα', '東京タワー', 'jazz', 'jazzy', 'Jazz-Night', 'workshop',
  'work', 'Wörkshop', 'tower', 'Zürich', 'zurich', 'Hafen', 'hafenkante', 'harbour', 'おおさか', 'Supercalifragilistic'];
let seed = 7;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (): string => VOCABULARY[Math.floor(random() * VOCABULARY.length)]!;
const ids: Record<Tax, number[]> = { tag: [], category: [] };
const events: number[] = [];

async function event(tax: Tax, termIds: (number | string)[], status = 'publish'): Promise<Answer> {
  const res = await write('POST', '/events', { title: `Linker ${events.length}`, status, start_date: '2031-01-01 10:00:00',
    end_date: '2031-01-01 11:00:00', [PLURAL[tax]]: termIds });
  events.push(res.json.id);
  return res;
}

beforeAll(async () => {
  server = await startOwnServer('terms-search', { secret: SECRET, env: { CALENDAR_METER: '1' } });
  token = await signLocalToken({ secret: SECRET, role: 'administrator', sub: 'terms-search-admin' });
  for (const tax of ['tag', 'category'] as const) {
    for (let i = 0; i < 36; i++) {
      const lang0: Lang = i % 7 === 3 ? 'de' : 'en';
      const parent = tax === 'category' && i % 4 === 3 && ids[tax].length ? { parent: ids[tax][i % ids[tax].length] } : {};
      const res = await write('POST', `/${PLURAL[tax]}`, { name: `${pick()} ${pick()} common ${i}`, ...parent,
        ...(i % 5 === 2 ? { slug: `slugword-${pick().toLowerCase().replace(/[^a-z]/g, '') || 'x'}-${i}` } : {}) }, lang0);
      ids[tax].push(res.json.id);
      if (i % 3 === 0) await write('POST', `/${PLURAL[tax]}/${res.json.id}`, { name: `${pick()} deutsch ${i}` }, lang0 === 'en' ? 'de' : 'en');
    }
    // Not empty: linked by published events (a draft's link does not count); for categories, their parents too.
    for (let i = 0; i < 36; i += 2) await event(tax, [ids[tax][i]!], i % 6 === 4 ? 'draft' : 'publish');
  }
}, 240_000);
afterAll(() => server?.stop());

const QUERIES = ['caf', 'café', 'CAFE', 'strass', 'straße', 'naive', 'ελλ', '京', 'タワー', '東京', 'おお', 'jazz', 'night', 'work', 'wörk',
  'zur', 'deutsch', 'hafen', 'hafenkant', 'harbour', 'common', 'slugword', 'supercalif', 'supercalifr', 'jazz work', 'nothingmatches', '1'];

/** The plain list (every term, read in name order by the existing path) filtered by the scan's matcher. */
async function compare(tax: Tax, lang: Lang, hideEmpty: boolean, order: 'asc' | 'desc'): Promise<number[]> {
  const base = { hide_empty: String(hideEmpty), order };
  const all = (await listAll(tax, lang, base, 100)).items;
  const sizes: number[] = [];
  for (const query of QUERIES) {
    const want = all.filter((t) => matches(query, [t.name, t.slug])).map((t) => t.id);
    const got = await listAll(tax, lang, { ...base, search: query });
    expect({ tax, lang, hideEmpty, order, query, ids: got.items.map((t) => t.id), total: got.total })
      .toEqual({ tax, lang, hideEmpty, order, query, ids: want, total: want.length });
    sizes.push(want.length);
  }
  return sizes;
}

async function compareAll(): Promise<void> {
  for (const tax of ['tag', 'category'] as const) {
    for (const lang of ['en', 'de'] as const) {
      for (const hideEmpty of [true, false]) await compare(tax, lang, hideEmpty, 'asc');
    }
    await compare(tax, 'en', true, 'desc');
  }
}

describe('term search equals a scan (contract §9)', () => {
  it('every query\'s results, order and total, in two languages, with and without hide_empty, both directions', async () => {
    const sizes = await compare('tag', 'en', true, 'asc');
    expect(Math.max(...sizes)).toBeGreaterThan(10);
    expect(sizes.filter((n) => n === 0).length).toBeGreaterThan(0);
    await compareAll();
  }, 240_000);

  it('a one-word search reads its page and its count item, not its matches', async () => {
    const res = await send(`${server.url}/tags?search=common&per_page=2`);
    expect(res.status).toBe(200);
    expect(res.json.total).toBeGreaterThan(10);
    const items = meterOf(res).items!;
    // The count items (taxonomy, word), a few buckets, the page's two terms: not the taxonomy.
    expect(items).toBeLessThanOrEqual(12);
  });

  it('writes keep the index: renames, slugs, deletes, moves, terms created by events, terms becoming (not) empty', async () => {
    const [t, c] = [ids.tag, ids.category];
    await write('POST', `/tags/${t[1]}`, { name: 'Renamedword harbour' });
    await write('POST', `/tags/${t[3]}`, { name: 'Umbenannt Ἀθῆναι' }, 'de');
    await write('POST', `/tags/${t[5]}`, { slug: 'slugword-moved' });
    await write('POST', `/categories/${c[1]}`, { name: 'Renamedword category' });
    await write('POST', `/categories/${c[7]}`, { parent: c[2] });
    await write('DELETE', `/tags/${t[7]}?force=true`, undefined);
    await write('DELETE', `/tags/${t[0]}?force=true`, undefined); // linked: unlinked first
    await write('DELETE', `/categories/${c[3]}?force=true`, undefined); // with children: they move up
    // Terms created inside event writes (one published: not empty), and a draft event published (its terms fill).
    await event('tag', ['Inlinetag harbour', 'Inlinetag zweite'], 'publish');
    await event('category', ['Inlinecat harbour'], 'draft');
    const draft = events.find((_, i) => i === 2)!; // a draft of the seed (tags), now published
    await write('POST', `/events/${draft}`, { status: 'publish' });
    // Events removed: the terms they alone filled become empty.
    await write('DELETE', `/events/${events[1]}?force=true`, undefined);
    await write('DELETE', `/events/${events[19]}?force=true`, undefined);
    QUERIES.push('renamedword', 'umbenannt', 'αθη', 'inlinetag', 'inlinecat', 'zweite', 'slugword-moved');
    await compareAll();
  }, 240_000);
});
