/**
 * HTML of descriptions and excerpts (contract §5): sanitised on write against an allowlist of formatting tags and
 * attributes — no scripts or styles, no event-handler attributes, no `javascript:` (or any non-http(s)/mailto/tel)
 * URLs, no comments. The markup is read by htmlparser2's tokenizer alone (a well-kept, linear state machine; js-xss,
 * used before, is quadratic in a tag's attributes, and htmlparser2's own Parser in the nesting depth), and only what
 * the allowlist names is written back out, escaped; tags are not balanced, as the allowlist needs no tree.
 * Text keeps its entities as sent; `htmlToText` decodes them exactly once (the `entities` package).
 */
import { Tokenizer } from 'htmlparser2';
import { decodeHTML } from 'entities';

const COMMON = ['title', 'dir', 'lang'];
/** Tags kept, with the attributes each may keep (js-xss's default allowlist, less audio/video). */
const ALLOWED: Record<string, readonly string[]> = {
  a: ['href', 'target', 'rel'], abbr: [], address: [], article: [], aside: [], b: [], bdi: [], bdo: [], big: [],
  blockquote: ['cite'], br: [], caption: [], center: [], cite: [], code: [], col: ['align', 'valign', 'span', 'width'],
  colgroup: ['align', 'valign', 'span', 'width'], dd: [], del: ['datetime'], details: ['open'], div: [], dl: [], dt: [],
  em: [], figcaption: [], figure: [], font: ['color', 'size', 'face'], footer: [], h1: [], h2: [], h3: [], h4: [], h5: [],
  h6: [], header: [], hr: [], i: [], img: ['src', 'alt', 'width', 'height', 'loading'], ins: ['datetime'], kbd: [], li: [],
  mark: [], nav: [], ol: [], p: [], pre: [], s: [], section: [], small: [], span: [], sub: [], summary: [], sup: [],
  strong: [], strike: [], table: ['width', 'border', 'align', 'valign'], tbody: ['align', 'valign'],
  td: ['width', 'rowspan', 'colspan', 'align', 'valign'], tfoot: ['align', 'valign'],
  th: ['width', 'rowspan', 'colspan', 'align', 'valign'], thead: ['align', 'valign'], tr: ['rowspan', 'align', 'valign'],
  tt: [], u: [], ul: [],
};
/** Tags dropped with everything inside them. */
const DROPPED_WITH_BODY = new Set(['script', 'style', 'iframe', 'object', 'embed', 'template', 'noscript', 'textarea', 'title',
  'xmp', 'noembed', 'noframes', 'svg', 'math', 'select', 'option']);
const VOID = new Set(['br', 'hr', 'img', 'col']);
/** HTML's void elements: they have no body, closed or not. */
const HTML_VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
const opensBody = (tag: string, selfClosing: boolean): boolean => DROPPED_WITH_BODY.has(tag) && !selfClosing && !HTML_VOID.has(tag);
const URL_ATTRIBUTES = new Set(['href', 'src', 'cite']);
/** Schemes a link or image may use; anything else with a scheme (javascript:, data:, vbscript:…) is dropped. */
const SAFE_SCHEME = /^(?:https?|mailto|tel):/i;

const escapeText = (s: string): string => s.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'));
const escapeAttribute = (s: string): string => s.replace(/["<>]/g, (c) => (c === '"' ? '&quot;' : c === '<' ? '&lt;' : '&gt;'));

/** Whether a URL attribute is safe: relative, or with an allowed scheme once entities, controls and spaces are gone. */
function safeUrl(raw: string): boolean {
  // eslint-disable-next-line no-control-regex
  const url = decodeHTML(raw).replace(/[\u0000-\u0020\u007f-\u009f]+/g, '');
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url);
  return scheme === null || SAFE_SCHEME.test(url);
}

function attributes(tag: string, attribs: Map<string, string>): string {
  let out = '';
  const allowed = ALLOWED[tag]!;
  for (const [name, value] of attribs) {
    if (!allowed.includes(name) && !COMMON.includes(name)) continue;
    if (URL_ATTRIBUTES.has(name) && !safeUrl(value)) continue;
    out += ` ${name}="${escapeAttribute(value)}"`;
  }
  return out;
}

/** Tag names, attributes and text of markup, in one linear pass of htmlparser2's tokenizer (no tree, no stack). */
interface Visitor {
  open?(tag: string, attribs: Map<string, string>, selfClosing: boolean): void;
  close?(tag: string): void;
  text(text: string): void;
}

function visit(html: string, visitor: Visitor, decodeEntities: boolean): void {
  let tag = '';
  let attribs = new Map<string, string>();
  let name = '';
  let value = '';
  const slice = (start: number, end: number) => html.slice(start, end);
  const tokenizer = new Tokenizer({ decodeEntities }, {
    onopentagname: (start, end) => {
      tag = slice(start, end).toLowerCase();
      attribs = new Map();
    },
    onattribname: (start, end) => {
      name = slice(start, end).toLowerCase();
      value = '';
    },
    onattribdata: (start, end) => {
      value += slice(start, end);
    },
    onattribentity: (codepoint) => {
      value += String.fromCodePoint(codepoint);
    },
    onattribend: () => {
      if (!attribs.has(name)) attribs.set(name, value); // the first of repeated attributes counts, as in browsers
    },
    onopentagend: () => visitor.open?.(tag, attribs, false),
    onselfclosingtag: () => visitor.open?.(tag, attribs, true),
    onclosetag: (start, end) => visitor.close?.(slice(start, end).toLowerCase()),
    ontext: (start, end) => visitor.text(slice(start, end)),
    ontextentity: (codepoint) => visitor.text(String.fromCodePoint(codepoint)),
    oncdata: () => {},
    oncomment: () => {},
    ondeclaration: () => {},
    onprocessinginstruction: () => {},
    onend: () => {},
  });
  tokenizer.write(html);
  tokenizer.end();
}

export function sanitizeHtml(html: string): string {
  let out = '';
  let dropDepth = 0;
  visit(html, {
    open(tag, attribs, selfClosing) {
      if (DROPPED_WITH_BODY.has(tag) || HTML_VOID.has(tag) && !ALLOWED[tag]) {
        if (opensBody(tag, selfClosing)) dropDepth++;
        return;
      }
      if (dropDepth > 0 || !ALLOWED[tag]) return;
      out += `<${tag}${attributes(tag, attribs)}${VOID.has(tag) ? ' /' : ''}>`;
    },
    close(tag) {
      if (DROPPED_WITH_BODY.has(tag)) {
        if (!HTML_VOID.has(tag)) dropDepth = Math.max(0, dropDepth - 1);
      } else if (dropDepth === 0 && ALLOWED[tag] && !VOID.has(tag)) out += `</${tag}>`;
    },
    text(text) {
      if (dropDepth === 0) out += escapeText(text);
    },
  }, false);
  return out.trim();
}

/** Plain text of HTML (search, schema.org descriptions): tags become spaces, entities are decoded exactly once. */
export function htmlToText(html: string): string {
  const parts: string[] = [];
  let dropDepth = 0;
  visit(html, {
    open(tag, _attribs, selfClosing) {
      if (opensBody(tag, selfClosing)) dropDepth++;
      parts.push(' ');
    },
    close(tag) {
      if (DROPPED_WITH_BODY.has(tag) && !HTML_VOID.has(tag)) dropDepth = Math.max(0, dropDepth - 1);
      parts.push(' ');
    },
    text(text) {
      if (dropDepth === 0) parts.push(text);
    },
  }, true);
  return parts.join('').replace(/\s+/g, ' ').trim();
}
