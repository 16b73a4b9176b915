/**
 * Stands in for @aws-lambda-powertools/jmespath/functions in the Lambda bundles: Powertools' IdempotencyConfig makes
 * one when it is created; the search stand-in (./jmespath.ts) evaluates with the real functions in its place.
 */
export class PowertoolsFunctions {}
