/**
 * `@latchkey/client`: the typed client of latchkey's REST interface and of `/v1/authorize`. It imports nothing but Node's
 * built-ins and global fetch, so other programs can use it without pulling in the server.
 */
export { LatchkeyClient, type LatchkeyClientOptions } from "./client.js";
export type { AdminResource } from "./admin.js";
export type {
  CreatedOrganization,
  CreatedServiceToken,
  CreateOrganizationRequest,
  CreditGrant,
  CreditGrantPage,
  CreditGrantRequest,
  EffectiveLimit,
  GroupDefinition,
  GroupLimit,
  ListOrganizationsOptions,
  Organization,
  OrganizationLimits,
  OrganizationPage,
  OwnerKeySettings,
  Plan,
  PlanSettings,
  RatePolicy,
  ServiceToken,
  UpdateOrganizationRequest,
} from "./admin-types.js";
export { configurationOf } from "./configuration.js";
export {
  type ClientErrorCode,
  KeyRotationError,
  LatchkeyError,
  type LatchkeyErrorInit,
  type RotationStep,
  SecretWithheldError,
} from "./errors.js";
export type { KeysResource } from "./keys.js";
export type { AuthorizeInput, UsageResource } from "./platform.js";
export type { ResourceFamilyClient, StorageDestinationsClient } from "./resources.js";
export { DEFAULT_RETRY_AFTER_SECONDS, isRateLimitRejection } from "./retry-policy.js";
export type { RotateOptions, RotationProgress } from "./rotate.js";
export type { SpacingOptions } from "./spacing.js";
export { type RetryEvent, SERVICE_TOKEN_HEADER } from "./transport.js";
export type { ClientLogger, WaitEvent, WaitReason } from "./waits.js";
export type { WebhooksResource } from "./webhooks.js";
export type {
  CreatedWebhookEndpoint,
  CreateWebhookEndpointRequest,
  RotatedWebhookSecret,
  UpdateWebhookEndpointRequest,
  WebhookAttempt,
  WebhookAttemptPage,
  WebhookEndpoint,
  WebhookEndpointPage,
  WebhookEventType,
  WebhookMessage,
  WebhookPageOptions,
} from "./webhook-types.js";
export type {
  AllowedDecision,
  AuthorizeDecision,
  AuthorizeRequest,
  BillingPeriodUsage,
  CreatedKey,
  DecisionKey,
  ErrorBody,
  KeyConfiguration,
  KeyPage,
  KeyRecord,
  KeyRatePolicy,
  KeyRateLimits,
  ListKeysOptions,
  RolledKey,
  ListResourcesOptions,
  Permission,
  UsageCounts,
  UsageReport,
  UsageExportOptions,
  UsageExportRow,
  PlatformUsageExportRow,
  ResourceContent,
  ResourcePage,
  ResourceRecord,
} from "./types.js";
