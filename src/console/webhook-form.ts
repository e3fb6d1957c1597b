import type { WebhookEventType } from "../domain/webhook-events.js";
import { WebhookEndpointCreateBody, WebhookEndpointUpdateBody } from "../http/webhook-schemas.js";
import type { EndpointChange, EndpointInput } from "../services/webhook-endpoints.js";
import { validateInput } from "../services/validate-input.js";
import type { WebhookEndpoint } from "../store/webhook-store.js";

/**
 * The webhook endpoint form as text, the way the page shows it: from a stored endpoint (to edit it) or
 * from what was submitted (to show it again beside the service's refusal, nothing typed lost).
 */
export interface WebhookFormValues {
  url: string;
  events: readonly string[];
  description: string;
  /** Edit only: the endpoint stops receiving. */
  disabled: boolean;
}

export function formValuesOfEndpoint(endpoint: WebhookEndpoint): WebhookFormValues {
  return {
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description ?? "",
    disabled: !endpoint.enabled,
  };
}

export function webhookValuesOfSubmission(form: URLSearchParams): WebhookFormValues {
  return {
    url: (form.get("url") ?? "").trim(),
    events: form.getAll("events"),
    description: form.get("description") ?? "",
    disabled: form.get("disabled") === "true",
  };
}

/**
 * The create form as the service's input, checked against the REST body's schema (the same rules and
 * messages as `POST /v1/webhook-endpoints`: a URL of at most 2,000 characters, at least one known event);
 * an empty description is none.
 */
export function endpointInputOf(form: URLSearchParams): EndpointInput {
  const values = webhookValuesOfSubmission(form);
  return validateInput(WebhookEndpointCreateBody, {
    url: values.url,
    events: values.events as WebhookEventType[],
    description: values.description.trim() === "" ? null : values.description,
  });
}

/**
 * The edit form as a change of every member (the form shows them all): checked against the REST
 * update body's schema; an unticked "Disabled" enables the endpoint.
 */
export function endpointChangeOf(form: URLSearchParams): EndpointChange {
  const values = webhookValuesOfSubmission(form);
  return validateInput(WebhookEndpointUpdateBody, {
    url: values.url,
    events: values.events as WebhookEventType[],
    description: values.description.trim() === "" ? null : values.description,
    disabled: values.disabled,
  });
}
