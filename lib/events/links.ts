/**
 * What an event write links to (contract §7): venues and organizers as ids, {id} or inline objects that
 * create (or de-duplicate onto) records; categories and tags as ids, slugs or names, unknown names creating
 * terms. Everything planned here joins the event's own transaction, so a rejected request stores nothing.
 */
import type { RequestContext } from '../http/context.js';
import { invalidParam } from '../http/errors.js';
import { planInline } from '../linked/inline.js';
import type { PostStatus } from '../routes/common.js';
import { contribution, linkTransactItems } from '../store/links.js';
import type { TransactItem } from '../store/posts.js';
import { resolveRefs } from '../store/refs.js';
import { planNewTerms, resolveTermNames } from '../terms/inline.js';
import { eventFacts, type EventItem } from './record.js';

type LinkedInput = { clear?: true; id?: number; inline?: Record<string, unknown> };

/** The new link lists (undefined = not sent, unchanged; venue null = removed) and the transaction items. */
export interface PlannedLinks {
  venue?: number | null;
  organizers?: number[];
  categories?: number[];
  tags?: number[];
  transactItems(prev: EventItem | null, next: EventItem): TransactItem[];
}

const MAX = { organizers: 10, categories: 20, tags: 20 } as const;

/** Counter contributions of records created or rewritten in this transaction are written by their own item. */
interface InlinePlan {
  key: string;
  build: (prev: EventItem | null, next: EventItem) => TransactItem[];
}

async function planTerms(ctx: RequestContext, kind: 'category' | 'tag', param: 'categories' | 'tags', status: PostStatus,
  plans: InlinePlan[]): Promise<number[] | undefined> {
  const values = ctx.params[param] as (number | string)[] | undefined;
  if (values === undefined) return undefined;
  if (values.length > MAX[param]) throw invalidParam(param, `${param}: at most ${MAX[param]} per event`);
  const ids = values.filter((v): v is number => typeof v === 'number');
  const known = await resolveRefs(kind, ids);
  const unknownIds = ids.filter((_, i) => known[i] === null);
  if (unknownIds.length) throw invalidParam(param, `${param}: no ${kind} ${unknownIds.join(', ')}`);
  const names = values.filter((v): v is string => typeof v === 'string');
  const { found, missing } = names.length ? await resolveTermNames(kind, names, ctx) : { found: new Map<string, number>(), missing: [] };
  const created = missing.length ? await planNewTerms(kind, missing, ctx, status === 'publish' ? 1 : 0) : { ids: [], items: [] };
  if (created.items.length) plans.push({ key: '', build: () => created.items });
  created.ids.forEach((id) => plans.push({ key: `${kind}#${id}`, build: () => [] }));
  const byName = new Map(missing.map((name, i) => [name, created.ids[i]!]));
  return [...new Set(values.map((v) => (typeof v === 'number' ? v : found.get(v) ?? byName.get(v)!)))];
}

async function planRecord(ctx: RequestContext, kind: 'venue' | 'organizer', input: LinkedInput, plans: InlinePlan[]): Promise<number> {
  if (!input.inline) return input.id!;
  const plan = await planInline(kind, input.inline, ctx);
  const key = `${kind}#${plan.id}`;
  if (!plans.some((p) => p.key === key)) {
    plans.push({
      key,
      build: (prev, next) => plan.build(contribution(kind, eventFacts(next), plan.id) - contribution(kind, prev && eventFacts(prev), plan.id)),
    });
  }
  return plan.id;
}

export async function planLinks(ctx: RequestContext, existing: EventItem | null, status: PostStatus): Promise<PlannedLinks> {
  const plans: InlinePlan[] = [];
  const out: Omit<PlannedLinks, 'transactItems'> = {};
  const venue = ctx.params.venue as LinkedInput | undefined;
  if (venue) out.venue = venue.clear ? null : await planRecord(ctx, 'venue', venue, plans);
  const organizers = ctx.params.organizer as LinkedInput[] | undefined;
  if (organizers) {
    if (organizers.length > MAX.organizers) throw invalidParam('organizer', `organizer: at most ${MAX.organizers} per event`);
    const ids: number[] = [];
    for (const o of organizers) ids.push(await planRecord(ctx, 'organizer', o, plans));
    out.organizers = [...new Set(ids)];
  }
  out.categories = await planTerms(ctx, 'category', 'categories', status, plans);
  out.tags = await planTerms(ctx, 'tag', 'tags', status, plans);
  return {
    ...out,
    transactItems: (prev, next) => [
      ...plans.flatMap((p) => p.build(prev, next)),
      ...linkTransactItems(prev && eventFacts(prev), eventFacts(next), new Set(plans.map((p) => p.key).filter(Boolean))),
    ],
  };
}
