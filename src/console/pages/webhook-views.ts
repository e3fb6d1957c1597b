import { ORGANIZATION_EVENT_TYPES } from "../../domain/webhook-events.js";
import type { HandedSecret } from "../../services/secret-handoffs.js";
import { MAX_WEBHOOK_ENDPOINTS } from "../../services/webhook-endpoints.js";
import type { WebhookEndpoint } from "../../store/webhook-store.js";
import { type Html, html } from "../html.js";
import { confirmedActionForm, csrfField, type PageContext } from "../layout.js";
import { when, toTheSecond } from "../times.js";
import { formValuesOfEndpoint, type WebhookFormValues } from "../webhook-form.js";
import { secretWithCopy } from "./secret-once.js";

const base = (context: PageContext) => `/console/orgs/${context.current.orgId}/webhooks`;

/** Event types by what they are about (`api_key`, `credits`, ...), for the checkboxes. */
function eventFamilies(): [string, string[]][] {
  const groups = new Map<string, string[]>();
  for (const type of ORGANIZATION_EVENT_TYPES) {
    const family = type.split(".")[0] ?? type;
    groups.set(family, [...(groups.get(family) ?? []), type]);
  }
  return [...groups];
}

const eventFieldId = (type: string) => `event-${type.replace(/[^a-z_]/g, "-")}`;

/** URL, events (by family) and description; the edit form adds "Disabled". */
function webhookFields(values: WebhookFormValues | undefined, editing: boolean): Html {
  const chosen = new Set(values?.events ?? []);
  return html`<label for="url">URL</label>
    <input
      id="url"
      name="url"
      type="url"
      maxlength="2000"
      required
      placeholder="https://hooks.example.com/latchkey"
      value="${values?.url ?? ""}"
      aria-describedby="url-hint"
    />
    <p class="muted" id="url-hint">
      https, to a host whose addresses are all public. Each event is POSTed there, signed (Standard Webhooks).
    </p>
    <fieldset>
      <legend>Events</legend>
      ${eventFamilies().map(
        ([family, types]) =>
          html`<fieldset>
            <legend>${family}</legend>
            ${types.map(
              (type) =>
                html`<label for="${eventFieldId(type)}"
                  ><input
                    id="${eventFieldId(type)}"
                    name="events"
                    type="checkbox"
                    value="${type}"
                    ${chosen.has(type) ? html` checked` : ""}
                  />
                  ${type}</label
                >`,
            )}
          </fieldset>`,
      )}
    </fieldset>
    <label for="description">Description</label>
    <textarea id="description" name="description" rows="2" maxlength="2000">
${values?.description ?? ""}</textarea>
    ${
      editing
        ? html`<label for="disabled"
            ><input
              id="disabled"
              name="disabled"
              type="checkbox"
              value="true"
              ${values?.disabled ? html` checked` : ""}
            />
            Disabled (nothing is sent until it is enabled again)</label
          >`
        : ""
    }`;
}

const problemAlert = (problem: string | undefined) =>
  problem ? html`<p class="error" role="alert">${problem}</p>` : "";
const noticeStatus = (notice: string | undefined) =>
  notice ? html`<p class="notice" role="status">${notice}</p>` : "";

const statusOf = (endpoint: WebhookEndpoint) => (endpoint.enabled ? "enabled" : "disabled");

/** The organization's endpoints, with the create link, each one's attempts, test and delete. */
export function webhookList(context: PageContext, endpoints: WebhookEndpoint[], notice?: string): Html {
  const list = base(context);
  const csrf = csrfField(context.signedIn);
  return html`${noticeStatus(notice)}
    <p>
      Events of this organization POSTed to your endpoints as they happen, signed, retried for a day and a
      half until a 2xx answers.
    </p>
    <div class="toolbar">
      <p class="count">${endpoints.length} of ${MAX_WEBHOOK_ENDPOINTS} endpoints</p>
      ${endpoints.length < MAX_WEBHOOK_ENDPOINTS ? html`<p><a href="${list}/new">Add endpoint</a></p>` : ""}
    </div>
    ${
      endpoints.length === 0
        ? html`<p>No endpoint yet.</p>`
        : html`<table data-cards>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              ${endpoints.map(
                (endpoint) =>
                  html`<tr>
                    <td data-label="URL">
                      <a href="${list}/${endpoint.id}"><code>${endpoint.url}</code></a>
                      ${endpoint.description ? html`<br /><small class="muted">${endpoint.description}</small>` : ""}
                    </td>
                    <td data-label="Events">${endpoint.events.join(", ")}</td>
                    <td data-label="Status">${statusOf(endpoint)}</td>
                    <td data-label="Created">${when(endpoint.createdAt)}</td>
                    <td data-label="Actions">
                      <div class="actions">
                        <a href="${list}/${endpoint.id}/attempts" aria-label="Attempts of ${endpoint.url}"
                          >Attempts</a
                        >
                        <form class="inline" method="post" action="${list}/${endpoint.id}/test">
                          ${csrf}<button type="submit" aria-label="Send a test event to ${endpoint.url}">
                            Send test
                          </button>
                        </form>
                        ${confirmedActionForm(context.signedIn, {
                          action: `${list}/${endpoint.id}/delete`,
                          confirm: "Delete this endpoint? What it still had to receive is not sent.",
                          label: "Delete",
                          subject: endpoint.url,
                        })}
                      </div>
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }`;
}

/** The create form. */
export function newWebhookForm(context: PageContext, problem?: string, values?: WebhookFormValues): Html {
  return html`${problemAlert(problem)}
    <form method="post" action="${base(context)}">
      ${csrfField(context.signedIn)} ${webhookFields(values, false)}
      <p><button type="submit">Add endpoint</button></p>
    </form>
    <p><a href="${base(context)}">Back to webhooks</a></p>`;
}

/** What the endpoint page shows besides the endpoint: a notice, or a refusal of the edit. */
export interface WebhookDetailState {
  notice?: string;
  editProblem?: { message: string; values: WebhookFormValues };
}

/** Whether a rotation's previous secret still signs, and until when. */
function previousSecretFact(endpoint: WebhookEndpoint, now: number): Html | "" {
  const until = endpoint.previousSecretExpiresAt;
  if (until === null || until <= now) return "";
  return html`<dt>Previous secret</dt>
    <dd>still signs beside the current one until ${toTheSecond(until)}</dd>`;
}

/** One endpoint: its facts, the edit form, test, rotate the secret, delete. */
export function webhookDetail(
  context: PageContext,
  endpoint: WebhookEndpoint,
  now: number,
  { notice, editProblem }: WebhookDetailState = {},
): Html {
  const page = `${base(context)}/${endpoint.id}`;
  const csrf = csrfField(context.signedIn);
  return html`${noticeStatus(notice)}
    <div class="endpoint-page">
      <section aria-label="Details">
        <dl>
          <dt>Id</dt>
          <dd><code>${endpoint.id}</code></dd>
          <dt>URL</dt>
          <dd><code>${endpoint.url}</code></dd>
          <dt>Status</dt>
          <dd>${statusOf(endpoint)}</dd>
          <dt>Events</dt>
          <dd>${endpoint.events.join(", ")}</dd>
          <dt>Created</dt>
          <dd>${when(endpoint.createdAt)}</dd>
          <dt>Changed</dt>
          <dd>${when(endpoint.updatedAt)}</dd>
          ${previousSecretFact(endpoint, now)}
        </dl>
        <p><a href="${page}/attempts">Delivery attempts</a></p>
        <form class="inline" method="post" action="${page}/test">
          ${csrf}<button type="submit">Send test event</button>
        </form>
        <h2 id="rotate-heading">Signing secret</h2>
        <p>
          A new secret is shown once. The current one keeps signing beside it for 24 hours, so the receiver
          can switch without losing an event.
        </p>
        <form
          method="post"
          action="${page}/rotate-secret"
          aria-labelledby="rotate-heading"
          data-confirm="Rotate the signing secret? The current one stays valid for 24 hours."
        >
          ${csrf}
          <p><button type="submit">Rotate secret</button></p>
        </form>
        <h2 id="delete-heading">Delete</h2>
        ${confirmedActionForm(context.signedIn, {
          action: `${page}/delete`,
          confirm: "Delete this endpoint? What it still had to receive is not sent.",
          label: "Delete",
          subject: endpoint.url,
        })}
      </section>
      <section aria-labelledby="edit-heading">
        <h2 id="edit-heading">Edit</h2>
        ${problemAlert(editProblem?.message)}
        <form method="post" action="${page}" aria-labelledby="edit-heading">
          ${csrf} ${webhookFields(editProblem?.values ?? formValuesOfEndpoint(endpoint), true)}
          <p><button type="submit">Save changes</button></p>
        </form>
      </section>
    </div>
    <p><a href="${base(context)}">Back to webhooks</a></p>`;
}

/**
 * The page after a create or a rotation: the signing secret on the first visit only (the redirect
 * after the POST), with a copy button; seen again (a reload, another tab), where the secret went.
 */
export function endpointSecretPage(
  context: PageContext,
  endpoint: WebhookEndpoint,
  handed: HandedSecret | undefined,
  what: "created" | "rotated",
): Html {
  const page = `${base(context)}/${endpoint.id}`;
  const overlap =
    what === "rotated" && endpoint.previousSecretExpiresAt !== null
      ? html`<p>
          The previous secret stays valid until
          <time datetime="${new Date(endpoint.previousSecretExpiresAt).toISOString()}"
            >${toTheSecond(endpoint.previousSecretExpiresAt)}</time
          >
          (24 hours): until then every event is signed with both.
        </p>`
      : "";
  const shown = handed
    ? html`<p class="notice" role="status">
          ${what === "created" ? "Endpoint added." : "Secret rotated."} Copy its signing secret now: it is
          shown only this once and cannot be recovered. The receiver verifies each event with it.
        </p>
        <dl>
          <dt>URL</dt>
          <dd><code>${endpoint.url}</code></dd>
          <dt>Signing secret</dt>
          <dd>${secretWithCopy(handed.secret)}</dd>
        </dl>`
    : html`<p class="notice" role="status">
        The signing secret of ${endpoint.url} was shown once, when this page was first opened, and is not
        shown again. If it was not stored, <a href="${page}#rotate-heading">rotate the secret</a> to get a new
        one.
      </p>`;
  return html`${shown} ${overlap}
    <p>
      <a href="${page}">This endpoint</a> · <a href="${page}/attempts">Its attempts</a> ·
      <a href="${base(context)}">Back to webhooks</a>
    </p>`;
}
