import { createHash } from "node:crypto";

/**
 * The console's only script and stylesheet, kept here as text so the built package needs no files
 * beside its JavaScript. Served under a name holding their hash, so browsers may keep them a year.
 */
const SCRIPT = `"use strict";
// Progressive enhancement only: every page works without this file.
document.addEventListener("click", function (event) {
  var button = event.target.closest && event.target.closest("button[data-copy]");
  if (!button) return;
  var source = document.getElementById(button.getAttribute("data-copy"));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(function () {
    var status = document.getElementById(button.getAttribute("data-copy") + "-status");
    if (status) status.textContent = "Copied.";
  });
});
document.addEventListener("submit", function (event) {
  var message = event.target.getAttribute && event.target.getAttribute("data-confirm");
  if (message && !window.confirm(message)) event.preventDefault();
});
document.addEventListener("change", function (event) {
  if (event.target.id === "all_future_permissions") {
    var boxes = document.querySelectorAll("input[name=permissions]");
    for (var i = 0; i < boxes.length; i++) boxes[i].disabled = event.target.checked;
  }
});
document.querySelectorAll("[data-copy]").forEach(function (button) { button.hidden = false; });
`;

const STYLE = `
:root { color-scheme: light dark; --accent: #2458d6; --muted: #6b7280; --line: #d1d5db; --danger: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, sans-serif; }
header { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
header .brand { font-weight: 700; text-decoration: none; color: inherit; margin-right: auto; }
header form { display: flex; gap: .4rem; align-items: center; margin: 0; }
header label { white-space: nowrap; }
nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; padding: .5rem 1rem; border-bottom: 1px solid var(--line); }
nav a[aria-current=page] { font-weight: 700; text-decoration: none; }
main { padding: 1rem; max-width: 72rem; }
a { color: var(--accent); }
table { border-collapse: collapse; width: 100%; display: block; overflow-x: auto; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
label { display: block; font-weight: 600; margin-top: .6rem; }
fieldset { border: 1px solid var(--line); margin: .6rem 0; min-width: 0; }
label, code, td { overflow-wrap: anywhere; }
fieldset label { display: inline-flex; gap: .3rem; font-weight: 400; margin: .15rem 1rem .15rem 0; }
input[type=text], input[type=email], input[type=password], input[type=search], input[type=datetime-local], select, textarea { font: inherit; padding: .35rem; width: 100%; max-width: 28rem; }
button { font: inherit; padding: .35rem .8rem; cursor: pointer; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; }
.filters label { margin: 0; }
.secret { font-family: ui-monospace, monospace; word-break: break-all; padding: .6rem; border: 2px solid var(--accent); display: block; margin: .4rem 0; }
.notice { padding: .6rem; border-left: 4px solid var(--accent); margin: .6rem 0; }
.error { padding: .6rem; border-left: 4px solid var(--danger); margin: .6rem 0; }
.muted { color: var(--muted); }
.qr svg { width: 12rem; height: 12rem; display: block; }
.chart { width: 100%; height: auto; max-width: 60rem; }
.chart .bar { fill: var(--accent); }
.chart .axis { stroke: var(--muted); }
.chart text { fill: currentColor; font-size: 11px; }
.inline { display: inline; }
@media (max-width: 480px) { main { padding: .6rem; } th, td { padding: .3rem; } }
`;

function hashed(name: string, ext: string, body: string) {
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 12);
  return { path: `/console/assets/${name}-${hash}.${ext}`, body };
}

export const CONSOLE_SCRIPT = hashed("console", "js", SCRIPT);
export const CONSOLE_STYLE = hashed("console", "css", STYLE);
