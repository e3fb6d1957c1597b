import type { WebhookAttempt, WebhookEndpoint } from "../../store/webhook-store.js";
import { type Html, html } from "../html.js";
import { csrfField, type PageContext } from "../layout.js";
import { toTheSecond } from "../times.js";

/** A page of an endpoint's attempts, and where the next (older) page starts. */
export interface AttemptPage {
  attempts: WebhookAttempt[];
  nextPageStart: string | null;
}

const responseOf = (attempt: WebhookAttempt) =>
  attempt.responseStatus === null ? "none" : String(attempt.responseStatus);

/**
 * An endpoint's delivery attempts, newest first (kept 30 days): outcome, the receiver's status, how
 * long it took, its answer's start (text from the receiver: escaped like any other value), and a resend
 * of the message per row.
 */
export function attemptList(
  context: PageContext,
  endpoint: WebhookEndpoint,
  page: AttemptPage,
  notice?: string,
): Html {
  const endpointPage = `/console/orgs/${context.current.orgId}/webhooks/${endpoint.id}`;
  const csrf = csrfField(context.signedIn);
  return html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ""}
    <p>
      To <code>${endpoint.url}</code> (${endpoint.enabled ? "enabled" : "disabled"}). Attempts are kept 30
      days; a resent message keeps its id (the <code>webhook-id</code> header).
    </p>
    <div class="toolbar">
      <p class="count">
        ${page.attempts.length === 1 ? "1 attempt" : `${page.attempts.length} attempts`} on this page
      </p>
      <form class="inline" method="post" action="${endpointPage}/test">
        ${csrf}<button type="submit">Send test event</button>
      </form>
    </div>
    ${
      page.attempts.length === 0
        ? html`<p>No attempt yet. A new event is sent within seconds: reload to see it.</p>`
        : html`<table data-cards>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Message</th>
                <th scope="col">Status</th>
                <th scope="col">Response</th>
                <th scope="col">Duration</th>
                <th scope="col">Response excerpt</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              ${page.attempts.map(
                (attempt) =>
                  html`<tr>
                    <td data-label="When">${toTheSecond(attempt.at)}</td>
                    <td data-label="Message"><code>${attempt.messageId}</code></td>
                    <td data-label="Status">${attempt.status}</td>
                    <td data-label="Response">${responseOf(attempt)}</td>
                    <td data-label="Duration">${attempt.durationMs} ms</td>
                    <td data-label="Response excerpt">
                      ${attempt.responseExcerpt ? html`<code class="excerpt">${attempt.responseExcerpt}</code>` : ""}
                    </td>
                    <td data-label="Actions">
                      <form
                        class="inline"
                        method="post"
                        action="${endpointPage}/messages/${attempt.messageId}/resend"
                      >
                        ${csrf}<button type="submit" aria-label="Resend message ${attempt.messageId}">
                          Resend
                        </button>
                      </form>
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${
      page.nextPageStart
        ? html`<p>
            <a href="${endpointPage}/attempts?${new URLSearchParams({ page: page.nextPageStart }).toString()}"
              >Older attempts</a
            >
          </p>`
        : ""
    }
    <p>
      <a href="${endpointPage}">This endpoint</a> ·
      <a href="/console/orgs/${context.current.orgId}/webhooks">Back to webhooks</a>
    </p>`;
}
