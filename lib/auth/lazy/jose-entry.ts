/** The part of jose the service uses, bundled as a file of its own for the Lambda functions (infra/bundling.ts). */
export { createRemoteJWKSet, jwtVerify } from 'jose';
