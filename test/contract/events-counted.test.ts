/**
 * GET /events totals and pages for plain date windows, which are answered from the count items and span items of
 * one source (lib/store/event-counts.ts, lib/store/event-sources.ts) rather than by reading every event of the window.
 *
 * Every event here is featured, at one venue and in one category, so each window is checked several ways: against
 * the totals expected from the events this file created; through each counted source (every event, the venue, the
 * category, the featured events); and through lists that read and filter every candidate (two categories, one of
 * them empty; a category with featured=true), so the paths must agree. This file alone uses the years 2200–2299, so no other file's events fall into its windows.
 */
import { api, tokenFor } from '../support/api.js';
import { editor, list, uniqueWord, type Json } from './helpers/list.js';
import type { FormValue } from '../support/api.js';

const Y = 2200 + Math.floor(Math.random() * 90);
const word = uniqueWord();
const d = (md: string, time: string) => `${Y}-${md} ${time}`;

interface Spec { key: string; start: string; end: string; status?: string; hidden?: boolean }

/** Events around a window of 20 Jan – 10 Mar: boundaries, months, short/multi-day/long events past its end. */
const SPECS: Spec[] = [
  { key: 'l', start: d('01-19', '23:00:00'), end: d('01-20', '01:00:00') }, // starts the day before
  { key: 'a', start: d('01-20', '00:00:00'), end: d('01-20', '01:00:00') }, // first second of the window
  { key: 'b', start: d('01-25', '10:00:00'), end: d('01-25', '12:00:00') },
  { key: 'h', start: d('02-01', '10:00:00'), end: d('02-01', '11:00:00'), hidden: true },
  { key: 'c', start: d('02-10', '10:00:00'), end: d('02-10', '11:00:00'), status: 'draft' },
  { key: 'd', start: d('02-15', '10:00:00'), end: d('02-17', '10:00:00') }, // 48 h: a span item
  { key: 'i', start: d('02-20', '10:00:00'), end: d('02-20', '11:00:00'), status: 'private' },
  { key: 'p', start: d('02-28', '23:30:00'), end: d('03-01', '00:30:00'), status: 'pending' },
  { key: 'e', start: d('03-05', '09:00:00'), end: d('04-20', '09:00:00') }, // 46 days, past the end
  { key: 'k', start: d('03-09', '10:00:00'), end: d('03-12', '10:00:00') }, // 3 days, past the end
  { key: 'g', start: d('03-10', '22:00:00'), end: d('03-11', '02:00:00') }, // short, past the end
  { key: 'f', start: d('03-10', '23:59:59'), end: d('03-10', '23:59:59') }, // last second of the window
  { key: 'm', start: d('03-11', '00:00:00'), end: d('03-11', '01:00:00') }, // the day after
];

const ids = new Map<string, number>();
const specOf = new Map<number, Spec>();
let token: string;
const links: { category: number; empty: number; venue: number } = { category: 0, empty: 0, venue: 0 };

async function create(spec: Spec): Promise<void> {
  const res = await api('/events', {
    method: 'POST', token,
    body: { title: `Counted ${spec.key} ${word}`, start_date: spec.start, end_date: spec.end, status: spec.status ?? 'publish',
      categories: [links.category], venue: links.venue, featured: true,
      ...(spec.hidden ? { hide_from_listings: true } : {}) },
  });
  if (res.status !== 201) throw new Error(`create ${spec.key}: ${res.status} ${res.text}`);
  ids.set(spec.key, res.json.id as number);
  specOf.set(res.json.id as number, spec);
}

/** Every page of a list, following next_rest_url; checks that each page's total agrees. */
async function everyPage(query: Record<string, FormValue>, auth?: string): Promise<{ total: number; keys: string[] }> {
  let res = await list({ per_page: 2, ...query }, auth);
  const keys: string[] = [];
  const total = res.json.total as number;
  for (;;) {
    expect(res.status).toBe(200);
    expect(res.json.total).toBe(total);
    keys.push(...(res.json.events as Json[]).map((e) => specOf.get(e.id as number)?.key ?? `other:${e.id}`));
    if (!res.json.next_rest_url) break;
    res = await api(res.json.next_rest_url as string, { token: auth });
  }
  expect(keys.length).toBe(total);
  return { total, keys };
}

/** The window's list through every counted source and through the paths that read every candidate must be the same. */
async function expectWindow(query: Record<string, FormValue>, expected: string[], auth?: string): Promise<void> {
  const counted = await everyPage(query, auth);
  expect(counted.keys).toEqual(expected);
  expect(counted.total).toBe(expected.length);
  for (const variant of [
    { categories: links.category }, { venue: links.venue }, { featured: 'true' },
    { categories: `${links.category},${links.empty}` }, { categories: links.category, featured: 'true' }, { search: word },
  ]) {
    expect({ variant, ...await everyPage({ ...query, ...variant }, auth) }).toEqual({ variant, ...counted });
  }
}

const window = { start_date: `${Y}-01-20`, end_date: `${Y}-03-10` };

beforeAll(async () => {
  token = await editor();
  const make = async (path: string, body: Json) => {
    const res = await api(path, { method: 'POST', token, body });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.json.id as number;
  };
  links.category = await make('/categories', { name: `Counted ${word}` });
  links.empty = await make('/categories', { name: `Counted empty ${word}` });
  links.venue = await make('/venues', { venue: `Counted hall ${word}` });
  for (const spec of SPECS) await create(spec);
  const trashed = { key: 'j', start: d('02-21', '10:00:00'), end: d('02-21', '11:00:00') };
  await create(trashed);
  expect((await api(`/events/${ids.get('j')}`, { method: 'DELETE', token })).status).toBe(200);
});

describe('GET /events totals from counts — who sees what', () => {
  it('anonymous: published events that start on/after the start day and end by the end day', async () => {
    await expectWindow(window, ['a', 'b', 'd', 'f']);
  });

  it('editor: every status but trash', async () => {
    await expectWindow(window, ['a', 'b', 'c', 'd', 'i', 'p', 'f'], token);
  });

  it('editor with a status filter: only those statuses, trash included when asked', async () => {
    await expectWindow({ ...window, status: 'draft' }, ['c'], token);
    await expectWindow({ ...window, status: 'publish,private' }, ['a', 'b', 'd', 'i', 'f'], token);
    await expectWindow({ ...window, status: 'trash' }, ['j'], token);
  });

  it('an author asking for published events sees the published events of everyone', async () => {
    const author = await tokenFor('author', `counted-author-${word}`);
    await expectWindow({ ...window, status: 'publish' }, ['a', 'b', 'd', 'f'], author);
    await expectWindow(window, ['a', 'b', 'd', 'f'], author); // no drafts of their own here: the same events
  });
});

describe('GET /events totals from counts — an author\'s own events', () => {
  it('an author sees everyone\'s published events and their own drafts, counted on both parts', async () => {
    const author = await tokenFor('author', `counted-own-${word}`);
    const res = await api('/events', { method: 'POST', token: author, body: { title: `Counted o ${word}`, start_date: d('02-12', '10:00:00'),
      end_date: d('02-12', '11:00:00'), status: 'draft', categories: [links.category], venue: links.venue, featured: true } });
    expect(res.status).toBe(201);
    specOf.set(res.json.id as number, { key: 'o', start: d('02-12', '10:00:00'), end: d('02-12', '11:00:00'), status: 'draft' });
    await expectWindow(window, ['a', 'b', 'o', 'd', 'f'], author);
    await expectWindow({ ...window, status: 'draft' }, ['o'], author);
    await expectWindow({ ...window, status: 'draft,publish' }, ['a', 'b', 'o', 'd', 'f'], author);
    // Other callers do not see it.
    await expectWindow(window, ['a', 'b', 'd', 'f']);
    expect((await api(`/events/${res.json.id}`, { method: 'DELETE', token: author, query: { force: 'true' } })).status).not.toBe(200);
    expect((await api(`/events/${res.json.id}`, { method: 'DELETE', token, query: { force: 'true' } })).status).toBe(200);
  });
});

describe('GET /events totals from counts — window shapes', () => {
  it('strict bounds inside days (partial days at both edges)', async () => {
    await expectWindow({ start_date: `${Y}-01-20T00:00:01Z`, end_date: `${Y}-03-10T22:30:00Z`, strict_dates: true }, ['b', 'd']);
  });

  it('a window within one day, and one across a single month boundary', async () => {
    await expectWindow({ start_date: `${Y}-01-25`, end_date: `${Y}-01-25` }, ['b']);
    await expectWindow({ start_date: `${Y}-02-28`, end_date: `${Y}-03-01` }, ['p'], token);
  });

  it('a whole month and more: month counts in the middle, long events past the end subtracted', async () => {
    await expectWindow({ start_date: `${Y}-01-01`, end_date: `${Y}-03-31` }, ['l', 'a', 'b', 'd', 'k', 'g', 'f', 'm']);
    await expectWindow({ start_date: `${Y}-01-01`, end_date: `${Y}-05-31` }, ['l', 'a', 'b', 'd', 'e', 'k', 'g', 'f', 'm']);
  });

  it('a start bound with starts_before and no end bound', async () => {
    await expectWindow({ start_date: `${Y}-01-20`, starts_before: `${Y}-02-15` }, ['a', 'b', 'd']);
  });

  it('ends_after without a start bound: events still running after it, from before it too', async () => {
    await expectWindow({ ends_after: `${Y}-02-15`, end_date: `${Y}-03-10` }, ['d', 'f']);
    await expectWindow({ ends_after: `${Y}-02-15`, end_date: `${Y}-03-10` }, ['d', 'i', 'p', 'f'], token);
  });

  it('ends_after with an earlier start bound (strict instants): the long events that started before it come first', async () => {
    await expectWindow({ start_date: `${Y}-01-01T00:00:00Z`, ends_after: `${Y}-03-10T12:00:00Z`, end_date: `${Y}-12-31T00:00:00Z`,
      strict_dates: true }, ['e', 'k', 'g', 'f', 'm']);
    await expectWindow({ start_date: `${Y}-03-10T00:00:00Z`, ends_after: `${Y}-03-10T12:00:00Z`, end_date: `${Y}-12-31T00:00:00Z`,
      strict_dates: true, per_page: 1 }, ['g', 'f', 'm']);
  });

  it('a page past the last is 404, the last page is not', async () => {
    expect((await list({ ...window, per_page: 2, page: 2 })).status).toBe(200);
    const past = await list({ ...window, per_page: 2, page: 3 });
    expect(past.status).toBe(404);
    expect(past.json.code).toBe('event-archive-page-not-found');
  });
});

describe('GET /events totals from counts — after changes', () => {
  const patch = async (key: string, body: Json) => {
    const res = await api(`/events/${ids.get(key)}`, { method: 'POST', token, body });
    expect(res.status).toBe(200);
  };

  it('moving, unpublishing, hiding, showing and deleting events moves the counts with them', async () => {
    await patch('b', { start_date: d('04-02', '10:00:00'), end_date: d('04-02', '12:00:00') }); // out of the window
    await patch('m', { start_date: d('02-05', '10:00:00'), end_date: d('02-05', '11:00:00') }); // into it
    await patch('d', { status: 'draft' });
    await patch('h', { hide_from_listings: false });
    await patch('e', { end_date: d('03-08', '09:00:00') }); // a long event now ending inside
    await patch('k', { start_date: d('03-01', '10:00:00'), end_date: d('03-20', '10:00:00') }); // still past the end, longer
    expect((await api(`/events/${ids.get('f')}`, { method: 'DELETE', token, query: { force: 'true' } })).status).toBe(200);
    await expectWindow(window, ['a', 'h', 'm', 'e']);
    await expectWindow(window, ['a', 'h', 'm', 'c', 'd', 'i', 'p', 'e'], token);
  });

  it('restoring a trashed event counts it again', async () => {
    await patch('j', { status: 'publish' });
    await expectWindow(window, ['a', 'h', 'm', 'j', 'e']);
  });
});
