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
 */
import { canEdit, canRead } from '../auth/access.js';
import type { RequestContext } from '../http/context.js';
import { invalidParam, invalidParams, ParamError } from '../http/errors.js';
import { organizerRoutes, venueRoutes } from '../routes/linked.js';
import type { ParamSpec } from '../routes/types.js';
import { table } from '../store/client.js';
import { nextId } from '../store/ids.js';
import { postKey, slugKey } from '../store/keys.js';
import { freeSlug, rewriteItem, type TransactItem } from '../store/posts.js';
import { getPost } from '../store/records.js';
import { resolveRefs } from '../store/refs.js';
import { sanitizeHtml } from '../text/sanitize.js';
import { slugify } from '../text/slug.js';
import { applyLinkedWrite, fold, PLURAL, sameContent, type LinkedItem, type LinkedKind } from './item.js';
import { recordTransactItems } from './counts.js';
import { findByName, namesOf } from './names.js';

/** What an event write needs from an inline venue/organizer (see planInline). */
export interface InlinePlan {
  id: number;
  created: boolean;
  build: (linkedDelta: number) => TransactItem[];
}

/** The plan plus the record as it will be stored (for the POST route's response). */
export interface LinkedPlan extends InlinePlan {
  item: LinkedItem;
}

/** The parameters POST /venues (resp. /organizers) declares: inline objects are validated against them. */
export function createSpecs(kind: LinkedKind): ParamSpec[] {
  const routes = kind === 'venue' ? venueRoutes : organizerRoutes;
  const op = routes.flatMap((r) => r.operations).find((o) => o.id === `${PLURAL[kind]}.create`);
  if (!op) throw new Error(`no create operation for ${kind}`);
  return op.params;
}

/** The slug guard of a new record, as lib/store/posts.ts writes them. */
const guardPut = (kind: LinkedKind, slug: string, id: number): TransactItem => ({
  Put: { TableName: table(), Item: { ...slugKey(kind, slug), id }, ConditionExpression: 'attribute_not_exists(PK) OR id = :id',
    ExpressionAttributeValues: { ':id': id } },
});

/** An Update (or, when nothing changes, a ConditionCheck) of an existing record at its read version. */
function updateExisting(kind: LinkedKind, prev: LinkedItem, next: LinkedItem, changed: boolean, delta: number): TransactItem[] {
  const key = postKey(prev.id);
  if (!changed && delta === 0) {
    return [{ ConditionCheck: { TableName: table(), Key: key, ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'v' },
      ExpressionAttributeValues: { ':v': prev.v } } }];
  }
  if (!changed) {
    return [{ Update: { TableName: table(), Key: key, UpdateExpression: 'ADD #lk :lkd', ConditionExpression: '#v = :v',
      ExpressionAttributeNames: { '#v': 'v', '#lk': 'linked' }, ExpressionAttributeValues: { ':v': prev.v, ':lkd': delta } } }];
  }
  const update = rewriteItem(key, prev, next, prev.v);
  if (delta !== 0) {
    const u = update.Update!;
    u.UpdateExpression = `${u.UpdateExpression} ADD #lk :lkd`;
    u.ExpressionAttributeNames = { ...u.ExpressionAttributeNames, '#lk': 'linked' };
    u.ExpressionAttributeValues = { ...u.ExpressionAttributeValues, ':lkd': delta };
  }
  return [update, ...recordTransactItems(kind, prev.id, prev, next)];
}

/**
 * Plans a create with validated parameters `p` (route parameters, or a validated inline object): an existing
 * match is reused (created false), else a new id and a free slug are taken (created true). Nothing is written.
 */
export async function planLinked(kind: LinkedKind, p: Record<string, unknown>, ctx: RequestContext): Promise<LinkedPlan> {
  if (p.status === 'trash') throw invalidParam('status', `status cannot be trash when creating a ${kind}`);
  const name = String(p[kind]).trim();
  const sentDescription = typeof p.description === 'string' && p.description.trim() !== '' ? sanitizeHtml(p.description) : undefined;
  const userId = await ctx.userId();
  for (const id of await findByName(kind, name, sentDescription)) {
    const existing = (await getPost(id, true)) as LinkedItem | null;
    if (!existing || existing.kind !== kind || existing.status === 'trash') continue;
    if (!canRead(ctx.caller, userId, existing) || !namesOf(existing).has(fold(name))) continue;
    const editable = canEdit(ctx.caller, userId, existing);
    // The name and description are what matched: they are not rewritten (that could only change their letter
    // case, or overwrite the text of another language), as the origin rewrites only the other fields.
    const { [kind]: _name, description: _description, ...fields } = p;
    const next = editable ? await applyLinkedWrite(kind, ctx, fields, existing, id) : existing;
    const changed = editable && !sameContent(existing, next);
    const item = changed ? next : existing;
    return { id, created: false, item, build: (delta) => updateExisting(kind, existing, item, changed, delta) };
  }
  const id = await nextId('post');
  const draft = await applyLinkedWrite(kind, ctx, p, null, id);
  const slug = await freeSlug(kind, slugify(name) || kind, id);
  const item: LinkedItem = { ...draft, slug, GSI1PK: `${kind}#${slug}`, GSI1SK: kind };
  return {
    id, created: true, item,
    build: (delta) => [
      { Put: { TableName: table(), Item: { ...item, linked: delta }, ConditionExpression: 'attribute_not_exists(PK)' } },
      guardPut(kind, slug, id),
      ...recordTransactItems(kind, id, null, item),
    ],
  };
}

/**
 * Validates an inline object against the kind's create parameters (the same parse functions as the POST
 * route); any failure is a 400 rest_invalid_param keyed by the event field (`venue` / `organizer`).
 * Unknown and read-only keys are ignored; `translation_language` comes from the event request.
 */
export async function validateInline(kind: LinkedKind, input: Record<string, unknown>, ctx: RequestContext): Promise<Record<string, unknown>> {
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
      const [found] = await resolveRefs(spec.refs, [out[spec.name] as number]);
      if (found === null) reasons.push(`${spec.name}: no ${spec.refs} ${String(out[spec.name])}`);
    }
  }
  if (reasons.length) throw invalidParams({ [kind]: `${kind}: ${reasons.join('; ')}` });
  return out;
}

/**
 * New records planned for this request, so that one inline object given twice creates one record (and a
 * retried event write reuses the id it was given). Matches of existing records are planned afresh each time,
 * so a retry never works from a stale version.
 */
const planned = new WeakMap<RequestContext, Map<string, LinkedPlan>>();

/**
 * For event writes: validates an inline venue/organizer object and plans its creation or de-duplication.
 * `build(delta)` returns the conditional items for the event's transaction: for a new record its Put (with
 * `linked: delta`), slug guard and name items; for a reused one a single Update at the version read that writes
 * the other sent fields, bumps `v` and ADDs `delta` to `linked` (a ConditionCheck when there is nothing to
 * change at all). Nothing is written here.
 */
export async function planInline(kind: LinkedKind, input: Record<string, unknown>, ctx: RequestContext): Promise<InlinePlan> {
  const p = await validateInline(kind, input, ctx);
  const key = `${kind}|${fold(String(p[kind]))}|${typeof p.description === 'string' ? fold(p.description) : ''}`;
  let plans = planned.get(ctx);
  if (!plans) planned.set(ctx, (plans = new Map()));
  const plan = plans.get(key) ?? (await planLinked(kind, p, ctx));
  if (plan.created) plans.set(key, plan);
  const { id, created, build } = plan;
  return { id, created, build };
}
