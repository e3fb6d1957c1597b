import type { MembershipView } from "../store/console-store.js";
import type { SignedIn } from "../services/console-sessions.js";
import { CONSOLE_SCRIPT, CONSOLE_STYLE } from "./assets.js";
import { type Html, html } from "./html.js";

/** The sections of an organization, in the order of the navigation. */
export const SECTIONS = [
  { path: "keys", title: "Keys" },
  { path: "usage", title: "Usage" },
  { path: "limits", title: "Rate limits" },
  { path: "audit", title: "Audit" },
  { path: "connections", title: "Connections" },
  { path: "members", title: "Members", ownersOnly: true },
] as const;

export type Section = (typeof SECTIONS)[number]["path"];

/** What every signed-in page knows: who, which organization, which of the user's organizations. */
export interface PageContext {
  signedIn: SignedIn;
  memberships: MembershipView[];
  current: MembershipView;
}

/** The CSRF token every state-changing form carries. */
export const csrfField = (signedIn: SignedIn): Html =>
  html`<input type="hidden" name="_csrf" value="${signedIn.csrfToken}" />`;

/**
 * A one-button form for an action that cannot be undone from the page (disable, revoke, remove): it
 * posts to `action` with the CSRF token, after the browser confirms `confirm` (assets.ts); `label`
 * is the button's text and `subject` what the screen reader hears it acts on.
 */
export function confirmedActionForm(
  signedIn: SignedIn,
  { action, confirm, label, subject }: { action: string; confirm: string; label: string; subject: string },
): Html {
  return html`<form class="inline" method="post" action="${action}" data-confirm="${confirm}">
    ${csrfField(signedIn)}<button type="submit" aria-label="${label} ${subject}">${label}</button>
  </form>`;
}

function document(title: string, body: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · latchkey</title>
        <link rel="stylesheet" href="${CONSOLE_STYLE.path}" />
        <script src="${CONSOLE_SCRIPT.path}" defer></script>
      </head>
      <body>
        ${body}
      </body>
    </html> `;
}

function organizationSwitcher(context: PageContext): Html {
  return html`<form method="get" action="/console/switch">
    <label for="org-switcher">Organization</label>
    <select id="org-switcher" name="org">
      ${context.memberships.map(
        (m) =>
          html`<option value="${m.orgId}" ${m.orgId === context.current.orgId ? html` selected` : ""}>
            ${m.orgName} (${m.role})
          </option>`,
      )}
    </select>
    <button type="submit">Switch</button>
  </form>`;
}

/** A page of one organization: header (switcher, sign-out), the sections, then `content`. */
export function organizationPage(context: PageContext, section: Section, title: string, content: Html): Html {
  const { current, signedIn } = context;
  const links = SECTIONS.filter((s) => !("ownersOnly" in s) || current.role === "owner").map(
    (s) =>
      html`<a
        href="/console/orgs/${current.orgId}/${s.path}"
        ${s.path === section ? html` aria-current="page"` : ""}
        >${s.title}</a
      >`,
  );
  return document(
    `${title} · ${current.orgName}`,
    html`<header>
        <a class="brand" href="/console">latchkey console</a>
        ${organizationSwitcher(context)}
        <a class="muted" href="/console/account" title="Your account">${signedIn.user.email}</a>
        <form method="post" action="/console/sign-out">
          ${csrfField(signedIn)}<button type="submit">Sign out</button>
        </form>
      </header>
      <nav aria-label="Sections">${links}</nav>
      <main>
        <h1>${title}</h1>
        ${content}
      </main>`,
  );
}

/** A page outside any organization (sign-in, errors before one is chosen). */
export function plainPage(title: string, content: Html): Html {
  return document(
    title,
    html`<header><a class="brand" href="/console">latchkey console</a></header>
      <main>
        <h1>${title}</h1>
        ${content}
      </main>`,
  );
}
