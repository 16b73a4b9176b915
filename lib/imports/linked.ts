/**
 * The venues, organizers and terms source events name, found or created (contract §20): a venue by its name, an
 * organizer by its email, else its name, a term by its name; created when missing, through the API's own creates. A
 * venue or organizer that exists is linked as it is (the source's address or coordinates do not overwrite it); a term is
 * a top-level one of that name. One run creates at most MAX_NEW_LINKED of them; an event that would need more fails with
 * an error naming the limit, while existing records are still found.
 */
import { fold } from '../linked/item.js';
import { idsInNameItem, nameKey } from '../linked/names.js';
import { batchGet, getItem } from '../store/records.js';
import { postKey } from '../store/keys.js';
import { nameGuardKey } from '../terms/item.js';
import type { SourceOrganizer, SourceVenue } from './source.js';
import { answerMessage, type OwnerApi } from './api.js';

export const MAX_NEW_LINKED = 1000;

export class LinkedLimitReached extends Error {
  constructor() {
    super(`this run created ${MAX_NEW_LINKED} new venues, organizers and terms, the most one run may create`);
  }
}

/** Ids by name within one run, so each name is looked up (or created) once; a failure is kept as its message. */
type Found = Promise<number>;

export class LinkedResolver {
  /** Venues, organizers and terms this run created. */
  created = 0;
  private readonly found = new Map<string, Found>();

  constructor(private readonly api: OwnerApi) {}

  venue(v: SourceVenue): Found {
    return this.once(`venue|${fold(v.venue)}`, async () => (await this.byName('venue', v.venue)) ?? this.create('/venues', { ...v }));
  }

  organizer(o: SourceOrganizer): Found {
    const key = o.email ? `organizer|@${o.email.toLowerCase()}` : `organizer|${fold(o.organizer)}`;
    return this.once(key, async () => (o.email ? await this.byEmail(o.email) : null) ?? (await this.byName('organizer', o.organizer))
      ?? this.create('/organizers', { ...o }));
  }

  term(taxonomy: 'category' | 'tag', name: string): Found {
    return this.once(`${taxonomy}|${fold(name)}`, async () => {
      // A top-level term of that name holds its name guard (contract §7 term_exists): found without a write.
      const held = await getItem(nameGuardKey(taxonomy, 0, name), true);
      if (typeof held?.id === 'number') return held.id;
      this.checkLimit();
      const answer = await this.api.call('POST', taxonomy === 'category' ? '/categories' : '/tags', { body: { name } });
      if (answer.status === 201) {
        this.created++;
        return Number(answer.body.id);
      }
      const data = answer.body.data as { term_id?: unknown } | undefined;
      if (answer.body.code === 'term_exists' && typeof data?.term_id === 'number') return data.term_id;
      throw new Error(`${taxonomy} "${name}": ${answerMessage(answer)}`);
    });
  }

  private once(key: string, find: () => Found): Found {
    let found = this.found.get(key);
    if (!found) {
      found = find();
      this.found.set(key, found);
      // A limit reached is not kept: the next event fails the same way, but without an unhandled rejection.
      found.catch(() => undefined);
    }
    return found;
  }

  private checkLimit(): void {
    if (this.created >= MAX_NEW_LINKED) throw new LinkedLimitReached();
  }

  /** The lowest id of a venue or organizer that is not trashed and shows this name (the de-duplication's name item). */
  private async byName(kind: 'venue' | 'organizer', name: string): Promise<number | null> {
    const ids = idsInNameItem(await getItem(nameKey(kind, fold(name)), true));
    if (!ids.length) return null;
    const records = await batchGet(ids.slice(0, 100).map(postKey), ['kind', 'status', 'id'], true);
    const match = records.filter((r) => r.kind === kind && r.status !== 'trash').map((r) => Number(r.id)).sort((a, b) => a - b)[0];
    return match ?? null;
  }

  /** An organizer with exactly this email, found through the organizers' search (its words, then the exact address). */
  private async byEmail(email: string): Promise<number | null> {
    const answer = await this.api.call('GET', '/organizers', { query: { search: email, per_page: '50' } });
    const listed = answer.body.organizers;
    if (answer.status !== 200 || !Array.isArray(listed)) return null;
    const match = listed.find((o: unknown) => typeof o === 'object' && o !== null && 'email' in o
      && String(o.email).toLowerCase() === email.toLowerCase() && 'id' in o);
    return match && typeof match === 'object' && 'id' in match ? Number(match.id) : null;
  }

  private async create(path: '/venues' | '/organizers', body: Record<string, unknown>): Promise<number> {
    this.checkLimit();
    const answer = await this.api.call('POST', path, { body: { ...body, status: 'publish' } });
    if (answer.status !== 201) throw new Error(`${path.slice(1, -1)} "${String(body.venue ?? body.organizer)}": ${answerMessage(answer)}`);
    this.created++;
    return Number(answer.body.id);
  }
}
