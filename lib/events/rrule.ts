/**
 * `rrule` as one module: its ESM build (what the Lambda bundles use) has named exports, while Node and Jest load its
 * CommonJS build, whose exports sit on the default export.
 */
import * as lib from 'rrule';

type Lib = typeof import('rrule');
// (Looked up by a computed name: the ESM build has no default export, and the bundler would say so on every build.)
const cjsDefault = ['default'][0]!;
const isLib = (m: unknown): m is Lib => typeof m === 'object' && m !== null && 'RRule' in m;
const cjs: unknown = Reflect.get(lib, cjsDefault);
const rrule: Lib = isLib(cjs) && !lib.RRule ? cjs : lib;

export const RRule = rrule.RRule;
export type { Options } from 'rrule';
