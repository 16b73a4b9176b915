/**
 * The reference page, GET {api}/doc.html (contract §10), in a real browser: Debian's Chromium, headless, driven by
 * puppeteer-core. Every request the page makes to another host is blocked and recorded (there must be none: the page
 * works with no internet access), and Redoc must render every operation of the served document with its parameters —
 * under our base, a language prefix and the origin's base. Without Chromium the file fails; it never skips.
 */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import puppeteer, { type Browser, type HTTPResponse } from 'puppeteer-core';
import { apiUrl, serverOrigin } from '../support/api.js';

/** CHROMIUM_PATH, else `chromium` on PATH (Debian's package; .ci/run installs it), else Debian's own path. */
const CHROMIUM = process.env.CHROMIUM_PATH
  || (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'chromium')).find((p) => existsSync(p))
  || '/usr/bin/chromium';
/** Redoc lays out about sixty operations; on a busy machine that takes a while. */
const RENDER_TIMEOUT_MS = 90_000;

let browser: Browser;
let operationIds: string[];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not at ${CHROMIUM}: install it (Debian/Ubuntu: apt-get install -y chromium) or set CHROMIUM_PATH. `
      + 'The reference page is tested in a real browser.');
  }
  // --no-sandbox: Chromium's sandbox cannot start as root (CI containers).
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const doc = (await (await fetch(`${apiUrl()}/doc`)).json()) as { paths: Record<string, Record<string, { operationId?: string }>> };
  operationIds = Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => (op.operationId ? [op.operationId] : [])));
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

interface Visit {
  status: number | undefined;
  headers: Record<string, string>;
  /** Requests to any other host (blocked). */
  foreign: string[];
  /** Requests to the service. */
  own: { url: string; status?: number; encoding?: string }[];
  /** What the page's Content-Security-Policy refused (nothing is fetched then). */
  refused: { uri: string; directive: string }[];
  errors: string[];
  /** Rendered text of some operations, by operationId. */
  text: Record<string, string>;
  /** The ids of every rendered operation. */
  rendered: string[];
}

async function visit(path: string): Promise<Visit> {
  const page = await browser.newPage();
  const origin = serverOrigin();
  const visit: Visit = { status: undefined, headers: {}, foreign: [], own: [], refused: [], errors: [], text: {}, rendered: [] };
  try {
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = request.url();
      if (/^https?:/i.test(url) && new URL(url).origin !== origin) {
        visit.foreign.push(url);
        void request.abort('blockedbyclient');
      } else {
        void request.continue();
      }
    });
    page.on('response', (response: HTTPResponse) => {
      if (response.url().startsWith(origin)) {
        visit.own.push({ url: response.url().slice(origin.length), status: response.status(), encoding: response.headers()['content-encoding'] });
      }
    });
    page.on('pageerror', (error) => visit.errors.push(String(error)));
    await page.evaluateOnNewDocument(`window.refused = [];
      document.addEventListener('securitypolicyviolation', (e) => window.refused.push({ uri: e.blockedURI, directive: e.effectiveDirective }));`);

    const response = await page.goto(`${origin}${path}`, { waitUntil: 'domcontentloaded', timeout: RENDER_TIMEOUT_MS });
    visit.status = response?.status();
    visit.headers = response?.headers() ?? {};
    // Redoc names each operation's section "operation/<operationId>"; the last one appears once all are laid out.
    await page.waitForSelector(`[id="operation/${operationIds.at(-1)}"]`, { timeout: RENDER_TIMEOUT_MS });
    visit.rendered = await page.$$eval('[id^="operation/"]', (els) => els.map((e) => e.id.slice('operation/'.length)));
    for (const id of ['listEvents', 'createEvent', 'getEvent', 'getReferencePage']) {
      // innerText, not textContent: the text a reader sees, as Redoc laid it out.
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the test checks
      visit.text[id] = await page.$eval(`[id="operation/${id}"]`, (e) => (e as HTMLElement).innerText);
    }
    visit.refused = (await page.evaluate('window.refused')) as Visit['refused'];
  } finally {
    await page.close();
  }
  return visit;
}

describe('GET {api}/doc.html in a browser with no access to other hosts', () => {
  const root = new URL(apiUrl()).pathname; // /calendar/events/v1
  it.each([
    ['our base', `${root}/doc.html`],
    ['a language prefix', `/de${root}/doc.html`],
    ['the origin\'s base, with a trailing slash', '/wp-json/tribe/events/v1/doc.html/'],
  ])('under %s: renders every operation with its parameters, requesting nothing from elsewhere', async (_, path) => {
    const page = await visit(path);

    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(page.foreign).toEqual([]);
    expect(page.errors).toEqual([]);
    // The policy refuses only images: Redoc's sidebar names its logo on a CDN, which the browser then never fetches.
    expect(page.refused.filter((r) => r.directive !== 'img-src')).toEqual([]);

    // Redoc's script and the document came from the service, under the page's own base and prefix.
    const apiRoot = path.replace(/\/doc\.html\/?$/, '');
    const script = page.own.find((r) => r.url.startsWith(`${apiRoot}/doc.html/redoc.standalone.js?v=`));
    expect(script).toMatchObject({ status: 200, encoding: 'gzip' });
    expect(page.own).toContainEqual(expect.objectContaining({ url: `${apiRoot}/doc`, status: 200 }));

    expect([...page.rendered].sort()).toEqual([...operationIds].sort());
    expect(page.text.listEvents).toMatch(/Lists events in a date window/);
    expect(page.text.listEvents).toMatch(/query parameters/i);
    for (const name of ['per_page', 'start_date', 'categories', 'translation_language']) expect(page.text.listEvents).toContain(name);
    expect(page.text.createEvent).toMatch(/request body schema/i);
    for (const name of ['title', 'start_date', 'end_date', 'venue']) expect(page.text.createEvent).toContain(name);
    expect(page.text.createEvent).toMatch(/Idempotency-Key/);
    expect(page.text.getEvent).toMatch(/path parameters/i);
    expect(page.text.getReferencePage).toMatch(/text\/html/);
  }, 2 * RENDER_TIMEOUT_MS);
});
