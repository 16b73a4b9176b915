/** Unit tests of the venue/organizer building blocks that need no database (lib/linked). */
import type { RequestContext } from '../../lib/http/context.js';
import { deriveStateProvince, fold, type LinkedItem } from '../../lib/linked/item.js';
import { descriptionHash, idsInNameItem, nameKey, namePartition, namesOf, nameTransactItems, nameWrites, showsName } from '../../lib/linked/names.js';
import { matchesSearch } from '../../lib/linked/search.js';
import { matchesWords, queryWords } from '../../lib/text/words.js';
import { isLocked, linkedImage, renderLinked, serializeLinked } from '../../lib/linked/serialize.js';
import { hashPassword } from '../../lib/auth/password.js';

const ctx = (lang: 'en' | 'de' | 'pt-pt' = 'en') => ({
  lang, host: 'api.example:8080', siteUrl: 'https://site.example', apiUrl: 'https://api.example:8080/calendar/events/v1',
}) as unknown as RequestContext;

function venue(extra: Partial<LinkedItem> = {}): LinkedItem {
  return {
    PK: 'POST#7', SK: 'POST', kind: 'venue', id: 7, v: 3, author: 2, status: 'publish', slug: 'grand-hall',
    tr: { en: { name: 'Grand Hall', description: '<p>Big <b>room</b></p>' }, de: { name: 'Großer Saal' } },
    lang0: 'en', nm: { en: 'grand hall', de: 'großer saal' }, dateUtc: '2024-01-02 03:04:05', modifiedUtc: '2024-02-03 04:05:06',
    address: '100, Avenue du Temple', city: 'Paris', country: 'France', province: 'Ile de France',
    stateprovince: 'France, Ile de France', spAuto: false, showMap: false, showMapLink: true, linked: 4, ...extra,
  };
}

describe('search (contract §9: whole words and word prefixes)', () => {
  it('reads words with Intl.Segmenter, folded: NFKC, case, Latin/Greek/Cyrillic accents; quotes and "-" mean nothing', () => {
    expect(queryWords('Temple, AVENUE!  du')).toEqual(['temple', 'avenue', 'du']);
    expect(queryWords('"Ærø" -café Straße')).toEqual(['ærø', 'cafe', 'strasse']);
    expect(queryWords('Ｆｕｌｌ ＷＩＤＴＨ')).toEqual(['full', 'width']); // NFKC
    expect(queryWords('Ἀθῆναι Ёлка')).toEqual(['αθηναι', 'елка']);
    expect(queryWords(' , ; - ')).toEqual([]);
  });

  it('matches word prefixes, never the middle of a word; every Han, Kana or Thai character starts a word', () => {
    expect(matchesWords(queryWords('wor'), ['Hello World'])).toBe(true);
    expect(matchesWords(queryWords('orld'), ['Hello World'])).toBe(false);
    expect(matchesWords(queryWords('cafe'), ['Le Café'])).toBe(true);
    expect(matchesWords(queryWords('京'), ['東京タワー'])).toBe(true);
    expect(matchesWords(queryWords('ไทย'), ['ประเทศไทย'])).toBe(true);
    expect(matchesWords(queryWords('京'), ['東京'.repeat(10)])).toBe(true);
    expect(matchesWords(queryWords('tokyo 京'), ['東京 Tokyo'])).toBe(true);
    expect(matchesWords(queryWords('タイ'), ['ア'.repeat(50_000)])).toBe(false); // long runs are searched, not expanded
  });

  it('needs every word, each in any field', () => {
    const v = venue();
    const m = (s: string, lang: 'en' | 'de' = 'en') => matchesSearch('venue', v, lang, queryWords(s));
    expect(m('temple avenue')).toBe(true);
    expect(m('france, ile de')).toBe(true);
    expect(m('big room')).toBe(true); // HTML stripped
    expect(m('grand paris')).toBe(true); // name + city
    expect(m('gran par')).toBe(true); // prefixes
    expect(m('rand')).toBe(false); // not a word's beginning
    expect(m('saal')).toBe(false);
    expect(m('saal', 'de')).toBe(true);
    expect(m('room', 'de')).toBe(true); // description falls back to English
  });

  it('does not look at the country, nor at protected text of a locked record', () => {
    const v = venue({ country: 'Zanzibar', state: 'Visible' });
    expect(matchesSearch('venue', v, 'en', ['zanzibar'])).toBe(false);
    expect(matchesSearch('venue', v, 'en', ['temple'], true)).toBe(false);
    expect(matchesSearch('venue', v, 'en', ['grand'], true)).toBe(true);
    expect(matchesSearch('venue', v, 'en', ['visible'], true)).toBe(true);
  });

  it('organizers: phone, email and website', () => {
    const o: LinkedItem = { ...venue(), kind: 'organizer', email: 'Hi@Org.example', website: 'https://org.example/x', phone: '555' };
    expect(matchesSearch('organizer', o, 'en', queryWords('hi@org'))).toBe(true);
    expect(matchesSearch('organizer', o, 'en', queryWords('org x'))).toBe(true);
    expect(matchesSearch('organizer', o, 'en', ['temple'])).toBe(false); // not a venue field for organizers
  });
});

describe('stateprovince', () => {
  it.each([
    ['NY', '', '', 'NY'], ['NY', '', 'US', 'NY'], ['NY', '', 'united states', 'NY'], ['NY', 'ON', 'Canada', 'ON'],
    ['', 'ON', '', 'ON'], ['BY', '', 'Germany', ''], ['', '', '', ''],
  ])('state %s, province %s, country %s → %s', (state, province, country, expected) => {
    expect(deriveStateProvince(state || undefined, province || undefined, country || undefined)).toBe(expected);
  });
});

describe('serialize', () => {
  it('builds the reference §4.2 shape, drops empty values, appends show_map and the global ids', () => {
    const out = renderLinked('venue', venue(), ctx());
    expect(Object.keys(out)).toEqual(['id', 'author', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url', 'venue',
      'description', 'slug', 'address', 'city', 'country', 'province', 'stateprovince', 'geo_lat', 'geo_lng', 'show_map', 'show_map_link',
      'global_id', 'global_id_lineage']);
    // Absent coordinates read 0 (contract §5, §18).
    expect(out).toMatchObject({ geo_lat: 0, geo_lng: 0 });
    expect(out).toMatchObject({ url: 'https://site.example/venue/grand-hall/', show_map: false, show_map_link: true,
      global_id: 'api.example:8080?id=7', global_id_lineage: ['api.example:8080?id=7'] });
    expect(renderLinked('venue', venue(), ctx('de')).venue).toBe('Großer Saal');
    expect(out).not.toHaveProperty('linked');
  });

  it('adds json_ld (Place with PostalAddress) only when asked', () => {
    const out = renderLinked('venue', venue(), ctx('de'), { jsonLd: true });
    expect(out.json_ld).toEqual({
      '@context': 'http://schema.org', '@type': 'Place', name: 'Großer Saal', inLanguage: 'de', url: 'https://site.example/venue/grand-hall/',
      description: 'Big room',
      address: { '@type': 'PostalAddress', streetAddress: '100, Avenue du Temple', addressLocality: 'Paris',
        addressRegion: 'France, Ile de France', addressCountry: 'France' },
    });
    expect(Object.keys(out).indexOf('json_ld')).toBe(Object.keys(out).indexOf('geo_lng') + 1);
  });

  it('blanks protected fields but keeps the name a string', () => {
    const out = renderLinked('venue', venue({ image: 'https://x.example/a.JPG' }), ctx(), { blank: true });
    expect(out).toMatchObject({ venue: 'Grand Hall', description: '', address: '', city: '', image: false, show_map: null,
      show_map_link: null, stateprovince: '' });
    expect(out).not.toHaveProperty('zip'); // absent keys are not added
  });

  it('serializeLinked unlocks an embedded record with its own password only', () => {
    const pw = hashPassword('letmein');
    const v = venue({ pw });
    expect(serializeLinked('venue', v, ctx()).description).toBe('');
    expect(serializeLinked('venue', v, ctx(), { password: 'nope' }).description).toBe('');
    expect(serializeLinked('venue', v, ctx(), { password: 'letmein' }).description).toBe('<p>Big <b>room</b></p>');
    expect(serializeLinked('venue', venue(), ctx(), { jsonLd: true })).toHaveProperty('json_ld');
    expect(isLocked(venue(), undefined)).toBe(false);
  });

  it('organizers have no show_map and carry Organization json_ld', () => {
    const o: LinkedItem = { ...venue(), kind: 'organizer', email: 'a@b.example', phone: '1', website: 'https://o.example/' };
    const out = renderLinked('organizer', o, ctx(), { jsonLd: true });
    expect(Object.keys(out)).toEqual(['id', 'author', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url', 'organizer',
      'description', 'slug', 'phone', 'website', 'email', 'json_ld', 'global_id', 'global_id_lineage']);
    expect(out.json_ld).toMatchObject({ '@type': 'Organization', email: 'a@b.example', telephone: '1', sameAs: 'https://o.example/' });
  });

  it('image objects take the extension from the URL path', () => {
    expect(linkedImage('https://cdn.example/a/b.JPEG?x=1')).toEqual({ url: 'https://cdn.example/a/b.JPEG?x=1', id: 0, extension: 'jpeg' });
    expect(linkedImage('https://cdn.example/noext')).toEqual({ url: 'https://cdn.example/noext', id: 0, extension: '' });
    expect(linkedImage(undefined)).toBeUndefined();
  });
});

describe('name items', () => {
  const h = (s: string) => descriptionHash(s);

  it('one per distinct shown name, with the hashes of the descriptions shown alongside', () => {
    const v = venue({ tr: { en: { name: 'Hall', description: 'A' }, de: { name: 'hall', description: 'B' }, 'pt-pt': { description: 'C' } } });
    expect([...namesOf(v)]).toEqual([['hall', [h('a'), h('b'), h('c')].sort()]]);
    expect(namesOf(venue({ tr: { en: { name: 'Hall' } } })).get('hall')).toEqual(['']);
    expect(h('a')).toMatch(/^[\w-]{16}$/);
    expect(namesOf(venue({ status: 'trash' })).size).toBe(0);
    expect(namesOf(null).size).toBe(0);
  });

  it('diffs entry removals and sets between two versions, one Update per name item', () => {
    const prev = venue();
    const next = venue({ tr: { en: { name: 'Grand Hall', description: '<p>Big <b>room</b></p>' }, de: { name: 'Neuer Saal' } } });
    const items = nameTransactItems('venue', 7, prev, next);
    expect(items.map((i) => [i.Update!.Key!.PK, i.Update!.Key!.SK, i.Update!.UpdateExpression])).toEqual([
      ['NAME#venue#großer saal', 'NAME', 'REMOVE #r7 ADD #v :one'],
      ['NAME#venue#neuer saal', 'NAME', 'SET #r7 = :s7 ADD #v :one'],
    ]);
    expect(items[0]!.Update!.ConditionExpression).toBe('(attribute_not_exists(#r7) OR #r7 = :p7)');
    expect(items[1]!.Update!.ConditionExpression).toBe('attribute_not_exists(#r7)');
    expect(nameTransactItems('venue', 7, prev, prev)).toEqual([]);
    expect(nameTransactItems('venue', 7, prev, { ...prev, status: 'trash' })).toHaveLength(2);
  });

  it('merges the entries of several records of one name into one Update', () => {
    const a = venue({ id: 8, tr: { en: { name: 'Hall', description: 'x' } } });
    const b = venue({ id: 9, tr: { en: { name: 'HALL', description: 'y' } } });
    const [item, ...rest] = nameWrites([{ kind: 'venue', id: 8, prev: null, next: a }, { kind: 'venue', id: 9, prev: null, next: b }]);
    expect(rest).toEqual([]);
    expect(item!.Update).toMatchObject({
      Key: nameKey('venue', 'hall'),
      UpdateExpression: 'SET #r8 = :s8, #r9 = :s9 ADD #v :one',
      ConditionExpression: 'attribute_not_exists(#r8) AND attribute_not_exists(#r9)',
      ExpressionAttributeValues: { ':s8': h('x'), ':s9': h('y'), ':one': 1 },
    });
  });

  it('lists the ids of a name item, with a description among theirs when one is sent', () => {
    const item = { ...nameKey('venue', 'hall'), v: 2, r12: `,${h('x')}`, r5: h('y'), x9: '' };
    expect(idsInNameItem(item)).toEqual([5, 12]);
    expect(idsInNameItem(item, 'X')).toEqual([12]);
    expect(idsInNameItem(item, 'z')).toEqual([]);
    expect(idsInNameItem(null)).toEqual([]);
    expect(showsName(venue(), 'GROSSER SAAL'.toLowerCase().replace('ss', 'ß'))).toBe(true);
    expect(showsName(venue(), 'grand hall', '<p>big <b>room</b></p>')).toBe(true);
    expect(showsName(venue(), 'grand hall', 'other')).toBe(false);
  });

  it('hashes names too long for a key', () => {
    expect(namePartition('venue', 'x'.repeat(500))).toMatch(/^NAMEH#venue#[0-9a-f]{64}$/);
    expect(namePartition('organizer', 'short')).toBe('NAME#organizer#short');
    expect(fold('  MiXed ')).toBe('mixed');
  });
});
