/**
 * The single-term operations of /categories and /tags: read, create, update, delete (reference §9.3, §10.4,
 * §10.5; contract §3, §7, §8). Capabilities are checked by the request pipeline before these run.
 */
import { unlinkEverywhere } from '../events/unlink.js';
import type { RequestContext } from '../http/context.js';
import type { TermIdParams, TermUpdateParams, TermWriteParams } from '../routes/terms.js';
import { ApiError, invalidParam, preconditionFailed } from '../http/errors.js';
import { checkIfMatch, recordJson } from '../http/etag.js';
import { json, type HttpResult } from '../http/response.js';
import type { Operation } from '../http/handler.js';
import { table } from '../store/client.js';
import { nextId } from '../store/ids.js';
import { slugKey, termKey, type Taxonomy } from '../store/keys.js';
import { LinkConflict, VersionConflict } from '../store/errors.js';
import { commit, guardDelete, guardPut, rewriteItem } from '../store/kit.js';
import { ReadSet } from '../store/reads.js';
import type { TransactItem } from '../store/types.js';
import { backoff, retryConflicts } from '../store/retry.js';
import { sanitizeHtml } from '../text/sanitize.js';
import { slugify } from '../text/slug.js';
import { nameGuardItems, notHierarchical, slugBase, slugGuardItems, termExists } from './guards.js';
import {
  isHierarchical, nameGuardKey, nameGuardKeys, newTermItem, TAXONOMIES, termText, withDerived,
  type TermItem, type TermText,
} from './item.js';
import { listTerms } from './list.js';
import { serializeTerm } from './serialize.js';
import {
  ancestry, childrenOf, guardHolder, guardHolders, hierarchyActions, hierarchyItems, nameOrderItems, readTerm, termReader, type ChainLink,
} from './store.js';
import { counterAdd } from '../store/counters.js';
import { ItemActions, nonEmptyKey, planCategoryChanges, sideConds, withConds, type Cond } from '../store/nonempty.js';
import { EMPTY_MANIFEST } from '../store/words.js';
import { planTermWords, readTermManifest, termWordsMayChange } from './words.js';
import { noted } from '../store/changes.js';

export const termNotFound = (taxonomy: Taxonomy, id: number | string): ApiError =>
  new ApiError(404, `rest-${taxonomy}-not-found`, `${TAXONOMIES[taxonomy].title} with ID ${id} does not exist.`);

/** The id as the path gave it (an id beyond any counter parses to 0, but the message names what was asked for). */
const pathId = (ctx: RequestContext<TermIdParams>): string => String(ctx.raw.id ?? ctx.params.id);

function respond(ctx: RequestContext, item: TermItem, status: number, extra: Record<string, string> = {}): HttpResult {
  return recordJson(status, serializeTerm(item, ctx), item.v, extra);
}

/** A sent `parent` on a tag is an error; `null` counts as not sent (as WordPress' isset). */
function tagParentSent(ctx: RequestContext<TermWriteParams>): boolean {
  return ctx.params.parent !== undefined && ctx.params.parent !== null;
}

async function loadForWrite(taxonomy: Taxonomy, ctx: RequestContext<TermIdParams>): Promise<TermItem> {
  const { id } = ctx.params;
  const item = await readTerm(taxonomy, id);
  if (!item) throw termNotFound(taxonomy, pathId(ctx));
  checkIfMatch(ctx.headers['if-match'], item.v);
  return item;
}

/** Runs a term transaction; a failed condition is a version conflict when the term changed, else a retry. */
async function commitTerm(taxonomy: Taxonomy, prev: TermItem, items: TransactItem[]): Promise<void> {
  try {
    await commit(items);
  } catch (e) {
    if (!(e instanceof LinkConflict) && !(e instanceof VersionConflict)) throw e;
    const now = await readTerm(taxonomy, prev.id);
    if (!now || now.v !== prev.v) throw new VersionConflict();
    throw new LinkConflict();
  }
}

export async function getTermOp(taxonomy: Taxonomy, ctx: RequestContext<TermIdParams>): Promise<HttpResult> {
  const { id } = ctx.params;
  const item = await readTerm(taxonomy, id);
  if (!item) throw termNotFound(taxonomy, pathId(ctx));
  return respond(ctx, item, 200);
}

export async function createTermOp(taxonomy: Taxonomy, ctx: RequestContext<TermWriteParams>): Promise<HttpResult> {
  const p = ctx.params;
  if (!isHierarchical(taxonomy) && tagParentSent(ctx)) throw notHierarchical();
  const name = p.name!;
  const parent = isHierarchical(taxonomy) ? (p.parent ?? 0) : 0;
  const description = p.description !== undefined ? sanitizeHtml(p.description) : undefined;
  const nameKey = nameGuardKey(taxonomy, parent, name);
  const existing = await guardHolder(nameKey);
  if (existing !== null) throw termExists(existing);

  const id = await nextId('term');
  const base = slugBase(p.slug, name, id);
  return retryConflicts(async (attempt, contended) => {
    const slug = await new ReadSet(attempt > 0).freeSlug(taxonomy, base, id, contended);
    const item = newTermItem(taxonomy, id, ctx.lang, { name, description, slug, parent });
    const words = planTermWords(taxonomy, id, null, item, EMPTY_MANIFEST);
    const items: TransactItem[] = [
      noted({ Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } }, null, item),
      guardPut(slugKey(taxonomy, slug), id),
      ...nameGuardKeys(item).map((k) => guardPut(k, id)),
      ...nameOrderItems(null, item),
      ...(parent ? hierarchyItems([], new Map([[parent, 1]])) : []),
      counterAdd(nonEmptyKey(taxonomy), { all: 1 }),
      ...words.items,
    ];
    try {
      await commit(items);
    } catch (e) {
      if (!(e instanceof LinkConflict) && !(e instanceof VersionConflict)) throw e;
      const holder = await guardHolder(nameKey);
      if (holder !== null && holder !== id) throw termExists(holder);
      if (parent && !(await readTerm('category', parent))) throw invalidParam('parent', `parent: no category ${parent}`);
      throw new LinkConflict(); // the slug was taken meanwhile, or a concurrent transaction touched the parent
    }
    await words.after();
    return respond(ctx, item, 201, { Location: `${ctx.apiUrl}/${TAXONOMIES[taxonomy].plural}/${id}` });
  });
}

export async function updateTermOp(taxonomy: Taxonomy, ctx: RequestContext<TermUpdateParams>): Promise<HttpResult> {
  const p = ctx.params;
  return retryConflicts(async () => {
    const prev = await loadForWrite(taxonomy, ctx);
    if (!isHierarchical(taxonomy) && tagParentSent(ctx)) throw notHierarchical();
    const lang = ctx.lang;

    const tr = structuredClone(prev.tr ?? {});
    if (p.name !== undefined || p.description !== undefined) {
      const text: TermText = { ...tr[lang] };
      if (p.name !== undefined) text.name = p.name;
      if (p.description !== undefined) text.description = sanitizeHtml(p.description);
      tr[lang] = text;
    }

    let parent = Number(prev.parent ?? 0);
    let chain: ChainLink[] = [];
    const deltas = new Map<number, number>();
    if (isHierarchical(taxonomy) && p.parent !== undefined && p.parent !== parent) {
      const wanted = p.parent ?? 0; // a category's parent parses null to 0
      chain = await ancestry(wanted, prev.id);
      if (parent !== 0 && (await readTerm('category', parent))) deltas.set(parent, -1);
      deltas.set(wanted, (deltas.get(wanted) ?? 0) + 1);
      parent = wanted;
    }

    let slug = prev.slug;
    if (p.slug !== undefined) {
      const wanted = slugify(p.slug) || slugify(termText({ tr, lang0: prev.lang0 }, lang, 'name')) || String(prev.id);
      if (wanted !== prev.slug) {
        const holder = await guardHolder(slugKey(taxonomy, wanted));
        if (holder !== null && holder !== prev.id) {
          throw invalidParam('slug', `slug: "${wanted}" is already used by another ${taxonomy} (ID ${holder})`);
        }
        slug = wanted;
      }
    }

    const next = withDerived({ ...prev, tr, parent, slug, v: prev.v + 1 });
    if (JSON.stringify(prev.tr) === JSON.stringify(next.tr) && prev.parent === next.parent && prev.slug === next.slug) {
      return respond(ctx, prev, 200); // nothing changed: no write, same ETag
    }
    const actions = new ItemActions();
    hierarchyActions(chain, deltas, actions);
    // A category that is not empty counts on its parent's `linked`: moving it moves that count up both chains.
    const own = next.parent !== prev.parent
      ? await planCategoryChanges([{ id: prev.id, parent: next.parent }], termReader([prev]), actions, new Set([prev.id])) : [];
    // The search index holds the term's name, slug and emptiness: written with the emptiness as read, which the rewrite
    // then requires (a category whose parent moves already requires it).
    const reindex = termWordsMayChange(taxonomy, prev, next);
    const words = reindex ? planTermWords(taxonomy, prev.id, prev, next, await readTermManifest(taxonomy, prev.id)) : null;
    const emptiness = !reindex || own.length ? [] : isHierarchical(taxonomy)
      ? sideConds('linked', Number(prev.linked ?? 0), 0) : sideConds('cnt', Number(prev.cnt ?? 0), 0);
    await commitTerm(taxonomy, prev, [
      withConds(rewriteItem(termKey(prev.id), prev, next, prev.v), [...own, ...emptiness]),
      ...(words?.items ?? []),
      ...slugGuardItems(prev, next),
      ...(await nameGuardItems(prev, next)),
      ...nameOrderItems(prev, next),
      ...actions.items(),
    ]);
    await words?.after();
    return respond(ctx, next, 200);
  }, { ifMatch: ctx.headers['if-match'] !== undefined });
}

/** Moves a child of a category being deleted up to that category's parent (WordPress' wp_delete_term does). */
async function reparentChild(childId: number, from: number, to: number): Promise<void> {
  await retryConflicts(async () => {
    const child = await readTerm('category', childId);
    if (!child || Number(child.parent) !== from) return;
    const next = withDerived({ ...child, parent: to, v: child.v + 1 });
    const actions = new ItemActions();
    hierarchyActions([], new Map([[from, -1], [to, 1]]), actions);
    const own = await planCategoryChanges([{ id: childId, parent: to }], termReader([child]), actions, new Set([childId]));
    await commit([
      withConds(rewriteItem(termKey(childId), child, next, child.v), own),
      ...(await nameGuardItems(child, next, 'lenient')),
      ...nameOrderItems(child, next),
      ...actions.items(),
    ]);
  });
}

export async function deleteTermOp(taxonomy: Taxonomy, ctx: RequestContext<TermIdParams>): Promise<HttpResult> {
  const first = await loadForWrite(taxonomy, ctx);
  const ifMatch = ctx.headers['if-match'] !== undefined;
  // Unlink first (each event in its own transaction, idempotent), so no event keeps a dangling term id.
  await unlinkEverywhere(taxonomy, first.id);
  return retryConflicts(async (attempt) => {
    const current = await readTerm(taxonomy, first.id);
    if (!current) return json(200, serializeTerm(first, ctx)); // deleted by a concurrent request: the outcome asked for
    if (current.v !== first.v && ifMatch) throw preconditionFailed();
    if (isHierarchical(taxonomy) && Number(current.kids ?? 0) > 0) {
      const children = await childrenOf(current.id);
      for (const child of children) await reparentChild(child, current.id, Number(current.parent ?? 0));
      if (children.length === 0) await backoff(attempt + 3); // a child not yet in the index: wait for it
      throw new LinkConflict();
    }
    const holders = await guardHolders(nameGuardKeys(current));
    const parent = isHierarchical(taxonomy) ? Number(current.parent ?? 0) : 0;
    const actions = new ItemActions();
    if (parent) hierarchyActions([], new Map([[parent, -1]]), actions);
    // Its events were unlinked above, so it is normally empty; one linked meanwhile leaves the non-empty count with it.
    let own: Cond[];
    if (isHierarchical(taxonomy)) {
      own = await planCategoryChanges([{ id: current.id, deleted: true }], termReader([current]), actions, new Set([current.id]));
    } else {
      const cnt = Number(current.cnt ?? 0);
      own = sideConds('cnt', cnt, 0);
      actions.count(taxonomy, 'filled', -Number(cnt > 0));
    }
    actions.count(taxonomy, 'all', -1);
    const words = planTermWords(taxonomy, current.id, current, null, await readTermManifest(taxonomy, current.id));
    await commit([
      withConds(noted({ Delete: { TableName: table(), Key: termKey(current.id),
        ConditionExpression: '#v = :v AND (attribute_not_exists(#k) OR #k <= :zero)',
        ExpressionAttributeNames: { '#v': 'v', '#k': 'kids' }, ExpressionAttributeValues: { ':v': current.v, ':zero': 0 } } }, current, null), own),
      guardDelete(slugKey(taxonomy, current.slug), current.id),
      ...nameGuardKeys(current).filter((k) => holders.get(k.PK) === current.id).map((k) => guardDelete(k, current.id)),
      ...nameOrderItems(current, null),
      ...actions.items(),
      ...words.items,
    ]); // a failure re-reads: If-Match decides above, not here
    await words.after();
    const body = current.v === first.v ? first : { ...current, cnt: first.cnt };
    return json(200, serializeTerm(body, ctx));
  });
}

/** The operation table of one taxonomy's route group (operation ids of lib/routes/terms.ts). */
export function termOperations(taxonomy: Taxonomy): Record<string, Operation> {
  const plural = TAXONOMIES[taxonomy].plural;
  const update: Operation = (ctx) => updateTermOp(taxonomy, ctx);
  return {
    [`${plural}.list`]: (ctx) => listTerms(taxonomy, ctx),
    [`${plural}.create`]: (ctx) => createTermOp(taxonomy, ctx),
    [`${plural}.get`]: (ctx) => getTermOp(taxonomy, ctx),
    [`${plural}.update`]: update,
    [`${plural}.update.put`]: update,
    [`${plural}.update.patch`]: update,
    [`${plural}.delete`]: (ctx) => deleteTermOp(taxonomy, ctx),
  };
}
