/** The part of chrono-node the service uses, bundled as a file of its own for the Lambda functions (infra/bundling.ts). */
export { casual } from 'chrono-node';
