/**
 * The pages' one script (progressive enhancement only: every page works without it): "near me" turns the browser's
 * position, rounded to 2 decimals, into the list's radius filter; inside an embedding iframe it tells the parent page
 * its height. Plain ES2017, no dependencies.
 */
export const SITE_JS = `(function () {
  'use strict';
  var button = document.querySelector('[data-near-me]');
  if (button && navigator.geolocation) {
    button.hidden = false;
    var status = document.querySelector('[data-near-me-status]');
    button.addEventListener('click', function () {
      navigator.geolocation.getCurrentPosition(function (pos) {
        var url = new URL(window.location.href);
        url.searchParams.set('geoloc_lat', pos.coords.latitude.toFixed(2));
        url.searchParams.set('geoloc_lng', pos.coords.longitude.toFixed(2));
        if (button.getAttribute('data-radius') && !url.searchParams.has('geoloc_radius')) url.searchParams.set('geoloc_radius', button.getAttribute('data-radius'));
        url.searchParams.delete('page');
        window.location.assign(url.toString());
      }, function () {
        if (status) status.textContent = status.getAttribute('data-failed');
      }, { maximumAge: 600000, timeout: 10000 });
    });
  }
  if (document.body.classList.contains('embed') && window.parent !== window) {
    var last = 0;
    var send = function () {
      var height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height !== last) {
        last = height;
        window.parent.postMessage({ type: 'calendar:size', height: height }, '*');
      }
    };
    if (window.ResizeObserver) new ResizeObserver(send).observe(document.documentElement);
    window.addEventListener('load', send);
    send();
  }
})();
`;

/**
 * `<script src="{base}/events/embed.js" data-view="list|month" data-categories="…">`: puts an iframe of that view
 * where the script stands, and sizes it to its content. It takes size messages only from its own iframe.
 */
export const EMBED_JS = `(function () {
  'use strict';
  var script = document.currentScript;
  if (!script) return;
  var src = new URL(script.src, window.location.href);
  var base = src.pathname.replace(/\\/events\\/embed\\.js$/, '');
  var view = script.getAttribute('data-view') === 'month' ? '/events/month/' : '/events/';
  var url = new URL(src.origin + base + view);
  url.searchParams.set('embed', '1');
  ['categories', 'tags', 'venue', 'organizer', 'featured', 'search'].forEach(function (name) {
    var value = script.getAttribute('data-' + name);
    if (value) url.searchParams.set(name, value);
  });
  var frame = document.createElement('iframe');
  frame.src = url.toString();
  frame.title = script.getAttribute('data-title') || 'Calendar';
  frame.referrerPolicy = 'no-referrer';
  frame.style.cssText = 'width:100%;border:0;display:block;height:600px;overflow:hidden';
  frame.setAttribute('scrolling', 'no');
  script.parentNode.insertBefore(frame, script.nextSibling);
  window.addEventListener('message', function (event) {
    if (event.source !== frame.contentWindow || event.origin !== src.origin) return;
    var data = event.data;
    if (!data || data.type !== 'calendar:size' || typeof data.height !== 'number' || !(data.height > 0) || data.height > 100000) return;
    frame.style.height = Math.ceil(data.height) + 'px';
  });
})();
`;
