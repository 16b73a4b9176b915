/**
 * HTML sanitising of description/excerpt (contract §5) with js-xss: an allowlist of formatting tags and
 * attributes; scripts, styles, event-handler attributes and javascript: URLs never survive.
 */
import * as xssModule from 'xss';

// xss is CommonJS: under Node's ESM loader only some of its exports are visible as named imports.
const { FilterXSS, getDefaultWhiteList } = ((xssModule as { default?: unknown }).default ?? xssModule) as typeof xssModule;

const filter = new FilterXSS({
  whiteList: { ...getDefaultWhiteList(), iframe: [] },
  stripIgnoreTag: true,
  stripIgnoreTagBody: ['script', 'style', 'iframe', 'object', 'embed', 'template'],
  allowCommentTag: false,
});

export const sanitizeHtml = (html: string): string => filter.process(html).trim();

/** Plain text of HTML, for search and schema.org descriptions. */
export function htmlToText(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}
