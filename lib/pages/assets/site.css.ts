/** The pages' style sheet. Colours and fonts are custom properties (docs/pages.md "Theming" lists them). */
export const SITE_CSS = `:root {
  --cal-font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  --cal-font-heading: var(--cal-font);
  --cal-bg: #ffffff;
  --cal-fg: #1b1f24;
  --cal-muted: #57606a;
  --cal-surface: #f6f8fa;
  --cal-border: #d0d7de;
  --cal-accent: #0a58ca;
  --cal-accent-fg: #ffffff;
  --cal-link: #0a58ca;
  --cal-focus: #bf4b00;
  --cal-error: #b42318;
  --cal-radius: 0.5rem;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --cal-bg: #0f1115;
    --cal-fg: #e6e8eb;
    --cal-muted: #a3acb7;
    --cal-surface: #1a1e24;
    --cal-border: #3a424d;
    --cal-accent: #7cb4ff;
    --cal-accent-fg: #0f1115;
    --cal-link: #8dbdff;
    --cal-focus: #ffb45c;
    --cal-error: #ff8a80;
  }
}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--cal-bg); color: var(--cal-fg); font: 1rem/1.55 var(--cal-font); overflow-wrap: anywhere; }
h1, h2, h3 { font-family: var(--cal-font-heading); line-height: 1.25; }
h1 { font-size: clamp(1.5rem, 4vw, 2.25rem); margin: 1.25rem 0 1rem; }
a { color: var(--cal-link); text-underline-offset: 0.15em; }
a:hover { text-decoration-thickness: 2px; }
:focus-visible { outline: 3px solid var(--cal-focus); outline-offset: 2px; border-radius: 2px; }
img { max-width: 100%; height: auto; }
.wrap { max-width: 72rem; margin: 0 auto; padding: 0 1rem; }
.skip { position: absolute; left: -999px; top: 0; background: var(--cal-accent); color: var(--cal-accent-fg); padding: 0.5rem 1rem; z-index: 10; }
.skip:focus { left: 0.5rem; top: 0.5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.site-header { border-bottom: 1px solid var(--cal-border); background: var(--cal-surface); }
.header-row { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: center; justify-content: space-between; padding-top: 0.75rem; padding-bottom: 0.75rem; }
.brand { font-weight: 700; font-size: 1.2rem; color: var(--cal-fg); text-decoration: none; }
.views, .languages, .inline { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
[aria-current] { font-weight: 700; }
.site-footer { border-top: 1px solid var(--cal-border); margin-top: 3rem; padding: 1rem 0; color: var(--cal-muted); }
.filters { display: flex; flex-wrap: wrap; gap: 0.75rem 1rem; align-items: flex-end; padding: 1rem; margin-bottom: 1.5rem;
  background: var(--cal-surface); border: 1px solid var(--cal-border); border-radius: var(--cal-radius); }
.field { display: flex; flex-direction: column; gap: 0.25rem; min-width: 0; }
.field.check { flex-direction: row; align-items: center; gap: 0.5rem; }
input, select, button { font: inherit; color: inherit; }
input:not([type=checkbox]), select { background: var(--cal-bg); border: 1px solid var(--cal-muted); border-radius: 0.375rem; padding: 0.45rem 0.6rem; max-width: 100%; }
button { background: var(--cal-accent); color: var(--cal-accent-fg); border: 0; border-radius: 0.375rem; padding: 0.5rem 1rem; cursor: pointer; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: center; }
.cards { list-style: none; padding: 0; margin: 0; display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(min(100%, 20rem), 1fr)); }
.card { display: flex; flex-direction: column; border: 1px solid var(--cal-border); border-radius: var(--cal-radius); overflow: hidden; background: var(--cal-bg); }
.card.featured { border-color: var(--cal-accent); }
.thumb { width: 100%; aspect-ratio: 16 / 9; object-fit: cover; }
.card-body { padding: 0.75rem 1rem 1rem; }
.card-title { font-size: 1.15rem; margin: 0 0 0.35rem; }
.when, .where, .muted { color: var(--cal-muted); margin: 0.2rem 0; }
.badge { display: inline-block; font-size: 0.8rem; padding: 0 0.4rem; border: 1px solid currentColor; border-radius: 1rem; }
.excerpt { margin: 0.5rem 0 0; }
.pager { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between; margin: 1.5rem 0; }
.feed { margin-top: 1.5rem; }
.weekdays, .month-grid { display: grid; grid-template-columns: repeat(7, minmax(0, 1fr)); gap: 1px; }
.weekdays span { font-weight: 600; text-align: center; color: var(--cal-muted); padding: 0.25rem 0; }
.month-grid { list-style: none; padding: 1px; margin: 0; background: var(--cal-border); border-radius: var(--cal-radius); }
.month-grid > li { background: var(--cal-bg); min-height: 6.5rem; padding: 0.35rem; min-width: 0; }
.month-grid .pad { background: var(--cal-surface); }
.month-grid .today .day-number { color: var(--cal-accent); font-weight: 700; }
.day-number { margin: 0 0 0.25rem; font-size: 0.9rem; color: var(--cal-muted); }
.month-grid ul { list-style: none; padding: 0; margin: 0; font-size: 0.85rem; }
.month-grid ul li { margin-bottom: 0.25rem; }
.time { color: var(--cal-muted); }
.more { font-size: 0.85rem; font-weight: 600; }
@media (max-width: 40rem) {
  .weekdays { display: none; }
  .month-grid { display: block; background: none; padding: 0; }
  .month-grid > li { min-height: 0; border-bottom: 1px solid var(--cal-border); }
  .month-grid > li.pad, .month-grid > li.day:not(.has-events) { display: none; }
  .day-number .visually-hidden { position: static; width: auto; height: auto; clip: auto; font-weight: 700; color: var(--cal-fg); }
  .day-number [aria-hidden] { display: none; }
}
.event .hero { width: 100%; max-height: 28rem; object-fit: cover; border-radius: var(--cal-radius); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.5rem 1.25rem; margin: 1.25rem 0; }
.facts dt { font-weight: 700; }
.facts dd { margin: 0; min-width: 0; }
@media (max-width: 30rem) { .facts { grid-template-columns: 1fr; } .facts dd { margin-bottom: 0.5rem; } }
.description { max-width: 45rem; }
.ticket-list { list-style: none; padding: 0; display: grid; gap: 1rem; }
.ticket { border: 1px solid var(--cal-border); border-radius: var(--cal-radius); padding: 1rem; }
.ticket h3 { margin-top: 0; }
.rsvp, .unlock { display: grid; gap: 0.75rem; max-width: 24rem; }
.error { color: var(--cal-error); font-weight: 600; }
.crumbs { margin: 1rem 0 0; }
body.embed .wrap { max-width: none; }
@media print {
  :root { --cal-bg: #fff; --cal-fg: #000; --cal-muted: #333; --cal-link: #000; }
  .site-header, .site-footer, .skip, .add, .rsvp, .filters, .crumbs, .near-me { display: none !important; }
  a[href^="http"]::after { content: " (" attr(href) ")"; font-size: 0.8em; }
  .event .hero { max-height: 12rem; }
  body { font-size: 11pt; }
}
`;
