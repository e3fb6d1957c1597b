import type { ApiKeyRecord } from "../../store/key-store.js";
import { type Html, html } from "../html.js";

/**
 * The API id and a secret with its copy button: the part of a response (a creation's, a roll's) that
 * is shown only once. The page is not cached, and no other page holds the secret.
 */
export function secretOnce(key: ApiKeyRecord, secret: string): Html {
  return html`<dl>
    <dt>API id (the username)</dt>
    <dd><code id="api-id">${key.apiId}</code></dd>
    <dt>Secret</dt>
    <dd>
      <code class="secret" id="secret">${secret}</code>
      <button type="button" data-copy="secret" hidden>Copy secret</button>
      <span id="secret-status" role="status"></span>
    </dd>
  </dl>`;
}
