import { DEFAULT_OVERLAP_SECONDS, isExpired, MAX_OVERLAP_SECONDS } from "../../domain/key-lifecycle.js";
import type { ApiKeyRecord } from "../../store/key-store.js";
import { type Html, html } from "../html.js";
import type { KeyFormValues } from "../key-form.js";
import { csrfField, type PageContext } from "../layout.js";
import { toTheSecond, when } from "../times.js";
import type { HandedSecret } from "../../services/secret-handoffs.js";
import { secretOnce, secretShownAlready } from "./secret-once.js";

/** enabled or disabled, then "expired" and "leaked" when they apply: what the list and key page say. */
export function keyStatus(key: ApiKeyRecord, now: number): string {
  return [
    key.enabled ? "enabled" : "disabled",
    ...(isExpired(key, now) ? ["expired"] : []),
    ...(key.leakedAt !== null ? ["leaked"] : []),
  ].join(", ");
}

/** The key page's facts about expiry, networks, metadata, a leak and a rolled secret's overlap. */
export function lifecycleFacts(key: ApiKeyRecord): Html {
  const metadata = Object.entries(key.metadata ?? {});
  return html`<dt>Expires</dt>
    <dd>${when(key.expiresAt)}</dd>
    <dt>Allowed networks</dt>
    <dd>${key.allowedCidrs ? key.allowedCidrs.map((cidr) => html`<code>${cidr}</code> `) : "any address"}</dd>
    <dt>Metadata</dt>
    <dd>
      ${metadata.length === 0 ? "none" : metadata.map(([name, value]) => html`<code>${name}=${value}</code> `)}
    </dd>
    ${
      key.leakedAt !== null
        ? html`<dt>Leaked</dt>
            <dd>reported ${when(key.leakedAt)}</dd>`
        : ""
    }
    ${
      key.previousSecretExpiresAt !== null
        ? html`<dt>Previous secret</dt>
            <dd>works until ${toTheSecond(key.previousSecretExpiresAt)}</dd>`
        : ""
    }`;
}

/** Expiry, allowed networks and metadata: the second half of the create and edit form. */
export function lifecycleFields(values: KeyFormValues | undefined, editing: boolean): Html {
  const expiryHint = editing
    ? "UTC. It can only be brought forward; leave it as it is to keep it."
    : "UTC. Empty: the key does not expire (unless the organization sets a longest lifetime).";
  return html`<label for="expires_at">Expires (UTC)</label>
    <input
      id="expires_at"
      name="expires_at"
      type="datetime-local"
      value="${values?.expires ?? ""}"
      aria-describedby="expires_at-hint"
    />
    <p class="muted" id="expires_at-hint">${expiryHint}</p>
    <label for="allowed_cidrs">Allowed networks</label>
    <textarea
      id="allowed_cidrs"
      name="allowed_cidrs"
      rows="3"
      placeholder="203.0.113.0/24"
      aria-describedby="allowed_cidrs-hint"
    >
${values?.allowedCidrs ?? ""}</textarea>
    <p class="muted" id="allowed_cidrs-hint">One network a line (CIDR, IPv4 or IPv6). Empty: any address.</p>
    <label for="metadata">Metadata</label>
    <textarea
      id="metadata"
      name="metadata"
      rows="3"
      placeholder="team=billing"
      aria-describedby="metadata-hint"
    >
${values?.metadata ?? ""}</textarea>
    <p class="muted" id="metadata-hint">One name=value a line, to find the key by. Empty: none.</p>`;
}

/** A refused roll: the service's message and the overlap that was typed. */
export interface RollProblem {
  message: string;
  overlap: string;
}

/** The roll form of a key's page (owners and admins). */
export function rollForm(context: PageContext, key: ApiKeyRecord, problem?: RollProblem): Html {
  return html`<h2 id="roll-heading">Roll the secret</h2>
    <p>
      Gives the key a new secret, shown once. The current secret keeps working for the overlap, so
      applications can switch without downtime.
    </p>
    ${problem ? html`<p class="error" role="alert">${problem.message}</p>` : ""}
    <form
      method="post"
      action="/console/orgs/${context.current.orgId}/keys/${key.id}/roll"
      aria-labelledby="roll-heading"
      data-confirm="Roll this key? Its current secret stops working after the overlap."
    >
      ${csrfField(context.signedIn)}
      <label for="overlap_seconds">Overlap (seconds)</label>
      <input
        id="overlap_seconds"
        name="overlap_seconds"
        type="number"
        min="0"
        max="${MAX_OVERLAP_SECONDS}"
        step="1"
        value="${problem?.overlap ?? String(DEFAULT_OVERLAP_SECONDS)}"
        aria-describedby="overlap_seconds-hint"
      />
      <p class="muted" id="overlap_seconds-hint">
        0 to ${MAX_OVERLAP_SECONDS} (one week); 3600 is an hour. 0: the current secret stops working at once
        (for a leaked secret).
      </p>
      <p><button type="submit">Roll</button></p>
    </form>`;
}

/**
 * The rolled key's new secret, shown on the first visit of this page only (the redirect after the
 * roll), and when the previous one stops.
 */
export function rolledKey(context: PageContext, key: ApiKeyRecord, handed: HandedSecret | undefined): Html {
  const org = context.current.orgId;
  const previousEnd = handed?.previousSecretExpiresAt ?? key.previousSecretExpiresAt;
  const previous =
    previousEnd === null || previousEnd === undefined
      ? ""
      : key.previousSecretExpiresAt === null
        ? html`The previous secret stopped working at ${toTheSecond(previousEnd)}.`
        : html`The previous secret works until
            <time datetime="${new Date(previousEnd).toISOString()}" id="previous-secret-expires-at"
              >${toTheSecond(previousEnd)}</time
            >.`;
  return html`${
      handed
        ? html`<p class="notice" role="status">
              Key “${key.name}” rolled. Copy its new secret now: it is shown only this once and cannot be
              recovered.
            </p>
            ${secretOnce(key, handed.secret)}`
        : secretShownAlready(context, key, "rolled")
    }
    <p>${previous}</p>
    <p>
      <a href="/console/orgs/${org}/keys/${key.id}">Back to this key</a> ·
      <a href="/console/orgs/${org}/keys">Back to keys</a>
    </p>`;
}
