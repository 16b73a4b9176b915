/**
 * `search` against a straightforward scan (contract §9): on a seeded calendar of many words, two languages, accents,
 * case, prefixes and Han/Kana text, every query's results and total equal what reading every event and matching its
 * shown text word by word returns. The scan below is written from the contract's words, apart from the service's
 * own matcher (lib/text/words.ts), so that a faster search path (an index) must agree with the plain reading.
 */
import { api, meterOf } from '../support/api.js';
import { createEvent, editor, type Json } from './helpers/list.js';
import { matches } from './helpers/scan-words.js';

// A year no other test file uses, so the window holds only this file's events.
const YEAR = 2097;
const WINDOW = { start_date: `${YEAR}-01-01`, end_date: `${YEAR}-12-31` };

const VOCABULARY = ['Café', 'cafe', 'CAFÉ', 'Straße', 'strasse', 'naïve', 'Ελλάδα', 'Ёлка', '東京タワー', 'jazz', 'jazzy', 'Jazz-Night',
  'workshop', 'work', 'Wörkshop', 'ﬁre', 'Ｆｕｌｌ', 'tower', 'Zürich', 'zurich', 'Supercalifragilistic', 'supercalifornia'];


interface Seeded { id: number; en: { title: string; description: string }; de?: { title: string }; locked?: boolean }
const seeded: Seeded[] = [];

/** A deterministic pseudo-random pick, so failures reproduce. */
let seed = 7;
function random(): number { // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)]!;

beforeAll(async () => {
  const token = await editor();
  for (let i = 0; i < 36; i++) {
    const en = { title: `${pick(VOCABULARY)} ${pick(VOCABULARY)} ${i}`, description: `<p>${pick(VOCABULARY)} <b>${pick(VOCABULARY)}</b></p>` };
    const day = `${YEAR}-0${1 + (i % 9)}-1${i % 10}`;
    const ev = await createEvent({ ...en, start_date: `${day} 10:00:00`, end_date: `${day} 11:00:00`, status: 'publish' }, token);
    const record: Seeded = { id: ev.id as number, en };
    if (i % 3 === 0) {
      record.de = { title: `${pick(VOCABULARY)} deutsch ${i}` };
      const res = await api(`/events/${ev.id}`, { method: 'POST', token, body: record.de, query: { translation_language: 'de' } });
      expect(res.status).toBe(200);
    }
    seeded.push(record);
  }
  // Texts too long for the index to change in the event's own transaction (it catches up before the write answers),
  // one with more distinct words than the index takes term by term (searches read it from its record), and a
  // password-protected event (searchable by its title only).
  const pseudo = (n: number, length: number) => Array.from({ length: n }, (_, k) => `zq${k.toString(36).padStart(length, 'a')}`).join(' ');
  // Words of 150 different first two letters: more count groups than one transaction holds (lib/search/README.md).
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const spread = Array.from({ length: 150 }, (_, k) => `${letters[k % 26]}${letters[Math.floor(k / 26)]}w${k}`).join(' ');
  // `transactions`: how many the create took (lib/search/commit.ts): the index in the event's own transaction (1), or
  // after it in chunks sent side by side and the marker's release (more); an event of more than MAX_TERMS terms is one
  // entry of the unindexed partition, in its own transaction.
  const extra: { en: Seeded['en']; password?: string; transactions: (n: number) => boolean }[] = [
    { en: { title: `Long text ${pick(VOCABULARY)}`, description: `<p>${spread} ${VOCABULARY.join(' ')}</p>` }, transactions: (n) => n >= 3 },
    { en: { title: `Huge text ${pick(VOCABULARY)}`, description: `<p>${pseudo(2500, 6)} tower</p>` }, transactions: (n) => n === 1 },
    { en: { title: 'Locked tower', description: '<p>secretword café</p>' }, password: 'sesame', transactions: (n) => n === 1 },
  ];
  for (const [i, e] of extra.entries()) {
    const day = `${YEAR}-11-1${i}`;
    const res = await api('/events', { method: 'POST', token, body: { ...e.en, start_date: `${day} 10:00:00`, end_date: `${day} 11:00:00`,
      status: 'publish', ...(e.password ? { password: e.password } : {}) } });
    expect(res.status).toBe(201);
    const transactions = meterOf(res).tx!;
    expect({ title: e.en.title, transactions, fits: e.transactions(transactions) }).toEqual({ title: e.en.title, transactions, fits: true });
    seeded.push({ id: res.json.id as number, en: e.en, ...(e.password ? { locked: true } : {}) });
  }
}, 120_000);

/** The text an event shows in a language (falling back to English, the language it was written in). */
const shown = (e: Seeded, lang: 'en' | 'de', unlocked = false): string[] =>
  [lang === 'de' && e.de ? e.de.title : e.en.title, ...(e.locked && !unlocked ? [] : [e.en.description.replace(/<[^>]*>/g, '')])];

async function searchAll(query: string, lang: 'en' | 'de', extra: Record<string, string> = {}): Promise<{ ids: number[]; total: number }> {
  const ids: number[] = [];
  let total = -1;
  for (let page = 1; ; page++) {
    const res = await api('/events', { query: { ...WINDOW, search: query, per_page: 50, page, translation_language: lang, ...extra } });
    if (res.status === 404 && page > 1) break;
    expect(res.status).toBe(200);
    total = res.json.total as number;
    ids.push(...(res.json.events as Json[]).map((e) => e.id as number));
    if (!res.json.next_rest_url) break;
  }
  return { ids, total };
}

const QUERIES = ['caf', 'café', 'CAFE', 'strass', 'straße', 'naive', 'ελλ', 'ЕЛК', '京', 'タワー', '東京', 'jazz', 'jaz work', 'night',
  'work', 'shop', 'wörk', 'fire', 'full', 'zur', 'deutsch', 'tower café', 'supercalif', 'supercalifr', 'supercalifragilistic',
  'supercalifo', '東京タ', '東京タワ', 'zqaaa', 'zqaaaaa', 'zqaaaaab', 'zq', 'secretword', 'locked', 'huge', 'long text'];

describe('search equals a scan of the same events (contract §9)', () => {
  for (const lang of ['en', 'de'] as const) {
    it(`in ${lang}: every query's results and total`, async () => {
      const sizes: number[] = [];
      for (const query of QUERIES) {
        const expected = seeded.filter((e) => matches(query, shown(e, lang))).map((e) => e.id);
        const got = await searchAll(query, lang);
        expect({ query, ids: [...got.ids].sort((a, b) => a - b), total: got.total })
          .toEqual({ query, ids: [...expected].sort((a, b) => a - b), total: expected.length });
        sizes.push(expected.length);
      }
      // The seeded calendar makes the comparison meaningful: queries that match many, few and none.
      expect(Math.max(...sizes)).toBeGreaterThan(5);
      expect(sizes.filter((n) => n === 0).length).toBeGreaterThan(0);
      expect(sizes.filter((n) => n > 0 && n < 5).length).toBeGreaterThan(0);
    }, 60_000);
  }

  it('a password-protected event: its hidden text is searched only with its password', async () => {
    const locked = seeded.find((e) => e.locked)!;
    expect((await searchAll('secretword', 'en')).ids).toEqual([]);
    expect((await searchAll('secretword', 'en', { password: 'sesame' })).ids).toEqual([locked.id]);
    expect((await searchAll('secretword', 'en', { password: 'wrong' })).ids).toEqual([]);
    expect((await searchAll('locked', 'en')).ids).toEqual([locked.id]);
  });

  it('follows writes: a retitled event, a moved one, a trashed one and a deleted one', async () => {
    const token = await editor();
    const [a, b, c, d] = [seeded[1]!, seeded[2]!, seeded[36]!, seeded[37]!];
    const write = async (id: number, body: Json, query: Record<string, string> = {}, method = 'POST') =>
      expect((await api(`/events/${id}`, { method, token, body, query })).status).toBe(200);
    await write(a.id, { title: 'Renamedword only' });
    await write(b.id, { start_date: `${YEAR + 1}-01-05 10:00:00`, end_date: `${YEAR + 1}-01-05 11:00:00` });
    await write(c.id, {}, {}, 'DELETE');
    await write(d.id, {}, { force: 'true' }, 'DELETE');
    expect((await searchAll('renamedword', 'en')).ids).toEqual([a.id]);
    const remaining = seeded.filter((e) => ![b.id, c.id, d.id].includes(e.id));
    for (const query of ['tower', 'zqaaa', 'caf', 'supercalifr']) {
      const expected = remaining.filter((e) => matches(query, e.id === a.id ? ['Renamedword only', e.en.description] : shown(e, 'en')))
        .map((e) => e.id).sort((x, y) => x - y);
      const got = await searchAll(query, 'en');
      expect({ query, ids: [...got.ids].sort((x, y) => x - y), total: got.total }).toEqual({ query, ids: expected, total: expected.length });
    }
  });
});
