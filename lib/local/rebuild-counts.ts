/**
 * `npm run counts:rebuild`: builds the non-empty counts of the table named by CALENDAR_TABLE_NAME (with the usual AWS
 * credentials, region and, for DynamoDB Local, AWS_ENDPOINT_URL_DYNAMODB), for every kind or those given:
 * `npm run counts:rebuild -- category tag`. Run it with writes stopped (lib/store/nonempty-rebuild.ts says why).
 */
import { NON_EMPTY_KINDS, rebuildNonEmpty } from '../store/nonempty-rebuild.js';
import type { LinkKind } from '../store/event-sources.js';

const asked = process.argv.slice(2);
const unknown = asked.filter((k) => !NON_EMPTY_KINDS.includes(k as LinkKind));
if (unknown.length) {
  process.stderr.write(`Unknown kind ${unknown.join(', ')}: use any of ${NON_EMPTY_KINDS.join(', ')}.\n`);
  process.exit(2);
}
const t0 = Date.now();
const built = await rebuildNonEmpty({ kinds: asked.length ? (asked as LinkKind[]) : NON_EMPTY_KINDS });
process.stderr.write(`Built the non-empty counts of ${built.join(', ')} in ${Date.now() - t0} ms.\n`);
