/**
 * HTML sanitising (contract §5): what an allowlist keeps and what it drops, entities decoded exactly once in plain
 * text, and hostile inputs of the contract's maximum size that once took seconds (their cost is measured by
 * `npm run bench:sanitize`, not here).
 */
import { htmlToText, sanitizeHtml } from '../../lib/text/sanitize.js';

test.each([
  ['<script>alert(1)</script>ok', 'ok'],
  ['<SCRIPT SRC=//evil.js></SCRIPT>ok', 'ok'],
  ['<img src="https://x.org/a.png" onerror="steal()">', '<img src="https://x.org/a.png" />'],
  ['<a href="javascript:alert(1)">x</a>', '<a>x</a>'],
  ['<a href="JaVaScRiPt:alert(1)">x</a>', '<a>x</a>'],
  ['<a href="jav&#x09;ascript:alert(1)">x</a>', '<a>x</a>'],
  ['<a href="&#106;avascript:alert(1)">x</a>', '<a>x</a>'],
  ['<a href=" javascript:alert(1)">x</a>', '<a>x</a>'],
  ['<a href="vbscript:x">x</a><img src="data:image/svg+xml,<svg onload=x>">', '<a>x</a><img />'],
  ['<svg><script>x</script><a href="https://x.org">y</a></svg>after', 'after'],
  ['<math><mi xlink:href="javascript:x">y</mi></math>after', 'after'],
  ['<style>body{background:url(javascript:x)}</style>text', 'text'],
  ['<p style="color:red" class="c" id="i">p</p>', '<p>p</p>'],
  ['<!-- a comment --><![CDATA[x]]>t', 't'],
  ['<iframe src="https://x.org"></iframe>t', 't'],
  ['<object data="x"><embed src="x"></object>t', 't'],
  ['<div onmouseover="x()">d</div>', '<div>d</div>'],
  ['"><script>alert(1)</script>', '"&gt;'],
])('drops what is not allowed: %s', (input, expected) => {
  expect(sanitizeHtml(input)).toBe(expected);
});

test('keeps formatting, links with href/title and images with src/alt', () => {
  const html = '<p>Hello <strong>world</strong>, <em>see</em> <a href="https://x.org/?a=1&amp;b=2" title="T">this</a>'
    + '<img src="/a.png" alt="A"><br><ul><li>one</li></ul><h2>Head</h2><table><tr><td colspan="2">c</td></tr></table></p>';
  expect(sanitizeHtml(html)).toBe('<p>Hello <strong>world</strong>, <em>see</em> <a href="https://x.org/?a=1&amp;b=2" title="T">this</a>'
    + '<img src="/a.png" alt="A" /><br /><ul><li>one</li></ul><h2>Head</h2><table><tr><td colspan="2">c</td></tr></table></p>');
  expect(sanitizeHtml('<a href="mailto:a@b.org">m</a><a href="tel:+1">t</a>')).toBe('<a href="mailto:a@b.org">m</a><a href="tel:+1">t</a>');
});

test('escapes what would otherwise be markup, and keeps entities as sent', () => {
  expect(sanitizeHtml('a < b > c')).toBe('a &lt; b &gt; c');
  expect(sanitizeHtml('<b title=\'say "hi"\'>x</b>')).toBe('<b title="say &quot;hi&quot;">x</b>');
  expect(sanitizeHtml('Fish &amp; Chips &#8217;')).toBe('Fish &amp; Chips &#8217;');
});

test('htmlToText decodes entities exactly once and turns tags into spaces', () => {
  expect(htmlToText('&amp;lt;b&amp;gt;')).toBe('&lt;b&gt;');
  expect(htmlToText('It&#8217;s <b>here</b>&nbsp;now')).toBe('It’s here now');
  expect(htmlToText('<p>one</p><p>two</p><script>x</script>')).toBe('one two');
  expect(htmlToText('caf&eacute; &euro;5 &#x1F600;')).toBe('café €5 😀');
});

test('the first of repeated attributes counts, as in browsers', () => {
  expect(sanitizeHtml('<a href="https://a.org" href="javascript:x">a</a>')).toBe('<a href="https://a.org">a</a>');
});

test('hostile inputs of the maximum size complete (quadratic before)', () => {
  const inputs = ['<'.repeat(100_000), `<img ${'a=1 '.repeat(25_000)}>`, '<b>'.repeat(33_000), '<p>x'.repeat(25_000),
    `<a href="${'&amp;'.repeat(20_000)}">x</a>`];
  for (const input of inputs) {
    const clean = sanitizeHtml(input);
    expect(typeof htmlToText(clean)).toBe('string');
    expect(clean).not.toMatch(/<(?!\/?(b|p|a|img)\b)/);
  }
  expect(sanitizeHtml('<'.repeat(10))).toBe('&lt;'.repeat(10));
});
