/**
 * The pages function (contract §21): routes a page path, checks the method and, for form posts, that the form came
 * from the service's own pages; renders the page from the API's answers (./views.ts) in the layout, and answers with
 * the pages' headers: the content security policy, framing, referrer policy, caching and ETags as §15 says.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import middy from '@middy/core';
import { config } from '../config.js';
import { ApiError } from '../http/errors.js';
import { bodyTag, noneMatch } from '../http/etag.js';
import { edgeOrigin } from '../http/middleware/edge-origin.js';
import { observability } from '../http/middleware/observability.js';
import { stateOf } from '../http/middleware/state.js';
import { parseBody, requestLine, type RequestLine } from '../http/request.js';
import type { HttpResult } from '../http/response.js';
import { LANGUAGES, type Language } from '../model/language.js';
import { logger, withRequestKeys } from '../observability/logger.js';
import { isEvent } from '../events/record.js';
import { findBySlug } from '../store/slugs.js';
import { currentMeter, newMeter, runInScope } from '../store/scope.js';
import { countFailedEventPassword, failedEventPasswords } from '../store/app-passwords.js';
import { apiClient } from './api.js';
import { ASSETS } from './assets.js';
import { dateFormats, LOCALES, translator } from './i18n.js';
import { pageMethods, splitPagePath, type PageRoute } from './paths.js';
import { reservationPage, rsvpPost } from './rsvp.js';
import { render } from './templates.js';
import { eventPage, linkedPage, monthPage, PageError, termPage, upcomingPage, type PageParts, type View } from './views.js';

/** More wrong passwords than this in a minute, for one event from one address → 429 (contract §21). */
export const MAX_WRONG_PASSWORDS = 10;

const LANGUAGE_LABELS: Record<Language, string> = { en: 'English', de: 'Deutsch', 'pt-pt': 'Português' };

/** The pages' content security policy: scripts and styles from the service only; images from anywhere (records' images). */
const csp = (embed: boolean): string => [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", 'img-src * data:', "form-action 'self'", "base-uri 'none'",
  "connect-src 'none'", `frame-ancestors ${embed ? '*' : "'none'"}`,
].join('; ');

export const siteName = (): string => process.env.CALENDAR_SITE_NAME?.trim() || 'Calendar';

/** The first value of each query name (a page takes single values; the API reads lists from comma-separated strings). */
function queryOf(event: APIGatewayProxyEventV2): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(event.rawQueryString ?? '')) if (!(k in out) && k.length <= 40) out[k] = v.slice(0, 2000);
  return out;
}

/** Form posts only from the service's own pages: `Sec-Fetch-Site: same-origin`, else an `Origin` that is this origin. */
export function sameOrigin(line: RequestLine): boolean {
  const site = line.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  return line.headers.origin !== undefined && line.headers.origin === line.origin;
}

function layout(v: View, parts: PageParts, line: RequestLine, prefix: Language | null): string {
  const siteBase = config().siteUrl ?? `${line.origin}${line.stagePath}`;
  const under = (lang: Language | null) => `${siteBase}${lang ? `/${lang}` : ''}${parts.path}`;
  const canonical = `${under(prefix)}${parts.canonicalQuery ?? ''}`;
  const assetUrl = (name: 'site.css' | 'site.js') => `${line.stagePath}/events/assets/${name}?v=${ASSETS[name].version}`;
  return render('layout', {
    t: v.t, lang: v.lang, title: parts.status === 200 && parts.title !== v.site ? `${parts.title} · ${v.site}` : parts.title,
    description: parts.description, canonical, site: v.site, ogType: parts.ogType ?? 'website', image: parts.image,
    ogLocale: LOCALES[v.lang].replace('-', '_'), feed: parts.feed, jsonLd: parts.jsonLd, embed: v.embed, view: parts.view,
    alternates: parts.status === 200 ? LANGUAGES.map((lang) => ({ lang, href: under(lang === 'en' && !prefix ? null : lang) })) : [],
    css: assetUrl('site.css'), js: assetUrl('site.js'), body: parts.body,
    home: `${v.base}/events/`, monthHome: `${v.base}/events/month/`,
    languages: LANGUAGES.map((lang) => ({ lang, label: LANGUAGE_LABELS[lang], current: lang === v.lang,
      href: `${line.stagePath}/${lang}${parts.status === 200 ? parts.path : '/events/'}` })),
  });
}

function errorParts(v: View, e: PageError): PageParts {
  const text = e.heading === 'notFound' ? v.t('notFoundText') : e.heading === 'forbidden' ? v.t('forbidden')
    : e.heading === 'methodNotAllowed' ? v.t('methodNotAllowed') : e.heading === 'tooMany' ? v.t('tooMany')
      : e.heading === 'error' ? v.t('errorText') : (e.text ?? v.t('badRequest'));
  const heading = e.heading === 'tooMany' ? v.t('tooMany') : v.t(e.heading);
  return {
    status: e.status, title: heading, description: text, path: '/events/',
    body: render('message', { t: v.t, heading, text, home: `${v.base}/events/` }),
  };
}

async function route(v: View, r: Exclude<PageRoute, { kind: 'asset' }>, method: string, form: Record<string, unknown>,
  line: RequestLine): Promise<PageParts> {
  switch (r.kind) {
    case 'list': return upcomingPage(v);
    case 'month': return monthPage(v, r.month);
    case 'category': case 'tag': return termPage(v, r.kind, r.slug);
    case 'venue': case 'organizer': return linkedPage(v, r.kind, r.slug);
    case 'reservation': return reservationPage(v, r, method, form);
    case 'event': {
      const lookupId = async (slug: string): Promise<number | null> => {
        const item = await findBySlug('event', slug);
        return isEvent(item) ? item.id : null;
      };
      if (method === 'POST' && form.action === 'rsvp') return rsvpPost(v, r, form);
      if (method !== 'POST' || form.action !== 'password') return (await eventPage(v, r.slug, r.occurrence, { lookupId })).parts;
      const password = typeof form.password === 'string' ? form.password.slice(0, 200) : '';
      const minute = Math.floor(Date.now() / 60_000);
      const id = await lookupId(r.slug);
      if (id !== null && (await failedEventPasswords(id, line.sourceIp, minute)) >= MAX_WRONG_PASSWORDS) {
        throw new PageError(429, 'tooMany', undefined, { 'Retry-After': String(60 - (Math.floor(Date.now() / 1000) % 60)) });
      }
      const outcome = await eventPage(v, r.slug, r.occurrence, { lookupId, password: password || '\u0000' });
      if (!outcome.locked) return outcome.parts;
      if (outcome.id !== null) await countFailedEventPassword(outcome.id, line.sourceIp, minute);
      return (await eventPage(v, r.slug, r.occurrence, { lookupId, error: v.t('wrongPassword') })).parts;
    }
  }
}

const baseHeaders = (lang: Language, embed: boolean): Record<string, string> => ({
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Language': lang,
  'Content-Security-Policy': csp(embed),
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  ...(embed ? {} : { 'X-Frame-Options': 'DENY' }),
});

/** Caching as §15: an ETag on every 200 GET, 304 on a match; anonymous reads public, everything else private, no-store. */
function cached(line: RequestLine, result: HttpResult, isPrivate: boolean): HttpResult {
  const read = line.method === 'GET' || line.method === 'HEAD';
  const shareable = read && !isPrivate && !line.headers.authorization && result.statusCode < 500;
  result.headers['Cache-Control'] = shareable ? `public, max-age=${config().cacheSeconds}` : 'private, no-store';
  if (read) result.headers.Vary = 'Authorization, Accept-Encoding';
  if (read && result.statusCode === 200 && typeof result.body === 'string') {
    result.headers.ETag = bodyTag(result.body);
    if (noneMatch(line.headers['if-none-match'], result.headers.ETag)) {
      const { 'Content-Type': _t, ...headers } = result.headers;
      return { statusCode: 304, headers, body: '' };
    }
  }
  if (line.method === 'HEAD') result.body = '';
  return result;
}

async function answer(event: APIGatewayProxyEventV2, context: Context): Promise<HttpResult> {
  const line = requestLine(event);
  stateOf(event).line = line; // for the request's one `request answered` line (lib/http/middleware/observability.ts)
  const page = splitPagePath(line.path);
  const prefix = page?.prefix ?? null;
  const lang: Language = prefix ?? 'en';
  const query = queryOf(event);
  const embed = query.embed === '1';
  const api = apiClient(event, context, line, prefix);
  const v: View = {
    lang, t: translator(lang), fmt: dateFormats(lang, config().siteTimezone), api, query, embed, site: siteName(),
    base: `${line.stagePath}${prefix ? `/${prefix}` : ''}`, absolute: `${line.origin}${line.stagePath}${prefix ? `/${prefix}` : ''}`,
  };
  let parts: PageParts;
  let extra: Record<string, string> = {};
  try {
    if (!page?.route) throw new PageError(404, 'notFound');
    const r = page.route;
    const allowed = pageMethods(r);
    if (!allowed.includes(line.method)) throw new PageError(405, 'methodNotAllowed', undefined, { Allow: allowed.join(', ') });
    if (r.kind === 'asset') {
      const asset = ASSETS[r.name];
      const result: HttpResult = { statusCode: 200, headers: { 'Content-Type': asset.type, 'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer', ...(r.name === 'embed.js' ? { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' } : {}) },
      body: asset.body };
      return cached(line, result, false);
    }
    let form: Record<string, unknown> = {};
    if (line.method === 'POST') {
      if (!sameOrigin(line)) throw new PageError(403, 'forbidden');
      form = parseBody(event, line.headers).values;
    }
    parts = await route(v, r, line.method, form, line);
  } catch (e) {
    if (!(e instanceof PageError)) {
      if (e instanceof ApiError && e.status >= 400 && e.status < 500) {
        parts = errorParts(v, new PageError(e.status, 'badRequest', e.message));
      } else {
        logger.error('page failed', { error: e });
        parts = errorParts(v, new PageError(500, 'error'));
      }
    } else {
      parts = errorParts(v, e);
      extra = e.headers;
    }
  }
  const isPrivate = parts.private === true || line.method === 'POST';
  // The page's whole DynamoDB work: its API calls run nested in its scope (lib/pages/api.ts), its own reads and writes too.
  const meter = process.env.CALENDAR_METER === '1' ? currentMeter() : null;
  const result: HttpResult = {
    statusCode: parts.status,
    headers: {
      ...baseHeaders(lang, embed && (parts.view === 'list' || parts.view === 'month')), ...extra,
      ...(parts.retryAfter ? { 'Retry-After': parts.retryAfter } : {}),
      ...(meter ? { 'X-Calendar-Meter': `requests=${meter.requests}; rcu=${meter.readUnits}; wcu=${meter.writeUnits}; items=${meter.itemsRead}; `
        + `tx=${meter.transactions}` } : {}),
    },
    body: layout(v, parts, line, prefix),
  };
  return cached(line, result, isPrivate);
}

/** The Lambda handler of the pages (functions/pages.ts); the local server runs the same. */
export function createPagesHandler() {
  const pipeline = middy<APIGatewayProxyEventV2, HttpResult, Error, Context>()
    .use(observability())
    .use(edgeOrigin())
    .handler((event, context) => answer(event, context));
  return async (event: APIGatewayProxyEventV2, context: Context): Promise<HttpResult> =>
    runInScope({ meter: newMeter(), deadline: null }, () => withRequestKeys({ request_id: event.requestContext?.requestId,
      function_request_id: context?.awsRequestId, function_name: context?.functionName }, () => pipeline(event, context)))
      .catch((e: unknown) => {
        // Only the edge-origin step throws before a page is rendered: a request that skipped the distribution.
        if (e instanceof ApiError) {
          return { statusCode: e.status, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' }, body: 'Forbidden' };
        }
        throw e;
      });
}
