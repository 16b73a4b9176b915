/**
 * Budgets (issue 6, scenarios 1–10) evaluated on the measurements, and the Markdown report. Pure functions of the
 * result objects (unit-tested in test/unit/bench.test.ts).
 */
import type { ColdStartResult } from './coldstart.js';
import type { ScaleResult } from './scale.js';
import type { WriteScenarioResult } from './writes.js';
import type { ScenarioResult } from './scenarios.js';
import type { WarmResult } from './warm.js';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memory: string;
  os: string;
  node: string;
  java: string;
}

export interface BenchMeta {
  date: string;
  mode: 'quick' | 'full' | 'custom';
  ns: number[];
  seed: number;
  machine: Machine;
  args: string[];
  totalMs: number;
}

export interface BenchResult {
  meta: BenchMeta;
  scales: ScaleResult[];
  coldStart: ColdStartResult | null;
  warm: WarmResult | null;
  budgets: BudgetRow[];
}

export interface Verdict {
  pass: boolean | null;
  /** What was compared, e.g. "2 req ≤ 3, 1.5 RCU ≤ 4". */
  detail: string;
}

export interface BudgetRow {
  budget: number;
  title: string;
  /** The N the row was judged at (null: not a per-N budget). */
  n: number | null;
  pass: boolean | null;
  detail: string;
}

export const BUDGET_TITLES: Record<number, string> = {
  1: 'GET /events/{id}: ≤ 3 requests, ≤ 4 RCU',
  2: 'GET /events/by-slug/{slug}: ≤ 3 requests, ≤ 4 RCU',
  3: 'GET /events: RCU at the largest N ≤ 1.5 × at the smallest, and ≤ 50 RCU',
  4: 'GET /events?page=20: items read beyond page 1 ≤ 2 × (page − 1) × per_page',
  5: '?categories=X (1% category), ?venue=V: items read ≤ 3 × matching events',
  6: 'one month: items read ≤ 2 × events in the month',
  7: '/venues, /organizers, /categories, /tags first pages: ≤ 10 RCU',
  8: 'POST /events (inline venue, 2 categories): 1 transaction + ≤ 2 other requests',
  9: 'cold start: bundle ≤ 400 KB and import ≤ 1.5 × the document-client bundle',
  10: 'warm overhead (stubbed DynamoDB): ≤ 0.5 ms median per invocation (the handler\'s own time)',
  11: 'every list (3–6, 11a–11k, 14a–14d): RCU at the largest N ≤ 1.5 × at the smallest, and ≤ 30 + 1.5 × records returned',
  12: 'pages near their byte floor: page of 10 ≤ 10 RCU, page of 50 ≤ 30 RCU, one event ≤ 2 RCU',
};

export const KB = 1024;
/** API Gateway's integration timeout. */
export const API_GATEWAY_MS = 30_000;
export const LIMITS = {
  getRequests: 3, getRcu: 4, listGrowth: 1.5, listRcu: 50, pageSlack: 2, filterFactor: 3, monthFactor: 2,
  collectionRcu: 10, otherRequests: 2, bundleBytes: 400 * KB, importRatio: 1.5, warmMs: 0.5,
  pageBase: 30, perRecord: 1.5, page10Rcu: 10, page50Rcu: 30, oneEventRcu: 2,
} as const;

/** The read units of the response's bytes read in bulk: 0.5 per 4 KB. */
export const byteFloor = (bytes: number): number => (bytes / 4096) * 0.5;

const fmt = (x: number, digits = 1): string => (Number.isFinite(x) ? (Number.isInteger(x) ? String(x) : x.toFixed(digits)) : '–');
const all = (vs: (boolean | null)[]): boolean | null => (vs.some((v) => v === false) ? false : vs.some((v) => v === null) ? null : true);

/** The per-N verdict of one scenario row (budget 3's growth rule needs two sizes: see evaluateBudgets). */
export function scenarioVerdict(s: ScenarioResult, siblings: readonly ScenarioResult[] = []): Verdict {
  if (s.error) return { pass: false, detail: s.error };
  const m = s.meter;
  switch (s.budget) {
    case 1:
    case 2:
      return { pass: m.requests <= LIMITS.getRequests && m.rcu <= LIMITS.getRcu,
        detail: `${fmt(m.requests)} req ≤ ${LIMITS.getRequests}, ${fmt(m.rcu)} RCU ≤ ${LIMITS.getRcu}` };
    case 3:
      return { pass: m.rcu <= LIMITS.listRcu, detail: `${fmt(m.rcu)} RCU ≤ ${LIMITS.listRcu}` };
    case 4: {
      // "Grows no faster than page × page size": what page n reads beyond page 1 (the same list) is at most
      // pageSlack index items per position skipped.
      const page = Number(/[?&]page=(\d+)/.exec(s.path)?.[1] ?? 1);
      const first = siblings.find((x) => x.budget === 3 && !x.error);
      if (!first) return { pass: null, detail: `${fmt(m.items)} items (no page 1 to compare)` };
      const limit = LIMITS.pageSlack * (page - 1) * 10;
      return { pass: m.items - first.meter.items <= limit,
        detail: `${fmt(m.items)} − ${fmt(first.meter.items)} items (page 1) = ${fmt(m.items - first.meter.items)} ≤ ${LIMITS.pageSlack} × ${page - 1} × 10 = ${limit}` };
    }
    case 5:
      return { pass: s.total !== undefined ? m.items <= LIMITS.filterFactor * s.total : null,
        detail: `${fmt(m.items)} items ≤ ${LIMITS.filterFactor} × ${s.total ?? '?'}` };
    case 6:
      return { pass: s.total !== undefined ? m.items <= LIMITS.monthFactor * s.total : null,
        detail: `${fmt(m.items)} items ≤ ${LIMITS.monthFactor} × ${s.total ?? '?'}` };
    case 7:
      return { pass: m.rcu <= LIMITS.collectionRcu, detail: `${fmt(m.rcu)} RCU ≤ ${LIMITS.collectionRcu}` };
    case 8: {
      const tx = s.commands.TransactWriteCommand ?? s.commands.TransactWriteItemsCommand;
      if (tx === undefined && Object.keys(s.commands).length === 0) {
        return { pass: m.requests <= 1 + LIMITS.otherRequests && m.wcu > 0, detail: `${fmt(m.requests)} req ≤ 3 (no command breakdown)` };
      }
      const other = m.requests - (tx ?? 0);
      return { pass: tx === 1 && other <= LIMITS.otherRequests, detail: `${tx ?? 0} transaction (= 1), ${fmt(other)} other req ≤ ${LIMITS.otherRequests}` };
    }
    default:
      return { pass: null, detail: '' };
  }
}

/** The N budgets are judged at: 100,000 when measured, else the largest (a stand-in, e.g. in --quick). */
export function judgedScale(scales: ScaleResult[]): ScaleResult | null {
  return scales.find((s) => s.n === 100_000) ?? [...scales].sort((a, b) => b.n - a.n)[0] ?? null;
}

export function evaluateBudgets(scales: ScaleResult[], coldStart: ColdStartResult | null, warm: WarmResult | null): BudgetRow[] {
  const rows: BudgetRow[] = [];
  const at = judgedScale(scales);
  const small = [...scales].sort((a, b) => a.n - b.n)[0];
  for (const budget of [1, 2, 3, 4, 5, 6, 7, 8]) {
    const title = BUDGET_TITLES[budget]!;
    if (!at) {
      rows.push({ budget, title, n: null, pass: null, detail: 'not measured' });
      continue;
    }
    const mine = at.scenarios.filter((s) => s.budget === budget);
    const verdicts = mine.map((s) => ({ s, v: scenarioVerdict(s, at.scenarios) }));
    let pass = all(verdicts.map((x) => x.v.pass));
    const details = verdicts.map(({ s, v }) => (mine.length > 1 ? `${s.id}: ${v.detail}` : v.detail));
    if (budget === 3) {
      const big = mine[0];
      const base = small && small !== at ? small.scenarios.find((s) => s.budget === 3) : undefined;
      if (big && base && !big.error && !base.error) {
        const ratio = base.meter.rcu > 0 ? big.meter.rcu / base.meter.rcu : Infinity;
        pass = all([pass, ratio <= LIMITS.listGrowth]);
        details.push(`${fmt(big.meter.rcu)} / ${fmt(base.meter.rcu)} RCU (N = ${at.n.toLocaleString('en')} / ${small!.n.toLocaleString('en')}) = ${fmt(ratio, 2)} ≤ ${LIMITS.listGrowth}`);
      } else {
        details.push('growth: needs two sizes');
        pass = all([pass, null]);
      }
    }
    if (!mine.length) {
      pass = null;
      details.push('not measured');
    }
    rows.push({ budget, title, n: at.n, pass, detail: details.join('; ') });
  }
  if (coldStart) {
    const ref = coldStart.reference.medianMs;
    const verdicts = coldStart.bundles.map((b) => b.bytes <= LIMITS.bundleBytes && b.medianMs <= LIMITS.importRatio * ref);
    const worstSize = Math.max(...coldStart.bundles.map((b) => b.bytes));
    const worstRatio = Math.max(...coldStart.bundles.map((b) => b.medianMs / ref));
    rows.push({ budget: 9, title: BUDGET_TITLES[9]!, n: null, pass: all(verdicts),
      detail: `largest ${fmt(worstSize / KB)} KB ≤ 400 KB; slowest import ${fmt(worstRatio, 2)} × the document client (${fmt(ref, 1)} ms) ≤ ${LIMITS.importRatio}` });
  } else rows.push({ budget: 9, title: BUDGET_TITLES[9]!, n: null, pass: null, detail: 'not measured' });
  if (warm) {
    // The handler's own time: the stub's time answering commands stands in for DynamoDB's, which a Lambda spends
    // waiting on the network, not running (both are reported).
    const own = (r: WarmResult['routes'][number]) => r.handlerMedian ?? r.median;
    const ok = warm.routes.map((r) => (r.error ? false : own(r) <= LIMITS.warmMs));
    const worst = [...warm.routes].sort((a, b) => (own(b) || Infinity) - (own(a) || Infinity))[0];
    rows.push({ budget: 10, title: BUDGET_TITLES[10]!, n: null, pass: all(ok),
      detail: worst ? `slowest ${worst.label}: ${worst.error ?? `handler ${fmt(own(worst), 3)} ms (+ stub ${fmt(worst.stubMedian ?? 0, 3)} ms; total median ${fmt(worst.median, 3)} ms)`} ≤ ${LIMITS.warmMs} ms` : 'no routes' });
  } else rows.push({ budget: 10, title: BUDGET_TITLES[10]!, n: null, pass: null, detail: 'not measured' });
  rows.push(listGrowthRow(at, small), byteFloorRow(at));
  return rows;
}

const LIST_BUDGETS = new Set([3, 4, 5, 6, 11, 12]);
const isList = (s: ScenarioResult) => s.method === 'GET' && s.total !== undefined && LIST_BUDGETS.has(s.budget);

/** Budget 11: every list costs what its page costs at both sizes (contract §9). */
function listGrowthRow(at: ScaleResult | null, small: ScaleResult | undefined): BudgetRow {
  const title = BUDGET_TITLES[11]!;
  if (!at || !small || small === at) return { budget: 11, title, n: at?.n ?? null, pass: null, detail: 'needs two sizes' };
  const verdicts: boolean[] = [];
  const failures: string[] = [];
  let worst = { id: '', ratio: 0 };
  for (const big of at.scenarios.filter(isList)) {
    const base = small.scenarios.find((x) => x.id === big.id);
    if (!base || base.error || big.error) {
      verdicts.push(false);
      failures.push(`${big.id}: ${big.error ?? base?.error ?? 'not measured at both sizes'}`);
      continue;
    }
    const ratio = base.meter.rcu > 0 ? big.meter.rcu / base.meter.rcu : Infinity;
    const cap = LIMITS.pageBase + LIMITS.perRecord * big.itemsReturned;
    const ok = ratio <= LIMITS.listGrowth && big.meter.rcu <= cap;
    verdicts.push(ok);
    if (ratio > worst.ratio) worst = { id: big.id, ratio };
    if (!ok) failures.push(`${big.id}: ${fmt(base.meter.rcu)} → ${fmt(big.meter.rcu)} RCU (× ${fmt(ratio, 2)}; cap ${fmt(cap)})`);
  }
  return { budget: 11, title, n: at.n, pass: verdicts.length ? verdicts.every(Boolean) : null,
    detail: failures.length ? failures.join('; ') : `${verdicts.length} lists; largest growth ${worst.id} × ${fmt(worst.ratio, 2)} ≤ ${LIMITS.listGrowth}` };
}

/** Budget 12: the default pages and a single event near the read units of their bytes. */
function byteFloorRow(at: ScaleResult | null): BudgetRow {
  const title = BUDGET_TITLES[12]!;
  const find = (id: string) => at?.scenarios.find((x) => x.id === id && !x.error);
  const checks = ([['3', LIMITS.page10Rcu], ['11k', LIMITS.page50Rcu], ['1', LIMITS.oneEventRcu]] as const).map(([id, limit]) => {
    const s = find(id);
    return s ? { ok: s.meter.rcu <= limit, text: `${id}: ${fmt(s.meter.rcu)} RCU ≤ ${limit} (byte floor ${fmt(byteFloor(s.bytes ?? 0), 2)})` }
      : { ok: null, text: `${id}: not measured` };
  });
  return { budget: 12, title, n: at?.n ?? null, pass: all(checks.map((c) => c.ok)), detail: checks.map((c) => c.text).join('; ') };
}

// ------------------------------------------------------------------------------------------------ Markdown

const mark = (pass: boolean | null): string => (pass === true ? 'PASS' : pass === false ? '**FAIL**' : 'n/a');
const num = (n: number) => n.toLocaleString('en');
const pct = (x: number, digits = 1) => `${(x * 100).toFixed(digits)}%`;
const ratio = (ours: number, theirs: number): string => (theirs > 0 && Number.isFinite(ours) ? `${(ours / theirs).toFixed(ours / theirs < 0.1 ? 4 : 3)}` : '–');
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function table(head: string[], rows: (string | number)[][]): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map((c) => cell(String(c))).join(' | ')} |`)].join('\n');
}

export function commandsText(c: Record<string, number>): string {
  const parts = Object.entries(c).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k, v]) => `${v}× ${k.replace(/Command$/, '')}`);
  return parts.length ? parts.join(', ') : '–';
}

export function renderMarkdown(r: BenchResult): string {
  const m = r.meta;
  const out: string[] = [];
  const judged = judgedScale(r.scales);
  out.push(`# Calendar API benchmark — ${m.date}`);
  out.push('');
  out.push(`Mode **${m.mode}** (N = ${m.ns.map(num).join(', ')}; seed ${m.seed}) · ${m.machine.cpus} CPUs (${m.machine.cpuModel}) · ${m.machine.memory} RAM · ` +
    `${m.machine.os} · Node ${m.machine.node} · ${m.machine.java} · DynamoDB Local in memory · run took ${(m.totalMs / 1000).toFixed(0)} s`);
  out.push('');
  out.push('## Budgets');
  out.push('');
  if (judged && judged.n !== 100_000) out.push(`Judged at N = ${num(judged.n)}, standing in for N = 100,000 (the budgets are set for 100,000).\n`);
  out.push(table(['#', 'budget', 'N', 'measured', 'verdict'],
    r.budgets.map((b) => [b.budget, b.title, b.n === null ? '–' : num(b.n), b.detail, mark(b.pass)])));
  out.push('');

  if (r.scales.length) {
    out.push('## Seeding');
    out.push('');
    out.push(table(['N', 'linked records (API)', 'events', 'items put', 'BatchWrite calls', 'retries', 'counter updates', 'time', 'events/s', 'items/s'],
      r.scales.map((s) => [num(s.n), `${num(s.linked.requests)} in ${(s.linked.ms / 1000).toFixed(1)} s`, num(s.seed.events), num(s.seed.items),
        num(s.seed.batchCalls), num(s.seed.retries), num(s.seed.counterUpdates), `${(s.seed.ms / 1000).toFixed(1)} s`,
        num(Math.round(s.seed.eventsPerSecond)), num(Math.round(s.seed.itemsPerSecond))])));
    out.push('');
    out.push('Realised distribution:');
    out.push('');
    out.push(table(['N', 'publish', 'draft', 'pending', 'private', 'future', 'trash', 'multi-day', '> 1 month', 'all-day', 'hidden', 'with venue', 'top category', 'top venue', 'items per event'],
      r.scales.map((s) => {
        const t = s.seed.tally;
        const sh = (k: string) => pct((t.status[k] ?? 0) / t.events);
        return [num(s.n), sh('publish'), sh('draft'), sh('pending'), sh('private'), sh('future'), sh('trash'),
          pct((t.duration.multiDay + t.duration.overMonth) / t.events), pct(t.duration.overMonth / t.events), pct(t.allDay / t.events),
          pct(t.hidden / t.events), pct(t.withVenue / t.events), pct(s.skew.topCategoryShare), pct(s.skew.topVenueShare),
          (s.seed.items / s.seed.events).toFixed(2)];
      })));
    out.push('');
  }

  for (const s of r.scales) {
    out.push(`## Scenarios at N = ${num(s.n)}`);
    out.push('');
    out.push(`Category X = ${s.targets.category.id} (on ${pct(s.targets.category.share, 2)} of events), venue V = ${s.targets.venue.id} ` +
      `(the busiest, ${pct(s.targets.venue.share, 2)}), month ${s.targets.month.start} … ${s.targets.month.end}, event ${s.targets.event.id}.`);
    out.push('');
    out.push(table(['#', 'call', 'DynamoDB requests', 'RCU', 'byte floor', 'WCU', 'items read', 'items returned', 'total', 'p50 ms', 'p99 ms', 'calls', 'budget check', 'verdict'],
      s.scenarios.map((x) => {
        const v = scenarioVerdict(x, s.scenarios);
        const varies = x.meterVaries ? ` (${fmt(x.meterMin.rcu)}–${fmt(x.meterMax.rcu)})` : '';
        return [x.id, `${x.method} ${x.path}`, fmt(x.meter.requests), `${fmt(x.meter.rcu)}${varies}`,
          x.bytes === undefined ? '–' : fmt(byteFloor(x.bytes), 2), fmt(x.meter.wcu), fmt(x.meter.items),
          x.itemsReturned, x.total ?? '–', fmt(x.latency.p50), `${fmt(x.latency.p99)}${x.latency.max > API_GATEWAY_MS ? ' ⚠' : ''}`,
          x.latency.samples, v.detail, mark(v.pass)];
      })));
    out.push('');
    if (s.scenarios.some((x) => x.latency.max > API_GATEWAY_MS)) {
      out.push('⚠ Some calls took over 30 s, API Gateway\'s integration timeout (they would fail as 503/504 there); the benchmark lets ' +
        'the handler finish so that their cost can be reported. DynamoDB Local is much slower than DynamoDB on large reads.');
      out.push('');
    }
    out.push('DynamoDB commands of one call:');
    out.push('');
    out.push(table(['#', 'call', 'commands'], s.scenarios.map((x) => [x.id, x.title, commandsText(x.commands)])));
    out.push('');
    if (s.writes?.length) {
      out.push(`Writes at N = ${num(s.n)} (writes.ts; medians; write units as DynamoDB charges them for the items written, from their sizes):`);
      out.push('');
      out.push(renderWriteScenarios(s.writes));
      out.push('');
    }
  }

  if (r.scales.some((s) => s.baseline.length)) {
    out.push('## Against a Scan + filter baseline');
    out.push('');
    out.push('Ours / Scan: below 1 means ours reads (or takes) that fraction of what a full-table Scan with a filter needs.');
    out.push('');
    const rows: (string | number)[][] = [];
    for (const s of r.scales) {
      for (const b of s.baseline) {
        const ours = s.scenarios.find((x) => x.id === b.id);
        if (!ours) continue;
        rows.push([b.id, num(s.n), ours.title, fmt(ours.meter.rcu), fmt(b.rcu), ratio(ours.meter.rcu, b.rcu), fmt(ours.meter.items), num(b.itemsRead),
          ratio(ours.meter.items, b.itemsRead), fmt(ours.latency.p50), fmt(b.latency.p50), ratio(ours.latency.p50, b.latency.p50),
          `${ours.total ?? '–'} / ${b.total}${ours.total !== undefined && ours.total !== b.total ? ' ≠' : ''}`]);
      }
    }
    out.push(table(['#', 'N', 'call', 'ours RCU', 'Scan RCU', 'RCU ratio', 'ours items read', 'Scan items read', 'items ratio',
      'ours p50 ms', 'Scan p50 ms', 'latency ratio', 'total ours / Scan'], rows));
    out.push('');
  }

  if (r.coldStart) {
    const c = r.coldStart;
    out.push('## Cold start');
    out.push('');
    out.push(`Bundles built with infra/bundling.ts (esbuild, minified ESM); median of ${c.runs} imports each in a fresh \`node\` ` +
      `(NODE_OPTIONS=${c.nodeOptions}, as the stack sets), interleaved.`);
    out.push('');
    const ref = c.reference.medianMs;
    out.push(table(['bundle', 'size KB', 'import median ms', 'p90 ms', '× document client', 'process median ms', 'verdict'],
      [...c.bundles, c.reference].map((b) => {
        const isRef = b === c.reference;
        const pass = isRef ? null : b.bytes <= LIMITS.bundleBytes && b.medianMs <= LIMITS.importRatio * ref;
        return [isRef ? 'document client only (reference)' : `functions/${b.name}`, fmt(b.bytes / KB), fmt(b.medianMs), fmt(b.p90Ms),
          (b.medianMs / ref).toFixed(2), fmt(b.processMedianMs), isRef ? '–' : mark(pass)];
      })));
    out.push('');
  }

  if (r.warm) {
    out.push('## Warm overhead');
    out.push('');
    out.push(`One handler invocation with DynamoDB answered by an in-memory stub: median over up to ${num(r.warm.iterations)} calls per route (bounded in time; the count each route made is shown). ` +
      '**Handler** is the invocation without the time the stub spent answering its commands (what the budget judges: in Lambda that time is a wait on DynamoDB, not work); **stub** is that time; **total** is both.');
    out.push('');
    out.push(table(['function', 'route', 'handler median µs', 'stub median µs', 'total median µs', 'total p99 µs', 'calls', 'DynamoDB commands per call', 'verdict'],
      r.warm.routes.map((w) => [w.group, w.label, w.error ? w.error : fmt((w.handlerMedian ?? w.median) * 1000, 0), fmt((w.stubMedian ?? 0) * 1000, 0),
        fmt(w.median * 1000, 0), fmt(w.p99 * 1000, 0), num(w.iterations), fmt(w.commandsPerCall, 1),
        mark(w.error ? false : (w.handlerMedian ?? w.median) <= LIMITS.warmMs)])));
    out.push('');
  }

  out.push('## How to read this');
  out.push('');
  out.push('- **requests / RCU / WCU / items read** come from the store\'s meter (`X-Calendar-Meter`, ReturnConsumedCapacity), median over the measured calls; ' +
    'a range after the RCU means calls differed. **Items returned** counts the records in the response body; **total** is `X-TEC-Total`.');
  out.push('- **Latency** is one call at a time through the local HTTP server over a keep-alive connection, after one warm-up call, bounded in count and time; ' +
    'DynamoDB Local is far slower per request than DynamoDB, so compare ratios, not absolute values.');
  out.push('- Budget 4 reads "grows no faster than page × page size" as: page 20 reads at most 2 index items more than page 1 of the same list ' +
    'per position skipped: items(page 20) − items(page 1) ≤ 2 × 19 × per_page. Budgets 5 and 6 compare items read with the list\'s exact total.');
  out.push('- Budget 8 counts TransactWriteItems from the command names the store\'s client sent (the handlers run in the benchmark process).');
  out.push('');
  return out.join('\n');
}

/** A Markdown table of write scenarios. */
export function renderWriteScenarios(rows: (WriteScenarioResult & { n?: number })[]): string {
  return ['| # | call | N | requests | rounds | transactions | items written | write units | handler p50 ms | p90 |', '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((s) => `| ${s.id} | ${s.title} | ${s.n ?? ''} | ${s.requests} | ${s.rounds} | ${s.transactions} | ${s.actions} | ${s.writeUnits} | `
      + `${s.handlerMs.p50.toFixed(0)} | ${s.handlerMs.p90.toFixed(0)} |`)].join('\n');
}

