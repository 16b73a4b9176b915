/**
 * Unit tests of lib/terms: the two wire shapes (reference §4.4), language fallback (contract §8), name guard
 * keys, list ordering/emptiness/paging helpers, the inline-term API used by event writes, and failure paths a
 * real DynamoDB cannot produce on demand (a lost race on a name guard).
 */
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { handler as categoriesHandler } from '../../functions/categories.js';
import type { RequestContext } from '../../lib/http/context.js';
import { config } from '../../lib/config.js';
import { signLocalToken } from '../../lib/local/token-sign.js';
import { setClient } from '../../lib/store/client.js';
import { planNewTerms, resolveTermNames, wantTermNames } from '../../lib/terms/inline.js';
import { IdPool } from '../../lib/store/ids.js';
import { ReadSet } from '../../lib/store/reads.js';
import { compareUtf8, nameSortKey } from '../../lib/terms/order.js';
import { foldName, nameGuardKey, nameOrderKeys, newTermItem, reservedNames, termText, withDerived, type TermItem } from '../../lib/terms/item.js';
import { nonEmpty, sortEntries, termPageLinks } from '../../lib/terms/list.js';
import { serializeEventTerm, serializeTerm } from '../../lib/terms/serialize.js';
import type { TermEntry } from '../../lib/terms/store.js';

const API = 'https://api.example.com/calendar/events/v1';
const ctx = (lang: 'en' | 'de' | 'pt-pt' = 'en') =>
  ({ lang, apiUrl: API, siteUrl: 'https://site.example' }) as unknown as RequestContext;

const category = (over: Partial<TermItem> = {}): TermItem => ({
  ...newTermItem('category', 7, 'en', { name: 'Concerts', description: '<p>Live</p>', slug: 'concerts', parent: 0 }),
  cnt: 3,
  ...over,
});

describe('serializeTerm (reference §4.4(b))', () => {
  it('emits the route shape in key order, without _links', () => {
    const out = serializeTerm(category(), ctx());
    expect(out).toEqual({
      id: 7, count: 3, description: '<p>Live</p>', name: 'Concerts', slug: 'concerts', taxonomy: 'tribe_events_cat', parent: 0,
      meta: [], url: 'https://site.example/events/category/concerts/',
      urls: { self: `${API}/categories/7`, collection: `${API}/categories` },
    });
    expect(Object.keys(out)).toEqual(['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'parent', 'meta', 'url', 'urls']);
  });

  it('adds urls.up for a child category', () => {
    const out = serializeTerm(category({ parent: 3 }), ctx());
    expect(out.parent).toBe(3);
    expect(out.urls).toEqual({ self: `${API}/categories/7`, collection: `${API}/categories`, up: `${API}/categories/3` });
  });

  it('tags: no parent key, post_tag, /tag/ url', () => {
    const tag = newTermItem('tag', 9, 'en', { name: 'Outdoor', slug: 'outdoor', parent: 0 });
    const out = serializeTerm(tag, ctx());
    expect(Object.keys(out)).toEqual(['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'meta', 'url', 'urls']);
    expect(out).toMatchObject({ taxonomy: 'post_tag', url: 'https://site.example/tag/outdoor/', description: '', count: 0 });
    expect(out.urls).toEqual({ self: `${API}/tags/9`, collection: `${API}/tags` });
  });

  it('never shows a negative count', () => {
    expect(serializeTerm({ ...category(), cnt: -1 }, ctx()).count).toBe(0);
  });
});

describe('serializeEventTerm (reference §4.4(a))', () => {
  it('emits the raw term row shape in key order', () => {
    const out = serializeEventTerm(category({ parent: 2 }), ctx());
    expect(out).toEqual({
      name: 'Concerts', slug: 'concerts', term_group: 0, term_taxonomy_id: 7, taxonomy: 'tribe_events_cat',
      description: '<p>Live</p>', parent: 2, count: 3, filter: 'raw', id: 7,
      urls: { self: `${API}/categories/7`, collection: `${API}/categories`, up: `${API}/categories/2` },
    });
    expect(Object.keys(out)).toEqual(['name', 'slug', 'term_group', 'term_taxonomy_id', 'taxonomy', 'description', 'parent',
      'count', 'filter', 'id', 'urls']);
    expect(out).not.toHaveProperty('url');
  });

  it('tags have parent 0 and post_tag', () => {
    const out = serializeEventTerm(newTermItem('tag', 4, 'de', { name: 'Draußen', slug: 'draussen', parent: 0 }), ctx());
    expect(out).toMatchObject({ taxonomy: 'post_tag', parent: 0, name: 'Draußen', urls: { self: `${API}/tags/4`, collection: `${API}/tags` } });
  });
});

describe('languages (contract §8)', () => {
  const item = withDerived({
    ...category(),
    tr: { en: { name: 'Concerts', description: 'English' }, de: { name: 'Konzerte' } },
  });

  it('returns the request language, falling back to the first language field by field', () => {
    expect(serializeTerm(item, ctx('de'))).toMatchObject({ name: 'Konzerte', description: 'English' });
    expect(serializeTerm(item, ctx('pt-pt'))).toMatchObject({ name: 'Concerts', description: 'English' });
    expect(serializeEventTerm(item, ctx('de'))).toMatchObject({ name: 'Konzerte' });
    expect(termText({ tr: { de: { name: 'Nur' } }, lang0: 'de' }, 'en', 'description')).toBe('');
  });

  it('nm holds the lower-case name shown in every language, fallback included', () => {
    expect(item.nm).toEqual({ en: 'concerts', de: 'konzerte', 'pt-pt': 'concerts' });
    expect(item.GSI2PK).toBe('TERMS#category');
    expect(item.GSI1PK).toBe('category#concerts');
  });

  it('places the term in name order by its first language, with a name-order item where another language sorts apart', () => {
    expect(item.GSI2SK).toBe('concerts\u00010000000007');
    expect(nameOrderKeys(item)).toEqual([{ PK: 'TERMNAMES#category#de', SK: 'konzerte\u00010000000007' }]);
    expect(nameOrderKeys({ ...item, nm: { en: 'concerts', de: 'Concerts', 'pt-pt': 'concerts' } })).toEqual([]);
  });

  it('every language\'s name is reserved', () => {
    expect(reservedNames(item).sort()).toEqual(['concerts', 'konzerte']);
    expect(reservedNames({ tr: { en: { name: 'Jazz' }, de: { name: 'JAZZ' } } })).toEqual(['jazz']);
  });
});

describe('name guard keys', () => {
  it('fold case and Unicode normalisation, per taxonomy and parent', () => {
    expect(nameGuardKey('category', 0, 'Jazz')).toEqual({ PK: 'TERMNAME#category#0#jazz', SK: 'TERMNAME' });
    expect(nameGuardKey('category', 0, 'JAZZ')).toEqual(nameGuardKey('category', 0, 'jazz'));
    expect(nameGuardKey('tag', 0, 'Cafe\u0301').PK).toBe(nameGuardKey('tag', 0, 'Café').PK);
    expect(nameGuardKey('category', 5, 'Jazz').PK).toBe('TERMNAME#category#5#jazz');
    expect(foldName('ÄBC')).toBe('äbc');
  });

  it('hash names that would make an over-long key (DynamoDB keys are limited to 2,048 bytes)', () => {
    const long = '😀'.repeat(1000);
    const key = nameGuardKey('category', 0, long);
    expect(Buffer.byteLength(key.PK)).toBeLessThan(200);
    expect(key.PK).toMatch(/^TERMNAME#category#0##sha256:[0-9a-f]{64}$/);
    expect(nameGuardKey('category', 0, long.toUpperCase())).toEqual(key);
    expect(nameGuardKey('category', 0, `${long}x`).PK).not.toBe(key.PK);
  });
});

describe('list helpers', () => {
  const entry = (id: number, name: string, extra: Partial<TermEntry> = {}): TermEntry =>
    ({ id, slug: name.toLowerCase(), nm: { en: name.toLowerCase() }, parent: 0, cnt: 0, linked: 0, ...extra });

  it('sortEntries: by name (case-insensitive), ties by id, desc reverses', () => {
    const list = [entry(3, 'beta'), entry(1, 'Alpha'), entry(2, 'alpha'), entry(4, 'Élan')];
    const name = (e: TermEntry) => e.nm.en!;
    expect(sortEntries([...list], 'name', 'asc', { name }).map((e) => e.id)).toEqual([1, 2, 3, 4]);
    expect(sortEntries([...list], 'name', 'desc', { name }).map((e) => e.id)).toEqual([4, 3, 2, 1]);
    expect(sortEntries([...list], 'id', 'asc', { name }).map((e) => e.id)).toEqual([1, 2, 3, 4]);
    expect(sortEntries([...list], 'include', 'asc', { name, include: [4, 1, 3, 2] }).map((e) => e.id)).toEqual([4, 1, 3, 2]);
    expect(sortEntries([...list], 'include', 'asc', { name }).map((e) => e.id)).toEqual([1, 2, 3, 4]);
    const counted = [entry(1, 'a', { cnt: 5 }), entry(2, 'b', { cnt: 1 }), entry(3, 'c', { cnt: 5 })];
    expect(sortEntries(counted, 'count', 'desc', { name }).map((e) => e.id)).toEqual([3, 1, 2]);
  });

  it('nonEmpty: a category with events, and its ancestors; tags only by their own count', () => {
    const all = [
      { id: 1, parent: 0, cnt: 0 }, { id: 2, parent: 1, cnt: 0 }, { id: 3, parent: 2, cnt: 2 }, { id: 4, parent: 0, cnt: 0 },
    ];
    expect([...nonEmpty(all, true)].sort()).toEqual([1, 2, 3]);
    expect([...nonEmpty(all, false)]).toEqual([3]);
  });

  it('termPageLinks: arithmetic, page only, page 1 without a page parameter', () => {
    const base = `${API}/categories/`;
    expect(termPageLinks(base, 1, 3)).toEqual({ next: `${base}?page=2` });
    expect(termPageLinks(base, 2, 3)).toEqual({ next: `${base}?page=3`, previous: base });
    expect(termPageLinks(base, 3, 3)).toEqual({ previous: `${base}?page=2` });
    expect(termPageLinks(base, 7, 3)).toEqual({ previous: `${base}?page=6` });
    expect(termPageLinks(base, 1, 0)).toEqual({});
  });
});

describe('with a mocked DynamoDB', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  beforeAll(() => setClient(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local' }))));
  afterAll(() => setClient(null));
  beforeEach(() => ddb.reset());

  /** Guard items that exist, by PK. */
  const withGuards = (guards: Record<string, number>) =>
    ddb.on(BatchGetCommand).callsFake((input) => {
      const [table, request] = Object.entries(input.RequestItems as Record<string, { Keys: { PK: string; SK: string }[] }>)[0]!;
      return { Responses: { [table]: request.Keys.filter((k) => k.PK in guards).map((k) => ({ ...k, id: guards[k.PK] })) } };
    });

  it('resolveTermNames: by slug, then by top-level name (any case), then by the slug of the name', async () => {
    withGuards({ 'SLUG#category#rock': 11, 'TERMNAME#category#0#jazz night': 12, 'SLUG#category#blues-band': 13 });
    const names = ['Rock', 'JAZZ NIGHT', 'Blues Band', 'New One', 'new one', 'Rock', ' '];
    const reads = new ReadSet();
    wantTermNames('category', names, reads);
    await reads.fetch();
    const { found, missing } = resolveTermNames('category', names, reads);
    expect([...found]).toEqual([['Rock', 11], ['JAZZ NIGHT', 12], ['Blues Band', 13]]);
    expect(missing).toEqual(['New One', 'new one', ' ']);
    // One request for every name; a first planning pass reads eventually consistently, a second one consistently.
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(1);
    const again = new ReadSet(true);
    wantTermNames('category', names, again);
    await again.fetch();
    const consistent = ddb.commandCalls(BatchGetCommand).map((c) => Object.values(c.args[0].input.RequestItems!)[0]!.ConsistentRead);
    expect(consistent).toEqual([undefined, true]);
  });

  it('planNewTerms: ids per name from one block (case-insensitive duplicates share one), free distinct slugs, Put items, no writes', async () => {
    let n = 100;
    ddb.on(UpdateCommand).callsFake((input) => ({ Attributes: { n: (n += Number(input.ExpressionAttributeValues[':count'])) } }));
    withGuards({ 'SLUG#tag#rock': 5 });
    const { ids, items, terms: created } = await planNewTerms('tag', ['Rock', 'rock ', 'Rock!', 'Jazz'], ctx('de'), 1, new IdPool(), new ReadSet());
    expect(ids).toEqual([101, 101, 102, 103]);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    // Each new term's search entries stand behind a deferred marker, taken into the event's transaction only if they fit.
    const markers = items.filter((i) => i.Put?.Item?.PK === 'WX#tag').map((i) => [i.Put!.Item!.SK, i.Put!.Item!.d]);
    expect(markers).toEqual([['P#0000000101', true], ['P#0000000102', true], ['P#0000000103', true]]);
    const puts = items.filter((i) => i.Put && i.Put.Item?.PK !== 'WX#tag').map((i) => i.Put!);
    expect(puts).toHaveLength(9);
    // The taxonomy's counts: three more tags, all non-empty (they start with the event's count).
    expect(items.filter((i) => i.Update).map((i) => [i.Update!.Key, Object.values(i.Update!.ExpressionAttributeValues!)]))
      .toEqual([[{ PK: 'NONEMPTY', SK: 'tag' }, [3, 3]]]);
    const terms = puts.filter((p) => p.Item!.SK === 'TERM').map((p) => p.Item as unknown as TermItem);
    expect(created).toEqual(terms);
    expect(terms.map((t) => [t.id, t.slug, t.tr, t.lang0, t.cnt, t.parent])).toEqual([
      [101, 'rock-2', { de: { name: 'Rock' } }, 'de', 1, 0],
      [102, 'rock-3', { de: { name: 'Rock!' } }, 'de', 1, 0],
      [103, 'jazz', { de: { name: 'Jazz' } }, 'de', 1, 0],
    ]);
    for (const p of puts) expect(p.ConditionExpression).toMatch(/attribute_not_exists\(PK\)/);
    expect(puts.map((p) => p.Item!.PK)).toEqual(expect.arrayContaining([
      'SLUG#tag#rock-2', 'TERMNAME#tag#0#rock', 'SLUG#tag#rock-3', 'TERMNAME#tag#0#rock!', 'SLUG#tag#jazz', 'TERMNAME#tag#0#jazz',
    ]));
  });

  it('planNewTerms rejects empty and over-long names with 400 naming the event parameter', async () => {
    await expect(planNewTerms('category', ['  '], ctx(), 0, new IdPool(), new ReadSet())).rejects.toMatchObject({ status: 400,
      code: 'rest_invalid_param', data: { params: { categories: expect.any(String) } } });
    await expect(planNewTerms('tag', ['x'.repeat(1001)], ctx(), 0, new IdPool(), new ReadSet())).rejects.toMatchObject({ status: 400,
      data: { params: { tags: expect.any(String) } } });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  const invoke = (method: string, rawPath: string, body?: unknown, token?: string) => categoriesHandler({
    version: '2.0', routeKey: '$default', rawPath, rawQueryString: '',
    headers: { host: 'api.example.com', 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body), isBase64Encoded: false,
    requestContext: { accountId: '1', apiId: 'a', domainName: 'api.example.com', domainPrefix: 'api', requestId: 'req-1',
      routeKey: '$default', stage: '$default', time: '', timeEpoch: 0,
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' } },
  } as APIGatewayProxyEventV2, {} as Context) as Promise<{ statusCode: number; headers: Record<string, string>; body: string }>;

  it('a create that loses the race for its name → 400 term_exists with the winner\'s id', async () => {
    const token = await signLocalToken({ secret: config().jwt.secret!, role: 'editor', sub: 'unit-editor' });
    let guardReads = 0;
    ddb.on(GetCommand).callsFake((input) => {
      if (String(input.Key.PK).startsWith('TERMNAME#')) return guardReads++ === 0 ? {} : { Item: { ...input.Key, id: 77 } };
      return {};
    });
    ddb.on(UpdateCommand).resolves({ Attributes: { n: 500 } });
    withGuards({});
    ddb.on(TransactWriteCommand).rejects(Object.assign(new Error('cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'ConditionalCheckFailed' }],
    }));
    ddb.on(QueryCommand).resolves({ Items: [] });
    const res = await invoke('POST', '/calendar/events/v1/categories', { name: 'Raced' }, token);
    expect(JSON.parse(res.body)).toEqual({ code: 'term_exists', message: expect.any(String), data: { status: 400, term_id: 77 } });
    expect(res.statusCode).toBe(400);
  });

  it('a throttled list → 503 rest_unavailable', async () => {
    ddb.on(GetCommand).resolves({ Item: { PK: 'NONEMPTY', SK: 'category', all: 3, filled: 2, built: true } });
    ddb.on(QueryCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    const res = await invoke('GET', '/calendar/events/v1/categories');
    expect(res.statusCode).toBe(503);
  });
});

describe('name order (lib/terms/order.ts)', () => {
  it('ignores case and Latin diacritics, puts a name before its extensions, ties by id, and compares as DynamoDB does', () => {
    const names = ['Zebra', 'émile', 'Eagle', 'ab c', 'ab', 'Ábc', 'abd'];
    const sorted = names.map((n, i) => ({ n, k: nameSortKey(n, 10 - i) })).sort((a, b) => compareUtf8(a.k, b.k)).map((x) => x.n);
    expect(sorted).toEqual(['ab', 'ab c', 'Ábc', 'abd', 'Eagle', 'émile', 'Zebra']);
    expect(compareUtf8(nameSortKey('Same', 3), nameSortKey('same', 12))).toBeLessThan(0);
    expect(compareUtf8('\uFFFD', '\u{1F600}')).toBeLessThan(0);
  });
});
