/** The pages' static files: the style sheet, the page script and embed.js, each with its ETag and a version for its URL. */
import { createHash } from 'node:crypto';
import { EMBED_JS, SITE_JS } from './assets/site.js.js';
import { SITE_CSS } from './assets/site.css.js';
import type { AssetName } from './paths.js';

const hash = (text: string): string => createHash('sha256').update(text).digest('base64url').slice(0, 12);

export const ASSETS: Record<AssetName, { body: string; type: string; version: string }> = {
  'site.css': { body: SITE_CSS, type: 'text/css; charset=utf-8', version: hash(SITE_CSS) },
  'site.js': { body: SITE_JS, type: 'text/javascript; charset=utf-8', version: hash(SITE_JS) },
  'embed.js': { body: EMBED_JS, type: 'text/javascript; charset=utf-8', version: hash(EMBED_JS) },
};
