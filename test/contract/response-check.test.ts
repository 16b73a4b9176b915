/**
 * The response check that api() applies to every JSON answer (test/support/response-check.ts) really checks: a body
 * or a status the document does not describe is reported.
 */
import { api, apiUrl } from '../support/api.js';
import { responseChecker } from '../support/response-check.js';

describe('every JSON response of the suite is checked against the served OpenAPI document', () => {
  it('accepts what the service answers and reports a body or a status the document does not describe', async () => {
    const res = await api('/events');
    expect(res.status).toBe(200);
    const checker = await responseChecker(apiUrl());
    const url = new URL(`${apiUrl()}/events`);
    expect(checker.check('GET', url, 200, res.json)).toBeNull();
    expect(checker.check('GET', url, 200, { ...res.json, total: 'many' })).toMatch(/does not match listEvents's documented schema: \/total/);
    expect(checker.check('GET', url, 418, {})).toMatch(/answered 418, which listEvents does not document/);
    expect(checker.check('GET', new URL(`${apiUrl()}/events/1`), 404, { code: 'x' })).toMatch(/does not match/);
  });
});
