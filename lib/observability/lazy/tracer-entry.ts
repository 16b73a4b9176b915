/** Powertools' Tracer (with aws-xray-sdk-core), bundled as a file of its own and loaded only when tracing is on (infra/bundling.ts). */
export { Tracer } from '@aws-lambda-powertools/tracer';
