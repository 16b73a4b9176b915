/**
 * Stands in for jose in the Lambda bundles (infra/bundling.ts): bearer tokens (lib/auth/token.ts) are verified with
 * jose loaded from a file of its own on the first request that carries one, so anonymous reads never load it. The
 * file itself is jose's own `jwtVerify` and `createRemoteJWKSet`.
 */
import type { createRemoteJWKSet as RealJwks, jwtVerify as RealVerify } from 'jose';
import { lazyModule } from '../../lazy-module.js';

const jose = () => lazyModule<{ jwtVerify: typeof RealVerify; createRemoteJWKSet: typeof RealJwks }>('jose');

export const jwtVerify = ((...args: Parameters<typeof RealVerify>) => jose().jwtVerify(...args)) as typeof RealVerify;

export const createRemoteJWKSet = ((...args: Parameters<typeof RealJwks>) => jose().createRemoteJWKSet(...args)) as typeof RealJwks;
