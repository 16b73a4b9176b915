/** The part of the Lambda client the root function forwards with, bundled as a file of its own (infra/bundling.ts). */
export { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
