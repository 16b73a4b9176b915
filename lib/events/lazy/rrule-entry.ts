/** The part of rrule the service uses, bundled as a file of its own for the Lambda functions (infra/bundling.ts). */
export { RRule } from 'rrule';
