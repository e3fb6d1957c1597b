import { type ErrorCode, LatchkeyError } from "../domain/errors.js";
import { ipNotAllowed } from "../domain/networks.js";
import { planLimitMessage, planRestrictedMessage } from "../domain/plan.js";
import { idempotencyKeyInUse, idempotencyKeyReused } from "../domain/idempotency.js";
import { rateLimitMessage } from "../domain/rate-limit-groups.js";
import { externalIdTaken, organizationDisabled } from "../domain/organization-state.js";
import { missingScope } from "../domain/service-token-scopes.js";
import { rateLimiterUnavailable } from "../ratelimit/fallback-rate-limiter.js";
import { unauthorized } from "../services/authenticate.js";
import { missingPermission } from "../services/operations.js";
import { invalidServiceToken } from "../services/service-tokens.js";
import { invalidSignature } from "../services/leak-response.js";
import { webhookUrlProblem } from "../domain/webhook-addresses.js";
import { webhookEndpointQuotaExceeded } from "../services/webhook-endpoints.js";
import { databaseUnavailable } from "../store/database-errors.js";
import { errorBody } from "./error-handler.js";
import { payloadTooLarge, unsupportedMediaType } from "./body-errors.js";
import { headersTooLarge, requestTimeout, shuttingDown, uriTooLong } from "./server-errors.js";
import type { ErrorBody } from "./error-body.js";

/**
 * One example error per code for the OpenAPI document, rendered by the one renderer from the messages
 * the services really send, so the examples cannot drift from the responses.
 */
const EXAMPLE_ERRORS: Record<ErrorCode, () => LatchkeyError> = {
  invalid_request: () =>
    new LatchkeyError("invalid_request", "Invalid request: /name must NOT have more than 255 characters.", {
      validationErrors: [{ path: "/name", message: "must NOT have more than 255 characters" }],
    }),
  unauthorized,
  ip_not_allowed: () => ipNotAllowed("198.51.100.23", ""),
  missing_permission: () => missingPermission("api_keys:create_update"),
  insufficient_authority: () =>
    new LatchkeyError(
      "insufficient_authority",
      "The calling key cannot create a key with permissions it does not hold itself: images:delete.",
    ),
  not_found: () =>
    new LatchkeyError(
      "not_found",
      'No API key with id "key_4vJ2mQ8sT1xZ7bN3cP5dR9" exists in this organization.',
    ),
  method_not_allowed: () =>
    new LatchkeyError("method_not_allowed", "PUT is not allowed here; use GET or POST."),
  key_quota_exceeded: () =>
    new LatchkeyError(
      "key_quota_exceeded",
      "This organization already has its quota of 100 API keys (disabled keys count too). " +
        "Disabling a key does not free a slot; contact support for a higher quota.",
    ),
  payload_too_large: payloadTooLarge,
  unsupported_media_type: () => unsupportedMediaType("text/plain"),
  rate_limited: () => new LatchkeyError("rate_limited", rateLimitMessage("api-key:write", 20, 60)),
  plan_limit_exceeded: () =>
    new LatchkeyError(
      "plan_limit_exceeded",
      planLimitMessage(50, 50, 1, Date.parse("2026-12-01T00:00:00.000Z")),
    ),
  invalid_service_token: invalidServiceToken,
  plan_restricted: () => new LatchkeyError("plan_restricted", planRestrictedMessage("proxies")),
  host_not_allowed: () =>
    new LatchkeyError(
      "host_not_allowed",
      "The MCP endpoint does not answer to the host attacker.example. " +
        "Add the name to LATCHKEY_MCP_ALLOWED_HOSTS if clients reach latchkey under it.",
    ),
  no_route: () => new LatchkeyError("no_route", "No route of the table matches GET /v1/unknown."),
  resource_quota_exceeded: () =>
    new LatchkeyError("resource_quota_exceeded", "This organization already has 1000 proxies."),
  organization_name_taken: () =>
    new LatchkeyError("organization_name_taken", "An organization named 'acme' already exists."),
  internal: () => new LatchkeyError("internal", "Internal server error."),
  service_unavailable: () =>
    new LatchkeyError(
      "service_unavailable",
      "The change was not made: Redis, which tells every node of it, cannot be reached (Connection is closed.). Try again shortly.",
    ),
  request_timeout: () => requestTimeout(30),
  uri_too_long: uriTooLong,
  headers_too_large: headersTooLarge,
  shutting_down: shuttingDown,
  database_unavailable: () => databaseUnavailable(),
  idempotency_key_reused: idempotencyKeyReused,
  idempotency_key_in_use: idempotencyKeyInUse,
  rate_limiter_unavailable: rateLimiterUnavailable,
  csrf_failed: () =>
    new LatchkeyError(
      "csrf_failed",
      "This form was not sent from a latchkey console page; nothing was changed.",
    ),
  invalid_signature: () => invalidSignature("bad_signature"),
  missing_scope: () => missingScope("provision"),
  organization_disabled: organizationDisabled,
  external_id_taken: () => externalIdTaken("cus_9f8e7d"),
  webhook_url_not_allowed: () =>
    new LatchkeyError(
      "webhook_url_not_allowed",
      webhookUrlProblem("http://hooks.example.com/latchkey", false) ?? "",
    ),
  webhook_endpoint_quota_exceeded: webhookEndpointQuotaExceeded,
};

/** The example body of one error code. */
export function errorExample(code: ErrorCode): ErrorBody {
  return errorBody(EXAMPLE_ERRORS[code]());
}
