/**
 * What is left of a deleted import (contract §20 DELETE): its identity items, and with `delete_events=true` the events it
 * brought in, trashed first as its owner; then its run, list entry and file. Page by page, each page's deletes conditioned
 * on the worker's lease, so a removal taken over after its worker died goes on where it stopped.
 */
import type { Caller } from '../auth/caller.js';
import { deleteIdentities, finishRemoval, identityPage, releaseLease, renewLease } from '../store/imports.js';
import type { Key } from '../store/types.js';
import { sendToWorker } from './queue.js';
import type { RunItem } from './record.js';
import { indexed, writeSourceEvents, type EventWrite } from './write.js';
import { leaseMs, STOP_BEFORE_MS, type RunOutcome } from './lease.js';

const PAGE = 50;

export async function removeDeletedImport(id: number, token: string, deleting: NonNullable<RunItem['deleting']>, deadline: number): Promise<RunOutcome> {
  const owner: Caller = { sub: deleting.owner.sub, username: deleting.owner.username, role: 'editor' };
  for (;;) {
    if (Date.now() > deadline - STOP_BEFORE_MS) {
      await releaseLease(id, token);
      await sendToWorker(id);
      return 'continued';
    }
    const page = await identityPage(id, PAGE);
    if (!page.length) return (await finishRemoval(id, token, deleting.parts)) ? 'removed' : 'busy';
    if (deleting.trash) {
      const trash = page.filter((i) => typeof i.event === 'number' && i.removed !== true)
        .map((i): EventWrite => ({ op: 'trash', key: String(i.key), event: Number(i.event) }));
      // Failures (an event someone else deleted meanwhile answers as written) leave nothing to retry: the import is gone.
      const writer = { importId: id, owner, language: deleting.language, deadline };
      if (trash.length) await writeSourceEvents(writer, trash).finally(() => indexed(writer));
    }
    if (!await deleteIdentities(id, token, page.map((i): Key => ({ PK: String(i.PK), SK: String(i.SK) })))) return 'busy';
    if (!await renewLease(id, token, Date.now(), leaseMs())) return 'busy';
  }
}
