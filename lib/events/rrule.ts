/**
 * `rrule` as one module: its ESM build (what the Lambda bundles use) has named exports, while Node and Jest load its
 * CommonJS build, whose exports sit on the default export.
 */
import * as lib from 'rrule';

type Lib = typeof import('rrule');
const rrule: Lib = (lib as Lib).RRule ? (lib as Lib) : (lib as unknown as { default: Lib }).default;

export const RRule = rrule.RRule;
export type { Options } from 'rrule';
