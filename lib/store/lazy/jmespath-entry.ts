/** Powertools' JMESPath evaluator and functions, bundled as a file of their own for the Lambda functions (infra/bundling.ts). */
export { search } from '@aws-lambda-powertools/jmespath';
export { PowertoolsFunctions } from '@aws-lambda-powertools/jmespath/functions';
