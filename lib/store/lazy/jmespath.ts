/**
 * Stands in for @aws-lambda-powertools/jmespath in the Lambda bundles (infra/bundling.ts): Powertools' idempotency
 * layer (lib/store/idempotency.ts) picks a request's key and hash with JMESPath, which only creates sent with an
 * Idempotency-Key need, so the evaluator loads from a file of its own on the first of them. Powertools hands `search`
 * the functions object its config made (./jmespath-functions.ts, a stand-in too); the real functions replace it.
 */
import type { search as RealSearch } from '@aws-lambda-powertools/jmespath';
import type { PowertoolsFunctions as RealFunctions } from '@aws-lambda-powertools/jmespath/functions';
import { lazyModule } from '../../lazy-module.js';

let functions: RealFunctions | null = null;

export const search = ((expression: string, data: Parameters<typeof RealSearch>[1]) => {
  const lib = lazyModule<{ search: typeof RealSearch; PowertoolsFunctions: typeof RealFunctions }>('@aws-lambda-powertools/jmespath');
  functions ??= new lib.PowertoolsFunctions();
  return lib.search(expression, data, { customFunctions: functions });
}) as typeof RealSearch;
