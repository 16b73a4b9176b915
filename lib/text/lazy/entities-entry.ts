/** entities' decoder, bundled as a file of its own for the Lambda functions (infra/bundling.ts). */
export { decodeHTML } from 'entities';
