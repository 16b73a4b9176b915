/**
 * The pages' templates, written for Eta (small, no dependencies, escapes every `<%= %>` by default: autoEscape). Only
 * `<%~ %>` writes raw text, and only for what is already HTML: a rendered part, a record's description sanitised on
 * write (contract §5), the JSON-LD text escaped as §3 escapes JSON. Templates are strings here so that the function
 * bundle carries them without a file system.
 */
import { Eta } from 'eta/core';

const layout = `<!doctype html>
<html lang="<%= it.lang %>">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title><%= it.title %></title>
<meta name="description" content="<%= it.description %>">
<link rel="canonical" href="<%= it.canonical %>">
<meta property="og:site_name" content="<%= it.site %>">
<meta property="og:title" content="<%= it.title %>">
<meta property="og:description" content="<%= it.description %>">
<meta property="og:type" content="<%= it.ogType %>">
<meta property="og:url" content="<%= it.canonical %>">
<% if (it.image) { %><meta property="og:image" content="<%= it.image %>">
<% } %><meta property="og:locale" content="<%= it.ogLocale %>">
<% it.alternates.forEach(function (a) { %><link rel="alternate" hreflang="<%= a.lang %>" href="<%= a.href %>">
<% }) %><% if (it.feed) { %><link rel="alternate" type="text/calendar" title="<%= it.t('feed') %>" href="<%= it.feed %>">
<% } %><link rel="stylesheet" href="<%= it.css %>">
<script src="<%= it.js %>" defer></script>
<% if (it.jsonLd) { %><script type="application/ld+json"><%~ it.jsonLd %></script>
<% } %></head>
<body<% if (it.embed) { %> class="embed"<% } %>>
<% if (!it.embed) { %><a class="skip" href="#main"><%= it.t('skip') %></a>
<header class="site-header">
<div class="wrap header-row">
<a class="brand" href="<%= it.home %>"><%= it.site %></a>
<nav aria-label="<%= it.t('nav') %>"><ul class="views">
<li><a href="<%= it.home %>"<% if (it.view === 'list') { %> aria-current="page"<% } %>><%= it.t('list') %></a></li>
<li><a href="<%= it.monthHome %>"<% if (it.view === 'month') { %> aria-current="page"<% } %>><%= it.t('month') %></a></li>
</ul></nav>
<nav aria-label="<%= it.t('language') %>"><ul class="languages">
<% it.languages.forEach(function (l) { %><li><a href="<%= l.href %>" hreflang="<%= l.lang %>" lang="<%= l.lang %>"<% if (l.current) { %> aria-current="true"<% } %>><%= l.label %></a></li>
<% }) %></ul></nav>
</div>
</header>
<% } %><main id="main" class="wrap">
<%~ it.body %>
</main>
<% if (!it.embed) { %><footer class="site-footer"><div class="wrap"><p><a href="<%= it.home %>"><%= it.site %></a></p></div></footer>
<% } %></body>
</html>
`;

const card = `<li class="card<% if (it.e.featured) { %> featured<% } %>">
<% if (it.e.image) { %><img class="thumb" src="<%= it.e.image %>" alt="" loading="lazy" referrerpolicy="no-referrer" decoding="async">
<% } %><div class="card-body">
<h2 class="card-title"><a href="<%= it.e.href %>"><%= it.e.title %></a></h2>
<p class="when"><time datetime="<%= it.e.iso %>"><%= it.e.when %></time><% if (it.e.featured) { %> <span class="badge"><%= it.t('featured') %></span><% } %></p>
<% if (it.e.venue) { %><p class="where"><%= it.e.venue %><% if (it.e.distance) { %> · <%= it.e.distance %><% } %></p>
<% } %><% if (it.e.excerpt) { %><p class="excerpt"><%= it.e.excerpt %></p>
<% } %></div>
</li>
`;

const filters = `<form class="filters" method="get" action="<%= it.action %>" role="search">
<% if (it.embed) { %><input type="hidden" name="embed" value="1">
<% } %><div class="field"><label for="f-search"><%= it.t('search') %></label>
<input id="f-search" name="search" type="search" value="<%= it.f.search %>"></div>
<% if (it.categories.length) { %><div class="field"><label for="f-category"><%= it.t('category') %></label>
<select id="f-category" name="categories"><option value=""><%= it.t('any') %></option>
<% it.categories.forEach(function (c) { %><option value="<%= c.slug %>"<% if (c.selected) { %> selected<% } %>><%= c.name %></option>
<% }) %></select></div>
<% } %><% if (it.tags.length) { %><div class="field"><label for="f-tag"><%= it.t('tag') %></label>
<select id="f-tag" name="tags"><option value=""><%= it.t('any') %></option>
<% it.tags.forEach(function (c) { %><option value="<%= c.slug %>"<% if (c.selected) { %> selected<% } %>><%= c.name %></option>
<% }) %></select></div>
<% } %><% it.hidden.forEach(function (h) { %><input type="hidden" name="<%= h.name %>" value="<%= h.value %>">
<% }) %><div class="field check"><input id="f-featured" name="featured" type="checkbox" value="1"<% if (it.f.featured) { %> checked<% } %>>
<label for="f-featured"><%= it.t('featuredOnly') %></label></div>
<div class="actions"><button type="submit"><%= it.t('apply') %></button>
<a href="<%= it.action %><% if (it.embed) { %>?embed=1<% } %>"><%= it.t('clear') %></a>
<button type="button" class="near-me" data-near-me data-radius="<%= it.radius %>" hidden><%= it.t('nearMe') %></button></div>
<p class="near-me-status" role="status" data-near-me-status data-failed="<%= it.t('nearMeFailed') %>"></p>
</form>
`;

const list = `<h1><%= it.heading %></h1>
<% if (it.intro) { %><div class="intro"><%~ it.intro %></div>
<% } %><%~ it.filters %>
<% if (it.events.length) { %><ul class="cards">
<% it.events.forEach(function (e) { %><%~ include('@card', { e: e, t: it.t }) %><% }) %></ul>
<% } else { %><p class="empty"><%= it.t('noEvents') %></p>
<% } %><% if (it.pager) { %><nav class="pager" aria-label="<%= it.t('pages') %>">
<% if (it.pager.prev) { %><a rel="prev" href="<%= it.pager.prev %>"><%= it.t('previousPage') %></a><% } %>
<span><%= it.pager.label %></span>
<% if (it.pager.next) { %><a rel="next" href="<%= it.pager.next %>"><%= it.t('nextPage') %></a><% } %>
</nav>
<% } %><p class="feed"><a href="<%= it.feed %>" type="text/calendar"><%= it.t('feed') %></a></p>
`;

const month = `<h1><%= it.heading %></h1>
<%~ it.filters %>
<nav class="pager" aria-label="<%= it.t('month') %>">
<a rel="prev" href="<%= it.prev %>"><%= it.t('previousMonth') %></a>
<a href="<%= it.current %>"><%= it.t('thisMonth') %></a>
<a rel="next" href="<%= it.next %>"><%= it.t('nextMonth') %></a>
</nav>
<div class="weekdays" aria-hidden="true"><% it.weekdays.forEach(function (w) { %><span><%= w.short %></span><% }) %></div>
<ol class="month-grid">
<% for (var i = 0; i < it.lead; i++) { %><li class="pad" aria-hidden="true"></li>
<% } %><% it.days.forEach(function (d) { %><li class="day<% if (d.events.length) { %> has-events<% } %><% if (d.today) { %> today<% } %>">
<p class="day-number"><time datetime="<%= d.date %>"><span class="visually-hidden"><%= d.label %></span><span aria-hidden="true"><%= d.number %></span></time></p>
<% if (d.events.length) { %><ul>
<% d.events.forEach(function (e) { %><li><a href="<%= e.href %>"><% if (e.time) { %><span class="time"><%= e.time %></span> <% } %><%= e.title %></a></li>
<% }) %></ul>
<% } %><% if (d.more) { %><a class="more" href="<%= d.more.href %>" aria-label="<%= d.more.label %>"><%= d.more.text %></a>
<% } %></li>
<% }) %></ol>
<p class="feed"><a href="<%= it.feed %>" type="text/calendar"><%= it.t('feed') %></a></p>
`;

const event = `<article class="event" lang="<%= it.lang %>">
<p class="crumbs"><a href="<%= it.home %>"><%= it.t('back') %></a></p>
<h1><%= it.e.title %></h1>
<% if (it.e.image) { %><img class="hero" src="<%= it.e.image %>" alt="<%= it.imageAlt %>" loading="lazy" referrerpolicy="no-referrer" decoding="async">
<% } %><dl class="facts">
<dt><%= it.t('when') %></dt><dd><time datetime="<%= it.e.iso %>"><%= it.e.when %></time><br><span class="muted"><%= it.e.zone %></span></dd>
<% if (it.venue) { %><dt><%= it.t('where') %></dt><dd><a href="<%= it.venue.href %>"><%= it.venue.name %></a><% if (it.venue.address) { %><br><%= it.venue.address %><% } %><% if (it.venue.osm) { %><br><a href="<%= it.venue.osm %>"><%= it.t('map') %></a><% } %></dd>
<% } %><% if (it.organizers.length) { %><dt><%= it.t('organizers') %></dt><dd><ul class="inline">
<% it.organizers.forEach(function (o) { %><li><a href="<%= o.href %>"><%= o.name %></a></li>
<% }) %></ul></dd>
<% } %><% if (it.e.cost) { %><dt><%= it.t('cost') %></dt><dd><%= it.e.cost %></dd>
<% } %><% if (it.categories.length) { %><dt><%= it.t('categories') %></dt><dd><ul class="inline">
<% it.categories.forEach(function (c) { %><li><a href="<%= c.href %>"><%= c.name %></a></li>
<% }) %></ul></dd>
<% } %><% if (it.tags.length) { %><dt><%= it.t('tags') %></dt><dd><ul class="inline">
<% it.tags.forEach(function (c) { %><li><a href="<%= c.href %>"><%= c.name %></a></li>
<% }) %></ul></dd>
<% } %><% if (it.e.website) { %><dt><%= it.t('website') %></dt><dd><a href="<%= it.e.website %>" rel="noopener noreferrer"><%= it.e.website %></a></dd>
<% } %></dl>
<% if (it.description) { %><div class="description"><%~ it.description %></div>
<% } %><% if (it.tickets.length) { %><section class="tickets" aria-labelledby="tickets-h"><h2 id="tickets-h"><%= it.t('tickets') %></h2>
<ul class="ticket-list">
<% it.tickets.forEach(function (k) { %><li class="ticket"><h3><%= k.title %></h3>
<p><%= k.cost %> · <%= k.places %></p>
<% if (k.description) { %><div><%~ k.description %></div><% } %>
<% if (k.url) { %><p><a href="<%= k.url %>" rel="noopener noreferrer"><%= it.t('buy') %></a></p><% } %>
<% if (k.form) { %><form method="post" action="<%= it.self %>" class="rsvp">
<input type="hidden" name="action" value="rsvp"><input type="hidden" name="ticket_id" value="<%= k.id %>">
<div class="field"><label for="n-<%= k.id %>"><%= it.t('name') %></label><input id="n-<%= k.id %>" name="name" required autocomplete="name" maxlength="200"></div>
<div class="field"><label for="m-<%= k.id %>"><%= it.t('email') %></label><input id="m-<%= k.id %>" name="email" type="email" required autocomplete="email" maxlength="254"></div>
<div class="field"><label for="q-<%= k.id %>"><%= it.t('quantity') %></label><input id="q-<%= k.id %>" name="quantity" type="number" min="1" max="10" value="1" required></div>
<button type="submit"><%= it.t('reserve') %></button>
</form><% } %></li>
<% }) %></ul></section>
<% } %><% if (it.next.length) { %><section aria-labelledby="next-h"><h2 id="next-h"><%= it.t('nextOccurrences') %></h2><ul>
<% it.next.forEach(function (o) { %><li><a href="<%= o.href %>"><time datetime="<%= o.iso %>"><%= o.when %></time></a></li>
<% }) %></ul></section>
<% } %><section class="add" aria-labelledby="add-h"><h2 id="add-h"><%= it.t('addToCalendar') %></h2><ul class="inline">
<li><a href="<%= it.add.ics %>" type="text/calendar" download><%= it.t('ics') %></a></li>
<li><a href="<%= it.add.webcal %>"><%= it.t('webcal') %></a></li>
<li><a href="<%= it.add.google %>" rel="noopener noreferrer"><%= it.t('google') %></a></li>
</ul></section>
</article>
`;

const password = `<article class="event">
<p class="crumbs"><a href="<%= it.home %>"><%= it.t('back') %></a></p>
<h1><%= it.title %></h1>
<% if (it.when) { %><p class="when"><time datetime="<%= it.iso %>"><%= it.when %></time></p>
<% } %><p><%= it.t('protected') %></p>
<% if (it.error) { %><p class="error" role="alert"><%= it.error %></p>
<% } %><form method="post" action="<%= it.self %>" class="unlock">
<input type="hidden" name="action" value="password">
<div class="field"><label for="pw"><%= it.t('password') %></label><input id="pw" name="password" type="password" required autocomplete="current-password"></div>
<button type="submit"><%= it.t('unlock') %></button>
</form>
</article>
`;

const reservation = `<article class="reservation">
<h1><%= it.heading %></h1>
<% if (it.intro) { %><p><%= it.intro %></p>
<% } %><% if (it.details) { %><p><strong><%= it.details %></strong></p>
<% } %><% if (it.cancelLink) { %><p><a href="<%= it.cancelLink %>"><%= it.t('cancelLink') %></a></p>
<% } %><% if (it.cancelForm) { %><form method="post" action="<%= it.cancelForm %>"><input type="hidden" name="token" value="<%= it.token %>">
<button type="submit"><%= it.t('cancelConfirm') %></button></form>
<% } %><p><a href="<%= it.eventHref %>"><%= it.t('backToEvent') %></a></p>
</article>
`;

const message = `<h1><%= it.heading %></h1>
<p><%= it.text %></p>
<p><a href="<%= it.home %>"><%= it.t('back') %></a></p>
`;

const eta = new Eta({ autoEscape: true, autoTrim: false, useWith: false, varName: 'it', cache: true });
for (const [name, text] of Object.entries({ layout, card, filters, list, month, event, password, reservation, message })) {
  eta.loadTemplate(`@${name}`, text);
}

export type TemplateName = 'layout' | 'filters' | 'list' | 'month' | 'event' | 'password' | 'reservation' | 'message';

/** Renders one template with its data (every value escaped unless the template says otherwise). */
export const render = (name: TemplateName, data: object): string => eta.render(`@${name}`, data);
