/**
 * `npm run openapi`: writes openapi.json at the repository root, the document GET {api}/doc serves (contract §10), with
 * servers that suit a file — the local server and a deployment — in place of the request's own API roots.
 * test/contract/openapi-file.test.ts fails when the file and the served document differ, servers aside.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from './document.js';

const LOCAL_API_URL = 'http://127.0.0.1:3000/calendar/events/v1';

const FILE_SERVERS = [
  { url: LOCAL_API_URL, description: 'The local server (npm start)' },
  {
    url: 'https://{apiId}.execute-api.{region}.amazonaws.com/calendar/events/v1',
    description: 'A deployment (the stack\'s ApiUrl output); a custom domain, a stage or a language prefix serves the same paths',
    variables: {
      apiId: { default: 'abcdef1234', description: 'the HTTP API\'s id' },
      region: { default: 'eu-west-1', description: 'the AWS region of the stack' },
    },
  },
];

const path = fileURLToPath(new URL('../../openapi.json', import.meta.url));
const document = { ...buildOpenApiDocument({ apiUrl: LOCAL_API_URL }), servers: FILE_SERVERS };
// Keys in the order the service emits them (a stable order: the document is built from the route definitions).
writeFileSync(path, `${JSON.stringify(document, null, 2)}\n`);
console.log(`Wrote ${path}`);
