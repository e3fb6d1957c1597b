import { canManageWebhooks } from "../domain/console-roles.js";
import type { MembershipView } from "../store/console-store.js";
import type { SignedIn } from "../services/console-sessions.js";
import { packageVersion } from "../version.js";
import { consoleAssets } from "./assets.js";
import { type Html, html } from "./html.js";

/** The sections of an organization, in the order of the navigation. */
export const SECTIONS = [
  { path: "keys", title: "Keys" },
  { path: "usage", title: "Usage" },
  { path: "limits", title: "Rate limits" },
  { path: "audit", title: "Audit" },
  { path: "webhooks", title: "Webhooks", managersOnly: true },
  { path: "connections", title: "Connections" },
  { path: "members", title: "Members", ownersOnly: true },
] as const;

/** Whether the role sees a section's tab (its routes refuse the others: page-context.ts). */
function showsSection(section: (typeof SECTIONS)[number], role: MembershipView["role"]): boolean {
  if ("ownersOnly" in section) return role === "owner";
  if ("managersOnly" in section) return canManageWebhooks(role);
  return true;
}

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
  const { style, script } = consoleAssets();
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · latchkey</title>
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="${style.path}" />
        <script src="${script.path}" defer></script>
      </head>
      <body>
        ${body}
        <footer>
          <small>latchkey ${packageVersion()} · <a href="/docs">API reference</a></small>
        </footer>
      </body>
    </html> `;
}

const brand = html`<a class="brand" href="/console"
  ><img src="/favicon.svg" alt="" width="28" height="28" /><strong>latchkey</strong></a
>`;

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

/** A page of one organization: header (brand, switcher, account, sign-out), the sections, then `content`. */
export function organizationPage(context: PageContext, section: Section, title: string, content: Html): Html {
  const { current, signedIn } = context;
  const links = SECTIONS.filter((s) => showsSection(s, current.role)).map(
    (s) =>
      html`<li>
        <a
          href="/console/orgs/${current.orgId}/${s.path}"
          ${s.path === section ? html` aria-current="page"` : ""}
          >${s.title}</a
        >
      </li>`,
  );
  return document(
    `${title} · ${current.orgName}`,
    html`<header>
        <nav aria-label="Console">
          <ul>
            <li>${brand}</li>
          </ul>
          <ul>
            <li>${organizationSwitcher(context)}</li>
            <li><a href="/console/account" title="Your account">${signedIn.user.email}</a></li>
            <li>
              <form method="post" action="/console/sign-out">
                ${csrfField(signedIn)}<button type="submit">Sign out</button>
              </form>
            </li>
          </ul>
        </nav>
        <nav aria-label="Sections">
          <ul>
            ${links}
          </ul>
        </nav>
      </header>
      <main>
        <h1>${title}</h1>
        ${content}
      </main>`,
  );
}

/** A page outside any organization (sign-in, the account, errors before one is chosen): one column. */
export function plainPage(title: string, content: Html): Html {
  return document(
    title,
    html`<header>
        <nav aria-label="Console">
          <ul>
            <li>${brand}</li>
          </ul>
        </nav>
      </header>
      <main class="narrow">
        <h1>${title}</h1>
        ${content}
      </main>`,
  );
}
