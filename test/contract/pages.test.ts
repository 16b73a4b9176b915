/**
 * The calendar pages (contract §21) over HTTP against DynamoDB Local, on a server of this file's own whose site time
 * zone is west of UTC (America/New_York), so month placement is tested where it differs from UTC.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signLocalToken } from '../../lib/local/token-sign.js';
import { meterOf as meter } from '../support/api.js';
import { startOwnServer, type OwnServer } from '../support/own-server.js';
import { checkEventLd, seedCalendar, type SeededCalendar } from './helpers/pages.js';

const secret = 'pages-test-secret-0123456789abcdef012345';
let server: OwnServer;
let cal: SeededCalendar;

beforeAll(async () => {
  server = await startOwnServer('calendar-pages', { secret, env: { CALENDAR_TIMEZONE: 'America/New_York', CALENDAR_SITE_NAME: 'Town Events',
    CALENDAR_METER: '1', POWERTOOLS_LOG_LEVEL: 'INFO' } });
  cal = await seedCalendar(server.url, await signLocalToken({ secret, role: 'editor' }));
}, 120_000);
afterAll(() => server?.stop());

const page = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${server.origin}${path}`, { redirect: 'manual', ...init });
  return { status: res.status, headers: res.headers, text: await res.text() };
};
const form = (values: Record<string, string>, headers: Record<string, string> = { 'sec-fetch-site': 'same-origin' }): RequestInit =>
  ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(values).toString() });

describe('routes and languages', () => {
  it('serves every page kind under every language prefix, with the page essentials', async () => {
    const paths = ['/events/', '/events/month/', `/events/month/${cal.month}/`, '/events/category/music-p/', '/tag/jazz-p/', '/venue/blue-hall-p/',
      '/organizer/ana-p/', `/event/${cal.slugs.jazz}/`, `/event/${cal.slugs.yoga}/${cal.month}-09/`];
    const langs = { '': 'en', '/de': 'de', '/pt-pt': 'pt-pt', '/EN': 'en' } as const;
    for (const [prefix, lang] of Object.entries(langs)) {
      for (const path of paths) {
        const res = await page(`${prefix}${path}`);
        expect([`${prefix}${path}`, res.status]).toEqual([`${prefix}${path}`, 200]);
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(res.headers.get('content-language')).toBe(lang);
        expect(res.text).toContain(`<html lang="${lang}">`);
        expect(res.text).toMatch(/<title>[^<]+· Town Events<\/title>/);
        expect(res.text).toMatch(/<meta name="description" content="[^"]+">/);
        expect(res.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
        expect(res.text).toMatch(/<meta property="og:url" content="http:\/\/127\.0\.0\.1:\d+\//);
        expect(res.text).toMatch(/<link rel="canonical" href="http:\/\//);
        expect(res.headers.get('referrer-policy')).toBe('no-referrer');
        expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
        expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      }
    }
    const de = await page('/de/events/month/');
    expect(de.text).toContain('Veranstaltungen im');
    const pt = await page(`/pt-pt/event/${cal.slugs.jazz}/`);
    expect(pt.text).toContain('Adicionar ao calendário');
    expect(pt.text).toMatch(/fevereiro de \d{4}/);
  });

  it('answers HTML 404 pages for missing records and unknown page paths, 405 with Allow for other methods', async () => {
    for (const path of ['/event/no-such-event/', '/venue/nowhere/', '/organizer/nobody/', '/tag/none/', '/events/category/none/',
      '/events/month/2025-13/', '/events/nothing/', `/event/${cal.slugs.yoga}/1999-01-01/`, '/fr/events/']) {
      const res = await page(path);
      expect([path, res.status]).toEqual([path, 404]);
      if (path !== '/fr/events/') {
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(res.text).toContain('Page not found');
      }
    }
    const put = await page('/events/', { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD');
    expect(put.text).toContain('<html');
  });
});

describe('visibility', () => {
  it('shows anonymous visitors published events only: a draft is a 404 page and no list names it', async () => {
    expect((await page(`/event/${cal.slugs.draft}/`)).status).toBe(404);
    const month = await page(`/events/month/${cal.month}/`);
    expect(month.text).not.toContain('Draft event');
  });

  it('a password-protected event shows its title, dates and a password form; the posted password opens it, private, no-store', async () => {
    const locked = await page(`/event/${cal.slugs.secret}/`);
    expect(locked.status).toBe(200);
    expect(locked.text).toContain('Members evening p');
    expect(locked.text).toContain('type="password"');
    expect(locked.text).not.toContain('Hidden text');
    const wrong = await page(`/event/${cal.slugs.secret}/`, form({ action: 'password', password: 'nope' }));
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get('cache-control')).toBe('private, no-store');
    const right = await page(`/event/${cal.slugs.secret}/`, form({ action: 'password', password: 'open sesame' }));
    expect(right.status).toBe(200);
    expect(right.text).toContain('Hidden text');
    expect(right.headers.get('cache-control')).toBe('private, no-store');
  });

  it('more than 10 wrong passwords a minute for one event from one address → 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await page(`/event/${cal.slugs.secret}/`, form({ action: 'password', password: `x${i}` }))).status);
    expect(statuses.slice(0, 9).every((s) => s === 403)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe('lists, filters and the month', () => {
  it('lists upcoming events 20 a page with paging, and links the feed of the same selection', async () => {
    const list = await page('/events/');
    expect((list.text.match(/<li class="card/g) ?? []).length).toBe(13);
    expect(list.text).toMatch(/<link rel="alternate" type="text\/calendar" title="[^"]+" href="http:\/\/127\.0\.0\.1:\d+\/calendar\/events\/v1\/events\.ics">/);
    expect(list.text).toContain('<a href="http://');
    const filtered = await page('/events/?categories=music-p&search=jazz');
    expect((filtered.text.match(/<li class="card/g) ?? []).length).toBe(1);
    expect(filtered.text).toContain('events.ics?search=jazz&amp;categories=music-p');
    expect((await page('/events/?tags=jazz-p')).text).toContain('Jazz night p');
    expect((await page('/events/?featured=1')).text).toContain('No events found.');
    expect((await page('/events/?categories=no-such-term')).status).toBe(400);
    expect((await page('/events/?page=99')).status).toBe(404);
  });

  it('takes the §18 point and radius: a radius around Lisbon lists the Lisbon event only, with its distance', async () => {
    const near = await page('/events/?geoloc_lat=38.7&geoloc_lng=-9.1&geoloc_radius=50&geoloc_unit=km');
    expect(near.text).toContain('Jazz night p');
    expect(near.text).not.toContain('Far away concert');
    expect(near.text).toMatch(/Blue Hall p · \d+(\.\d+)? km/);
    expect((await page('/events/?geoloc_lat=91&geoloc_lng=0')).status).toBe(400);
  });

  it('places an event on the days of its dates in the site time zone, at most 5 a day with a link to the rest', async () => {
    const month = await page(`/events/month/${cal.month}/`);
    const day = (d: string) => month.text.split(`<time datetime="${cal.month}-${d}">`)[1]!.split('<li class="day')[0]!;
    // 03:00 UTC on the 10th is 22:00 on the 9th in New York.
    expect(day('09')).toContain('Jazz night p');
    expect(day('10')).not.toContain('Jazz night p');
    expect((day('20').match(/Busy day/g) ?? []).length).toBe(5);
    expect(day('20')).toMatch(/class="more" href="\/events\/\?start_date=\d{4}-02-20&amp;end_date=\d{4}-02-20"/);
    expect(day('20')).toContain('1 more');
    // The rest of the day: 6 events.
    const rest = await page(`/events/?start_date=${cal.month}-20&end_date=${cal.month}-20`);
    expect((rest.text.match(/Busy day/g) ?? []).length).toBe(6);
  });
});

describe('the event page', () => {
  it('shows dates in the event zone, venue with its map link, organizers, categories, the series\' next dates and calendar links', async () => {
    const jazz = await page(`/event/${cal.slugs.jazz}/`);
    expect(jazz.text).toContain('https://www.openstreetmap.org/?mlat=38.72&amp;mlon=-9.14');
    expect(jazz.text).toContain('href="/organizer/ana-p/"');
    expect(jazz.text).toContain('href="/events/category/music-p/"');
    expect(jazz.text).toMatch(/3:00 AM – 4:00 AM/);
    expect(jazz.text).toMatch(/href="http:\/\/127\.0\.0\.1:\d+\/calendar\/events\/v1\/events\/\d+\.ics"/);
    expect(jazz.text).toMatch(/href="webcal:\/\/127\.0\.0\.1:\d+\/calendar\/events\/v1\/events\/\d+\.ics"/);
    expect(jazz.text).toContain('https://calendar.google.com/calendar/render?action=TEMPLATE');
    expect(jazz.text).toContain('loading="lazy" referrerpolicy="no-referrer"');
    const yoga = await page(`/event/${cal.slugs.yoga}/`);
    expect((yoga.text.split('Next dates of this series')[1]?.match(/<time /g) ?? []).length).toBeGreaterThanOrEqual(3);
  });

  it('carries schema.org Event JSON-LD with the properties Google\'s event rich results ask for, escaped as §3 escapes JSON', async () => {
    const jazz = await page(`/event/${cal.slugs.jazz}/`);
    const scripts = [...jazz.text.matchAll(/<script type="application\/ld\+json">(.*?)<\/script>/gs)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).not.toMatch(/[<>]/);
    const ld = JSON.parse(scripts[0]!);
    checkEventLd(ld);
    expect(ld.location.geo).toEqual({ '@type': 'GeoCoordinates', latitude: 38.72, longitude: -9.14 });
    expect(ld.offers[0]).toMatchObject({ '@type': 'Offer', price: 0, priceCurrency: 'USD', availability: 'https://schema.org/InStock' });
    expect(ld.startDate).toMatch(/^\d{4}-02-10T03:00:00\+00:00$/);
  });

  it('the RSVP form posts a reservation, shows it with a cancel link; the link only shows a confirmation form, whose post cancels', async () => {
    const made = await page(`/event/${cal.slugs.jazz}/`, form({ action: 'rsvp', ticket_id: String(cal.ticketId), name: 'Bo', email: 'bo@example.org', quantity: '2' }));
    expect(made.status).toBe(201);
    expect(made.headers.get('cache-control')).toBe('private, no-store');
    expect(made.text).toContain('2 places for Bo (bo@example.org)');
    const link = made.text.match(/href="(\/event\/[^"]+\/reservation\/\d+\/\?token=[^"]+)"/)![1]!.replaceAll('&amp;', '&');
    const confirm = await page(link);
    expect(confirm.status).toBe(200);
    expect(confirm.headers.get('cache-control')).toBe('private, no-store');
    expect(confirm.text).toContain('Yes, cancel the reservation');
    expect((await page(link)).status).toBe(200); // the link changed nothing
    const token = new URL(link, server.origin).searchParams.get('token')!;
    const action = link.split('?')[0]!;
    expect((await page(action, form({ token }, { origin: 'https://elsewhere.example' }))).status).toBe(403);
    const cancelled = await page(action, form({ token }, { origin: server.origin }));
    expect(cancelled.status).toBe(200);
    expect(cancelled.text).toContain('Your reservation has been cancelled.');
    expect((await page(link)).status).toBe(404);
  });

  it('refuses form posts from other sites (Sec-Fetch-Site, Origin) with 403', async () => {
    const refused: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example' }, {}];
    for (const headers of refused) {
      const res = await page(`/event/${cal.slugs.secret}/`, form({ action: 'password', password: 'open sesame' }, headers));
      expect(res.status).toBe(403);
    }
  });
});

describe('embedding, caching and assets', () => {
  it('lets only ?embed=1 list and month pages be framed, without header and footer', async () => {
    const embed = await page('/events/month/?embed=1');
    expect(embed.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(embed.text).not.toContain('<header');
    expect(embed.text).toContain('<body class="embed">');
    expect((await page(`/event/${cal.slugs.jazz}/?embed=1`)).headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('tags pages with an ETag, answers 304 to it and caches anonymous reads publicly (§15)', async () => {
    const first = await page('/events/month/');
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=0');
    expect(first.headers.get('vary')).toBe('Authorization, Accept-Encoding');
    const again = await page('/events/month/', { headers: { 'if-none-match': tag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const signedIn = await page('/events/', { headers: { authorization: `Bearer ${await signLocalToken({ secret, role: 'editor' })}` } });
    expect(signedIn.headers.get('cache-control')).toBe('private, no-store');
    expect(signedIn.text).toContain('Draft event'); // a visitor sees what the API shows their caller: an editor's lists hold drafts
  });

  it('serves the style sheet, the page script and embed.js from the service', async () => {
    const css = await page('/events/assets/site.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.text).toContain('--cal-accent');
    expect(css.text).toContain('prefers-color-scheme: dark');
    expect(css.text).toContain('@media print');
    expect((await page('/events/embed.js')).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await page('/events/assets/site.js')).text).toContain('toFixed(2)');
  });

  it('keeps a list page of 20 events within 60 KB of HTML', async () => {
    const list = await page('/events/');
    expect(Buffer.byteLength(list.text)).toBeLessThan(60 * 1024);
  });

  it('loads at most 15 KB of script (gzipped) on a list page', async () => {
    const list = await page('/events/');
    const sources = [...list.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThan(0);
    let bytes = 0;
    for (const src of sources) {
      const script = await page(src);
      expect([src, script.status]).toEqual([src, 200]);
      bytes += gzipSync(script.text).byteLength;
    }
    expect(bytes).toBeLessThanOrEqual(15 * 1024);
  });
});

/** The local server's output (test/support/own-server.ts writes it to this file). */
const serverLog = () => readFileSync(join(tmpdir(), `calendar-pages-${process.pid}.log`), 'utf8');

describe('cost and observability', () => {

  it('counts the page\'s own DynamoDB work in its cost header, and a list page costs the API list it shows plus a constant', async () => {
    const wrong = await page(`/event/${cal.slugs.secret}/`, form({ action: 'password', password: 'not it' }));
    // A wrong password (403) or, past the limit of this minute (429, after the test above), the page's own work: its
    // counter of wrong passwords is the one write (the API calls behind the page only read); refused at the limit, the
    // page makes no API call at all, and still reads the event's slug and the counter.
    expect([403, 429]).toContain(wrong.status);
    if (wrong.status === 403) expect(meter(wrong).wcu).toBeGreaterThanOrEqual(1);
    else expect([meter(wrong).requests, meter(wrong).rcu! > 0]).toEqual([2, true]);
    const list = meter(await page('/events/'));
    const api = meter(await fetch(`${server.url}/events?per_page=20`));
    expect(list.rcu).toBeGreaterThan(api.rcu!);
    // The constant: the filter form's category and tag lists (50 each, by name), whatever the calendar's size.
    expect([list.rcu! - api.rcu! <= 4, list.requests! - api.requests! <= 10]).toEqual([true, true]);
  });

  it('logs one `request answered` line per page request, not one per API call inside it', async () => {
    const mark = `log-${Date.now()}`;
    const res = await page(`/events/?search=${mark}`);
    expect(res.status).toBe(200);
    const lines = () => serverLog().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.message === 'request answered');
    // The log reaches the file through a pipe: wait for the page's line itself, then look at every line.
    const deadline = Date.now() + 10_000;
    while (!lines().some((l) => l.path === '/events' || l.path === '/events/') && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 25));
    const answered = lines();
    const forPage = answered.filter((l) => String(l.request_id ?? '') !== '' && (l.path === '/events' || l.path === '/events/'));
    expect(forPage.length).toBeGreaterThanOrEqual(1);
    const id = forPage.at(-1)!.request_id;
    expect(answered.filter((l) => l.request_id === id)).toHaveLength(1);
    expect(answered.filter((l) => String(l.path ?? '').startsWith('/calendar/events/v1') && l.request_id === id)).toEqual([]);
  });
});
