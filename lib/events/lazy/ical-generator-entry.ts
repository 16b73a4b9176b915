/** The part of ical-generator the feeds use, bundled as a file of its own for the Lambda functions (infra/bundling.ts). */
export { default, escape } from 'ical-generator';
