/**
 * A typed client of the Calendar Events API: the request and response types come from the API's OpenAPI document
 * (`npm run generate` writes them to schema.ts from the repository's openapi.json), and openapi-fetch makes the
 * requests. It lists events with a filter, creates one with a token, reads it back and finds it in a list.
 *
 *   CALENDAR_API=http://127.0.0.1:3000/calendar/events/v1 CALENDAR_TOKEN=<token> npm start
 */
import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

type Event = components['schemas']['Event'];
type ApiError = components['schemas']['Error'];

const baseUrl = process.env.CALENDAR_API ?? 'http://127.0.0.1:3000/calendar/events/v1';
const token = process.env.CALENDAR_TOKEN;
if (!token) {
  console.error('Set CALENDAR_TOKEN to a token of a contributor, author or editor (locally: npm run -s token -- --role editor).');
  process.exit(2);
}

const calendar = createClient<paths>({
  baseUrl,
  // The API reads a list in the query string as comma-separated values (style form, explode false in the document).
  querySerializer: { array: { style: 'form', explode: false } },
});

/** The data of a successful answer; an error answer's code and message otherwise. */
function ok<T>(answer: { data?: T; error?: ApiError | unknown; response: Response }, what: string): T {
  if (answer.data !== undefined) return answer.data;
  const error = answer.error as ApiError | undefined;
  throw new Error(`${what}: ${answer.response.status} ${error?.code ?? ''} ${error?.message ?? ''}`.trim());
}

const word = randomUUID().slice(0, 8);
const may2031 = { start_date: '2031-05-01', end_date: '2031-05-31' };

// 1. A list with filters: the events in May 2031 whose text has the word (none yet).
const before = ok(await calendar.GET('/events', { params: { query: { ...may2031, search: word, per_page: 10 } } }), 'listing events');
console.log(`listed ${before.total} events matching "${word}"`);

// 2. A create, with credentials and an Idempotency-Key (a retry of the same request would not create a second event).
const created: Event = ok(await calendar.POST('/events', {
  headers: { Authorization: `Bearer ${token}` },
  params: { header: { 'Idempotency-Key': randomUUID() } },
  body: {
    title: `Typed client launch ${word}`,
    start_date: '2031-05-04 10:00:00',
    end_date: '2031-05-04 12:00:00',
    timezone: 'Europe/Lisbon',
    status: 'publish',
    venue: { venue: `Typed Hall ${word}`, city: 'Lisbon' },
    categories: ['Examples'],
  },
}), 'creating an event');
console.log(`created event ${created.id} "${created.title}" from ${created.start_date} to ${created.end_date} (${created.timezone})`);

// 3. Read it back by id: the answer is typed as the document's Event.
const event = ok(await calendar.GET('/events/{id}', { params: { path: { id: created.id } } }), 'reading the event');
const venue = Array.isArray(event.venue) ? event.venue[0] : event.venue;
console.log(`read back event ${event.id}: "${event.title}", ${event.status}, at ${venue?.venue ?? 'no venue'}, `
  + `in ${event.categories.map((c) => c.name).join(', ')}`);

// 4. The same list again, now with the event in it.
const after = ok(await calendar.GET('/events', { params: { query: { ...may2031, search: word, categories: ['examples'] } } }), 'listing events');
console.log(`listed ${after.total} event matching "${word}" in examples: ${after.events.map((e) => e.id).join(', ')}`);
