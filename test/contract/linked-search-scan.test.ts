/**
 * GET /venues?search= and /organizers?search= against a straightforward scan (contract §9, reference §7 fields): on a
 * table of this file's own, seeded with venues and organizers of many words, two languages, accents, case, prefixes,
 * Greek, Cyrillic and Han/Kana text, statuses, a contributor's drafts and password-protected records, every query's
 * results, order (newest publication first, then higher id) and total equal what reading every record and matching its
 * fields word by word returns, for anonymous callers, editors, a contributor and a caller with a password. Then writes
 * that change text, dates and statuses, trash, restore, delete and inline creation and re-use from event writes, and the
 * same comparison again. The scan is written from the contract's words, apart from the service's matcher.
 */
import { signLocalToken } from '../../lib/local/token-sign.js';
import { meterOf } from '../support/api.js';
import { startOwnServer, send, type Answer, type OwnServer } from '../support/own-server.js';
import { matches } from './helpers/scan-words.js';

const SECRET = 'linked-search-secret-0123456789abcdef01';
let server: OwnServer;
const tokens: Record<'editor' | 'contributor', string> = { editor: '', contributor: '' };

type Kind = 'venue' | 'organizer';
type Lang = 'en' | 'de';
const PLURAL = { venue: 'venues', organizer: 'organizers' } as const;
const FIELDS: Record<Kind, string[]> = {
  venue: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  organizer: ['phone', 'email', 'website'],
};


/** What the test knows of a record: enough to say which texts it shows and where it sorts. */
interface Rec {
  kind: Kind;
  id: number;
  date: string;
  status: string;
  own: boolean;
  lang0: Lang;
  tr: Partial<Record<Lang, { name?: string; description?: string }>>;
  excerpt?: string;
  fields: Record<string, string>;
  password?: string;
}
const records: Rec[] = [];

const text = (r: Rec, lang: Lang, field: 'name' | 'description'): string => r.tr[lang]?.[field] ?? r.tr[r.lang0]?.[field] ?? '';
const strip = (html: string): string => html.replace(/<[^>]*>/g, ' ');
/** The texts a search looks in (reference §7), as shown in `lang`; a locked record shows its name (and a venue its state). */
function shown(r: Rec, lang: Lang, password?: string): string[] {
  const locked = r.password !== undefined && password !== r.password;
  if (locked) return [text(r, lang, 'name'), ...(r.kind === 'venue' ? [r.fields.state ?? ''] : [])];
  return [text(r, lang, 'name'), strip(text(r, lang, 'description')), strip(r.excerpt ?? ''), ...FIELDS[r.kind].map((f) => r.fields[f] ?? '')];
}

type Caller = 'anonymous' | 'editor' | 'contributor';
function visible(r: Rec, caller: Caller, status?: string): boolean {
  if (status) return status.split(',').includes(r.status) && (caller === 'editor' || r.status === 'publish' || (caller === 'contributor' && r.own));
  if (r.status === 'trash') return false;
  return r.status === 'publish' || caller === 'editor' || (caller === 'contributor' && r.own);
}

const newestFirst = (a: Rec, b: Rec): number => (a.date === b.date ? b.id - a.id : a.date < b.date ? 1 : -1);

function expected(kind: Kind, query: string, lang: Lang, caller: Caller, extra: { status?: string; password?: string }): number[] {
  return records.filter((r) => r.kind === kind && visible(r, caller, extra.status) && matches(query, shown(r, lang, extra.password)))
    .sort(newestFirst).map((r) => r.id);
}

const apiAt = (lang?: Lang): string => (lang && lang !== 'en' ? server.url.replace('/calendar/', `/${lang}/calendar/`) : server.url);
const auth = (caller: Caller | 'editor') => (caller === 'anonymous' ? undefined : `Bearer ${tokens[caller]}`);

async function write(method: string, path: string, body: unknown, lang?: Lang, caller: 'editor' | 'contributor' = 'editor'): Promise<Answer> {
  const res = await send(`${apiAt(lang)}${path}`, { method, authorization: auth(caller), body });
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
  return res;
}

/** Creates a record and notes what the test knows of it. */
async function create(kind: Kind, r: Omit<Rec, 'kind' | 'id' | 'date' | 'status' | 'lang0'> & { status?: string; date?: string; lang0?: Lang },
  caller: 'editor' | 'contributor' = 'editor'): Promise<Rec> {
  const lang0 = r.lang0 ?? 'en';
  const t = r.tr[lang0]!;
  const res = await write('POST', `/${PLURAL[kind]}`, { [kind]: t.name, ...(t.description ? { description: t.description } : {}),
    ...(r.excerpt ? { excerpt: r.excerpt } : {}), ...r.fields, ...(r.password ? { password: r.password } : {}),
    ...(r.status ? { status: r.status } : {}), ...(r.date ? { date_utc: r.date } : {}) }, lang0, caller);
  const rec: Rec = { ...r, kind, id: res.json.id, date: res.json.date_utc, status: res.json.status, lang0, own: r.own };
  for (const lang of ['en', 'de'] as const) {
    if (lang === lang0 || !r.tr[lang]) continue;
    await write('POST', `/${PLURAL[kind]}/${rec.id}`, { [kind]: r.tr[lang]!.name, ...(r.tr[lang]!.description ? { description: r.tr[lang]!.description } : {}) }, lang, caller);
  }
  records.push(rec);
  return rec;
}

/** Every page of a search (per_page 4), checking that each page agrees on the total. */
async function searchAll(kind: Kind, query: string, lang: Lang, caller: Caller, extra: Record<string, string> = {}):
  Promise<{ ids: number[]; total: number }> {
  const ids: number[] = [];
  let total = -1;
  for (let page = 1; page < 50; page++) {
    const q = new URLSearchParams({ search: query, per_page: '4', page: String(page), ...extra });
    const res = await send(`${apiAt(lang)}/${PLURAL[kind]}?${q}`, { authorization: auth(caller) });
    if (res.status === 404 && page > 1) break;
    expect([query, res.status]).toEqual([query, 200]);
    if (total === -1) total = res.json.total;
    expect([query, res.json.total]).toEqual([query, total]);
    ids.push(...(res.json[PLURAL[kind]] as { id: number }[]).map((x) => x.id));
    if (!res.json.next_rest_url) break;
  }
  return { ids, total };
}

const VOCABULARY = ['Café', 'cafe', 'CAFÉ', 'Straße', 'strasse', 'naïve', 'Ελλάδα', 'Ёлка', '東京タワー', 'jazz', 'jazzy', 'Jazz-Night',
  'workshop', 'work', 'Wörkshop', 'ﬁre', 'Ｆｕｌｌ', 'tower', 'Zürich', 'zurich', 'Supercalifragilistic', 'supercalifornia', 'Hafen',
  'hafenkante', '大阪城', 'おおさか'];

let seed = 11;
function random(): number { // mulberry32: failures reproduce
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (): string => VOCABULARY[Math.floor(random() * VOCABULARY.length)]!;
const pseudo = (n: number, length: number) => Array.from({ length: n }, (_, k) => `zq${k.toString(36).padStart(length, 'a')}`).join(' ');

/** Fields of a record of `kind` made of vocabulary words. */
function ownFields(kind: Kind, i: number): Record<string, string> {
  if (kind === 'venue') {
    return { address: `${i} ${pick()} Avenue`, city: pick(), ...(i % 4 === 0 ? { state: `${pick()} State` } : {}),
      ...(i % 5 === 1 ? { province: `${pick()} Province`, country: 'France' } : {}), ...(i % 3 === 0 ? { zip: `Z${1000 + i}` } : {}),
      ...(i % 6 === 2 ? { phone: `+1 555 ${2000 + i}` } : {}) };
  }
  return { ...(i % 3 === 0 ? { phone: `+44 20 ${3000 + i}` } : {}), ...(i % 2 === 0 ? { email: `${pick().toLowerCase().replace(/[^a-z]/g, '') || 'x'}${i}@example.org` } : {}),
    ...(i % 4 === 1 ? { website: `https://www.example.org/${i}` } : {}) };
}

beforeAll(async () => {
  server = await startOwnServer('linked-search', { secret: SECRET, env: { CALENDAR_METER: '1' } });
  tokens.editor = await signLocalToken({ secret: SECRET, role: 'editor', sub: 'linked-search-editor' });
  tokens.contributor = await signLocalToken({ secret: SECRET, role: 'contributor', sub: 'linked-search-contributor' });
  for (const kind of ['venue', 'organizer'] as const) {
    for (let i = 0; i < 30; i++) {
      const en = { name: `${pick()} ${pick()} common ${i}`, description: `<p>${pick()} <b>${pick()}</b> everywhere</p>` };
      const de = i % 3 === 0 ? { name: `${pick()} deutsch ${i}`, ...(i % 2 ? { description: `<p>${pick()} nur</p>` } : {}) } : undefined;
      // Some records are written in German first; some have explicit publication dates over several months and years.
      const lang0: Lang = i % 7 === 3 ? 'de' : 'en';
      const date = i % 4 === 0 ? `20${30 + (i % 3)}-0${1 + (i % 9)}-1${i % 10} 10:00:00` : i % 4 === 1 ? '2029-06-01 12:00:00' : undefined;
      const status = i % 5 === 4 ? 'draft' : i % 11 === 6 ? 'private' : undefined;
      await create(kind, { tr: lang0 === 'de' ? { de: de ?? en, en } : { en, ...(de ? { de } : {}) }, lang0, fields: ownFields(kind, i),
        ...(i % 4 === 2 ? { excerpt: `<p>${pick()} auszug</p>` } : {}), own: false, status, date });
    }
    // Plain records, all of one day: a word that many records share.
    for (let i = 0; i < 20; i++) await create(kind, { tr: { en: { name: `Plain common ${i}` } }, fields: {}, own: false });
    // A contributor's records (drafts and pending ones only the contributor and editors see).
    for (let i = 0; i < 3; i++) {
      await create(kind, { tr: { en: { name: `${pick()} common contributed ${i}` } }, fields: {}, own: true, status: i ? 'draft' : 'publish' },
        'contributor');
    }
    // A text too long for the index to change in the record's own transaction (it catches up right after), one with more
    // distinct words than the index takes term by term (searches read it from its record), and a password-protected one.
    await create(kind, { tr: { en: { name: `Long text ${pick()} common`, description: `<p>${pseudo(60, 3)} ${VOCABULARY.join(' ')}</p>` } },
      fields: {}, own: false });
    await create(kind, { tr: { en: { name: `Huge text ${pick()} common`, description: `<p>${pseudo(2500, 6)} tower</p>` } },
      fields: {}, own: false });
    await create(kind, { tr: { en: { name: 'Locked tower common', description: '<p>secretword café</p>' } },
      fields: kind === 'venue' ? { state: 'Hiddenstate', city: 'Secretcity' } : { email: 'secret@example.org' }, password: 'sesame', own: false });
  }
}, 240_000);
afterAll(() => server?.stop());

const QUERIES = ['caf', 'café', 'CAFE', 'strass', 'straße', 'naive', 'ελλ', 'ЕЛК', '京', 'タワー', '東京', '大阪', 'おお', 'jazz', 'jaz work',
  'night', 'work', 'shop', 'wörk', 'fire', 'full', 'zur', 'deutsch', 'tower café', 'supercalif', 'supercalifr', 'supercalifragilistic',
  'supercalifo', '東京タ', '東京タワ', 'zqaaa', 'zqaaaaa', 'zqaaaaab', 'zq', 'secretword', 'secretcity', 'hiddenstate', 'locked', 'huge',
  'long text', 'common', 'common 1', 'everywhere', 'avenue', 'state', 'province', 'z10', '555', 'example', 'example.org', 'www', 'https',
  'auszug', 'nur', 'contributed', 'hafen', 'hafenkante', 'hafenkant'];

async function compare(kind: Kind, queries: string[], lang: Lang, caller: Caller, extra: { status?: string; password?: string } = {}):
  Promise<number[]> {
  const sizes: number[] = [];
  for (const query of queries) {
    const want = expected(kind, query, lang, caller, extra);
    const got = await searchAll(kind, query, lang, caller, extra as Record<string, string>);
    expect({ kind, lang, caller, extra, query, ids: got.ids, total: got.total })
      .toEqual({ kind, lang, caller, extra, query, ids: want, total: want.length });
    sizes.push(want.length);
  }
  return sizes;
}

describe.each(['venue', 'organizer'] as const)('%s search equals a scan (contract §9)', (kind) => {
  it.each(['en', 'de'] as const)('in %s, anonymous: every query\'s results, order and total', async (lang) => {
    const sizes = await compare(kind, QUERIES, lang, 'anonymous');
    // Queries that match many, few and none: the comparison means something.
    expect(Math.max(...sizes)).toBeGreaterThan(15);
    expect(sizes.filter((n) => n === 0).length).toBeGreaterThan(0);
    expect(sizes.filter((n) => n > 0 && n < 5).length).toBeGreaterThan(0);
  }, 120_000);

  it('editors (every status, one status, the trash), a contributor and a caller with the password', async () => {
    const some = ['caf', 'common', 'jazz night', 'deutsch', 'contributed', 'supercalifr', 'tower', 'zqaaa', 'secretword', 'example'];
    await compare(kind, some, 'en', 'editor');
    await compare(kind, some, 'de', 'editor', { status: 'draft' });
    await compare(kind, some, 'en', 'editor', { status: 'private,publish' });
    await compare(kind, some, 'en', 'contributor');
    await compare(kind, some, 'en', 'anonymous', { password: 'sesame' });
    await compare(kind, some, 'en', 'anonymous', { password: 'wrong' });
  }, 120_000);

  it('a one-word search reads its page and its counts, not its matches', async () => {
    const res = await send(`${server.url}/${PLURAL[kind]}?search=common&per_page=2`);
    expect(res.status).toBe(200);
    const matching = expected(kind, 'common', 'en', 'anonymous', {}).length;
    expect(res.json.total).toBe(matching);
    const items = meterOf(res).items!;
    expect(matching).toBeGreaterThan(40);
    // The page (2), a few day buckets, one count item per month of the seeded dates, the side partition's entries and
    // the record indexed whole: not the matches.
    expect(items).toBeLessThanOrEqual(25);
  });
});

describe('writes keep the index (contract §9)', () => {
  it('text and date changes, trash, restore and delete; inline creation and re-use from event writes', async () => {
    const [venues, organizers] = (['venue', 'organizer'] as const).map((k) => records.filter((r) => r.kind === k && !r.password && r.status === 'publish'));
    const rename = async (r: Rec, name: string, lang: Lang = 'en') => {
      await write('POST', `/${PLURAL[r.kind]}/${r.id}`, { [r.kind]: name }, lang);
      r.tr[lang] = { ...r.tr[lang], name };
    };
    await rename(venues[0]!, 'Renamedword hall');
    await rename(organizers[0]!, 'Renamedword crew Ἀθῆναι', 'de');
    const moved = venues[1]!;
    moved.date = (await write('POST', `/venues/${moved.id}`, { date_utc: '2035-02-03 04:05:06', city: 'Movedcity' })).json.date_utc;
    moved.fields.city = 'Movedcity';
    for (const r of [venues[2]!, organizers[2]!]) {
      await write('DELETE', `/${PLURAL[r.kind]}/${r.id}`, undefined);
      r.status = 'trash';
    }
    await write('DELETE', `/organizers/${organizers[3]!.id}`, undefined);
    await write('POST', `/organizers/${organizers[3]!.id}`, { status: 'publish' }); // restored
    for (const r of [venues[4]!, organizers[4]!]) {
      await write('DELETE', `/${PLURAL[r.kind]}/${r.id}?force=true`, undefined);
      records.splice(records.indexOf(r), 1);
    }
    // Event writes: a new venue and new organizers (two sharing words, one too long to index in the event's transaction),
    // then another event re-using a venue by its name and changing its phone.
    const ev = await write('POST', '/events', { title: 'Inline test', start_date: '2033-01-01 10:00:00', end_date: '2033-01-01 11:00:00',
      venue: { venue: 'Inlinevenue Café', city: 'Inlinecity' },
      organizer: [{ organizer: 'Inlineorg twin', description: 'First' }, { organizer: 'Inlineorg twin', description: 'Second' },
        { organizer: 'Inlineorg long', description: `<p>${pseudo(40, 4)} jazz</p>` }] });
    const eventDate = (id: number, kind: Kind) => send(`${server.url}/${PLURAL[kind]}/${id}`).then((r) => r.json.date_utc as string);
    const inline: Rec[] = [
      { kind: 'venue', id: ev.json.venue.id, date: '', status: 'publish', own: false, lang0: 'en', tr: { en: { name: 'Inlinevenue Café' } },
        fields: { city: 'Inlinecity' } },
      ...(ev.json.organizer as { id: number }[]).map((o, i): Rec => ({ kind: 'organizer', id: o.id, date: '', status: 'publish', own: false,
        lang0: 'en', tr: { en: { name: i < 2 ? 'Inlineorg twin' : 'Inlineorg long',
          description: ['First', 'Second', `<p>${pseudo(40, 4)} jazz</p>`][i] } }, fields: {} })),
    ];
    for (const r of inline) r.date = await eventDate(r.id, r.kind);
    records.push(...inline);
    const reused = venues[5]!;
    const again = await write('POST', '/events', { title: 'Reuse test', start_date: '2033-01-02 10:00:00', end_date: '2033-01-02 11:00:00',
      venue: { venue: text(reused, 'en', 'name'), phone: '+351 999 777' } });
    expect(again.json.venue.id).toBe(reused.id);
    reused.fields.phone = '+351 999 777';

    const queries = ['renamedword', 'αθη', 'movedcity', 'common', 'caf', 'inlinevenue', 'inlinecity', 'inlineorg', 'inlineorg twin', 'first',
      'zqaaab', 'jazz', '999', 'deutsch', 'tower'];
    for (const kind of ['venue', 'organizer'] as const) {
      for (const lang of ['en', 'de'] as const) await compare(kind, queries, lang, 'anonymous');
      await compare(kind, queries, 'en', 'editor');
      await compare(kind, queries, 'en', 'editor', { status: 'trash' });
    }
  }, 180_000);
});
