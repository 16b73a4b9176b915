/**
 * One run of an import (contract §20): take the import's lease, read the source, and bring the calendar in step with it
 * — create what the import has not seen, update what changed at the source, write nothing for what did not, trash what
 * left the source within the run's window or became cancelled or private — counting as it goes, and finish done or failed.
 *
 * Source events are handled in batches; after each the run's counts are saved with its lease renewed, so progress is
 * visible and a worker that lost its lease stops. Each source event's identity item says what the import wrote for it
 * (lib/store/imports.ts), and a create is recorded there before it is sent (`pend`), so a run taken over after its worker
 * died repeats nothing it did and finishes without duplicates; it counts what the earlier attempt wrote by the run number
 * the identity items carry.
 */
import { randomUUID } from 'node:crypto';
import { config } from '../config.js';
import type { Caller } from '../auth/caller.js';
import { logger } from '../observability/logger.js';
import { StoreUnavailable } from '../store/errors.js';
import {
  finishRun, IdentityTaken, readContent, readIdentities, readImport, releaseLease, saveIdentity, saveProgress, takeLease, type Identity,
} from '../store/imports.js';
import { FetchError, fetchSource } from './fetch.js';
import { LinkedResolver } from './linked.js';
import { eventFields, fieldHashes, occurrenceFields, valueHash, type Links } from './map.js';
import { sendToWorker } from './queue.js';
import { NO_COUNTS, type ImportItem, type RunCounts, type RunError, type RunItem } from './record.js';
import { removeDeletedImport } from './remove.js';
import { openPassword } from './secrets.js';
import type { SourceEvent, SourceRead } from './source.js';
import { readTecSource, type SourceFetcher } from './tec.js';
import { ownerApi } from './api.js';
import { leaseMs, STOP_BEFORE_MS, type RunOutcome } from './lease.js';
import { indexed, readShown, SHOWN_FIELDS, writeSourceEvents, type EventFields, type EventWrite, type OccurrenceEdit, type Writer, type Written } from './write.js';

/** At most this many source events per run (contract §20). */
export const MAX_EVENTS = 10_000;
/** Source events per batch: one progress save (and lease renewal) each. */
const BATCH = 25;
/** At most this many errors are kept (contract §20: the first 100). */
const MAX_ERRORS = 100;
/** tec sources' default window: from 30 days ago to two years ahead. */
const TEC_BEFORE_MS = 30 * 86_400_000;
const TEC_AHEAD_MS = 730 * 86_400_000;


const wall = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** Runs (or continues) the import's queued run, or the removal of a deleted import, until it is finished or `deadline` nears. */
export async function runImport(id: number, deadline: number): Promise<RunOutcome> {
  const token = randomUUID();
  const takenAt = Date.now();
  const run = await takeLease(id, token, takenAt, leaseMs());
  if (!run) return 'busy';
  if (run.deleting) return removeDeletedImport(id, token, run.deleting, deadline);
  const state = await readImport(id, true);
  if (!state) {
    await releaseLease(id, token);
    return 'busy';
  }
  const resumed = run.startedUtc !== wall(takenAt);
  return new Run(state.item, run, token, deadline, resumed).go();
}

class Run {
  private readonly counts: RunCounts = { ...NO_COUNTS };
  private readonly errors: RunError[] = [];
  private readonly writer: Writer;
  private readonly links: LinkedResolver;
  private identities = new Map<string, Identity>();

  constructor(private readonly imp: ImportItem, private readonly run: RunItem, private readonly token: string, private readonly deadline: number,
    private readonly resumed: boolean) {
    const owner: Caller = { sub: imp.owner.sub, username: imp.owner.username, role: 'editor' };
    this.writer = { importId: imp.id, owner, language: imp.language, deadline };
    this.links = new LinkedResolver(ownerApi(owner, imp.language, deadline));
  }

  async go(): Promise<RunOutcome> {
    try {
      return await this.steps().finally(() => indexed(this.writer));
    } catch (e) {
      if (e instanceof LostLease || e instanceof IdentityTaken) {
        // Another worker has the import, or it was deleted: in that case its removal may start at once.
        if (await releaseLease(this.imp.id, this.token)) await sendToWorker(this.imp.id);
        return 'busy';
      }
      if (e instanceof OutOfTime) return this.handOver();
      // The store or the service failed: the lease lapses and the run is taken up again (the dispatcher, the next message).
      throw e;
    }
  }

  private async steps(): Promise<RunOutcome> {
    let read: SourceRead | null;
    let validators: { etag: string | null; lastModified: string | null } = { etag: null, lastModified: null };
    try {
      ({ read, validators } = await this.readSource());
    } catch (e) {
      return this.finish('failed', sourceFailure(e));
    }
    if (!read) {
      // 304: the source is as the last run saw it.
      const total = this.run.lastTotal ?? 0;
      Object.assign(this.counts, { total, processed: total, unchanged: total });
      return this.finish('done', 'the source has not changed since the last run', { ...validators, total });
    }
    const events = [...read.events].sort((a, b) => (a.startUtc < b.startUtc ? -1 : a.startUtc > b.startUtc ? 1 : 0)).slice(0, MAX_EVENTS);
    const unreadable = read.errors.length - (read.truncated ? 1 : 0);
    for (const error of read.errors) this.error(error.uid, error.message);
    this.counts.total = events.length + Math.max(0, unreadable);
    this.counts.failed = Math.max(0, unreadable);
    this.counts.processed = this.counts.failed;
    this.identities = await readIdentities(this.imp.id);
    await this.save();
    for (let i = 0; i < events.length; i += BATCH) {
      this.checkTime();
      await this.batch(events.slice(i, i + BATCH));
      await this.save();
    }
    // An event the source still has but could not be read this time is not taken as gone.
    const unreadableKeys = new Set(read.errors.flatMap((e) => (e.uid ? [`uid:${e.uid}`, `tec:${e.uid}`] : [])));
    await this.removeGone(events, read.truncated === true, unreadableKeys);
    return this.finish('done', read.truncated ? `the source has more than ${MAX_EVENTS} events: the first ${MAX_EVENTS} in start order were imported`
      : '', { ...validators, total: this.counts.total });
  }

  /** The source's events, or null for a 304; the validators to send next time. */
  private async readSource(): Promise<{ read: SourceRead | null; validators: { etag: string | null; lastModified: string | null } }> {
    const { source } = this.imp;
    const none: { etag: string | null; lastModified: string | null } = { etag: null, lastModified: null };
    if (source.type === 'tec') {
      const now = Date.now();
      const window = { startUtc: this.imp.startUtc ?? wall(now - TEC_BEFORE_MS), endUtc: this.imp.endUtc ?? wall(now + TEC_AHEAD_MS) };
      const password = source.sealed ? await openPassword(this.imp.id, source.sealed) : undefined;
      const read = await readTecSource({ url: source.url!, username: source.username, password }, { window, limit: MAX_EVENTS, fetch: tecFetch });
      return { read, validators: none };
    }
    let text: string;
    let validators = none;
    if (source.url === undefined) {
      text = await readContent(this.imp.id, source.contentParts ?? 1);
    } else {
      // A run taken over asks for the whole source: its earlier attempt may have written from a newer copy than the validators'.
      const fetched = await fetchSource(source.url, { headers: { accept: 'text/calendar, text/plain;q=0.8, */*;q=0.5' },
        etag: this.resumed ? null : this.run.etag, lastModified: this.resumed ? null : this.run.lastModified });
      validators = { etag: fetched.etag, lastModified: fetched.lastModified };
      if (fetched.notModified) return { read: null, validators };
      text = fetched.body.toString('utf8');
    }
    const window = this.imp.startUtc || this.imp.endUtc ? { startUtc: this.imp.startUtc, endUtc: this.imp.endUtc } : undefined;
    // The iCalendar reader (ical.js with it) is a chunk of its own: tec runs never load it.
    const { readIcs } = await import('./ics/read.js');
    const read = readIcs(text, { siteTimeZone: config().siteTimezone, oneTime: this.imp.schedule === 'once', window, limit: MAX_EVENTS,
      horizonDays: config().recurrenceHorizonDays });
    return { read, validators };
  }

  private checkTime(): void {
    if (Date.now() > this.deadline - STOP_BEFORE_MS) throw new OutOfTime();
  }

  private async save(): Promise<void> {
    if (!await saveProgress(this.imp.id, this.token, Date.now(), leaseMs(), this.counts, this.errors)) throw new LostLease();
  }

  private error(uid: string, message: string): void {
    if (this.errors.length < MAX_ERRORS) this.errors.push({ uid, message });
  }

  private count(what: 'created' | 'updated' | 'unchanged' | 'removed' | 'failed'): void {
    this.counts[what]++;
    this.counts.processed++;
  }

  /** What an identity item says this run did before (a run taken over counts its earlier attempt's writes). */
  private earlier(prev: Identity | undefined): 'created' | 'updated' | 'removed' | null {
    if (!prev || prev.rn !== this.run.n) return null;
    return prev.act === 'c' ? 'created' : prev.act === 'u' ? 'updated' : 'removed';
  }

  private async batch(events: SourceEvent[]): Promise<void> {
    await this.finishPending(events);
    const planned: { se: SourceEvent; write: EventWrite; prev: Identity | undefined; sent: Record<string, string> }[] = [];
    const preserve = this.imp.authority === 'preserve'
      ? await readShown(this.writer, events.flatMap((se) => {
        const prev = this.identities.get(se.key);
        return prev?.event !== undefined && !prev.removed && prev.hash !== se.hash && !se.removed ? [prev.event] : [];
      }))
      : new Map();
    for (const se of events) {
      const prev = this.identities.get(se.key);
      const retain = this.imp.authority === 'retain';
      const known = prev?.event !== undefined;
      if (se.removed) {
        if (known && !prev!.removed && !retain) planned.push({ se, prev, sent: {}, write: { op: 'trash', key: se.key, event: prev!.event! } });
        else this.count(this.earlier(prev) === 'removed' ? 'removed' : 'unchanged');
        continue;
      }
      if (known && (retain || (prev!.hash === se.hash && !prev!.removed))) {
        this.count(this.earlier(prev) ?? 'unchanged');
        continue;
      }
      let fields: EventFields;
      let occurrences: OccurrenceEdit[];
      try {
        ({ fields, occurrences } = await this.fieldsOf(se));
      } catch (e) {
        this.fail(se.key, e);
        continue;
      }
      const sent = fieldHashes(fields);
      if (known) {
        const update = this.updateFields(fields, sent, prev!, preserve.get(prev!.event!));
        if (!Object.keys(update).length && !occurrences.length) {
          // Under preserve, every field the source changed was changed through the API too: nothing to write, the change is seen.
          this.identities.set(se.key, await saveIdentity(this.imp.id, prev!, { ...prev!, hash: se.hash, sh: { ...prev!.sh, ...sent } }));
          this.count('unchanged');
          continue;
        }
        planned.push({ se, prev, sent, write: { op: 'update', key: se.key, event: prev!.event!, occurrences, fields: update } });
        continue;
      }
      planned.push({ se, prev, sent, write: { op: 'create', key: se.key, ref: `import-${this.imp.id}-${this.run.n}-${valueHash(se.key)}`, fields, occurrences } });
    }
    // Creates are recorded before they are sent, with what they send, so a run taken over repeats them exactly.
    await Promise.all(planned.map(async (p) => {
      if (p.write.op !== 'create') return;
      p.prev = await saveIdentity(this.imp.id, p.prev ?? null, { key: p.se.key, startUtc: p.se.startUtc, endUtc: p.se.endUtc, rn: this.run.n, act: 'c',
        hash: p.se.hash, pend: { ref: p.write.ref, fields: p.write.fields } });
      this.identities.set(p.se.key, p.prev);
    }));
    const written = await writeSourceEvents(this.writer, planned.map((p) => p.write));
    const settled = await Promise.all(planned.map((p, i) => this.settle(p.se, p.prev, p.write, written[i]!, p.sent)));
    for (const record of settled) record();
  }

  /** The fields an update sends: everything (but an unchanged rule), or under `preserve` what changed at the source and not through the API. */
  private updateFields(fields: EventFields, sent: Record<string, string>, prev: Identity, shown: Record<string, unknown> | null | undefined): EventFields {
    const changedHere = (k: string): boolean => shown !== undefined && shown !== null && prev.fh?.[k] !== undefined && valueHash(shown[k]) !== prev.fh[k];
    return Object.fromEntries(Object.entries(fields).filter(([k]) => {
      if (prev.removed) return true; // back at the source: restored whole
      if (k === 'recurrence' && prev.sh?.[k] === sent[k]) return false; // the same rule: no regeneration
      if (this.imp.authority !== 'preserve') return true;
      return prev.sh?.[k] !== sent[k] && !changedHere(k);
    }));
  }

  /** The write fields of a source event and of its occurrence edits, its venue, organizers and terms found or created. */
  private async fieldsOf(se: SourceEvent): Promise<{ fields: EventFields; occurrences: OccurrenceEdit[] }> {
    const f = se.fields;
    const links: Links = {
      venue: f.venue ? await this.links.venue(f.venue) : undefined,
      organizer: await Promise.all((f.organizer ?? []).map((o) => this.links.organizer(o))),
      categories: await Promise.all((f.categories ?? []).map((c) => this.links.term('category', c))),
      tags: await Promise.all((f.tags ?? []).map((t) => this.links.term('tag', t))),
    };
    const occurrences: OccurrenceEdit[] = [];
    for (const o of se.overrides) {
      const own: Partial<Links> = {
        venue: o.fields.venue ? await this.links.venue(o.fields.venue) : undefined,
        organizer: o.fields.organizer ? await Promise.all(o.fields.organizer.map((x) => this.links.organizer(x))) : undefined,
        categories: o.fields.categories ? await Promise.all(o.fields.categories.map((c) => this.links.term('category', c))) : undefined,
      };
      occurrences.push({ recurrenceId: o.recurrenceId, removed: o.removed, fields: occurrenceFields(o.fields, own) });
    }
    return { fields: eventFields(se, this.imp, links), occurrences };
  }

  /**
   * Records what a write did in the source event's identity item; answers how to count it (called in the batch's order,
   * once every identity of the batch is saved, so the errors keep the source's order).
   */
  private async settle(se: SourceEvent, prev: Identity | undefined, write: EventWrite, result: Written, sent: Record<string, string>): Promise<() => void> {
    if (!result.ok) {
      // Deleted for good through the API (the source still lists it, so it comes back), or nothing was created (the next
      // run tries again with what the source says then).
      if (write.op === 'create' || (result.missing && write.op === 'update' && this.imp.authority !== 'retain')) {
        this.identities.set(se.key, await saveIdentity(this.imp.id, prev ?? null, { key: se.key, startUtc: se.startUtc, endUtc: se.endUtc,
          rn: this.run.n, act: 'c' }));
      }
      return () => this.fail(se.key, new Error(result.message));
    }
    const act = write.op === 'create' ? 'c' : write.op === 'trash' ? 'r' : 'u';
    const shown = result.shown;
    const fh = shown ? { ...prev?.fh, ...Object.fromEntries(SHOWN_FIELDS.filter((k) => write.op === 'create' || (write.op === 'update' && k in write.fields))
      .map((k) => [k, valueHash(shown[k])])) } : prev?.fh;
    const next: Omit<Identity, 'w'> = {
      key: se.key, event: result.event, hash: se.hash, startUtc: se.startUtc, endUtc: se.endUtc, rn: this.run.n, act,
      ...(act === 'r' ? { removed: true } : {}), ...(fh ? { fh } : {}), sh: act === 'r' ? prev?.sh : { ...prev?.sh, ...sent },
      ...(Object.keys(result.occurrences).length || prev?.occ ? { occ: { ...prev?.occ, ...result.occurrences } } : {}),
    };
    this.identities.set(se.key, await saveIdentity(this.imp.id, prev ?? null, next));
    return () => {
      for (const warning of result.warnings) this.error(uidOf(se.key), warning);
      this.count(act === 'c' ? 'created' : act === 'r' ? 'removed' : 'updated');
    };
  }

  /** One source event failed (what it names could not be found or made, the write was refused): the run goes on. */
  private fail(key: string, e: unknown): void {
    if (!isOwnError(e)) throw e;
    this.error(uidOf(key), e.message);
    this.count('failed');
  }

  /** Creates a run taken over had recorded but perhaps not sent: sent again as they were (the same event, never a second). */
  private async finishPending(events: SourceEvent[]): Promise<void> {
    const pending = events.flatMap((se) => {
      const prev = this.identities.get(se.key);
      return prev?.pend && prev.event === undefined ? [prev] : [];
    });
    if (!pending.length) return;
    const written = await writeSourceEvents(this.writer, pending.map((p): EventWrite => ({ op: 'create', key: p.key, ref: p.pend!.ref,
      fields: p.pend!.fields, occurrences: [] })));
    for (const [i, p] of pending.entries()) {
      const result = written[i]!;
      const { pend: _pend, ...rest } = p;
      // Written: the event is the import's, with the hash it was created from (a newer source updates it next). Else forgotten.
      this.identities.set(p.key, await saveIdentity(this.imp.id, p, result.ok
        ? { ...rest, event: result.event, ...(result.shown ? { fh: Object.fromEntries(SHOWN_FIELDS.map((k) => [k, valueHash(result.shown![k])])) } : {}),
          sh: fieldHashes(p.pend!.fields) }
        : { key: p.key, startUtc: p.startUtc, endUtc: p.endUtc, rn: p.rn, act: 'c' }));
    }
  }

  /**
   * Trashes the events the import brought in that the source no longer lists within this run's window (not under
   * `retain`). A read cut short by the limit says nothing of the events after its last one, nor an unreadable event of itself.
   */
  private async removeGone(events: SourceEvent[], truncated: boolean, unreadable: Set<string>): Promise<void> {
    if (this.imp.authority === 'retain') return;
    const listed = new Set([...events.map((e) => e.key), ...unreadable]);
    // Removed by this run's earlier attempt (a run taken over).
    this.counts.removed += [...this.identities.values()].filter((i) => i.removed && i.rn === this.run.n && i.act === 'r' && !listed.has(i.key)).length;
    const lastStart = events.at(-1)?.startUtc;
    const gone = [...this.identities.values()].filter((i) => i.event !== undefined && !i.removed && !listed.has(i.key) && this.inWindow(i)
      && !(truncated && lastStart !== undefined && i.startUtc > lastStart));
    for (let at = 0; at < gone.length; at += BATCH) {
      this.checkTime();
      const part = gone.slice(at, at + BATCH);
      const written = await writeSourceEvents(this.writer, part.map((i): EventWrite => ({ op: 'trash', key: i.key, event: i.event! })));
      for (const [n, identity] of part.entries()) {
        const result = written[n]!;
        if (!result.ok) {
          this.error(uidOf(identity.key), result.message);
          continue;
        }
        this.identities.set(identity.key, await saveIdentity(this.imp.id, identity, { ...identity, rn: this.run.n, act: 'r', removed: true }));
        this.counts.removed++;
      }
      await this.save();
    }
  }

  /** Whether an event's dates fall inside the run's window: tec the source's own reading (start and end within), ics any overlap. */
  private inWindow(i: Identity): boolean {
    const { startUtc, endUtc } = this.imp;
    if (this.imp.source.type === 'tec') {
      const now = Date.now();
      return i.startUtc >= (startUtc ?? wall(now - TEC_BEFORE_MS)) && i.endUtc <= (endUtc ?? wall(now + TEC_AHEAD_MS));
    }
    return (startUtc === undefined || i.endUtc >= startUtc) && (endUtc === undefined || i.startUtc <= endUtc);
  }

  private async finish(state: 'done' | 'failed', message: string, validators?: { etag: string | null; lastModified: string | null; total: number }):
    Promise<RunOutcome> {
    await indexed(this.writer); // a run is done once what it wrote is found by search without reading records
    const ok = await finishRun(this.imp.id, this.token, { state, finishedUtc: wall(Date.now()), counts: this.counts, errors: this.errors, message,
      ...(validators ? { validators } : {}) });
    if (!ok) return 'busy';
    logger.info('import run finished', { import: this.imp.id, run: this.run.n, state, ...this.counts });
    return state;
  }

  /** Near its deadline: the lease goes back and the worker is asked to continue, which a new run of the worker does at once. */
  private async handOver(): Promise<RunOutcome> {
    await saveProgress(this.imp.id, this.token, Date.now(), leaseMs(), this.counts, this.errors);
    await releaseLease(this.imp.id, this.token);
    await sendToWorker(this.imp.id);
    return 'continued';
  }
}

class LostLease extends Error {}
class OutOfTime extends Error {}
/** The source cannot be read as this import's type says: the run fails with this message. */
class SourceProblem extends Error {}

const uidOf = (key: string): string => key.replace(/^(uid|tec|sum):/, '');

/**
 * An error that says what is wrong with the source or one of its events (the readers', the fetcher's, a refused write's),
 * not a failure of the store or of AWS, which stops the run so that it is taken up again.
 */
const isOwnError = (e: unknown): e is Error => e instanceof Error && !(e instanceof StoreUnavailable) && !('$metadata' in e);

/** Why reading the source failed, as the run's message: what the fetcher or the reader said. */
function sourceFailure(e: unknown): string {
  if (isOwnError(e)) return e.message;
  throw e;
}

/** lib/imports/fetch.ts for the tec reader: an error answer's status reaches the reader, which says what it means. */
const tecFetch: SourceFetcher = async (url, init) => {
  try {
    const answer = await fetchSource(url, { headers: init.headers, credentials: init.credentials });
    if (answer.notModified) throw new SourceProblem('the source answered 304 to a request without validators');
    return { status: answer.status, body: answer.body, contentType: answer.contentType ?? '', url: answer.url };
  } catch (e) {
    if (e instanceof FetchError && e.status !== null && e.status >= 400) return { status: e.status, body: Buffer.alloc(0), contentType: '', url };
    throw e;
  }
};
