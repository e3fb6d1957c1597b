import type { AuditEntry } from "./audit.js";

/**
 * The events latchkey sends to webhook endpoints (docs/webhooks.md). Each names the key or organization
 * it is about; none ever carries a secret (audit snapshots, which hold none, are their source).
 */
export const WEBHOOK_EVENT_TYPES = [
  "api_key.created",
  "api_key.updated",
  "api_key.disabled",
  "api_key.rolled",
  "api_key.expired",
  "api_key.leaked",
  "credits.threshold_reached",
  "credits.grant_expired",
  "rate_limit.exhausted",
  "organization.created",
  "organization.updated",
  "organization.disabled",
  "webhook_endpoint.disabled",
  "webhook.test",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Events about organizations themselves and about endpoints: the platform's endpoints only. */
export const PLATFORM_ONLY_EVENT_TYPES: readonly WebhookEventType[] = [
  "organization.created",
  "organization.updated",
  "organization.disabled",
  "webhook_endpoint.disabled",
];

/** Types an organization's own endpoint may subscribe to. */
export const ORGANIZATION_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter(
  (type) => !PLATFORM_ONLY_EVENT_TYPES.includes(type),
);

/** An event as it enters the outbox: what happened, to which organization, when. */
export interface WebhookEvent {
  type: WebhookEventType;
  /** The organization it is about; null for the deployment's own (an endpoint of the platform). */
  orgId: string | null;
  /** Epoch milliseconds. */
  at: number;
  data: Record<string, unknown>;
  /**
   * Events that may be noticed several times or on several nodes (a threshold, an exhausted window)
   * carry a key naming the occurrence: a second event with the same key is not recorded.
   */
  dedupeKey?: string;
}

const enabledOf = (snapshot: AuditEntry["after"]) => snapshot?.enabled !== false;

/** Whether a change took a record from enabled to disabled. */
function disabledBy(entry: AuditEntry): boolean {
  return enabledOf(entry.before) && !enabledOf(entry.after);
}

function keyEventType(entry: AuditEntry): WebhookEventType | null {
  switch (entry.action) {
    case "api_key.create":
      return "api_key.created";
    case "api_key.update":
      return disabledBy(entry) ? "api_key.disabled" : "api_key.updated";
    case "api_key.disable":
      return "api_key.disabled";
    case "api_key.roll":
      return "api_key.rolled";
    case "key.expired":
      return "api_key.expired";
    case "key.leaked":
      return "api_key.leaked";
    default:
      return null;
  }
}

/**
 * The event a change recorded in the audit trail causes, if any. It is written with the audit entry,
 * in the change's own transaction: an acknowledged change always has its event.
 */
export function eventOfAuditEntry(entry: AuditEntry): WebhookEvent | null {
  const keyType = keyEventType(entry);
  if (keyType && entry.orgId !== null) {
    return {
      type: keyType,
      orgId: entry.orgId,
      at: entry.at,
      data: { organization_id: entry.orgId, key_id: entry.targetId, key: entry.after ?? entry.before },
    };
  }
  if (entry.action === "organization.create" || entry.action === "organization.update") {
    const type =
      entry.action === "organization.create"
        ? "organization.created"
        : disabledBy(entry)
          ? "organization.disabled"
          : "organization.updated";
    return {
      type,
      orgId: entry.targetId,
      at: entry.at,
      data: { organization_id: entry.targetId, organization: entry.after },
    };
  }
  return null;
}
