/**
 * What an event write links to (contract §7): venues and organizers as ids, {id} or inline objects that
 * create (or de-duplicate onto) records; categories and tags as ids, slugs or names, unknown names creating
 * terms. Everything planned here joins the event's own transaction, so a rejected request stores nothing.
 *
 * The plan reads what it needs in one request (lib/store/reads.ts, shared with the event's own slug candidates):
 * the linked records and terms by id (whole items, which the response embeds), the guards that resolve term
 * names, and the name items and slug candidates of inline records. Only what that answer reveals is read next,
 * in one more request when needed (the records a name item lists, terms found by name, slug candidates of new
 * terms); then one block of ids is taken for the event (on create) and the new records.
 */
import { canEdit, canRead } from '../auth/access.js';
import type { RequestContext } from '../http/context.js';
import type { EventWriteParams } from '../routes/events.js';
import { invalidParam } from '../http/errors.js';
import { createOf, draftOf, reuseOf, sameRecord, validateInline, wantDraft, wantMatches, type LinkedDraft, type LinkedPlan } from '../linked/inline.js';
import { nameWrites } from '../linked/names.js';
import type { LinkRef } from '../model/links.js';
import type { PostStatus } from '../model/status.js';
import type { IdPool } from '../store/ids.js';
import { postKey, termKey } from '../store/keys.js';
import { contribution, linkTransactItems, type ExtraMove, type LinkKind } from '../store/links.js';
import type { TransactItem } from '../store/types.js';
import type { Item } from '../store/records.js';
import type { ReadSet } from '../store/reads.js';
import { checkNewTermNames, planNewTerms, resolveTermNames, wantTermNames } from '../terms/inline.js';
import type { TermItem } from '../terms/item.js';
import { embedKeys, embedsFrom } from './embed.js';
import { eventFacts, type EventItem } from './record.js';
import { seriesCountChange } from './series-counts.js';
import type { Embedded } from './serialize.js';

/** The reads, ids and retry state an event write plans with. */
export interface WritePlan {
  reads: ReadSet;
  ids: IdPool;
  /** Planning pass (0 first): > 0 after a lost race, to spread slug choices. */
  attempt: number;
}

/** The new link lists (undefined = not sent, unchanged; venue null = removed) and the transaction items. */
export interface PlannedLinks {
  venue?: number | null;
  organizers?: number[];
  categories?: number[];
  tags?: number[];
  /** Post ids taken for the caller ahead of the new records' (the event's own id on create). */
  leadingIds: number[];
  transactItems(prev: EventItem | null, next: EventItem): Promise<TransactItem[]>;
  /** A venue's geohash as planned or read (null: it has no coordinates; undefined: it was not read). */
  venueCell(id: number): string | null | undefined;
  /** Reused inline venues whose coordinates this write changes: their other events move after the commit. */
  movedVenues: number[];
  /** The linked records as they are after the write (term counts included), for the response. */
  embeds(prev: EventItem | null, next: EventItem, ctx: RequestContext<EventWriteParams>): Embedded;
}

const MAX = { organizers: 10, categories: 20, tags: 20 } as const;

/** Counter contributions of records created or rewritten in this transaction are written by their own item. */
interface InlinePlan {
  key: string;
  build: (prev: EventItem | null, next: EventItem, extra: ExtraMove[]) => TransactItem[];
}

interface TermRequest {
  kind: 'category' | 'tag';
  param: 'categories' | 'tags';
  values: (number | string)[];
}

/** A venue/organizer input: an id, or an inline draft resolved to a plan. */
interface RecordRequest {
  kind: 'venue' | 'organizer';
  id?: number;
  draft?: LinkedDraft;
  /** Set in step 3: the plan this draft uses (its own, or one it de-duplicates onto). */
  plan?: LinkedPlan | { pending: number };
}

function termRequest(ctx: RequestContext<EventWriteParams>, kind: 'category' | 'tag', param: 'categories' | 'tags'): TermRequest | undefined {
  const values = ctx.params[param];
  if (values === undefined) return undefined;
  if (values.length > MAX[param]) throw invalidParam(param, `${param}: at most ${MAX[param]} per event`);
  return { kind, param, values };
}

async function recordRequest(ctx: RequestContext<EventWriteParams>, kind: 'venue' | 'organizer', input: LinkRef): Promise<RecordRequest> {
  if ('id' in input) return { kind, id: input.id };
  return { kind, draft: draftOf(kind, await validateInline(kind, input.inline, ctx)) };
}

/**
 * Plans the links of an event write (existing = null on create). `leading` post ids are taken for the caller in
 * the same request as the new records' ids. Throws 400 rest_invalid_param for unknown ids (contract §3) and
 * invalid inline objects or names; nothing is written.
 */
export async function planLinks(ctx: RequestContext<EventWriteParams>, existing: EventItem | null, status: PostStatus, plan: WritePlan, leading = 0):
  Promise<PlannedLinks> {
  const { reads, ids, attempt } = plan;
  // Step 0: validate everything that needs no read.
  const venueInput = ctx.params.venue;
  const organizerInputs = ctx.params.organizer;
  if (organizerInputs && organizerInputs.length > MAX.organizers) {
    throw invalidParam('organizer', `organizer: at most ${MAX.organizers} per event`);
  }
  const venue = venueInput && !('clear' in venueInput) ? await recordRequest(ctx, 'venue', venueInput) : undefined;
  const organizers: RecordRequest[] = [];
  for (const o of organizerInputs ?? []) organizers.push(await recordRequest(ctx, 'organizer', o));
  const terms = [termRequest(ctx, 'category', 'categories'), termRequest(ctx, 'tag', 'tags')].filter((t): t is TermRequest => !!t);
  const records = [...(venue ? [venue] : []), ...organizers];

  // Step 1: one read of everything known by key.
  for (const r of records) {
    if (r.draft) wantDraft(r.draft, reads);
    else reads.want(postKey(r.id!));
  }
  for (const t of terms) {
    reads.want(...t.values.filter((v): v is number => typeof v === 'number').map(termKey));
    wantTermNames(t.kind, t.values.filter((v): v is string => typeof v === 'string'), reads);
  }
  if (existing) reads.want(...embedKeys([existing])); // the response embeds the links that stay, too
  await reads.fetch();

  // Step 2: references must exist (400 otherwise); what the answer names is read next.
  const refKeys = [...records.filter((r) => !r.draft).map((r) => postKey(r.id!)),
    ...terms.flatMap((t) => t.values.filter((v): v is number => typeof v === 'number').map(termKey))];
  await reads.confirmMissing(refKeys);
  // A new link may name only a record the caller may read (contract §7): a trashed, unreadable or locked one is
  // refused like a missing one, so linking never reveals what a reader could not see. Links the event has stay.
  const userId = await ctx.userId();
  const linkedAlready = new Set(existing ? [existing.venue, ...existing.organizers] : []);
  const linkable = (item: Item) => linkedAlready.has(item.id as number) || (item.status !== 'trash'
    && canRead(ctx.caller, userId, item) && (!item.pw || canEdit(ctx.caller, userId, item)));
  for (const kind of ['venue', 'organizer'] as const) {
    const unknown = records.filter((r) => {
      if (r.kind !== kind || r.draft) return false;
      const item = reads.get(postKey(r.id!)) as Item | null;
      return item?.kind !== kind || !linkable(item);
    });
    if (unknown.length) throw invalidParam(kind, `${kind}: no ${kind} ${unknown.map((r) => r.id).join(', ')}`);
  }
  const termIds = new Map<TermRequest, { found: Map<string, number>; missing: string[] }>();
  for (const t of terms) {
    const unknown = t.values.filter((v): v is number => typeof v === 'number')
      .filter((id) => (reads.get(termKey(id)) as Item | null)?.taxonomy !== t.kind);
    if (unknown.length) throw invalidParam(t.param, `${t.param}: no ${t.kind} ${unknown.join(', ')}`);
    const resolved = resolveTermNames(t.kind, t.values.filter((v): v is string => typeof v === 'string'), reads);
    reads.want(...[...resolved.found.values()].map(termKey));
    checkNewTermNames(t.kind, resolved.missing, reads);
    termIds.set(t, resolved);
  }
  for (const r of records) if (r.draft) wantMatches(r.draft, reads);
  await reads.fetch();

  // Step 3: inline records reuse a match (stored, or planned earlier in this request) or are new.
  const plans: LinkedPlan[] = [];
  const fresh: RecordRequest[] = [];
  for (const r of records) {
    if (!r.draft) continue;
    const reused = await reuseOf(r.draft, ctx, reads);
    if (reused) {
      r.plan = plans.find((p) => p.id === reused.id) ?? reused;
      if (r.plan === reused) plans.push(reused);
      continue;
    }
    const earlier = fresh.findIndex((f) => sameRecord(f.draft!, r.draft!));
    if (earlier >= 0) r.plan = { pending: earlier };
    else {
      r.plan = { pending: fresh.length };
      fresh.push(r);
    }
  }
  const postIds = await ids.take('post', leading + fresh.length);
  const created: LinkedPlan[] = [];
  for (const [i, r] of fresh.entries()) created.push(await createOf(r.draft!, ctx, postIds[leading + i]!, reads, attempt));
  plans.push(...created);
  const idOf = (r: RecordRequest): number => {
    if (!r.draft) return r.id!;
    return 'pending' in r.plan! ? created[r.plan.pending]!.id : r.plan!.id;
  };

  // `extra`: what an occurrence's write also counts for its series (lib/events/series-counts.ts).
  let seriesMoves: ExtraMove[] = [];
  const inline: InlinePlan[] = plans.map((p) => ({
    key: `${p.item.kind}#${p.id}`,
    build: (prev, next, extra) => p.build(contribution(p.item.kind, eventFacts(next), p.id) - contribution(p.item.kind, prev && eventFacts(prev), p.id)
      + (extra.find((m) => m.kind === p.item.kind && m.id === p.id)?.delta ?? 0)),
  }));
  const out: Omit<PlannedLinks, 'transactItems' | 'embeds' | 'leadingIds' | 'venueCell' | 'movedVenues'> = {};
  if (venueInput) out.venue = venue ? idOf(venue) : null;
  if (organizerInputs) out.organizers = [...new Set(organizers.map(idOf))];
  const newTerms: TermItem[] = [];
  for (const t of terms) {
    const { found, missing } = termIds.get(t)!;
    const planned = missing.length ? await planNewTerms(t.kind, missing, ctx, status === 'publish' ? 1 : 0, ids, reads, attempt)
      : { ids: [], items: [], terms: [] };
    if (planned.items.length) inline.push({ key: '', build: () => planned.items });
    planned.ids.forEach((id) => inline.push({ key: `${t.kind}#${id}`, build: () => [] }));
    newTerms.push(...planned.terms);
    const byName = new Map(missing.map((name, i) => [name, planned.ids[i]!]));
    out[t.param] = [...new Set(t.values.map((v) => (typeof v === 'number' ? v : found.get(v) ?? byName.get(v)!)))];
  }

  return {
    ...out,
    leadingIds: postIds.slice(0, leading),
    movedVenues: plans.filter((p) => p.moved).map((p) => p.id),
    venueCell: (id) => {
      const record = plans.find((p) => p.id === id)?.item ?? (reads.has(postKey(id)) ? reads.get(postKey(id)) : undefined);
      if (record === undefined) return undefined;
      return typeof record?.gh === 'string' ? record.gh : null;
    },
    transactItems: async (prev, next) => {
      const skip = new Set(inline.map((p) => p.key).filter(Boolean));
      // New terms start counted when the event is published: an occurrence linking one counts for its series so too.
      const series = await seriesCountChange(prev, next,
        { created: new Set([...newTerms.map((t) => `${t.taxonomy}#${t.id}`), ...created.map((p) => `${p.item.kind}#${p.id}`)]) });
      seriesMoves = series.moves;
      return [
        ...inline.flatMap((p) => p.build(prev, next, series.moves)),
        ...nameWrites(plans.map((p) => p.names), reads),
        ...await linkTransactItems(prev && eventFacts(prev), eventFacts(next), reads, skip, series.moves),
        ...series.items,
      ];
    },
    embeds: (prev, next, embedCtx) => {
      const own = new Map<string, Item>([
        ...plans.map((p): [string, Item] => [`POST#${p.id}`, p.item]),
        ...newTerms.map((t): [string, Item] => [`TERM#${t.id}`, t]),
      ]);
      const items = embedKeys([next]).map((k) => {
        const mine = own.get(k.PK);
        if (mine) return mine;
        const read = reads.has(k) ? reads.get(k) : null;
        if (!read?.taxonomy) return read;
        // A term's count after this write: as read, plus what this event changes.
        const kind = read.taxonomy as LinkKind;
        const delta = contribution(kind, eventFacts(next), read.id as number) - contribution(kind, prev && eventFacts(prev), read.id as number)
          + (seriesMoves.find((m) => m.kind === kind && m.id === read.id)?.delta ?? 0);
        return { ...read, cnt: Number(read.cnt ?? 0) + delta };
      }).filter((i): i is Item => i !== null);
      return embedsFrom(items, embedCtx);
    },
  };
}
