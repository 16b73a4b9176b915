/** What authentication reports; the request pipeline answers them as contract §4 and §12 say. */

/** A bad, expired, unverifiable or malformed token or Basic credential (401 rest_invalid_token). */
export class InvalidCredentials extends Error {}

/** Too many failed Basic attempts: retry after `retryAfter` seconds (429 rest_too_many_attempts). */
export class TooManyAttempts extends Error {
  constructor(readonly retryAfter: number) {
    super('too many failed attempts');
  }
}
