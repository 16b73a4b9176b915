/** Types of `qs/lib/parse.js` (the parser alone, lib/http/form.ts): those of `qs`'s own parse. */
declare module 'qs/lib/parse.js' {
  import type { parse } from 'qs';

  const parseQuery: typeof parse;
  export default parseQuery;
}
