/**
 * The calendar pages (contract §21) in a real browser: Debian's Chromium, headless, driven by puppeteer-core, one
 * browser for the file. axe-core on every page kind in light and dark, 320 px without sideways scrolling, keyboard
 * reach with a visible focus ring, no request to another host but the records' own images, JavaScript off, form posts
 * from other sites, "near me" with an emulated position, and embed.js on a page of another origin sizing its iframe.
 * Without Chromium the file fails; it never skips. CALENDAR_SCREENSHOTS=<dir> also writes there the screenshots that
 * README.md and docs/pages.md show (kept in docs/images).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { signLocalToken } from '../../lib/local/token-sign.js';
import { startOwnServer, type OwnServer } from '../support/own-server.js';
import { seedCalendar, type SeededCalendar } from './helpers/pages.js';

const CHROMIUM = process.env.CHROMIUM_PATH
  || (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'chromium')).find((p) => existsSync(p))
  || '/usr/bin/chromium';
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const IMAGE_HOST = 'images.example.org';
const secret = 'pages-browser-secret-0123456789abcdef0123';

let browser: Browser;
let server: OwnServer;
let cal: SeededCalendar;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  [browser, server] = await Promise.all([
    puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] }),
    startOwnServer('calendar-pages-browser', { secret, env: { CALENDAR_TIMEZONE: 'UTC' } }),
  ]);
  cal = await seedCalendar(server.url, await signLocalToken({ secret, role: 'editor' }), 'b');
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** A page whose requests to other hosts are answered by the test (never the network) and recorded. */
async function open(opts: { width?: number; dark?: boolean; js?: boolean } = {}): Promise<{ page: Page; foreign: string[] }> {
  const page = await browser.newPage();
  const foreign: string[] = [];
  await page.setViewport({ width: opts.width ?? 1024, height: 800 });
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: opts.dark ? 'dark' : 'light' }]);
  await page.setJavaScriptEnabled(opts.js ?? true);
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol === 'data:' || url.protocol === 'about:' || url.origin === server.origin) return void request.continue();
    foreign.push(request.url());
    void request.respond({ status: 404, body: '' });
  });
  return { page, foreign };
}

const pageKinds = () => ({
  list: '/events/', month: `/events/month/${cal.month}/`, category: '/events/category/music-b/', venue: '/venue/blue-hall-b/',
  organizer: '/organizer/ana-b/', tag: '/tag/jazz-b/', event: `/event/${cal.slugs.jazz}/`, occurrence: `/event/${cal.slugs.yoga}/${cal.month}-09/`,
  password: `/event/${cal.slugs.secret}/`, notFound: '/event/nothing-here/', german: `/de/events/month/${cal.month}/`,
});

describe('accessibility and layout', () => {
  it('axe-core finds no WCAG 2.1 A/AA violation on any page kind, light or dark', async () => {
    const found: string[] = [];
    for (const dark of [false, true]) {
      const { page } = await open({ dark });
      await page.setBypassCSP(true); // to inject axe-core itself
      for (const [kind, path] of Object.entries(pageKinds())) {
        await page.goto(`${server.origin}${path}`);
        await page.addScriptTag({ path: AXE });
        const violations = await page.evaluate(`axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] })
          .then((r) => r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`) as string[];
        found.push(...violations.map((v) => `${dark ? 'dark' : 'light'} ${kind}: ${v}`));
      }
      await page.close();
    }
    expect(found).toEqual([]);
  }, 120_000);

  it('reads at 320 px without horizontal scrolling', async () => {
    const { page } = await open({ width: 320 });
    const wide: string[] = [];
    for (const [kind, path] of Object.entries(pageKinds())) {
      await page.goto(`${server.origin}${path}`);
      const over = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as number;
      if (over > 0) wide.push(`${kind}: ${over}px`);
    }
    await page.close();
    expect(wide).toEqual([]);
  }, 60_000);

  it('reaches every link and form field by Tab, each with a visible focus ring', async () => {
    const { page } = await open();
    for (const path of [`/event/${cal.slugs.jazz}/`, '/events/']) {
      await page.goto(`${server.origin}${path}`);
      const wanted = await page.evaluate(`[...document.querySelectorAll('a[href], input:not([type=hidden]), select, button')]
        .filter((el) => el.getClientRects().length > 0 && !el.closest('[hidden]')).length`) as number;
      const reached = new Set<string>();
      const unringed: string[] = [];
      for (let i = 0; i < wanted + 5; i++) {
        await page.keyboard.press('Tab');
        const info = await page.evaluate(`(() => { const el = document.activeElement; if (!el || el === document.body) return null;
          const s = getComputedStyle(el); const i = [...document.querySelectorAll('*')].indexOf(el);
          return { key: el.tagName + '#' + i, ring: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2 }; })()`) as
          { key: string; ring: boolean } | null;
        if (!info) continue;
        reached.add(info.key);
        if (!info.ring) unringed.push(info.key);
      }
      expect(reached.size).toBeGreaterThanOrEqual(wanted);
      expect(unringed).toEqual([]);
    }
    await page.close();
  }, 60_000);
});

describe('requests, scripts and forms', () => {
  it('requests nothing from another host but the records\' own images', async () => {
    const { page, foreign } = await open();
    for (const path of Object.values(pageKinds())) {
      await page.goto(`${server.origin}${path}`, { waitUntil: 'networkidle0' });
      await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
    }
    await page.close();
    expect(foreign.filter((url) => new URL(url).host !== IMAGE_HOST)).toEqual([]);
  }, 60_000);

  it('works without JavaScript: filters narrow the list and the password form opens the event', async () => {
    const { page } = await open({ js: false });
    await page.goto(`${server.origin}/events/`);
    await page.select('#f-category', 'music-b');
    await Promise.all([page.waitForNavigation(), page.click('.filters button[type=submit]')]);
    const titles = await page.$$eval('.card-title', (els) => els.map((e) => e.textContent));
    expect(titles).toEqual(['Jazz night b']);
    await page.goto(`${server.origin}/event/${cal.slugs.secret}/`);
    await page.type('#pw', 'open sesame');
    await Promise.all([page.waitForNavigation(), page.click('.unlock button')]);
    expect(await page.content()).toContain('Hidden text');
    await page.close();
  }, 60_000);

  it('refuses a form posted from another site', async () => {
    const { page } = await open();
    await page.setContent(`<form method="post" action="${server.origin}/event/${cal.slugs.secret}/"><input name="action" value="password">
      <input name="password" value="open sesame"><button>go</button></form>`);
    const [response] = await Promise.all([page.waitForNavigation(), page.click('button')]);
    expect(response?.status()).toBe(403);
    await page.close();
  }, 30_000);

  it('"near me" with an emulated position narrows the list to the radius around it', async () => {
    const { page } = await open();
    await browser.defaultBrowserContext().overridePermissions(server.origin, ['geolocation']);
    await page.setGeolocation({ latitude: 38.7223, longitude: -9.1393 });
    await page.goto(`${server.origin}/events/`);
    expect(await page.$$eval('.card', (els) => els.length)).toBeGreaterThan(1);
    await Promise.all([page.waitForNavigation(), page.click('[data-near-me]')]);
    expect(new URL(page.url()).searchParams.get('geoloc_lat')).toBe('38.72');
    expect(new URL(page.url()).searchParams.get('geoloc_lng')).toBe('-9.14');
    const titles = await page.$$eval('.card-title', (els) => els.map((e) => e.textContent));
    expect(titles).toEqual(['Jazz night b']);
    await page.close();
  }, 30_000);

  it('embed.js on a page of another origin puts an iframe of its view where it stands, as tall as its content', async () => {
    // The host page: another origin (another port of the loopback address), under a strict CSP of its own that
    // allows only the calendar's script and frames.
    const host: Server = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': `default-src 'none'; script-src ${server.origin}; frame-src ${server.origin}` });
      res.end(`<!doctype html><html lang="en"><head><title>Host</title></head><body><h1>Our club</h1>
        <div id="list"><script src="${server.origin}/events/embed.js" data-view="list" data-categories="music-b"></script></div>
        <div id="month"><script src="${server.origin}/de/events/embed.js" data-view="month"></script></div><p id="after">after</p></body></html>`);
    });
    await new Promise<void>((ok) => host.listen(0, '127.0.0.1', ok));
    const page = await browser.newPage();
    try {
      await page.setViewport({ width: 900, height: 700 });
      const hostOrigin = `http://127.0.0.1:${(host.address() as { port: number }).port}`;
      expect(hostOrigin).not.toBe(server.origin);
      await page.goto(`${hostOrigin}/`);
      // Each iframe stands where its script stands, and shows its view with embed=1 and the filters.
      const frames = await page.$$eval('iframe', (els) => els.map((f) => ({ parent: f.parentElement!.id, src: f.src, title: f.title })));
      expect(frames.map((f) => f.parent)).toEqual(['list', 'month']);
      const [list, month] = frames.map((f) => new URL(f.src));
      expect([list!.origin, list!.pathname, list!.searchParams.get('embed'), list!.searchParams.get('categories')])
        .toEqual([server.origin, '/events/', '1', 'music-b']);
      expect([month!.pathname, month!.searchParams.get('embed')]).toEqual(['/de/events/month/', '1']);
      // Sized by the framed page's script: wait until each iframe is exactly as tall as its document (no inner scrollbar).
      for (const src of frames.map((f) => f.src)) {
        const frame = page.frames().find((f) => f.url() === src)!;
        expect(frame).toBeDefined();
        await frame.waitForFunction('document.body.classList.contains("embed") && document.documentElement.scrollHeight === window.innerHeight '
          + '&& document.documentElement.scrollHeight !== 600', { timeout: 15_000 });
        const content = await frame.evaluate('document.documentElement.scrollHeight') as number;
        const outer = await page.$eval(`iframe[src="${src}"]`, (f) => f.getBoundingClientRect().height);
        expect([src, outer]).toEqual([src, content]);
        expect(await frame.evaluate('document.documentElement.scrollHeight > window.innerHeight')).toBe(false);
      }
      // A size message from anything but its own iframe (here the host page itself) changes nothing. The page's own
      // listener, added after embed.js's, hears the sentinel only once the forged message has been handled.
      const before = await page.$$eval('iframe', (els) => els.map((f) => f.style.height));
      await page.evaluate(`new Promise((done) => {
        window.addEventListener('message', (e) => { if (e.data === 'sentinel') done(); });
        window.postMessage({ type: 'calendar:size', height: 7 }, '*');
        window.postMessage('sentinel', '*');
      })`);
      expect(await page.$$eval('iframe', (els) => els.map((f) => f.style.height))).toEqual(before);
    } finally {
      await page.close();
      host.closeAllConnections(); // Chromium keeps its connections alive
      await new Promise((ok) => host.close(ok));
    }
  }, 60_000);

  it('writes the screenshots of README.md and docs/pages.md when asked', async () => {
    const dir = process.env.CALENDAR_SCREENSHOTS;
    if (!dir) return expect(dir).toBeUndefined();
    mkdirSync(dir, { recursive: true });
    const { page } = await open({ width: 1100 });
    await page.goto(`${server.origin}/events/month/${cal.month}/`, { waitUntil: 'networkidle0' });
    await page.screenshot({ path: join(dir, 'calendar-month.png'), fullPage: true });
    await page.goto(`${server.origin}/event/${cal.slugs.jazz}/`, { waitUntil: 'networkidle0' });
    await page.screenshot({ path: join(dir, 'calendar-event.png'), fullPage: true });
    await page.close();
  }, 40_000);
});
