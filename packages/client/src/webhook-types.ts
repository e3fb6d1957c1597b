/** The wire shapes of webhooks (docs/webhooks.md), written by hand and checked against the server's. */

/** An event type latchkey sends; the list grows, so other strings are accepted too. */
export type WebhookEventType =
  | "api_key.created"
  | "api_key.updated"
  | "api_key.disabled"
  | "api_key.rolled"
  | "api_key.expired"
  | "api_key.leaked"
  | "credits.threshold_reached"
  | "credits.grant_expired"
  | "rate_limit.exhausted"
  | "organization.created"
  | "organization.updated"
  | "organization.disabled"
  | "webhook_endpoint.disabled"
  | "webhook.test"
  | (string & {});

export interface CreateWebhookEndpointRequest {
  /** https, to a host whose addresses are all public (unless the server allows private ones). */
  url: string;
  events: WebhookEventType[];
  description?: string | null;
  /** Created disabled: nothing is sent until enabled. */
  disabled?: boolean;
}

/** The members to change; omitted ones are kept. */
export interface UpdateWebhookEndpointRequest {
  url?: string;
  events?: WebhookEventType[];
  description?: string | null;
  disabled?: boolean;
}

export interface WebhookEndpoint {
  /** `whe_...` */
  id: string;
  url: string;
  events: string[];
  description: string | null;
  /** false: disabled by a caller, or after failing for five days. */
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

/** A created endpoint: its signing secret (`whsec_...`) is shown only here. */
export interface CreatedWebhookEndpoint extends WebhookEndpoint {
  secret: string;
}

export interface RotatedWebhookSecret {
  /** The new signing secret, shown only here. */
  secret: string;
  /** Until then every message is signed with both secrets. */
  previous_secret_expires_at: string;
}

export interface WebhookEndpointPage {
  data: WebhookEndpoint[];
  pagination: { next_page_start: string | null };
}

/** An event queued for delivery; `id` is the `webhook-id` header of each attempt. */
export interface WebhookMessage {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export interface WebhookAttempt {
  /** `wha_...` */
  id: string;
  message_id: string;
  status: "succeeded" | "failed";
  /** The receiver's status; null when it never answered. */
  response_status: number | null;
  duration_ms: number;
  at: string;
  /** The first 1,000 characters of the answer, or why none came. */
  response_excerpt: string | null;
}

export interface WebhookAttemptPage {
  data: WebhookAttempt[];
  pagination: { next_page_start: string | null };
}

export interface WebhookPageOptions {
  count?: number;
  pageStart?: string;
}
