/**
 * A mixed concurrent workload (test/load/workload.ts): 30 virtual users — anonymous readers, subscribers,
 * contributors, authors and editors — for 15 seconds, then the whole calendar checked. Contract §3 (no 5xx), §4
 * (nobody sees what they may not read), §7 (plain partial updates of a busy record all apply, one after another,
 * never 409; If-Match mismatches are 412; creates racing on the same term, venue and organizer names end with one
 * record each; trashing a venue unlinks it even from events written meanwhile), §9 (exact totals, term counts).
 * `npm run load` runs the same workload longer and prints its figures.
 *
 * Runs its own server on a table of its own: the totals it checks must be this file's records only. Nothing here
 * is measured by time; the duration only bounds how many requests are sent.
 */
import { startOwnServer, type OwnServer } from '../support/own-server.js';
import { formatReport, runWorkload, type WorkloadReport } from '../load/workload.js';

const SECRET = 'workload-secret-0123456789abcdef0123';
let server: OwnServer;
let apiUrl: string;

beforeAll(async () => {
  server = await startOwnServer('workload', { secret: SECRET });
  apiUrl = server.url;
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

describe('a mixed concurrent workload (30 users, 15 s)', () => {
  let report: WorkloadReport;

  beforeAll(async () => {
    report = await runWorkload({ apiUrl, secret: SECRET, users: 30, durationMs: 15_000, seed: 20_240_611 });
  }, 120_000);

  it('keeps every invariant: no 5xx, no 409, no leak, no lost update, exact totals and counts, one record per name', () => {
    // The whole report on failure: which invariant, the first violations, and the figures.
    if (!report.ok) throw new Error(`\n${formatReport(report)}`);
    for (const inv of report.invariants) expect({ invariant: inv.name, violations: inv.violations }).toEqual({ invariant: inv.name, violations: 0 });
  });

  it('ran every part of the mix: each invariant was checked, every user role and every main request kind was exercised', () => {
    for (const inv of report.invariants) expect({ invariant: inv.name, checked: inv.checked > 0 }).toEqual({ invariant: inv.name, checked: true });
    expect(report.users).toEqual({ anonymous: 8, editor: 8, author: 8, contributor: 4, subscriber: 2 });
    const sent = (kind: string) => report.kinds[kind]?.requests ?? 0;
    for (const kind of ['anon GET /events', 'anon GET /events?categories=', 'anon GET /venues', 'anon GET /categories?hide_empty=1',
      'anon GET /events/{id}', 'user GET /events', 'user GET /events?status=draft', 'POST /events', 'POST /events/{busy}',
      'POST /events/{busy} If-Match', 'DELETE /events/{own}', 'POST /categories', 'POST /tags']) {
      expect({ kind, sent: sent(kind) > 0 }).toEqual({ kind, sent: true });
    }
  });

  it('applied every successful update of the busy events, plain and If-Match, one after another', () => {
    expect(report.busy.length).toBeGreaterThan(0);
    for (const b of report.busy) {
      expect({ id: b.id, finalVersion: b.finalVersion }).toEqual({ id: b.id, finalVersion: b.v0 + b.plainOk + b.ifMatchOk });
    }
    expect(report.busy.reduce((n, b) => n + b.plainOk, 0)).toBe(report.kinds['POST /events/{busy}']!.statuses['200'] ?? 0);
  });
});
