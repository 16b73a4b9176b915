/** Application passwords (contract §12): WordPress's credentials for API clients, managed by any signed-in user. */
import { param, required, translationLanguage } from './common.js';
import { parseString, TEXT_LIMITS } from './parsers.js';
import { ParamError } from '../model/errors.js';
import type { ParamValues, RouteSpec } from './types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const createParams = [
  required(param('name', 'body', 'a name for the password (which client uses it)', { type: 'string', maxLength: TEXT_LIMITS.name },
    (v) => parseString(v, TEXT_LIMITS.name).trim())),
  param('app_id', 'body', 'the client application\'s own UUID, if it has one', { type: 'string', format: 'uuid' }, (v) => {
    const s = parseString(v, 64, { allowEmpty: true }).trim();
    if (s !== '' && !UUID.test(s)) throw new ParamError('must be a UUID');
    return s.toLowerCase();
  }),
  translationLanguage,
] as const;
export type AppPasswordCreateParams = ParamValues<typeof createParams>;

const revokeParams = [
  required(param('uuid', 'path', 'the password\'s uuid', { type: 'string', format: 'uuid' }, (v) => String(v).toLowerCase())),
  translationLanguage,
] as const;
export type AppPasswordRevokeParams = ParamValues<typeof revokeParams>;

export const accountRoutes: RouteSpec[] = [
  { path: '/application-passwords', group: 'root', operations: [
    { id: 'appPasswords.list', method: 'GET', summary: 'Lists the caller\'s application passwords, newest first (without secrets)',
      capability: 'signed_in', success: 200, errors: [401], response: 'ApplicationPasswords', params: [translationLanguage] },
    { id: 'appPasswords.create', method: 'POST',
      summary: 'Creates an application password for HTTP Basic authentication; the password is shown only in this answer',
      capability: 'signed_in', success: 201, errors: [400, 401], response: 'NewApplicationPassword', params: createParams,
      noReplay: 'its answer holds a secret shown only once, which replaying it would mean keeping' },
  ] },
  { path: '/application-passwords/{uuid}', group: 'root', operations: [
    { id: 'appPasswords.delete', method: 'DELETE', summary: 'Revokes one of the caller\'s application passwords',
      capability: 'signed_in', success: 200, errors: [401, 404], response: 'DeletedApplicationPassword', params: revokeParams },
  ] },
];
