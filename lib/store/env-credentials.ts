/**
 * The Lambda bundles resolve `@aws-sdk/credential-provider-node` (the SDK's default credential chain) to this
 * module (infra/bundling.ts). On Lambda, and under sam local, credentials are always in the environment; the
 * full chain (INI files, SSO, IMDS, web identity, with their nested STS/SSO clients) would add about 135 KB to
 * every bundle and to every cold start. Unbundled code (npm start, tests) keeps the SDK's own chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]): ReturnType<typeof fromEnv> => fromEnv(init);
