/**
 * The console's own rules, after Pico CSS (assets.ts): the page's frame (header, sections, a main
 * column that uses the screen), tables that become cards on a phone, the charts, the credit gauge and
 * the few classes the pages use (`notice`, `error`, `muted`, `secret`, `excerpt`, `actions`, `filters`, `inline`, `qr`).
 * Pages keep to semantic markup; the look lives here. Nothing may be wider than a 360 px screen.
 */
export const CONSOLE_STYLE_TEXT = `
/* A console is read at arm's length and holds tables: one size of type at every width (Pico grows it). */
:root:root {
  --pico-font-size: 100%;
  --pico-form-element-spacing-vertical: 0.5rem;
  --pico-form-element-spacing-horizontal: 0.75rem;
  --pico-nav-element-spacing-vertical: 0.5rem;
  --pico-block-spacing-vertical: 1.25rem;
  --pico-typography-spacing-vertical: 0.85rem;
}
@media (min-width: 1600px) { :root:root { --pico-font-size: 106.25%; } }
h1 { --pico-font-size: 1.75rem; margin-bottom: 1rem; }
h2 { --pico-font-size: 1.3rem; margin-top: 1.75rem; }
code, kbd, samp { overflow-wrap: anywhere; }
td, th, label, dd { overflow-wrap: break-word; }

/* The frame: a header bar (brand, organization, account), the sections as tabs, then the page. */
body > header {
  padding: 0 var(--pico-spacing);
  background: var(--pico-card-sectioning-background-color);
  border-bottom: var(--pico-border-width) solid var(--pico-muted-border-color);
}
body > header > nav { flex-wrap: wrap; column-gap: 1rem; }
body > header > nav ul,
body > header > nav ul:first-of-type,
body > header > nav ul:last-of-type { flex-wrap: wrap; margin: 0; }
body > header > nav li { padding: 0.5rem 0.75rem 0.5rem 0; }
body > header > nav li:last-child { padding-right: 0; }
body > header .brand { display: inline-flex; align-items: center; gap: 0.5rem; color: var(--pico-color); font-size: 1.15rem; }
body > header .brand img { width: 1.75rem; height: 1.75rem; }
body > header form { display: flex; align-items: center; gap: 0.4rem; margin: 0; min-width: 0; }
body > header li { min-width: 0; }
body > header form label { margin: 0; font-size: 0.875rem; color: var(--pico-muted-color); white-space: nowrap; }
body > header select {
  width: auto; min-width: 0; max-width: 14rem; flex: 1 1 auto; margin: 0; padding-top: 0.3rem; padding-bottom: 0.3rem;
}
@media (max-width: 480px) {
  body > header > nav li { padding-top: 0.3rem; padding-bottom: 0.3rem; }
  body > header form label { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
}
body > header [type="submit"] {
  margin: 0; padding: 0.3rem 0.75rem; font-size: 0.875rem; width: auto; min-width: 0;
  --pico-background-color: transparent; --pico-color: var(--pico-primary);
}
body > header a[href="/console/account"] { font-size: 0.9rem; }
body > header nav[aria-label="Sections"] { justify-content: flex-start; }
body > header nav[aria-label="Sections"] li { padding: 0 0.5rem 0 0; }
body > header nav[aria-label="Sections"] a {
  margin: 0; padding: 0.55rem 0.6rem; border-radius: 0; white-space: nowrap;
  color: var(--pico-muted-color); border-bottom: 0.2rem solid transparent;
}
body > header nav[aria-label="Sections"] a:hover { color: var(--pico-primary); }
body > header nav[aria-label="Sections"] a[aria-current="page"] {
  color: var(--pico-primary); border-bottom-color: var(--pico-primary); font-weight: 600;
}
body > main { max-width: 100rem; padding-top: 1.5rem; }
body > main.narrow { max-width: 44rem; }
body > footer { max-width: 100rem; color: var(--pico-muted-color); font-size: 0.8rem; }
body > main.narrow + footer { max-width: 44rem; }

/* Messages. */
.notice, .error {
  padding: 0.75rem 1rem; border-radius: var(--pico-border-radius);
  border-left: 0.3rem solid var(--pico-primary); background: var(--pico-primary-background);
  background: color-mix(in srgb, var(--pico-primary) 10%, transparent); color: var(--pico-color);
}
.error { border-left-color: var(--pico-del-color); background: color-mix(in srgb, var(--pico-del-color) 12%, transparent); }
.muted, .hint { color: var(--pico-muted-color); font-size: 0.875rem; }
label + .muted, input + .muted, textarea + .muted { margin-top: -0.6rem; }

/* Forms: a column a person can read across; the permission picker's families side by side. */
main form:not(.filters):not(.inline) { max-width: 64rem; }
fieldset fieldset {
  display: inline-block; vertical-align: top; min-width: 0; width: 100%;
  padding: 0.5rem 0.75rem; border: var(--pico-border-width) solid var(--pico-muted-border-color);
  border-radius: var(--pico-border-radius); margin: 0 0 0.75rem;
}
fieldset fieldset legend { padding: 0 0.25rem; font-weight: 600; font-size: 0.9rem; }
fieldset fieldset label { display: block; margin: 0.2rem 0; font-size: 0.9rem; }
@media (min-width: 700px) {
  fieldset:has(> fieldset) { display: grid; grid-template-columns: repeat(auto-fill, minmax(19.5rem, 1fr)); gap: 0 0.75rem; }
  fieldset:has(> fieldset) > legend, fieldset:has(> fieldset) > label { grid-column: 1 / -1; }
}
form.inline, form.inline button { display: inline; margin: 0; }
main form:not(.inline) > p > [type="submit"] { width: auto; min-width: 10rem; }
main form [type="submit"] { width: auto; }
/* Several actions in one cell: a link and buttons on one line, wrapping as a whole. */
.actions { display: flex; flex-wrap: wrap; gap: 0.4rem 0.6rem; align-items: center; }
td a { text-decoration: none; }
td a:hover { text-decoration: underline; }
td form.inline { display: inline-flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; }
td form select { width: auto; margin: 0; padding-top: 0.25rem; padding-bottom: 0.25rem; }
td button, form.inline button { padding: 0.3rem 0.8rem; font-size: 0.875rem; width: auto; }
/* A page's main action, a link that looks like the button it leads to. */
.toolbar a {
  display: inline-block; padding: 0.45rem 1rem; border-radius: var(--pico-border-radius);
  background: var(--pico-primary-background); color: var(--pico-primary-inverse); text-decoration: none; font-weight: 600;
}
.toolbar a:hover { background: var(--pico-primary-hover-background); }
label.inline { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
button[aria-label^="Disable"], button[aria-label^="Revoke"], button[aria-label^="Remove"], button[aria-label^="Delete"] {
  --pico-background-color: transparent; --pico-border-color: var(--pico-del-color); --pico-color: var(--pico-del-color);
}

/* Filters above a list (a <search> landmark): one row on a wide screen, stacked on a phone. */
form.filters {
  display: grid; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap: 0 1rem; align-items: end;
  padding: 1rem 1rem 0; margin-bottom: 1.25rem; border-radius: var(--pico-border-radius);
  background: var(--pico-card-sectioning-background-color);
}
form.filters label { font-size: 0.875rem; }
form.filters [type="submit"] { width: 100%; min-width: 0; }

/* Tables use the width; on a phone each row becomes a card whose cells name their column. */
table { width: 100%; }
th { white-space: nowrap; }
td code { font-size: 0.85em; }
.count { color: var(--pico-muted-color); margin: 0 0 0.5rem; }
.toolbar { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; justify-content: space-between; }
.toolbar > * { margin-bottom: 1rem; }
.toolbar > form.inline { margin-bottom: 1rem; }
@media (max-width: 720px) {
  table[data-cards], table[data-cards] tbody, table[data-cards] tr, table[data-cards] td { display: block; width: 100%; }
  /* The column headers stay for screen readers; each cell shows its column's name instead. */
  table[data-cards] thead { display: block; position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table[data-cards] tr {
    margin-bottom: 0.75rem; padding: 0.5rem 0.75rem;
    border: var(--pico-border-width) solid var(--pico-muted-border-color); border-radius: var(--pico-border-radius);
  }
  table[data-cards] td { display: grid; grid-template-columns: 6rem minmax(0, 1fr); gap: 0.5rem; padding: 0.35rem 0; border: 0; }
  table[data-cards] td::before { content: attr(data-label); color: var(--pico-muted-color); font-size: 0.85rem; }
  table[data-cards] td:empty { display: none; }
  table[data-cards] th[scope="row"] { display: block; padding: 0.25rem 0; border: 0; }
}

/* A key's or an endpoint's facts: names beside values on a wide screen. */
dl { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.1rem 1.5rem; }
dt { color: var(--pico-muted-color); font-size: 0.875rem; }
dd { margin: 0 0 0.6rem; }
@media (min-width: 720px) {
  dl { grid-template-columns: max-content minmax(0, 1fr); }
  dd { margin: 0; }
}
@media (min-width: 1100px) {
  .key-page, .endpoint-page { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); gap: 0 3rem; align-items: start; }
  .key-page > section:first-child { position: sticky; top: 1rem; }
}

/* A secret shown once. */
code.secret {
  display: block; max-width: 42rem; padding: 0.75rem 1rem; margin: 0.25rem 0 0.5rem; font-size: 1rem;
  border: 0.15rem solid var(--pico-primary); border-radius: var(--pico-border-radius); word-break: break-all;
}
/* A receiver's answer (a webhook attempt's excerpt): its own lines, never wider than its cell. */
code.excerpt { display: block; max-width: 32rem; max-height: 7.5rem; overflow: auto; white-space: pre-wrap; font-size: 0.8rem; }
.qr svg { width: 12rem; height: 12rem; display: block; background: #fff; padding: 0.5rem; }

/* Usage: the period's credits as a gauge the width of the page, and the charts. */
meter {
  display: block; width: 100%; height: 1rem; margin: 0.5rem 0 1rem; appearance: none;
  border-radius: var(--pico-border-radius); background: var(--pico-muted-border-color);
}
meter::-webkit-meter-bar { height: 100%; border: 0; border-radius: var(--pico-border-radius); background: var(--pico-muted-border-color); }
meter::-webkit-meter-optimum-value { border-radius: var(--pico-border-radius); background: var(--pico-primary); }
meter::-webkit-meter-suboptimum-value { border-radius: var(--pico-border-radius); background: #c77c02; }
meter::-webkit-meter-even-less-good-value { border-radius: var(--pico-border-radius); background: var(--pico-del-color); }
meter::-moz-meter-bar { border-radius: var(--pico-border-radius); background: var(--pico-primary); }
td meter { height: 0.75rem; margin: 0.35rem 0 0; min-width: 6rem; }
.charts { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0 2.5rem; }
@media (min-width: 1200px) { .charts { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
figure.chart { margin: 0 0 1rem; }
figure.chart .plot { display: grid; grid-template-columns: 2.5rem minmax(0, 1fr); gap: 0 0.5rem; }
figure.chart .y-axis { position: relative; height: 12rem; font-size: 0.75rem; color: var(--pico-muted-color); }
figure.chart .y-axis span { position: absolute; right: 0; transform: translateY(-50%); line-height: 1; }
figure.chart .y-axis span:nth-child(1) { top: 0; }
figure.chart .y-axis span:nth-child(2) { top: 25%; }
figure.chart .y-axis span:nth-child(3) { top: 50%; }
figure.chart .y-axis span:nth-child(4) { top: 75%; }
figure.chart .y-axis span:nth-child(5) { top: 100%; }
figure.chart svg { display: block; width: 100%; height: 12rem; overflow: visible; }
figure.chart .grid { stroke: var(--pico-muted-border-color); stroke-width: 1; }
figure.chart .grid.base { stroke: var(--pico-muted-color); }
figure.chart .value { fill: var(--pico-primary); }
figure.chart .hit { fill: transparent; }
figure.chart .bar:hover .hit { fill: var(--pico-primary-focus); }
figure.chart .bar:hover .value { fill: var(--pico-primary-hover); }
figure.chart .x-axis { display: flex; justify-content: space-between; margin-left: 3rem; font-size: 0.75rem; color: var(--pico-muted-color); }
figure.chart figcaption { margin-top: 0.5rem; font-size: 0.875rem; color: var(--pico-muted-color); }
details > table, details > div { margin-top: 0.75rem; }
`;
