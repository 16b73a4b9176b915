/**
 * Contract tests of GET /venues and GET /organizers (run for both kinds): the envelope, headers and paging of
 * reference §5.1 (404 past the last page), newest-first order, the search semantics of §7 ("all word
 * fragments within ONE field"), status visibility per role (contract §4), password blanking in lists.
 * The database is shared by every test file: each test narrows the list with a unique word.
 * Filters that need events (event, has_events, only_with_upcoming): venues-events.test.ts.
 */
import { api, apiUrl, serverOrigin, tokenFor } from '../support/api.js';
import { expectError, expectInvalid, expectStatus, freshToken, uid } from './helpers/events.js';

type Kind = 'venue' | 'organizer';
const PLURAL = { venue: 'venues', organizer: 'organizers' } as const;

let editor: string;
beforeAll(async () => {
  editor = await tokenFor('editor');
});

/** A word no other test uses (letters only, so it is one search fragment). */
const word = (): string => `zq${uid().replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!)}`;

describe.each(['venue', 'organizer'] as const)('GET /%ss', (kind: Kind) => {
  const plural = PLURAL[kind];
  const list = (query: Record<string, string | number | boolean | string[]> = {}, token?: string) =>
    api(`/${plural}`, { query, token });
  const make = async (extra: Record<string, unknown> = {}, token: string = editor): Promise<any> => {
    const res = await api(`/${plural}`, { method: 'POST', token, body: { [kind]: `List ${kind} ${uid()}`, ...extra } });
    if (res.status !== 201) throw new Error(`creating a fixture ${kind} failed: ${res.status} ${res.text}`);
    return res.json;
  };
  const ids = (res: { json: any }) => (res.json[plural] as { id: number }[]).map((r) => r.id);

  describe('envelope and paging (reference §5.1)', () => {
    it('lists newest first, pages with next/previous links and headers, and 404s past the last page', async () => {
      const w = word();
      const a = await make({ [kind]: `${w} oldest`, date: '2020-01-01 10:00:00' });
      const b = await make({ [kind]: `${w} newest`, date: '2022-01-01 10:00:00' });
      const c = await make({ [kind]: `${w} middle`, date: '2021-01-01 10:00:00' });

      const first = await list({ search: w, per_page: 2 });
      expectStatus(first, 200);
      expect(Object.keys(first.json)).toEqual([plural, 'rest_url', 'next_rest_url', 'total', 'total_pages']);
      expect(ids(first)).toEqual([b.id, c.id]);
      expect(first.json.total).toBe(3);
      expect(first.json.total_pages).toBe(2);
      expect(first.headers.get('x-tec-total')).toBe('3');
      expect(first.headers.get('x-tec-totalpages')).toBe('2');
      expect(first.json.rest_url).toBe(`${apiUrl()}/${plural}/?per_page=2&search=${w}`);
      expect(first.json.next_rest_url).toBe(`${apiUrl()}/${plural}/?per_page=2&search=${w}&page=2`);
      expect(first.headers.get('link')).toBe(`<${first.json.next_rest_url}>; rel="next"`);
      for (const r of first.json[plural]) expect(r).not.toHaveProperty('json_ld');

      const second = await api(first.json.next_rest_url);
      expectStatus(second, 200);
      expect(Object.keys(second.json)).toEqual([plural, 'rest_url', 'previous_rest_url', 'total', 'total_pages']);
      expect(ids(second)).toEqual([a.id]);
      expect(second.json.previous_rest_url).toBe(`${apiUrl()}/${plural}/?per_page=2&search=${w}`);

      const past = await list({ search: w, per_page: 2, page: 3 });
      expectError(past, 404, `${kind}-archive-page-not-found`);
    });

    it('page 1 without results is 200 with an empty list and zero totals', async () => {
      const res = await list({ search: word() });
      expectStatus(res, 200);
      expect(res.json).toEqual({ [plural]: [], rest_url: expect.any(String), total: 0, total_pages: 0 });
      expect(res.headers.get('x-tec-total')).toBe('0');
      expect(res.headers.get('x-tec-totalpages')).toBe('0');
      expect(res.headers.get('link')).toBeNull();
    });

    it('defaults to 10 per page and clamps per_page to 50', async () => {
      const w = word();
      await Promise.all(Array.from({ length: 12 }, (_, i) => make({ [kind]: `${w} n${i}` })));
      const res = await list({ search: w });
      expect(res.json[plural]).toHaveLength(10);
      expect([res.json.total, res.json.total_pages]).toEqual([12, 2]);
      const big = await list({ search: w, per_page: 500 });
      expect(big.json[plural]).toHaveLength(12);
      expect(big.json.rest_url).toContain('per_page=50');
    });

    it('rejects bad paging and filter values with 400 rest_invalid_param', async () => {
      for (const [k, v] of [['page', '0'], ['page', 'abc'], ['per_page', '0'], ['per_page', '-1'], ['search', ''], ['event', 'abc'],
        ['event', '987654321'], ['status', 'bogus'], ['translation_language', 'xx']] as const) {
        expectInvalid(await list({ [k]: v }, editor), k);
      }
    });

    it('emits URLs under the language prefix of the request', async () => {
      const w = word();
      await make({ [kind]: `${w} one` });
      const res = await api(`${serverOrigin()}/de${new URL(apiUrl()).pathname}/${plural}`, { query: { search: w } });
      expectStatus(res, 200);
      expect(res.json.rest_url).toBe(`${serverOrigin()}/de${new URL(apiUrl()).pathname}/${plural}/?per_page=10&search=${w}`);
      expect(res.headers.get('content-language')).toBe('de');
    });
  });

  describe('search (contract §9 over the fields of reference §7)', () => {
    it('matches when every word begins a word of one of the fields, in any order and case', async () => {
      const w = word();
      const inName = await make({ [kind]: `The ${w} Jazz Club` });
      const inDescription = await make({ description: `<p>Home of <strong>${w}</strong> and Jazz</p>` });
      const inExcerpt = await make({ excerpt: `${w} jazz nights` });
      const split = await make({ [kind]: `${w} Club`, description: 'jazz' }); // words in two fields: a match too
      const inside = await make({ [kind]: `${w} Bluejazz` }); // "jazz" inside a word: no match
      const res = await list({ search: `JAZZ ${w.toUpperCase()}` });
      expect(ids(res).sort()).toEqual([inName.id, inDescription.id, inExcerpt.id, split.id].sort());
      expect(ids(res)).not.toContain(inside.id);
      expect(ids(await list({ search: `${w}, jazz!` })).sort()).toEqual([inName.id, inDescription.id, inExcerpt.id, split.id].sort());
    });

    it('matches word prefixes; "-" separates words', async () => {
      const w = word();
      const rec = await make({ [kind]: `Jean-Luc ${w}ian` });
      expect(ids(await list({ search: `jean-luc ${w}` }))).toEqual([rec.id]);
      expect(ids(await list({ search: `luc jean ${w.slice(0, 6)}` }))).toContain(rec.id);
      expect(ids(await list({ search: `jean-lucas ${w}` }))).toEqual([]);
    });

    it('matches the text shown in the request language (fallback included)', async () => {
      const w = word();
      const rec = await make({ [kind]: `${w} english` });
      await api(`/${plural}/${rec.id}`, { method: 'PATCH', token: editor, body: { [kind]: `${w} deutsch` },
        query: { translation_language: 'de' } });
      expect(ids(await list({ search: `${w} deutsch`, translation_language: 'de' }))).toEqual([rec.id]);
      expect(ids(await list({ search: `${w} deutsch` }))).toEqual([]);
      expect(ids(await list({ search: `${w} english`, translation_language: 'pt-pt' }))).toEqual([rec.id]);
    });

    if (kind === 'venue') {
      it('searches address, city, province, state, stateprovince, zip and phone — not country', async () => {
        const w = word();
        const address = await make({ address: `100, Avenue du Temple ${w}` });
        const stateprovince = await make({ stateprovince: `France, Ile de France ${w}` });
        const city = await make({ city: `${w}ville` });
        const province = await make({ province: `${w} province` });
        const state = await make({ state: `${w} state` });
        const zip = await make({ zip: `${w}-75003` });
        const phone = await make({ phone: `${w} 555` });
        const country = await make({ country: `${w}land` });
        const crossed = await make({ [kind]: `Temple ${w}`, city: 'Avenue' });
        expect(ids(await list({ search: `temple avenue ${w}` })).sort()).toEqual([address.id, crossed.id].sort());
        expect(ids(await list({ search: `france, ile de ${w}` }))).toEqual([stateprovince.id]);
        const all = ids(await list({ search: w, per_page: 50 }));
        expect(all.sort()).toEqual([address.id, stateprovince.id, city.id, province.id, state.id, zip.id, phone.id, crossed.id].sort());
        expect(all).not.toContain(country.id);
      });
    } else {
      it('searches phone, email and website', async () => {
        const w = word();
        const email = await make({ email: `${w}@example.org` });
        const website = await make({ website: `https://${w}.example.org/` });
        const phone = await make({ phone: `+1 ${w}` });
        expect(ids(await list({ search: w })).sort()).toEqual([email.id, website.id, phone.id].sort());
        // Words are Unicode word segments: "example.org" is one word, which "example" begins and "ample" does not.
        expect(ids(await list({ search: `example ${w}` }))).toEqual([email.id]);
        expect(ids(await list({ search: `ample ${w}` }))).toEqual([]);
      });
    }

    it('never matches trashed records', async () => {
      const w = word();
      const rec = await make({ [kind]: `${w} doomed` });
      expect(ids(await list({ search: w }))).toEqual([rec.id]);
      expectStatus(await api(`/${plural}/${rec.id}`, { method: 'DELETE', token: editor }), 200);
      expect(ids(await list({ search: w }))).toEqual([]);
      expect(ids(await list({ search: w }, editor))).toEqual([]);
    });
  });

  describe('status visibility (contract §4, reference §11.2)', () => {
    it('anonymous and subscribers see published records; editors every non-trash status; others their own too', async () => {
      const w = word();
      const contributor = await freshToken('contributor');
      const published = await make({ [kind]: `${w} published` });
      const draft = await make({ [kind]: `${w} draft`, status: 'draft' });
      const privateRec = await make({ [kind]: `${w} private`, status: 'private' });
      const pending = await make({ [kind]: `${w} pending`, status: 'pending' });
      const own = await make({ [kind]: `${w} own draft` }, contributor);
      const trashed = await make({ [kind]: `${w} trashed` });
      expectStatus(await api(`/${plural}/${trashed.id}`, { method: 'DELETE', token: editor }), 200);

      const sorted = (res: { json: any }) => ids(res).sort();
      expect(sorted(await list({ search: w }))).toEqual([published.id]);
      expect(sorted(await list({ search: w }, await freshToken('subscriber')))).toEqual([published.id]);
      expect(sorted(await list({ search: w }, await freshToken('author')))).toEqual([published.id]);
      expect(sorted(await list({ search: w }, contributor))).toEqual([published.id, own.id].sort());
      expect(sorted(await list({ search: w }, editor))).toEqual([published.id, draft.id, privateRec.id, pending.id, own.id].sort());

      expect(sorted(await list({ search: w, status: 'draft' }, editor))).toEqual([draft.id, own.id].sort());
      expect(sorted(await list({ search: w, status: 'draft,private' }, editor))).toEqual([draft.id, own.id, privateRec.id].sort());
      expect(sorted(await list({ search: w, status: ['pending', 'publish'] }, editor))).toEqual([published.id, pending.id].sort());
      expect(sorted(await list({ search: w, status: 'draft' }, contributor))).toEqual([own.id]);
      expect(sorted(await list({ search: w, status: 'publish' }))).toEqual([published.id]);
      const withStatus = await list({ search: w, status: 'draft' }, editor);
      expect(withStatus.json.rest_url).toBe(`${apiUrl()}/${plural}/?per_page=10&status=draft&search=${w}`);
    });

    it('a status other than publish from anonymous callers or subscribers is 400', async () => {
      expectInvalid(await list({ status: 'draft' }), 'status');
      expectInvalid(await list({ status: 'publish,draft' }, await freshToken('subscriber')), 'status');
    });

    it('editors list the trash with status=trash', async () => {
      const w = word();
      const rec = await make({ [kind]: `${w} binned` });
      expectStatus(await api(`/${plural}/${rec.id}`, { method: 'DELETE', token: editor }), 200);
      const res = await list({ status: 'trash', per_page: 50 }, editor);
      expectStatus(res, 200);
      expect(res.json.total).toBeGreaterThan(0);
      const all: number[] = [];
      for (let page = 1; page <= res.json.total_pages; page++) all.push(...ids(await list({ status: 'trash', per_page: 50, page }, editor)));
      expect(all).toContain(rec.id);
    });
  });

  describe('password-protected records in lists', () => {
    it('are listed with blanked fields unless the password matches', async () => {
      const w = word();
      const rec = await make({ [kind]: `${w} locked`, phone: '12345', description: `${w} secret`, password: 'open sesame' });
      const res = await list({ search: `${w} locked` });
      expect(res.json[plural]).toHaveLength(1);
      expect(res.json[plural][0]).toMatchObject({ id: rec.id, [kind]: rec[kind], phone: '', description: '' });
      expect(res.json[plural][0]).not.toHaveProperty('json_ld');
      const open = await list({ search: `${w} locked`, password: 'open sesame' });
      expect(open.json[plural][0]).toMatchObject({ phone: '12345', description: `${w} secret` });
      // blanked text cannot be probed by searching; with the password it is searchable
      expect(ids(await list({ search: `${w} secret` }))).toEqual([]);
      expect(ids(await list({ search: `${w} secret`, password: 'open sesame' }))).toEqual([rec.id]);
    });
  });
});
