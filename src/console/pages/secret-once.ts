import type { ApiKeyRecord } from "../../store/key-store.js";
import { type Html, html } from "../html.js";
import type { PageContext } from "../layout.js";

/**
 * The API id and a secret with its copy button: the part of a response (a creation's, a roll's) that
 * is shown only once. The page is not cached, and no other page holds the secret.
 */
export function secretOnce(key: ApiKeyRecord, secret: string): Html {
  return html`<dl>
    <dt>API id (the username)</dt>
    <dd><code id="api-id">${key.apiId}</code></dd>
    <dt>Secret</dt>
    <dd>${secretWithCopy(secret)}</dd>
  </dl>`;
}

/** A secret and its copy button (script.ts shows the button and says "Copied."). */
export function secretWithCopy(secret: string): Html {
  return html`<code class="secret" id="secret">${secret}</code>
    <button type="button" data-copy="secret" hidden>Copy secret</button>
    <span id="secret-status" role="status"></span>`;
}

/**
 * The page after a create or a roll, seen again (a reload, the back button, another tab): the secret
 * was shown once, on the first visit, and is not kept anywhere it could be shown from again.
 */
export function secretShownAlready(
  context: PageContext,
  key: ApiKeyRecord,
  what: "created" | "rolled",
): Html {
  const keyPage = `/console/orgs/${context.current.orgId}/keys/${key.id}`;
  return html`<p class="notice" role="status">
    Key “${key.name}” ${what}. Its secret was shown once, when this page was first opened, and is not shown
    again. If it was not stored, <a href="${keyPage}#roll-heading">roll the key</a> to give it a new one.
  </p>`;
}
