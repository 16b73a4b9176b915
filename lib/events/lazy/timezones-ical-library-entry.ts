/** The VTIMEZONE lookup of timezones-ical-library, bundled as a file of its own for the Lambda functions (infra/bundling.ts). */
export { tzlib_get_ical_block } from 'timezones-ical-library';
