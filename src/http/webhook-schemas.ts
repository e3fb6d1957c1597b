import { Type } from "typebox";
import { MAX_WEBHOOK_URL_LENGTH } from "../domain/webhook-addresses.js";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../domain/webhook-events.js";
import type { WebhookAttempt, WebhookEndpoint } from "../store/webhook-store.js";
import { named } from "./schema-names.js";

/** The wire shapes of webhooks (docs/webhooks.md), for organizations and the platform alike. */

const iso = (ms: number) => new Date(ms).toISOString();

const endpointExample = {
  id: "whe_4kPz1RsW3c7Hq2LmXv9TnB",
  url: "https://hooks.example.com/latchkey",
  events: ["api_key.created", "api_key.leaked", "credits.threshold_reached"],
  description: "Billing and security alerts",
  enabled: true,
  created_at: "2026-11-22T11:36:56.123Z",
  updated_at: "2026-11-22T11:36:56.123Z",
};
const secretExample = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw1Xd7ZkG2Jk0=";

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_WEBHOOK_URL_LENGTH,
  description: "Where events are POSTed: https, to a host whose addresses are all public.",
  examples: ["https://hooks.example.com/latchkey"],
});
const EventType = Type.Unsafe<WebhookEventType>({ type: "string", enum: [...WEBHOOK_EVENT_TYPES] });
const Events = Type.Array(EventType, {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  description: "Event types sent to this endpoint.",
  examples: [["api_key.created", "api_key.leaked"]],
});
const Description = Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]);

export const WebhookEndpointCreateBody = Type.Object(
  {
    url: Url,
    events: Events,
    description: Type.Optional(Description),
    disabled: Type.Optional(
      Type.Boolean({ description: "Created disabled: nothing is sent until enabled." }),
    ),
  },
  {
    ...named("WebhookEndpointCreate", "A new webhook endpoint."),
    additionalProperties: false,
    examples: [
      { url: endpointExample.url, events: endpointExample.events, description: endpointExample.description },
    ],
  },
);

export const WebhookEndpointUpdateBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    disabled: Type.Optional(Type.Boolean({ description: "true stops deliveries; false resumes them." })),
  },
  {
    ...named("WebhookEndpointUpdate", "The members to change; omitted members are kept."),
    additionalProperties: false,
    examples: [{ disabled: false }],
  },
);

const endpointProperties = {
  id: Type.String({ description: "`whe_...` identifier." }),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.Union([Type.String(), Type.Null()]),
  enabled: Type.Boolean({ description: "false: disabled by a caller, or after failing for five days." }),
  created_at: Type.String({ format: "date-time" }),
  updated_at: Type.String({ format: "date-time" }),
};

export const WebhookEndpointRecord = Type.Object(endpointProperties, {
  ...named("WebhookEndpoint", "A webhook endpoint; its secret is never shown again after the create."),
  examples: [endpointExample],
});

export const CreatedWebhookEndpoint = Type.Object(
  { ...endpointProperties, secret: Type.String({ description: "The signing secret, shown this once." }) },
  {
    ...named("CreatedWebhookEndpoint", "A created webhook endpoint with its signing secret (shown once)."),
    examples: [{ ...endpointExample, secret: secretExample }],
  },
);

export const RotatedWebhookSecret = Type.Object(
  {
    secret: Type.String({ description: "The new signing secret, shown this once." }),
    previous_secret_expires_at: Type.String({
      format: "date-time",
      description: "Until then every message is signed with both secrets.",
    }),
  },
  {
    ...named("RotatedWebhookSecret", "A webhook endpoint's new signing secret."),
    examples: [{ secret: secretExample, previous_secret_expires_at: "2026-11-23T11:36:56.123Z" }],
  },
);

export const WebhookEndpointList = Type.Object(
  {
    data: Type.Array(WebhookEndpointRecord),
    pagination: Type.Object({ next_page_start: Type.Union([Type.String(), Type.Null()]) }),
  },
  {
    ...named("WebhookEndpointList", "A page of webhook endpoints, newest first."),
    examples: [{ data: [endpointExample], pagination: { next_page_start: null } }],
  },
);

const messageExample = {
  id: "msg_2LmXv9TnB4kPz1RsW3c7Hq",
  type: "webhook.test",
  timestamp: "2026-11-22T11:36:56.123Z",
  data: { organization_id: "org_QH0ptbBe7WlnJxYGrHxbYS", endpoint_id: endpointExample.id },
};

export const WebhookMessageRecord = Type.Object(
  {
    id: Type.String({ description: "`msg_...`: the `webhook-id` header of every attempt." }),
    type: Type.String(),
    timestamp: Type.String({ format: "date-time" }),
    data: Type.Record(Type.String(), Type.Unknown()),
  },
  { ...named("WebhookMessage", "An event queued for delivery."), examples: [messageExample] },
);

const attemptExample = {
  id: "wha_B4kPz1RsW3c7Hq2LmXv9Tn",
  message_id: messageExample.id,
  status: "failed",
  response_status: 503,
  duration_ms: 42,
  at: "2026-11-22T11:36:57.001Z",
  response_excerpt: "upstream unavailable",
};

export const WebhookAttemptList = Type.Object(
  {
    data: Type.Array(
      Type.Object({
        id: Type.String({ description: "`wha_...` identifier." }),
        message_id: Type.String(),
        status: Type.Unsafe<"succeeded" | "failed">({ type: "string", enum: ["succeeded", "failed"] }),
        response_status: Type.Union([Type.Integer(), Type.Null()], {
          description: "The receiver's status; null when it never answered.",
        }),
        duration_ms: Type.Integer(),
        at: Type.String({ format: "date-time" }),
        response_excerpt: Type.Union([Type.String(), Type.Null()], {
          description: "The first 1,000 characters of the answer, or why none came.",
        }),
      }),
    ),
    pagination: Type.Object({ next_page_start: Type.Union([Type.String(), Type.Null()]) }),
  },
  {
    ...named("WebhookAttemptList", "A page of an endpoint's delivery attempts (kept 30 days), newest first."),
    examples: [{ data: [attemptExample], pagination: { next_page_start: null } }],
  },
);

export const ResendQuery = Type.Object(
  {
    endpoint_id: Type.Optional(
      Type.String({ description: "Only to this endpoint; default: every one that had it." }),
    ),
  },
  { additionalProperties: false },
);

export const ResendAnswer = Type.Object(
  { queued: Type.Integer({ description: "Deliveries queued again." }) },
  { ...named("WebhookResend", "Deliveries queued again."), examples: [{ queued: 1 }] },
);

export const EndpointDeleted = Type.Null({ description: "The endpoint is deleted. No body." });

export const EndpointParams = Type.Object({
  id: Type.String({ pattern: "^whe_[A-Za-z0-9]{1,64}$", description: "`whe_...` identifier." }),
});
export const MessageParams = Type.Object({
  id: Type.String({ pattern: "^msg_[A-Za-z0-9]{1,64}$", description: "`msg_...`: the `webhook-id` header." }),
});

export const WebhookPageQuery = Type.Object(
  {
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
    page_start: Type.Optional(
      Type.String({ description: "pagination.next_page_start of the previous page." }),
    ),
  },
  { additionalProperties: false },
);

export function endpointJson(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: [...endpoint.events],
    description: endpoint.description,
    enabled: endpoint.enabled,
    created_at: iso(endpoint.createdAt),
    updated_at: iso(endpoint.updatedAt),
  };
}

export function attemptJson(attempt: WebhookAttempt) {
  return {
    id: attempt.id,
    message_id: attempt.messageId,
    status: attempt.status,
    response_status: attempt.responseStatus,
    duration_ms: attempt.durationMs,
    at: iso(attempt.at),
    response_excerpt: attempt.responseExcerpt,
  };
}

export function messageJson(message: {
  id: string;
  type: string;
  at: number;
  data: Record<string, unknown>;
}) {
  return { id: message.id, type: message.type, timestamp: iso(message.at), data: message.data };
}
