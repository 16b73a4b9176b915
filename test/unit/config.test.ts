/** Environment configuration (lib/config.ts): the development token secret is never used inside Lambda. */
import { DEV_JWT_SECRET, loadConfig } from '../../lib/config.js';

test('outside Lambda, without a secret or an issuer, local tokens use the development secret', () => {
  expect(loadConfig({}).jwt.secret).toBe(DEV_JWT_SECRET);
});

test('inside Lambda without an issuer or a secret, no token verifies (not the development secret)', () => {
  const { jwt } = loadConfig({ AWS_LAMBDA_FUNCTION_NAME: 'calendar-events' });
  expect(jwt).toEqual({ secret: null, issuer: null, audience: null, jwksUrl: null });
});

test('an issuer means RS256 from its JWKS; a secret means HS256 with it', () => {
  expect(loadConfig({ CALENDAR_JWT_ISSUER: 'https://issuer.example.org/', AWS_LAMBDA_FUNCTION_NAME: 'x' }).jwt)
    .toMatchObject({ secret: null, jwksUrl: 'https://issuer.example.org/.well-known/jwks.json' });
  expect(loadConfig({ CALENDAR_JWT_SECRET: 's', AWS_LAMBDA_FUNCTION_NAME: 'x' }).jwt.secret).toBe('s');
});
