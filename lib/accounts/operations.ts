/** The application-password operations (contract §12): create, list, revoke, for the signed-in caller. */
import {
  forgetAppPassword, grouped, hashAppPassword, MAX_PER_USER, newAppPasswordId, newPassword, utcWall,
} from '../auth/app-passwords.js';
import type { RequestContext } from '../http/context.js';
import type { AppPasswordCreateParams, AppPasswordRevokeParams } from '../routes/accounts.js';
import { ApiError } from '../http/errors.js';
import { json, type HttpResult } from '../http/response.js';
import { appPasswordsOf, deleteAppPassword, getAppPassword, putAppPassword, type AppPasswordItem } from '../store/app-passwords.js';

const shown = (p: AppPasswordItem) => ({
  uuid: p.uuid, app_id: p.appId, name: p.name, created: p.created, last_used: p.lastUsed, username: p.username,
});

const notFound = (): ApiError =>
  new ApiError(404, 'rest-application-password-not-found', 'No application password of yours has that uuid.');

export async function createAppPassword(ctx: RequestContext<AppPasswordCreateParams>): Promise<HttpResult> {
  const caller = ctx.caller!;
  const existing = await appPasswordsOf(caller.username, true);
  if (existing.length >= MAX_PER_USER) {
    throw new ApiError(400, 'rest_too_many_application_passwords', `You already have ${MAX_PER_USER} application passwords; revoke one first.`);
  }
  const password = newPassword();
  const now = new Date();
  const item: AppPasswordItem = {
    uuid: newAppPasswordId(), appId: ctx.params.app_id ?? '', name: ctx.params.name,
    created: utcWall(now), createdMs: now.getTime(), lastUsed: null, hash: await hashAppPassword(password), username: caller.username,
    sub: caller.sub, role: caller.role,
  };
  await putAppPassword(item);
  const { username, ...rest } = shown(item);
  return json(201, { ...rest, password: grouped(password), username }, { Location: `${ctx.apiUrl}/application-passwords/${item.uuid}` });
}

export async function listAppPasswords(ctx: RequestContext): Promise<HttpResult> {
  const all = await appPasswordsOf(ctx.caller!.username, true);
  all.sort((a, b) => b.createdMs - a.createdMs || b.uuid.localeCompare(a.uuid));
  return json(200, all.map(shown));
}

export async function revokeAppPassword(ctx: RequestContext<AppPasswordRevokeParams>): Promise<HttpResult> {
  const username = ctx.caller!.username;
  const { uuid } = ctx.params;
  const item = await getAppPassword(username, uuid);
  if (!item || !(await deleteAppPassword(username, uuid))) throw notFound();
  forgetAppPassword(uuid);
  return json(200, { deleted: true, previous: shown(item) });
}
