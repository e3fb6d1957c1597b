/** The console's one script (assets.ts serves it): progressive enhancement only, every page works without it. */
export const CONSOLE_SCRIPT_TEXT = `"use strict";
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
