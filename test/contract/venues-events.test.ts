/**
 * Contract tests of venues and organizers together with events (run for both kinds): inline creation and
 * de-duplication from event writes (reference §10.1–10.3, contract §7), the list filters that depend on
 * links (`event`, `has_events`, `only_with_upcoming`, reference §7), and unlinking on trash / force delete
 * (reference §10.5).
 */
import { api, meterOf, tokenFor } from '../support/api.js';
import { eventBody, expectError, expectInvalid, expectStatus, uid } from './helpers/events.js';

type Kind = 'venue' | 'organizer';
const PLURAL = { venue: 'venues', organizer: 'organizers' } as const;

let editor: string;
beforeAll(async () => {
  editor = await tokenFor('editor');
});

const word = (): string => `zq${uid().replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!)}`;

describe.each(['venue', 'organizer'] as const)('%s links', (kind: Kind) => {
  const plural = PLURAL[kind];
  /** The event field: a venue is one value, organizers a list. */
  const link = (value: unknown) => ({ [kind]: kind === 'venue' ? value : [value] });
  /** The linked ids of an event as the API shows them. */
  const linkedIds = (ev: any): number[] =>
    kind === 'venue' ? (Array.isArray(ev.venue) ? [] : [ev.venue.id]) : (ev.organizer as { id: number }[]).map((o) => o.id);
  const make = async (extra: Record<string, unknown> = {}): Promise<any> => {
    const res = await api(`/${plural}`, { method: 'POST', token: editor, body: { [kind]: `Linked ${kind} ${uid()}`, ...extra } });
    if (res.status !== 201) throw new Error(`creating a fixture ${kind} failed: ${res.status} ${res.text}`);
    return res.json;
  };
  const makeEvent = async (extra: Record<string, unknown>): Promise<any> => {
    const res = await api('/events', { method: 'POST', token: editor, body: eventBody(extra) });
    if (res.status !== 201) throw new Error(`creating a fixture event failed: ${res.status} ${res.text}`);
    return res.json;
  };
  const list = (query: Record<string, string | number | boolean>, token?: string) => api(`/${plural}`, { query, token });
  const ids = (res: { json: any }) => ((res.json[plural] ?? []) as { id: number }[]).map((r) => r.id).sort((a, b) => a - b);

  describe('inline objects in event writes', () => {
    it('create a new record (201 event), readable at its own route', async () => {
      const name = `Inline ${kind} ${uid()}`;
      const ev = await makeEvent(link({ [kind]: name, phone: '+1 222' }));
      const [id] = linkedIds(ev);
      expect(id).toBeGreaterThan(0);
      const rec = await api(`/${plural}/${id}`);
      expectStatus(rec, 200);
      expect(rec.json).toMatchObject({ [kind]: name, phone: '+1 222', status: 'publish' });
    });

    it('de-duplicate onto an existing record by name (+ description) and write its other sent fields', async () => {
      const existing = await make({ description: 'Same text', phone: 'old' });
      const ev = await makeEvent(link({ [kind]: existing[kind].toLowerCase(), description: 'SAME TEXT', phone: 'new' }));
      expect(linkedIds(ev)).toEqual([existing.id]);
      expect((await api(`/${plural}/${existing.id}`)).json).toMatchObject({ [kind]: existing[kind], phone: 'new' });
    });

    it('are validated with the create rules: 400 rest_invalid_param keyed by the event field; nothing is stored', async () => {
      const name = `Rejected ${kind} ${uid()}`;
      expectInvalid(await api('/events', { method: 'POST', token: editor, body: eventBody(link({ [kind]: name, website: 'bad' })) }), kind);
      expectInvalid(await api('/events', { method: 'POST', token: editor, body: eventBody(link({ phone: '1', email: 'x' })) }), kind);
      expectInvalid(await api('/events', { method: 'POST', token: editor, body: eventBody(link({ [kind]: name, image: 12 })) }), kind);
      const day = '2040-05-05';
      const rejected = await api('/events', { method: 'POST', token: editor,
        body: eventBody({ ...link({ [kind]: name }), start_date: `${day} 20:00:00`, end_date: `${day} 10:00:00` }) });
      expect(rejected.status).toBe(400);
      const found = await list({ search: name }, editor);
      expect(found.json.total).toBe(0);
    });

    it('link existing records by id and {id}', async () => {
      const a = await make();
      const byId = await makeEvent(link(a.id));
      expect(linkedIds(byId)).toEqual([a.id]);
      const byObject = await makeEvent(link({ id: a.id }));
      expect(linkedIds(byObject)).toEqual([a.id]);
    });
  });

  describe('embedded in events (reference §4.1 notes)', () => {
    it('carry json_ld on the single event GET only, and are blanked by their own password', async () => {
      const rec = await make({ phone: '12', description: 'inside', password: 'own secret' });
      const open = await make({ phone: '34' });
      const ev = await makeEvent(kind === 'venue' ? { venue: rec.id } : { organizer: [rec.id, open.id] });
      const single = (await api(`/events/${ev.id}`)).json;
      const embedded = kind === 'venue' ? single.venue : single.organizer[0];
      expect(embedded).toMatchObject({ id: rec.id, [kind]: rec[kind], phone: '', description: '' });
      expect(embedded.json_ld).toMatchObject({ '@type': kind === 'venue' ? 'Place' : 'Organization', name: rec[kind] });
      if (kind === 'organizer') expect(single.organizer[1]).toMatchObject({ id: open.id, phone: '34' });
      const inList = await api('/events', { query: { include: String(ev.id) } });
      const listed = kind === 'venue' ? inList.json.events[0].venue : inList.json.events[0].organizer[0];
      expect(listed.id).toBe(rec.id);
      expect(listed).not.toHaveProperty('json_ld');
    });
  });

  describe('list filters that depend on links (reference §7)', () => {
    it('event=<id> lists the records linked to that event; an unknown event is 400', async () => {
      const w = word();
      const a = await make({ [kind]: `${w} a` });
      await make({ [kind]: `${w} b` });
      const ev = await makeEvent(link(a.id));
      expect(ids(await list({ event: ev.id, search: w }))).toEqual([a.id]);
      const res = await list({ event: ev.id });
      expect(ids(res)).toEqual([a.id]);
      expect(res.json.rest_url).toContain(`event=${ev.id}`);
      // It reads the event and its linked records, not the whole collection (which holds every test's records).
      expect(meterOf(res).items).toBeLessThanOrEqual(4);
      expectInvalid(await list({ event: 987654321 }), 'event');
    });

    it('has_events: true = linked to a published event; false = to none (contract §4: private ones do not count)', async () => {
      const w = word();
      const published = await make({ [kind]: `${w} published` });
      const draftOnly = await make({ [kind]: `${w} draft only` });
      const privateOnly = await make({ [kind]: `${w} private only` });
      const none = await make({ [kind]: `${w} none` });
      await makeEvent(link(published.id));
      await makeEvent({ ...link(draftOnly.id), status: 'draft' });
      await makeEvent({ ...link(privateOnly.id), status: 'private' });
      expect(ids(await list({ search: w, has_events: 'true' }))).toEqual([published.id]);
      expect(ids(await list({ search: w, has_events: 'yes' }))).toEqual([published.id]);
      const rest = [draftOnly.id, privateOnly.id, none.id].sort((a, b) => a - b);
      expect(ids(await list({ search: w, has_events: 'false' }))).toEqual(rest);
      expect(ids(await list({ search: w, has_events: 'whatever' }))).toEqual(rest);
    });

    it('has_events follows event changes: publishing, unlinking, trashing the event', async () => {
      const w = word();
      const rec = await make({ [kind]: `${w} follows` });
      const ev = await makeEvent({ ...link(rec.id), status: 'draft' });
      expect(ids(await list({ search: w, has_events: true }))).toEqual([]);
      expectStatus(await api(`/events/${ev.id}`, { method: 'PATCH', token: editor, body: { status: 'publish' } }), 200);
      expect(ids(await list({ search: w, has_events: true }))).toEqual([rec.id]);
      expectStatus(await api(`/events/${ev.id}`, { method: 'PATCH', token: editor, body: { [kind]: kind === 'venue' ? 0 : [] } }), 200);
      expect(ids(await list({ search: w, has_events: true }))).toEqual([]);
    });

    it('only_with_upcoming: linked to an event starting now or later that the caller may see', async () => {
      const w = word();
      const upcoming = await make({ [kind]: `${w} upcoming` });
      const past = await make({ [kind]: `${w} past` });
      const hiddenDraft = await make({ [kind]: `${w} draft event` });
      await makeEvent(link(upcoming.id));
      await makeEvent({ ...link(past.id), start_date: '2001-02-03 10:00:00', end_date: '2001-02-03 12:00:00' });
      await makeEvent({ ...link(hiddenDraft.id), status: 'draft' });
      expect(ids(await list({ search: w, only_with_upcoming: 'true' }))).toEqual([upcoming.id]);
      expect(ids(await list({ search: w, only_with_upcoming: 'true' }, editor))).toEqual([upcoming.id, hiddenDraft.id].sort((a, b) => a - b));
      expect(ids(await list({ search: w, only_with_upcoming: 'false' }))).toHaveLength(3);
      const res = await list({ search: w, only_with_upcoming: 1 });
      expect(res.json.rest_url).toContain('only_with_upcoming=true');
    });
  });

  describe('trash and force delete unlink the record from its events (reference §10.5)', () => {
    it('trashing removes it from every event that used it', async () => {
      const rec = await make();
      const keep = await make();
      const ev1 = await makeEvent(kind === 'venue' ? { venue: rec.id } : { organizer: [rec.id, keep.id] });
      const ev2 = await makeEvent(link(rec.id));
      expectStatus(await api(`/${plural}/${rec.id}`, { method: 'DELETE', token: editor }), 200);
      const after1 = (await api(`/events/${ev1.id}`, { token: editor })).json;
      const after2 = (await api(`/events/${ev2.id}`, { token: editor })).json;
      expect(linkedIds(after1)).toEqual(kind === 'venue' ? [] : [keep.id]);
      expect(linkedIds(after2)).toEqual([]);
      expect((await list({ event: ev2.id }, editor)).json.total).toBe(0);
    });

    it('force delete removes it from its events as well', async () => {
      const rec = await make();
      const ev = await makeEvent(link(rec.id));
      expectStatus(await api(`/${plural}/${rec.id}`, { method: 'DELETE', token: editor, query: { force: true } }), 200);
      expect(linkedIds((await api(`/events/${ev.id}`, { token: editor })).json)).toEqual([]);
      expectError(await api(`/${plural}/${rec.id}`, { token: editor }), 404, `rest-${kind}-not-found`);
    });
  });
});
