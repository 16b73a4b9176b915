/**
 * A mixed concurrent workload against a running API (contract §3, §4, §7, §9): `runWorkload` starts ~30 virtual
 * users of every role for a while, each sending requests back to back, records every response's status per request
 * kind and checks the service's invariants on every response and, once every user has stopped, on the whole calendar.
 *
 *   anonymous    lists (/events, /events?categories=, /venues, /categories?hide_empty=1) and singles of any id
 *   subscriber   signed-in lists and singles, a create that must be refused
 *   contributor  creates (inline venue/organizer objects, category/tag names shared by everyone, so term and venue
 *                creates race), own updates and trashes, `status=draft` lists
 *   author       the same, may publish; restores, deletes twice, creates categories (colliding names), tags (403)
 *   editor       plain partial updates and If-Match updates of a few shared busy events, creates linking venues by
 *                id that other editors trash meanwhile, force deletes, category and tag creates
 *
 * Invariants (each reported with how often it was checked):
 *   no-5xx            no 5xx, no failed connection
 *   no-409            no 409 anywhere; 412 only on If-Match writes
 *   expected-status   every kind answers one of its expected statuses (and the expected error codes)
 *   visibility        no reader is shown a record they may not read (§4): anonymous lists and singles only publish,
 *                     signed-in lists only publish or their own, status=draft lists only own drafts, editors never
 *                     trash without asking; never an embedded trashed venue or organizer (trashing unlinks, §7)
 *   no-lost-update    per busy event, every 2xx update returned its own new version, the versions are exactly
 *                     v0+1…v0+n, the final version is v0+n and the final `excerpt` and `cost` are those of the
 *                     last successful update of each field (partial updates keep the other field)
 *   list-envelope     total_pages = ceil(total / per_page), X-TEC-Total = total, a page holds ≤ per_page records
 *   exact-totals      after the run: /events totals (anonymous, editor, editor trash) = paging recount = ledger of
 *                     every create/update/delete answered; each record's status = the ledger's; /venues and
 *                     /organizers totals = paging recounts (anonymous and editor)
 *   term-counts       category and tag `count` = published events linking them, recounted from the event list;
 *                     /categories?hide_empty=1 lists exactly the terms with such events
 *   unique-names      one term per name (case-insensitive) after colliding creates; one published venue/organizer
 *                     per shared inline name
 *   no-oversell       a reservation rush on one rsvp ticket (contract §19; anonymous users reserve 1–2 places and
 *                     cancel some by token): after the run its places taken never exceed its capacity and equal the
 *                     places of the reservations answered 201 less those cancelled, and the organisers' attendee
 *                     list holds exactly the reservations left
 *
 * Embedded venues/organizers that are not published are allowed (contract §7 and reference §11.2: embedded records
 * show whatever their status); the report counts how often an anonymous reader saw one, as a note.
 */
import { signLocalToken, type TokenRole } from '../../lib/local/token-sign.js';
import { Rng } from '../bench/common.js';

export interface WorkloadOptions {
  /** The API root, e.g. http://127.0.0.1:3000/calendar/events/v1 */
  apiUrl: string;
  /** The HS256 secret the server accepts. */
  secret: string;
  /** Virtual users (default 30). */
  users?: number;
  /** How long users keep starting requests. */
  durationMs: number;
  seed?: number;
  /** Shared events every editor updates (default 3). */
  busyEvents?: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

export interface KindStats {
  requests: number;
  statuses: Record<string, number>;
}

export interface InvariantResult {
  name: string;
  description: string;
  /** How many checks ran. */
  checked: number;
  violations: number;
  /** The first few violations, for the report. */
  examples: string[];
}

export interface BusyResult {
  id: number;
  v0: number;
  finalVersion: number;
  plainOk: number;
  ifMatchOk: number;
  ifMatch412: number;
}

export interface WorkloadReport {
  ok: boolean;
  users: Record<string, number>;
  durationMs: number;
  requests: number;
  kinds: Record<string, KindStats>;
  invariants: InvariantResult[];
  busy: BusyResult[];
  /** Final figures: events per status, terms, venues, organizers. */
  totals: Record<string, number>;
  notes: string[];
}

// ------------------------------------------------------------------------------------------------ kinds

interface KindSpec {
  /** Statuses this request may answer. */
  ok: readonly number[];
  /** For each allowed 4xx status: the error codes it may carry. */
  codes?: Record<number, readonly string[]>;
}

const READ_LIST: KindSpec = { ok: [200] };
const KINDS = {
  'anon GET /events': { ok: [200, 404], codes: { 404: ['event-archive-page-not-found'] } },
  'anon GET /events?categories=': READ_LIST,
  'anon GET /events/{id}': { ok: [200, 403, 404], codes: { 403: ['event-not-accessible', 'event-no-longer-available'], 404: ['rest-event-not-found'] } },
  'anon GET /venues': READ_LIST,
  'anon GET /venues/{id}': { ok: [200, 403, 404], codes: { 403: ['venue-not-accessible', 'venue-no-longer-available'], 404: ['rest-venue-not-found'] } },
  'anon GET /categories?hide_empty=1': READ_LIST,
  'user GET /events': READ_LIST,
  'user GET /events?status=draft': READ_LIST,
  'user GET /events/{id}': { ok: [200, 403, 404], codes: { 403: ['event-not-accessible', 'event-no-longer-available'], 404: ['rest-event-not-found'] } },
  'editor GET /events?status=trash': READ_LIST,
  'editor GET /events/{busy}': { ok: [200] },
  'POST /events': { ok: [201] },
  'POST /events (venue id)': { ok: [201, 400], codes: { 400: ['rest_invalid_param'] } },
  'subscriber POST /events': { ok: [403], codes: { 403: ['rest_forbidden'] } },
  'POST /events/{busy}': { ok: [200] },
  'POST /events/{busy} If-Match': { ok: [200, 412], codes: { 412: ['rest_precondition_failed'] } },
  'POST /events/{own}': { ok: [200] },
  'POST /events/{own} restore': { ok: [200] },
  'DELETE /events/{own}': { ok: [200] },
  'DELETE /events/{own} again': { ok: [410], codes: { 410: ['event-is-in-trash'] } },
  'DELETE /events/{own}?force=true': { ok: [200] },
  'POST /categories': { ok: [201, 400], codes: { 400: ['term_exists'] } },
  'POST /tags': { ok: [201, 400], codes: { 400: ['term_exists'] } },
  'author POST /tags': { ok: [403], codes: { 403: ['rest_forbidden'] } },
  'POST /venues': { ok: [201] },
  'DELETE /venues/{id}': { ok: [200] },
  'POST /attendees': { ok: [201, 409, 429], codes: { 409: ['rest-ticket-sold-out'], 429: ['rest_too_many_attempts'] } },
  'DELETE /attendees/{id}?token=': { ok: [200] },
} as const satisfies Record<string, KindSpec>;
type Kind = keyof typeof KINDS;

const INVARIANTS = {
  'no-5xx': 'no 5xx and no failed connection',
  'no-409': 'no 409 (plain updates apply one after another); 412 only on If-Match',
  'expected-status': 'every request kind answers one of its expected statuses and error codes',
  visibility: 'no reader sees a record they may not read; no embedded trashed venue/organizer',
  'no-lost-update': 'every 2xx update of a busy event applied: versions v0+1..v0+n, last excerpt/cost kept',
  'list-envelope': 'total_pages = ceil(total/per_page), X-TEC-Total = total, page size <= per_page',
  'exact-totals': 'list totals = paging recount = ledger of answered writes; statuses as the ledger says',
  'term-counts': 'term count = published events linking it (recount); hide_empty lists exactly those',
  'unique-names': 'one term per name after racing creates; one published venue/organizer per inline name',
  'no-oversell': 'rush on one rsvp ticket: places taken <= capacity, = places reserved less cancelled; attendee list exact',
} as const;
type Invariant = keyof typeof INVARIANTS;

type Role = 'anonymous' | Exclude<TokenRole, 'administrator'>;
/** 15 slots: 30 users are 8 anonymous, 8 editors, 8 authors, 4 contributors, 2 subscribers. */
const ROLE_CYCLE: readonly Role[] = ['anonymous', 'editor', 'author', 'anonymous', 'contributor', 'editor', 'author', 'anonymous',
  'author', 'editor', 'anonymous', 'author', 'editor', 'contributor', 'subscriber'];

type Status = 'publish' | 'draft' | 'pending' | 'trash' | 'deleted';

interface LedgerEntry {
  id: number;
  status: Status;
  ownerVu: number;
}

interface BusyEvent {
  id: number;
  v0: number;
  /** The fields as the create answered them (a cost of 0 reads "Free"). */
  initial: { excerpt: string; cost: string };
  /** Successful updates: the version each returned, the field it set and the value. */
  applied: { version: number; field: 'excerpt' | 'cost'; value: string; kind: Kind }[];
  ifMatch412: number;
}

interface Answer {
  status: number;
  json: any;
  headers: Headers;
}

// ------------------------------------------------------------------------------------------------ the driver

const PER_PAGE = 50;
const WIDE = { start_date: '1970-01-01', end_date: '9999-12-31' } as const;

export async function runWorkload(options: WorkloadOptions): Promise<WorkloadReport> {
  const { apiUrl, secret, durationMs } = options;
  const userCount = options.users ?? 30;
  const seed = options.seed ?? 1;
  const log = options.log ?? (() => undefined);
  const tag = `w${seed.toString(36)}${Date.now().toString(36).slice(-4)}`;
  const api = apiUrl.replace(/\/+$/, '');

  // Shared names: every user draws from these, in random letter case, so creates of the same term, venue or
  // organizer race each other (terms are matched case-insensitively, venues/organizers by name).
  const CATEGORY_NAMES = ['Music', 'Film', 'Theatre', 'Dance', 'Talks', 'Family'].map((n) => `${n} ${tag}`);
  const TAG_NAMES = ['jazz', 'free', 'outdoor', 'kids', 'late'].map((n) => `${n} ${tag}`);
  const VENUE_NAMES = ['Hall 1', 'Hall 2', 'Hall 3', 'Hall 4', 'Hall 5'].map((n) => `${n} ${tag}`);
  const ORGANIZER_NAMES = ['Org 1', 'Org 2', 'Org 3', 'Org 4'].map((n) => `${n} ${tag}`);

  const kinds = new Map<Kind, KindStats>();
  const invariants = new Map<Invariant, InvariantResult>(
    (Object.keys(INVARIANTS) as Invariant[]).map((name) => [name, { name, description: INVARIANTS[name], checked: 0, violations: 0, examples: [] }]),
  );
  const notes = new Map<string, number>();
  const note = (what: string) => notes.set(what, (notes.get(what) ?? 0) + 1);
  const checked = (inv: Invariant, n = 1) => {
    invariants.get(inv)!.checked += n;
  };
  const violate = (inv: Invariant, detail: string) => {
    const r = invariants.get(inv)!;
    r.checked++;
    r.violations++;
    if (r.examples.length < 8) r.examples.push(detail);
    log(`VIOLATION ${inv}: ${detail}`);
  };
  /** Checks a condition: counts it, and records a violation with the detail when it does not hold. */
  const expectThat = (inv: Invariant, ok: boolean, detail: () => string): boolean => {
    if (ok) checked(inv);
    else violate(inv, detail());
    return ok;
  };

  // --------------------------------------------------------------------------------------------- HTTP

  const tokens = new Map<string, string>();
  const tokenOf = async (role: TokenRole, sub: string): Promise<string> => {
    let t = tokens.get(sub);
    if (!t) tokens.set(sub, (t = await signLocalToken({ secret, role, sub })));
    return t;
  };

  const snippet = (json: any): string => JSON.stringify(json ?? null).slice(0, 300);

  /** Sends one request, records its status under `kind` and checks the status invariants. */
  async function call(kind: Kind | null, method: string, path: string,
    init: { token?: string; body?: unknown; headers?: Record<string, string>; query?: Record<string, string | number> } = {}): Promise<Answer> {
    const url = new URL(`${api}${path}`);
    for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { ...init.headers };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    let answer: Answer;
    try {
      const res = await fetch(url, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: AbortSignal.timeout(120_000) });
      const text = await res.text();
      let json: any;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = { unparsed: text.slice(0, 200) };
      }
      answer = { status: res.status, json, headers: res.headers };
    } catch (e) {
      if (kind) count(kind, 'ERR');
      violate('no-5xx', `${kind ?? method} ${url.pathname}${url.search}: no answer (${(e as Error).message})`);
      throw new TransportError();
    }
    const where = `${kind ?? method} ${url.pathname}${url.search}`;
    const { status, json } = answer;
    if (kind) count(kind, String(status));
    expectThat('no-5xx', status < 500, () => `${where} → ${status} ${snippet(json)}`);
    expectThat('no-409', status !== 409 || kind === 'POST /attendees', () => `${where} → 409 ${snippet(json)}`);
    if (status === 412) expectThat('no-409', kind === 'POST /events/{busy} If-Match', () => `${where} → 412 without If-Match ${snippet(json)}`);
    if (kind && status < 500) {
      const spec: KindSpec = KINDS[kind];
      const codes = spec.codes?.[status];
      expectThat('expected-status', spec.ok.includes(status) && (status < 400 || !codes || codes.includes(json?.code)),
        () => `${where} → ${status} ${snippet(json)}`);
    }
    return answer;
  }

  function count(kind: Kind, status: string): void {
    let s = kinds.get(kind);
    if (!s) kinds.set(kind, (s = { requests: 0, statuses: {} }));
    s.requests++;
    s.statuses[status] = (s.statuses[status] ?? 0) + 1;
  }

  /** The version part of a record's ETag ("<version>-<hash>"). */
  const versionOf = (a: Answer): number | undefined => {
    const m = /^"(\d+)-/.exec(a.headers.get('etag') ?? '');
    return m ? Number(m[1]) : undefined;
  };

  /** Checks a list response's envelope (list-envelope) and returns its records. */
  function envelope(a: Answer, key: string, perPage: number, where: string): any[] {
    const items = Array.isArray(a.json?.[key]) ? (a.json[key] as any[]) : [];
    if (a.status !== 200) return items;
    const total = a.json?.total;
    const pages = a.json?.total_pages;
    const header = a.headers.get('x-tec-total');
    expectThat('list-envelope', Number.isInteger(total) && pages === Math.ceil(total / perPage) && items.length <= perPage
      && (header === null || Number(header) === total),
    () => `${where}: total ${total}, total_pages ${pages}, X-TEC-Total ${header}, ${items.length} records for per_page ${perPage}`);
    return items;
  }

  /** Every page of a list, for the checks after the run. */
  async function allPages(path: string, key: string, query: Record<string, string | number>, token?: string):
    Promise<{ total: number; items: any[] }> {
    const items: any[] = [];
    let total = -1;
    for (let page = 1; ; page++) {
      const a = await call(null, 'GET', path, { token, query: { ...query, per_page: PER_PAGE, page } });
      if (a.status !== 200) {
        violate('exact-totals', `GET ${path} page ${page} ${JSON.stringify(query)} → ${a.status} ${snippet(a.json)}`);
        break;
      }
      const got = envelope(a, key, PER_PAGE, `GET ${path} page ${page}`);
      if (total < 0) total = a.json.total;
      else expectThat('exact-totals', a.json.total === total, () => `GET ${path} ${JSON.stringify(query)}: total ${a.json.total} on page ${page}, ${total} on page 1`);
      items.push(...got);
      if (page >= a.json.total_pages || got.length === 0) break;
    }
    const ids = new Set(items.map((r) => r.id));
    expectThat('exact-totals', ids.size === items.length, () => `GET ${path} ${JSON.stringify(query)}: ${items.length - ids.size} records on two pages`);
    expectThat('exact-totals', items.length === total,
      () => `GET ${path} ${JSON.stringify(query)}${token ? ' (signed in)' : ''}: total ${total}, paging found ${items.length}`);
    return { total, items };
  }

  // --------------------------------------------------------------------------------------------- shared state

  const ledger = new Map<number, LedgerEntry>();
  const busy: BusyEvent[] = [];
  /** Venues editors created by POST /venues: any editor links them by id; their creator trashes them. */
  const stageVenues = new Map<number, { id: number; ownerVu: number; trashed: boolean }>();
  const categoryIds = new Set<number>();
  /** Venues events linked, whatever their status (contributors' inline venues are drafts). */
  const venueIds = new Set<number>();
  /** Sub → the integer user id the service gave it (learned from the `author` of a create). */
  const userIds = new Map<string, number>();

  const editorToken = await tokenOf('editor', `${tag}-audit-editor`);

  // Shared busy events, created before the users start: every editor updates them.
  const busyCount = options.busyEvents ?? 3;
  const soon = (rng: Rng): { start_date: string; end_date: string } => {
    const start = new Date(Date.now() + (1 + rng.int(300)) * 86_400_000);
    const day = start.toISOString().slice(0, 10);
    const hour = 8 + rng.int(10);
    return { start_date: `${day} ${String(hour).padStart(2, '0')}:00`, end_date: `${day} ${String(hour + 1).padStart(2, '0')}:30` };
  };
  const setupRng = new Rng(seed);
  for (let i = 0; i < busyCount; i++) {
    const a = await call(null, 'POST', '/events', { token: editorToken, body: { title: `Busy ${tag} ${i}`, ...soon(setupRng), status: 'publish',
      venue: { venue: VENUE_NAMES[i % VENUE_NAMES.length] }, categories: [CATEGORY_NAMES[i % CATEGORY_NAMES.length]], tags: [TAG_NAMES[0]],
      excerpt: 'start', cost: '0' } });
    if (a.status !== 201) throw new Error(`could not create busy event ${i}: ${a.status} ${snippet(a.json)}`);
    busy.push({ id: a.json.id, v0: versionOf(a) ?? 0, initial: { excerpt: a.json.excerpt, cost: a.json.cost }, applied: [], ifMatch412: 0 });
    ledger.set(a.json.id, { id: a.json.id, status: 'publish', ownerVu: -1 });
  }

  // The reservation rush (contract §19): one published event with one rsvp ticket of RUSH_CAPACITY places.
  const RUSH_CAPACITY = 20;
  const rushEvent = await call(null, 'POST', '/events', { token: editorToken, body: { title: `Rush ${tag}`, ...soon(setupRng), status: 'publish' } });
  if (rushEvent.status !== 201) throw new Error(`could not create the rush event: ${rushEvent.status} ${snippet(rushEvent.json)}`);
  ledger.set(rushEvent.json.id, { id: rushEvent.json.id, status: 'publish', ownerVu: -1 });
  const rushTicket = await call(null, 'POST', '/tickets', { token: editorToken, body: { post_id: rushEvent.json.id, title: 'Place', capacity: RUSH_CAPACITY } });
  if (rushTicket.status !== 201) throw new Error(`could not create the rush ticket: ${rushTicket.status} ${snippet(rushTicket.json)}`);
  const rush = { ticket: rushTicket.json.id as number, event: rushEvent.json.id as number, reserved: 0, cancelled: 0,
    held: new Map<number, { token: string; quantity: number }>(), attempts: 0 };

  // Baselines, so that the driver also runs against a calendar that already has records (no other writer meanwhile).
  const baseline = {
    anon: (await call(null, 'GET', '/events', { query: { ...WIDE, per_page: 1 } })).json?.total as number,
    editor: (await call(null, 'GET', '/events', { token: editorToken, query: { ...WIDE, per_page: 1 } })).json?.total as number,
    trash: (await call(null, 'GET', '/events', { token: editorToken, query: { ...WIDE, per_page: 1, status: 'trash' } })).json?.total as number,
  };
  // The busy events are ours: the ledger counts them.
  baseline.anon -= busyCount + 1;
  baseline.editor -= busyCount + 1;

  // --------------------------------------------------------------------------------------------- users

  const deadline = Date.now() + durationMs;
  const roles: Record<string, number> = {};
  let counter = 0;
  const unique = (vu: number) => `${vu}-${++counter}`;

  async function user(vu: number): Promise<void> {
    const role = ROLE_CYCLE[vu % ROLE_CYCLE.length]!;
    roles[role] = (roles[role] ?? 0) + 1;
    const rng = new Rng(seed * 1_000 + vu);
    const sub = `${tag}-${role}-${vu}`;
    const token = role === 'anonymous' ? undefined : await tokenOf(role, sub);
    const own: number[] = [];
    const ownVenues: number[] = [];
    const upper = (name: string) => (rng.chance(0.3) ? name.toUpperCase() : rng.chance(0.3) ? name.toLowerCase() : name);
    const someEvent = (): number | undefined => {
      const ids = [...ledger.keys()];
      return ids.length ? rng.pick(ids) : undefined;
    };
    const myId = () => userIds.get(sub);

    /** The visibility checks of one event as `role` sees it in a list or a single read. */
    const visible = (e: any, where: string, opts: { status?: string } = {}) => {
      const s = e?.status;
      if (role === 'anonymous' || role === 'subscriber') {
        expectThat('visibility', s === 'publish', () => `${role} ${where} shows event ${e?.id} with status ${s}`);
      } else if (role === 'editor') {
        expectThat('visibility', s !== 'trash' || opts.status === 'trash', () => `editor ${where} shows trashed event ${e?.id}`);
      } else {
        expectThat('visibility', s === 'publish' || (myId() !== undefined && e.author === myId()),
          () => `${role} ${where} shows event ${e?.id} (status ${s}, author ${e?.author}; caller ${myId() ?? 'has no records'})`);
      }
      if (opts.status) expectThat('visibility', s === opts.status, () => `${role} ${where} (status=${opts.status}) shows event ${e?.id} with status ${s}`);
      const linked = [e?.venue, ...(Array.isArray(e?.organizer) ? e.organizer : [])].filter((l) => l && typeof l === 'object' && 'id' in l);
      for (const l of linked) {
        expectThat('visibility', l.status !== 'trash', () => `${role} ${where}: event ${e.id} embeds trashed ${'venue' in l ? 'venue' : 'organizer'} ${l.id}`);
        if (role === 'anonymous' && l.status !== 'publish') note(`anonymous reader saw an embedded ${'venue' in l ? 'venue' : 'organizer'} with status ${l.status} (allowed: contract §7)`);
      }
    };

    const eventBody = () => {
      const status = rng.weighted([['publish', 3], ['draft', 1]] as const);
      const body: Record<string, unknown> = {
        title: `Event ${tag} ${unique(vu)}`, ...soon(rng), status,
        excerpt: `created by ${role} ${vu}`,
        organizer: Array.from({ length: 1 + rng.int(2) }, () => ({ organizer: upper(rng.pick(ORGANIZER_NAMES)) })),
        categories: [...new Set(Array.from({ length: 1 + rng.int(2) }, () => upper(rng.pick(CATEGORY_NAMES))))],
        tags: [...new Set(Array.from({ length: rng.int(3) }, () => upper(rng.pick(TAG_NAMES))))],
      };
      if (rng.chance(0.8)) body.venue = { venue: upper(rng.pick(VENUE_NAMES)), city: `Town ${rng.int(5)}` };
      return body;
    };

    const created = (a: Answer, where: string) => {
      if (a.status !== 201) return;
      const e = a.json;
      if (typeof e?.author === 'number') userIds.set(sub, e.author);
      const status = e.status as Status;
      expectThat('visibility', role !== 'contributor' || status === 'pending' || status === 'draft',
        () => `${where}: a contributor's create landed as ${status}`);
      ledger.set(e.id, { id: e.id, status, ownerVu: vu });
      own.push(e.id);
      for (const c of e.categories ?? []) categoryIds.add(c.id);
      if (e.venue?.id) venueIds.add(e.venue.id);
    };

    /** The caller's first page of /events: every event on it must be one they may see. */
    const listAsUser = async (): Promise<void> => {
      const a = await call('user GET /events', 'GET', '/events', { token, query: { per_page: 50 } });
      for (const e of envelope(a, 'events', 50, `${role} /events`)) visible(e, '/events');
    };
    /** One known event by id, as this user (or anonymously): shown only if they may see it. */
    const readSomeEvent = async (kind: 'anon GET /events/{id}' | 'user GET /events/{id}'): Promise<void> => {
      const id = someEvent();
      if (id === undefined) return;
      const a = await call(kind, 'GET', `/events/${id}`, kind.startsWith('user') ? { token } : {});
      if (a.status === 200) visible(a.json, `/events/${id}`);
    };

    const actions: Record<Role, readonly (readonly [() => Promise<void>, number])[]> = {
      anonymous: [
        [async () => {
          const perPage = rng.pick([10, 25, 50]);
          const page = rng.weighted([[1, 7], [2, 2], [3, 1]] as const);
          const a = await call('anon GET /events', 'GET', '/events', { query: { per_page: perPage, page } });
          if (a.status === 200) for (const e of envelope(a, 'events', perPage, `anon /events page ${page}`)) visible(e, '/events');
          // A page past the last one is 404, which only a first page must never be.
          else expectThat('expected-status', page > 1, () => `anon /events page 1 → ${a.status}`);
        }, 30],
        [async () => {
          const ids = [...categoryIds];
          if (!ids.length) return;
          const cat = rng.pick(ids);
          const a = await call('anon GET /events?categories=', 'GET', '/events', { query: { categories: cat, per_page: 50 } });
          for (const e of envelope(a, 'events', 50, '/events?categories=')) {
            visible(e, `/events?categories=${cat}`);
            expectThat('visibility', (e.categories ?? []).some((c: any) => c.id === cat), () => `/events?categories=${cat} lists event ${e.id} without it`);
          }
        }, 15],
        [async () => {
          const a = await call('anon GET /venues', 'GET', '/venues', { query: { per_page: 50 } });
          for (const v of envelope(a, 'venues', 50, '/venues')) expectThat('visibility', v.status === 'publish', () => `anonymous /venues shows venue ${v.id} with status ${v.status}`);
        }, 10],
        [async () => {
          const a = await call('anon GET /categories?hide_empty=1', 'GET', '/categories', { query: { hide_empty: 1, per_page: 50 } });
          for (const c of envelope(a, 'categories', 50, '/categories?hide_empty=1')) {
            expectThat('term-counts', c.count > 0, () => `/categories?hide_empty=1 lists category ${c.id} with count ${c.count}`);
          }
        }, 10],
        [() => readSomeEvent('anon GET /events/{id}'), 25],
        [async () => {
          // The rush: reserve 1–2 places; now and then cancel one of the reservations held, by its token.
          const mine = [...rush.held.entries()];
          if (mine.length && rng.chance(0.25)) {
            const [id, r] = rng.pick(mine);
            rush.held.delete(id);
            const a = await call('DELETE /attendees/{id}?token=', 'DELETE', `/attendees/${id}`, { query: { token: r.token } });
            if (a.status === 200) rush.cancelled += r.quantity;
            else rush.held.set(id, r);
            return;
          }
          const quantity = 1 + rng.int(2);
          rush.attempts++;
          const a = await call('POST /attendees', 'POST', '/attendees', { body: { ticket_id: rush.ticket, name: `Guest ${vu}`,
            email: `guest${vu}@example.org`, quantity } });
          if (a.status === 201) {
            rush.reserved += quantity;
            rush.held.set(a.json.id, { token: a.json.token, quantity });
          }
        }, 20],
        [async () => {
          const ids = [...stageVenues.keys(), ...venueIds];
          if (!ids.length) return;
          const id = rng.pick(ids);
          const a = await call('anon GET /venues/{id}', 'GET', `/venues/${id}`);
          if (a.status === 200) expectThat('visibility', a.json.status === 'publish', () => `anonymous /venues/${id} shows status ${a.json.status}`);
        }, 10],
      ],
      subscriber: [
        [listAsUser, 40],
        [() => readSomeEvent('user GET /events/{id}'), 40],
        [async () => {
          await call('subscriber POST /events', 'POST', '/events', { token, body: eventBody() });
        }, 10],
      ],
      contributor: [],
      author: [],
      editor: [],
    };

    // Contributors and authors share most of their actions.
    const writerActions = (): (readonly [() => Promise<void>, number])[] => [
      [async () => {
        const a = await call('POST /events', 'POST', '/events', { token, body: eventBody() });
        created(a, 'POST /events');
      }, 30],
      [listAsUser, 15],
      [async () => {
        const a = await call('user GET /events?status=draft', 'GET', '/events', { token, query: { per_page: 50, status: 'draft' } });
        for (const e of envelope(a, 'events', 50, `${role} /events?status=draft`)) {
          visible(e, '/events?status=draft', { status: 'draft' });
          if (role !== 'editor') expectThat('visibility', e.author === myId(), () => `${role} /events?status=draft shows event ${e.id} of author ${e.author}`);
        }
      }, 10],
      [() => readSomeEvent('user GET /events/{id}'), 8],
      [async () => {
        const live = own.filter((id) => ledger.get(id)?.status !== 'trash' && ledger.get(id)?.status !== 'deleted');
        if (!live.length) return;
        const id = rng.pick(live);
        const excerpt = `own ${unique(vu)}`;
        const a = await call('POST /events/{own}', 'POST', `/events/${id}`, { token, body: { excerpt } });
        if (a.status === 200) expectThat('no-lost-update', a.json.excerpt === excerpt, () => `POST /events/${id} answered excerpt ${a.json.excerpt}, sent ${excerpt}`);
      }, 10],
      [async () => {
        const live = own.filter((id) => ledger.get(id)?.status !== 'trash' && ledger.get(id)?.status !== 'deleted');
        if (!live.length) return;
        const id = rng.pick(live);
        const a = await call('DELETE /events/{own}', 'DELETE', `/events/${id}`, { token });
        if (a.status === 200) {
          expectThat('exact-totals', a.json.status === 'trash', () => `DELETE /events/${id} answered status ${a.json.status}`);
          ledger.get(id)!.status = 'trash';
        }
      }, 8],
    ];
    actions.contributor = writerActions();
    actions.author = [
      ...writerActions(),
      [async () => {
        const trashed = own.filter((id) => ledger.get(id)?.status === 'trash');
        if (!trashed.length) return;
        const id = rng.pick(trashed);
        await call('DELETE /events/{own} again', 'DELETE', `/events/${id}`, { token });
      }, 2],
      [async () => {
        const trashed = own.filter((id) => ledger.get(id)?.status === 'trash');
        if (!trashed.length) return;
        const id = rng.pick(trashed);
        const a = await call('POST /events/{own} restore', 'POST', `/events/${id}`, { token, body: { status: 'publish' } });
        if (a.status === 200) {
          expectThat('exact-totals', a.json.status === 'publish', () => `restoring /events/${id} answered status ${a.json.status}`);
          ledger.get(id)!.status = a.json.status;
        }
      }, 4],
      [async () => {
        const a = await call('POST /categories', 'POST', '/categories', { token, body: { name: upper(rng.pick(CATEGORY_NAMES)) } });
        if (a.status === 201) categoryIds.add(a.json.id);
      }, 8],
      [async () => {
        await call('author POST /tags', 'POST', '/tags', { token, body: { name: upper(rng.pick(TAG_NAMES)) } });
      }, 2],
    ];

    const busyUpdate = async () => {
      const b = rng.pick(busy);
      const field = rng.chance(0.5) ? 'excerpt' : 'cost';
      const value = field === 'excerpt' ? `plain ${unique(vu)}` : String(1 + rng.int(1_000_000));
      const a = await call('POST /events/{busy}', 'POST', `/events/${b.id}`, { token, body: { [field]: value } });
      if (a.status === 200) applied(b, a, field, value, 'POST /events/{busy}');
    };
    const busyIfMatch = async () => {
      const b = rng.pick(busy);
      const read = await call('editor GET /events/{busy}', 'GET', `/events/${b.id}`, { token });
      const etag = read.headers.get('etag');
      if (read.status !== 200 || !etag) return;
      const value = `if-match ${unique(vu)}`;
      const a = await call('POST /events/{busy} If-Match', 'POST', `/events/${b.id}`, { token, body: { excerpt: value }, headers: { 'if-match': etag } });
      if (a.status === 200) applied(b, a, 'excerpt', value, 'POST /events/{busy} If-Match');
      else if (a.status === 412) b.ifMatch412++;
    };
    function applied(b: BusyEvent, a: Answer, field: 'excerpt' | 'cost', value: string, kind: Kind): void {
      const version = versionOf(a);
      expectThat('no-lost-update', version !== undefined && a.json?.[field] === value,
        () => `${kind} /events/${b.id}: answered ${field} ${JSON.stringify(a.json?.[field])} (sent ${value}), ETag ${a.headers.get('etag')}`);
      b.applied.push({ version: version ?? -1, field, value, kind });
    }

    actions.editor = [
      [busyUpdate, 30],
      [busyIfMatch, 18],
      [async () => {
        const body = eventBody();
        const stages = [...stageVenues.values()].filter((v) => !v.trashed);
        const byId = stages.length > 0 && rng.chance(0.7);
        if (byId) body.venue = rng.pick(stages).id;
        const kind: Kind = byId ? 'POST /events (venue id)' : 'POST /events';
        const a = await call(kind, 'POST', '/events', { token, body });
        created(a, kind);
        if (a.status === 400) expectThat('expected-status', Object.keys(a.json?.data?.params ?? {}).join() === 'venue',
          () => `${kind} → 400 for something else than the (trashed) venue: ${snippet(a.json)}`);
      }, 15],
      [async () => {
        const left = own.filter((i) => ledger.get(i)?.status !== 'deleted');
        if (!left.length) return;
        const id = rng.pick(left);
        const a = await call('DELETE /events/{own}?force=true', 'DELETE', `/events/${id}`, { token, query: { force: 'true' } });
        if (a.status === 200) ledger.get(id)!.status = 'deleted';
      }, 5],
      [async () => {
        const live = own.filter((id) => ledger.get(id)?.status !== 'trash' && ledger.get(id)?.status !== 'deleted');
        if (!live.length) return;
        const id = rng.pick(live);
        const a = await call('DELETE /events/{own}', 'DELETE', `/events/${id}`, { token });
        if (a.status === 200) ledger.get(id)!.status = 'trash';
      }, 4],
      [async () => {
        const a = await call('POST /categories', 'POST', '/categories', { token, body: { name: upper(rng.pick(CATEGORY_NAMES)) } });
        if (a.status === 201) categoryIds.add(a.json.id);
      }, 5],
      [async () => {
        await call('POST /tags', 'POST', '/tags', { token, body: { name: upper(rng.pick(TAG_NAMES)) } });
      }, 5],
      [async () => {
        const a = await call('POST /venues', 'POST', '/venues', { token, body: { venue: `Stage ${tag} ${unique(vu)}`, city: 'Town' } });
        if (a.status === 201) {
          stageVenues.set(a.json.id, { id: a.json.id, ownerVu: vu, trashed: false });
          ownVenues.push(a.json.id);
        }
      }, 5],
      [async () => {
        const live = ownVenues.filter((id) => !stageVenues.get(id)!.trashed);
        if (!live.length) return;
        const id = rng.pick(live);
        const a = await call('DELETE /venues/{id}', 'DELETE', `/venues/${id}`, { token });
        if (a.status === 200) stageVenues.get(id)!.trashed = true;
      }, 5],
      [listAsUser, 6],
      [async () => {
        const a = await call('editor GET /events?status=trash', 'GET', '/events', { token, query: { per_page: 50, status: 'trash' } });
        for (const e of envelope(a, 'events', 50, 'editor /events?status=trash')) visible(e, '/events?status=trash', { status: 'trash' });
      }, 2],
    ];

    const mine = actions[role];
    const weights = mine.map((_, i) => [i, mine[i]![1]] as const);
    // Every action of the role once, in order, then the weighted mix until the deadline: however slow the machine, every
    // kind of request is sent (the test checks it), and the mix is what it was.
    const order = mine.map((_, i) => i);
    while (order.length || Date.now() < deadline) {
      try {
        await mine[order.shift() ?? rng.weighted(weights)]![0]();
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
      }
    }
  }

  log(`${userCount} users for ${Math.round(durationMs / 1000)} s against ${api} (run tag ${tag})`);
  const t0 = Date.now();
  let requestsBefore = 0;
  const progress = setInterval(() => {
    const n = [...kinds.values()].reduce((s, k) => s + k.requests, 0);
    log(`${Math.round((Date.now() - t0) / 1000)} s: ${n} requests (+${n - requestsBefore})`);
    requestsBefore = n;
  }, 5_000);
  progress.unref?.();
  try {
    await Promise.all(Array.from({ length: userCount }, (_, vu) => user(vu)));
  } finally {
    clearInterval(progress);
  }
  const elapsed = Date.now() - t0;
  log(`users stopped after ${Math.round(elapsed / 1000)} s; checking the calendar`);

  // --------------------------------------------------------------------------------------------- after the run

  // Busy events: every successful update applied, one after another.
  const busyResults: BusyResult[] = [];
  for (const b of busy) {
    const a = await call(null, 'GET', `/events/${b.id}`, { token: editorToken });
    const finalVersion = versionOf(a) ?? -1;
    const n = b.applied.length;
    const versions = b.applied.map((x) => x.version).sort((x, y) => x - y);
    const expected = Array.from({ length: n }, (_, i) => b.v0 + 1 + i);
    expectThat('no-lost-update', JSON.stringify(versions) === JSON.stringify(expected),
      () => `event ${b.id}: ${n} successful updates answered versions ${summariseVersions(versions)}, expected ${b.v0 + 1}..${b.v0 + n}`);
    expectThat('no-lost-update', finalVersion === b.v0 + n, () => `event ${b.id}: version ${finalVersion} after ${n} successful updates from ${b.v0}`);
    for (const field of ['excerpt', 'cost'] as const) {
      const last = b.applied.filter((x) => x.field === field).sort((x, y) => y.version - x.version)[0];
      const want = last?.value ?? b.initial[field];
      expectThat('no-lost-update', a.json?.[field] === want,
        () => `event ${b.id}: final ${field} ${JSON.stringify(a.json?.[field])}, but the last successful update of it (version ${last?.version}) set ${JSON.stringify(want)}`);
    }
    busyResults.push({ id: b.id, v0: b.v0, finalVersion, plainOk: b.applied.filter((x) => x.kind === 'POST /events/{busy}').length,
      ifMatchOk: b.applied.filter((x) => x.kind === 'POST /events/{busy} If-Match').length, ifMatch412: b.ifMatch412 });
  }

  // The rush: no place oversold, places taken = places reserved less cancelled, the attendee list exact.
  const placesLeft = rush.reserved - rush.cancelled;
  const ticketAfter = await call(null, 'GET', `/tickets/${rush.ticket}`);
  const sold = ticketAfter.json?.capacity_details?.sold;
  expectThat('no-oversell', typeof sold === 'number' && sold <= RUSH_CAPACITY, () => `ticket ${rush.ticket}: ${sold} places taken of ${RUSH_CAPACITY}`);
  expectThat('no-oversell', sold === placesLeft, () => `ticket ${rush.ticket}: ${sold} places taken, the answers say ${rush.reserved} reserved less ${rush.cancelled} cancelled`);
  const attendees = await allPages('/attendees', 'attendees', { event: rush.event }, editorToken);
  expectThat('no-oversell', attendees.total === rush.held.size && attendees.items.every((x) => rush.held.get(x.id)?.quantity === x.quantity),
    () => `attendee list of event ${rush.event}: ${attendees.total} reservations, ${rush.held.size} answered and not cancelled`);

  // Events: totals = paging recount = ledger, and every record's status is the ledger's.
  const editorList = await allPages('/events', 'events', WIDE, editorToken);
  const anonList = await allPages('/events', 'events', WIDE);
  const trashList = await allPages('/events', 'events', { ...WIDE, status: 'trash' }, editorToken);
  const ours = [...ledger.values()];
  const tally = (s: Status) => ours.filter((e) => e.status === s).length;
  const want = {
    anon: baseline.anon + tally('publish'),
    editor: baseline.editor + tally('publish') + tally('draft') + tally('pending'),
    trash: baseline.trash + tally('trash'),
  };
  expectThat('exact-totals', anonList.total === want.anon, () => `anonymous /events total ${anonList.total}, the ledger says ${want.anon}`);
  expectThat('exact-totals', editorList.total === want.editor, () => `editor /events total ${editorList.total}, the ledger says ${want.editor}`);
  expectThat('exact-totals', trashList.total === want.trash, () => `editor /events?status=trash total ${trashList.total}, the ledger says ${want.trash}`);
  for (const e of anonList.items) expectThat('visibility', e.status === 'publish', () => `anonymous /events lists event ${e.id} with status ${e.status}`);
  for (const e of trashList.items) expectThat('visibility', e.status === 'trash', () => `/events?status=trash lists event ${e.id} with status ${e.status}`);
  const shown = new Map<number, string>();
  for (const e of [...editorList.items, ...trashList.items]) shown.set(e.id, e.status);
  for (const e of ours) {
    const s = shown.get(e.id) ?? 'deleted';
    expectThat('exact-totals', s === e.status, () => `event ${e.id}: lists show status ${s}, the answers to its writes say ${e.status}`);
  }
  for (const e of editorList.items) {
    expectThat('visibility', e.status !== 'trash', () => `editor /events lists trashed event ${e.id}`);
    for (const l of [e.venue, ...(e.organizer ?? [])].filter((x) => x && typeof x === 'object' && 'id' in x)) {
      expectThat('visibility', l.status !== 'trash', () => `event ${e.id} embeds trashed ${'venue' in l ? 'venue' : 'organizer'} ${l.id} after the run`);
    }
  }

  // Terms: count = published events linking them, recounted; hide_empty lists exactly the used ones; unique names.
  const published = editorList.items.filter((e) => e.status === 'publish');
  const termResults: Record<string, number> = {};
  for (const [path, field] of [['/categories', 'categories'], ['/tags', 'tags']] as const) {
    const terms = await allPages(path, field, { hide_empty: 0 }, editorToken);
    termResults[field] = terms.total;
    const recount = new Map<number, Set<number>>();
    for (const e of published) {
      for (const t of e[field] ?? []) {
        if (!recount.has(t.id)) recount.set(t.id, new Set());
        recount.get(t.id)!.add(e.series_id || e.id);
      }
    }
    for (const t of terms.items) {
      const n = recount.get(t.id)?.size ?? 0;
      expectThat('term-counts', t.count === n, () => `${path}/${t.id} (${t.name}) count ${t.count}, ${n} published events link it`);
    }
    const known = new Set(terms.items.map((t) => t.id));
    for (const id of recount.keys()) expectThat('term-counts', known.has(id), () => `published events link ${path}/${id}, which ${path} does not list`);
    const used = await allPages(path, field, { hide_empty: 1 });
    const usedIds = new Set(used.items.map((t) => t.id));
    const wantUsed = [...recount.keys()].filter((id) => recount.get(id)!.size > 0);
    expectThat('term-counts', usedIds.size === wantUsed.length && wantUsed.every((id) => usedIds.has(id)),
      () => `${path}?hide_empty=1 lists ${[...usedIds].sort().join(',')}, published events link ${wantUsed.sort().join(',')}`);
    const byName = new Map<string, number[]>();
    for (const t of terms.items) {
      const key = `${t.parent}/${String(t.name).normalize('NFC').toLowerCase()}`;
      byName.set(key, [...(byName.get(key) ?? []), t.id]);
    }
    for (const [key, ids] of byName) expectThat('unique-names', ids.length === 1, () => `${path}: ${ids.length} terms named ${key}: ${ids.join(', ')}`);
  }

  // Venues and organizers: totals = recounts, anonymous sees published ones only, one published record per shared name.
  const linkedResults: Record<string, number> = {};
  for (const [path, field, names] of [['/venues', 'venues', VENUE_NAMES], ['/organizers', 'organizers', ORGANIZER_NAMES]] as const) {
    const all = await allPages(path, field, {}, editorToken);
    const anon = await allPages(path, field, {});
    linkedResults[field] = all.total;
    linkedResults[`${field} (anonymous)`] = anon.total;
    for (const r of anon.items) expectThat('visibility', r.status === 'publish', () => `anonymous ${path} lists ${r.id} with status ${r.status}`);
    const publishedHere = all.items.filter((r) => r.status === 'publish');
    expectThat('exact-totals', publishedHere.length === anon.total,
      () => `${path}: the editor sees ${publishedHere.length} published records, anonymous total is ${anon.total}`);
    const nameField = field === 'venues' ? 'venue' : 'organizer';
    for (const name of names) {
      const same = publishedHere.filter((r) => String(r[nameField]).toLowerCase() === name.toLowerCase());
      expectThat('unique-names', same.length <= 1, () => `${path}: ${same.length} published records named ${name}: ${same.map((r) => r.id).join(', ')}`);
    }
  }

  const totals: Record<string, number> = {
    'events (editor, not trashed)': editorList.total,
    'events published (anonymous)': anonList.total,
    'events trashed': trashList.total,
    'events deleted for good': tally('deleted'),
    [`rush: places taken of ${RUSH_CAPACITY} (reservation attempts ${rush.attempts})`]: sold ?? -1,
    'rush: reservations held': rush.held.size,
    ...termResults,
    ...linkedResults,
  };
  const invariantList = [...invariants.values()];
  const report: WorkloadReport = {
    ok: invariantList.every((i) => i.violations === 0),
    users: roles,
    durationMs: elapsed,
    requests: [...kinds.values()].reduce((s, k) => s + k.requests, 0),
    kinds: Object.fromEntries([...kinds.entries()].sort(([a], [b]) => a.localeCompare(b))),
    invariants: invariantList,
    busy: busyResults,
    totals,
    notes: [...notes.entries()].map(([what, n]) => `${what}: ${n}×`),
  };
  return report;
}

class TransportError extends Error {}

function summariseVersions(versions: number[]): string {
  return versions.length > 20 ? `${versions.slice(0, 10).join(',')}…${versions.slice(-10).join(',')}` : versions.join(',');
}

// ------------------------------------------------------------------------------------------------ the report

/** A plain-text summary: requests and statuses per kind, the invariants, the busy events and the final totals. */
export function formatReport(r: WorkloadReport): string {
  const lines: string[] = [];
  const table = (head: string[], rows: string[][]) => {
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
    lines.push(line(head), widths.map((w) => '-'.repeat(w)).join('  '));
    rows.forEach((row) => lines.push(line(row)));
    lines.push('');
  };
  const users = Object.entries(r.users).map(([role, n]) => `${n} ${role}`).join(', ');
  lines.push(`Workload: ${users}; ${(r.durationMs / 1000).toFixed(1)} s, ${r.requests} requests`, '');
  table(['request kind', 'requests', 'statuses'], Object.entries(r.kinds).map(([kind, s]) => [kind, String(s.requests),
    Object.entries(s.statuses).sort(([a], [b]) => a.localeCompare(b)).map(([st, n]) => `${st}×${n}`).join(' ')]));
  table(['invariant', 'checks', 'result', 'meaning'], r.invariants.map((i) => [i.name, String(i.checked),
    i.violations ? `FAIL (${i.violations})` : 'ok', i.description]));
  for (const i of r.invariants.filter((x) => x.violations)) {
    lines.push(`${i.name}:`, ...i.examples.map((e) => `  - ${e}`), '');
  }
  table(['busy event', 'v0', 'final v', 'plain 200', 'If-Match 200', 'If-Match 412'], r.busy.map((b) => [String(b.id), String(b.v0),
    String(b.finalVersion), String(b.plainOk), String(b.ifMatchOk), String(b.ifMatch412)]));
  table(['after the run', 'total'], Object.entries(r.totals).map(([k, v]) => [k, String(v)]));
  if (r.notes.length) lines.push('Notes:', ...r.notes.map((n) => `  - ${n}`), '');
  lines.push(r.ok ? 'All invariants hold.' : 'INVARIANTS VIOLATED.');
  return lines.join('\n');
}
