import { expect } from '@jest/globals';

/** A small calendar for the page tests, the browser tests, the screenshots and the page benchmark, written through the API. */
export const YEAR = new Date().getUTCFullYear() + 1;

export interface SeededCalendar {
  /** The month the seeded events fall in, "YYYY-02". */
  month: string;
  slugs: { jazz: string; yoga: string; secret: string; draft: string; busy: string[]; near: string; far: string };
  ticketId: number;
}

async function post(api: string, token: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${api}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body) });
  const json: any = await res.json();
  if (res.status !== 201) throw new Error(`POST ${path} → ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Events in February of next year (UTC dates; a site time zone west of UTC shows the 03:00 UTC ones a day earlier). */
export async function seedCalendar(api: string, token: string, tag = 'p'): Promise<SeededCalendar> {
  const m = `${YEAR}-02`;
  const ev = (title: string, day: string, extra: Record<string, unknown> = {}) => post(api, token, '/events', {
    title, status: 'publish', timezone: 'UTC', start_date: `${m}-${day} 19:00:00`, end_date: `${m}-${day} 21:00:00`, ...extra });
  const jazz = await ev(`Jazz night ${tag}`, '10', {
    start_date: `${m}-10 03:00:00`, end_date: `${m}-10 04:00:00`,
    description: '<p>An evening of <strong>jazz</strong> with friends.</p>', excerpt: 'An evening of jazz with friends.',
    image: 'https://images.example.org/jazz.jpg',
    venue: { venue: `Blue Hall ${tag}`, address: 'Main Street 1', city: 'Lisbon', country: 'Portugal', zip: '1100-001', geo_lat: 38.72, geo_lng: -9.14 },
    organizer: [{ organizer: `Ana ${tag}`, email: 'ana@example.org' }], categories: [`Music ${tag}`], tags: [`jazz-${tag}`],
  });
  const far = await ev(`Far away concert ${tag}`, '11', { venue: { venue: `North Hall ${tag}`, city: 'Oslo', geo_lat: 59.91, geo_lng: 10.75 } });
  const yoga = await ev(`Weekly yoga ${tag}`, '02', { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'], categories: [`Sport ${tag}`] });
  const secret = await ev(`Members evening ${tag}`, '12', { password: 'open sesame', description: '<p>Hidden text</p>' });
  const draft = await ev(`Draft event ${tag}`, '13', { status: 'draft' });
  const busy: string[] = [];
  for (let i = 1; i <= 6; i++) busy.push((await ev(`Busy day ${i} ${tag}`, '20')).slug);
  const ticket = await post(api, token, '/tickets', { post_id: jazz.id, title: 'Entry', capacity: 20 });
  return { month: m, slugs: { jazz: jazz.slug, yoga: yoga.slug, secret: secret.slug, draft: draft.slug, busy, near: jazz.slug, far: far.slug },
    ticketId: ticket.id };
}

/** Google's event rich results: required name, startDate, location (Place with address, or VirtualLocation); recommended the rest. */
export function checkEventLd(ld: any): void {
  expect(ld['@context']).toBe('https://schema.org');
  expect(ld['@type']).toBe('Event');
  expect(typeof ld.name).toBe('string');
  expect(ld.startDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
  expect(ld.endDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
  expect(ld.eventStatus).toMatch(/^https:\/\/schema\.org\/Event(Scheduled|Cancelled|Postponed|Rescheduled|MovedOnline)$/);
  expect(ld.eventAttendanceMode).toMatch(/^https:\/\/schema\.org\/(Offline|Online|Mixed)EventAttendanceMode$/);
  expect(ld.location['@type']).toBe('Place');
  expect(ld.location.name).toEqual(expect.any(String));
  expect(ld.location.address['@type']).toBe('PostalAddress');
  expect(ld.location.address.addressLocality).toEqual(expect.any(String));
  expect(ld.description).toEqual(expect.any(String));
  expect(ld.image).toEqual([expect.stringMatching(/^https:\/\//)]);
  expect(ld.organizer).toMatchObject({ '@type': 'Organization', name: expect.any(String), url: expect.stringMatching(/^http/) });
  for (const offer of ld.offers) {
    expect(offer).toMatchObject({ '@type': 'Offer', price: expect.any(Number), priceCurrency: expect.stringMatching(/^[A-Z]{3}$/),
      url: expect.stringMatching(/^http/), availability: expect.stringMatching(/^https:\/\/schema\.org\//) });
  }
}
