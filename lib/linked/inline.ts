/**
 * Planning the creation of a venue/organizer — or its de-duplication onto an existing one — without writing:
 * the caller runs the planned items in its own transaction. POST /venues and /organizers and the inline
 * `venue`/`organizer` objects of event writes (reference §10.1–10.3, contract §7) share this code.
 *
 * De-duplication (reference §10.2): an existing record that is not trashed, shows the same name in some
 * language (case-insensitive) and — when a non-empty description is sent — the same description, is reused:
 * its id is returned and the other sent fields are written to it. Two readings of ours: only records the caller may
 * read are candidates (a draft of someone else's is never revealed or reused), and the sent fields are written
 * only when the caller may edit the match (otherwise it is reused as it is).
 *
 * Planning runs in steps so that an event write gathers the reads of all its inline records (and everything else
 * it needs) into one request: `wantDraft` (the name item, slug candidates) → fetch → `wantMatches` (the records
 * the name item lists) → fetch → `reuseOf` (a match) or, with an id, `createOf`. Nothing is written here.
 */
import { canEdit, canRead } from '../auth/access.js';
import type { RequestContext } from '../http/context.js';
import type { LinkedWriteParams } from '../routes/linked.js';
import { invalidParam, invalidParams } from '../http/errors.js';
import { ParamError } from '../model/errors.js';
import { organizerRoutes, venueRoutes } from '../routes/linked.js';
import type { ParamSpec } from '../routes/types.js';
import { table } from '../store/client.js';
import type { IdPool } from '../store/ids.js';
import { postKey, slugKey } from '../store/keys.js';
import { guardPut, rewriteItem } from '../store/kit.js';
import type { TransactItem } from '../store/types.js';
import { ReadSet } from '../store/reads.js';
import { pipelineStore } from '../http/pipeline-store.js';
import { sanitizeHtml } from '../text/sanitize.js';
import { slugify } from '../text/slug.js';
import { applyLinkedWrite, fold, PLURAL, sameContent, type LinkedItem, type LinkedKind } from './item.js';
import { kindCountItems, nonEmptyMove } from './counts.js';
import { withConds } from '../store/nonempty.js';
import { idsInNameItem, nameKey, nameWrites, showsName, type NameChange } from './names.js';
import { EMPTY_MANIFEST, manifestKeyOf, manifestOf } from '../store/words.js';
import { planLinkedWords, type LinkedWordPlan } from './words.js';
import { noted } from '../store/changes.js';
import { relocationItems } from '../geo/relocate.js';

/** The parameters POST /venues (resp. /organizers) declares: inline objects are validated against them. */
export function createSpecs(kind: LinkedKind): readonly ParamSpec[] {
  const routes = kind === 'venue' ? venueRoutes : organizerRoutes;
  const op = routes.flatMap((r) => r.operations).find((o) => o.id === `${PLURAL[kind]}.create`);
  if (!op) throw new Error(`no create operation for ${kind}`);
  return op.params;
}

/** A validated inline object or POST body, before any read. */
export interface LinkedDraft {
  kind: LinkedKind;
  /** Validated parameters. */
  p: LinkedWriteParams;
  /** The name as sent, trimmed. */
  name: string;
  /** The sanitised description, when a non-empty one was sent (it then takes part in the match). */
  description?: string;
}

/** The record an event write (or POST /venues, /organizers) creates or reuses, as it will be stored. */
export interface LinkedPlan {
  id: number;
  created: boolean;
  item: LinkedItem;
  /** Its name item change (merged with the other records' by `nameWrites`). */
  names: NameChange;
  /**
   * The record's own conditional items: for a new record its Put (with `linked: delta`) and slug guard; for a
   * reused one a single Update at the version read that writes the other sent fields, bumps `v` and ADDs `delta`
   * to `linked` (a ConditionCheck when there is nothing to change at all).
   */
  build: (linkedDelta: number) => TransactItem[];
  /** A reused venue whose cell this write changes: its other events move after the commit (lib/geo/relocate.ts). */
  moved: boolean;
  /**
   * For POST /venues and /organizers, once the last built transaction committed: the search index work that did not
   * fit in it (lib/linked/words.ts). An event write does not call it: the record's marker says that its index waits.
   */
  afterCommit: () => Promise<void>;
}

export function draftOf(kind: LinkedKind, p: LinkedWriteParams): LinkedDraft {
  if (p.status === 'trash') throw invalidParam('status', `status cannot be trash when creating a ${kind}`);
  const description = typeof p.description === 'string' && p.description.trim() !== '' ? sanitizeHtml(p.description) : undefined;
  return { kind, p, name: (p[kind] ?? '').trim(), description };
}

const slugBaseOf = (d: LinkedDraft): string => slugify(d.name) || d.kind;

/** Step 1: the draft's name item and slug candidates. */
export function wantDraft(d: LinkedDraft, reads: ReadSet): void {
  if (fold(d.name)) reads.want(nameKey(d.kind, fold(d.name)));
  reads.wantSlugs(d.kind, slugBaseOf(d));
}

/** Step 2 (after the name item was read): the records it lists with that name (and description), with their search manifests. */
export function wantMatches(d: LinkedDraft, reads: ReadSet): void {
  if (!fold(d.name)) return;
  const ids = idsInNameItem(reads.get(nameKey(d.kind, fold(d.name))), d.description);
  reads.want(...ids.map(postKey), ...ids.map(manifestKeyOf));
}

/** Whether a later draft of the same request de-duplicates onto this one (same rule as for stored records). */
export const sameRecord = (planned: LinkedDraft, d: LinkedDraft): boolean =>
  planned.kind === d.kind && fold(planned.name) === fold(d.name)
  && (d.description === undefined || fold(d.description) === fold(planned.description ?? ''));

/**
 * An Update (or, when nothing changes, a ConditionCheck) of an existing record at its read version. Its `linked` was
 * read with it but is not covered by the version (event writes ADD to it): when the write moves it or the record's
 * status, a condition keeps the read value's side of zero, and the kind's non-empty counts move with it.
 */
function updateExisting(prev: LinkedItem, next: LinkedItem, changed: boolean, delta: number): TransactItem[] {
  const key = postKey(prev.id);
  if (!changed && delta === 0) {
    return [{ ConditionCheck: { TableName: table(), Key: key, ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'v' },
      ExpressionAttributeValues: { ':v': prev.v } } }];
  }
  const filled = nonEmptyMove(prev.kind, prev, changed ? next : prev, delta);
  if (!changed) {
    return [withConds({ Update: { TableName: table(), Key: key, UpdateExpression: 'ADD #lk :lkd', ConditionExpression: '#v = :v',
      ExpressionAttributeNames: { '#v': 'v', '#lk': 'linked' }, ExpressionAttributeValues: { ':v': prev.v, ':lkd': delta } } }, filled.conds),
    ...filled.items];
  }
  const update = rewriteItem(key, prev, next, prev.v);
  if (delta !== 0) {
    const u = update.Update!;
    u.UpdateExpression = `${u.UpdateExpression} ADD #lk :lkd`;
    u.ExpressionAttributeNames = { ...u.ExpressionAttributeNames, '#lk': 'linked' };
    u.ExpressionAttributeValues = { ...u.ExpressionAttributeValues, ':lkd': delta };
  }
  return [withConds(update, filled.conds), ...kindCountItems(prev.kind, prev, next), ...filled.items];
}

/** The search index part of a plan: made again for each transaction built, so `afterCommit` follows the last one. */
function wordsOf(make: () => LinkedWordPlan): { build: () => TransactItem[]; afterCommit: () => Promise<void> } {
  let last: LinkedWordPlan | null = null;
  return {
    build: () => (last = make()).items,
    afterCommit: async () => { await last?.after(); },
  };
}

/**
 * Step 3 (after the matches were read): the existing record the draft de-duplicates onto — the lowest id that
 * is of the kind, not trashed, readable by the caller and (checked on the record itself) shows the name and
 * description — or null. `own`: the caller runs `afterCommit` (POST /venues, /organizers), not an event write.
 */
export async function reuseOf(d: LinkedDraft, ctx: RequestContext, reads: ReadSet, own = false): Promise<LinkedPlan | null> {
  if (!fold(d.name)) return null;
  const userId = await ctx.userId();
  for (const id of idsInNameItem(reads.get(nameKey(d.kind, fold(d.name))), d.description)) {
    const existing = reads.get(postKey(id)) as LinkedItem | null;
    if (!existing || existing.kind !== d.kind || existing.status === 'trash') continue;
    if (!canRead(ctx.caller, userId, existing) || !showsName(existing, d.name, d.description)) continue;
    const editable = canEdit(ctx.caller, userId, existing);
    // The name and description are what matched: they are not rewritten (that could only change their letter
    // case, or overwrite the text of another language), as the origin rewrites only the other fields.
    const { [d.kind]: _name, description: _description, ...fields } = d.p;
    const next = editable ? await applyLinkedWrite(d.kind, ctx, fields, existing, id) : existing;
    const changed = editable && !sameContent(existing, next);
    const item = changed ? next : existing;
    const words = wordsOf(() => planLinkedWords(d.kind, id, existing, item, manifestOf(reads.get(manifestKeyOf(id))), !own));
    const markers = changed ? relocationItems(existing, item) : [];
    return { id, created: false, item, names: { kind: d.kind, id, prev: existing, next: item }, moved: markers.length > 0,
      build: (delta) => [...updateExisting(existing, item, changed, delta), ...(changed ? words.build() : []), ...markers],
      afterCommit: words.afterCommit };
  }
  return null;
}

/** Step 3, no match: the new record with id `id` and a free slug (`spread` > 0 after a lost race; `own` as for reuseOf). */
export async function createOf(d: LinkedDraft, ctx: RequestContext, id: number, reads: ReadSet, spread = 0, own = false): Promise<LinkedPlan> {
  const draft = await applyLinkedWrite(d.kind, ctx, d.p, null, id);
  const slug = await reads.freeSlug(d.kind, slugBaseOf(d), id, spread);
  const item: LinkedItem = { ...draft, slug, GSI1PK: `${d.kind}#${slug}`, GSI1SK: d.kind };
  const words = wordsOf(() => planLinkedWords(d.kind, id, null, item, EMPTY_MANIFEST, !own));
  return {
    id, created: true, item, names: { kind: d.kind, id, prev: null, next: item }, moved: false,
    build: (delta) => [
      noted({ Put: { TableName: table(), Item: { ...item, linked: delta }, ConditionExpression: 'attribute_not_exists(PK)' } }, null, item),
      guardPut(slugKey(d.kind, slug), id),
      ...kindCountItems(d.kind, null, item),
      ...nonEmptyMove(d.kind, null, { ...item, linked: delta }).items,
      ...words.build(),
    ],
    afterCommit: words.afterCommit,
  };
}

/**
 * POST /venues and /organizers: plans a create with validated parameters `p` — an existing match is reused
 * (created false), else an id from `ids` and a free slug are taken — and returns the plan with every item of
 * its transaction. `attempt` > 0 (planning again after a lost race) reads consistently and spreads slugs.
 */
export async function planLinked(kind: LinkedKind, p: LinkedWriteParams, ctx: RequestContext, ids: IdPool, attempt = 0):
  Promise<{ plan: LinkedPlan; items: TransactItem[] }> {
  const reads = new ReadSet(attempt > 0);
  const d = draftOf(kind, p);
  wantDraft(d, reads);
  await reads.fetch();
  wantMatches(d, reads);
  await reads.fetch();
  const plan = (await reuseOf(d, ctx, reads, true)) ?? (await createOf(d, ctx, (await ids.take('post', 1))[0]!, reads, attempt, true));
  return { plan, items: [...plan.build(0), ...nameWrites([plan.names], reads)] };
}

/**
 * Validates an inline object against the kind's create parameters (the same parse functions as the POST
 * route); any failure is a 400 rest_invalid_param keyed by the event field (`venue` / `organizer`).
 * Unknown and read-only keys are ignored; `translation_language` comes from the event request.
 */
export async function validateInline(kind: LinkedKind, input: Record<string, unknown>, ctx: RequestContext): Promise<LinkedWriteParams> {
  const reasons: string[] = [];
  const out: Record<string, unknown> = {};
  for (const spec of createSpecs(kind)) {
    if (spec.name === 'translation_language') continue;
    const value = input[spec.name];
    if (value === undefined || value === null) {
      if (spec.required) reasons.push(`${spec.name} is required`);
      continue;
    }
    try {
      out[spec.name] = await spec.parse(value, ctx);
    } catch (e) {
      if (!(e instanceof ParamError)) throw e;
      reasons.push(`${spec.name} ${e.message}`);
      continue;
    }
    if (spec.refs) {
      const [found] = await pipelineStore.resolveRefs(spec.refs, [out[spec.name] as number], ctx, 'link');
      if (found === null) reasons.push(`${spec.name}: no ${spec.refs} ${String(out[spec.name])}`);
    }
  }
  if (reasons.length) throw invalidParams({ [kind]: `${kind}: ${reasons.join('; ')}` });
  // Parsed by the kind's own create parameters, as the pipeline parses a POST body (lib/http/handler.ts).
  return out as LinkedWriteParams;
}
