import type { AuditSnapshot } from "../domain/audit.js";
import type { ApiKeyRecord, Organization, OrganizationLimits } from "../store/key-store.js";
import type { CreditGrant } from "../store/credit-grant-store.js";
import type { OrganizationRecord } from "../store/organization-store.js";
import type { StoredPlan } from "../store/plan-store.js";
import type { StoredResource } from "../store/resource-store.js";
import type { ServiceTokenRecord } from "../store/service-token-store.js";
import type { QueuedWebhookMessage, WebhookEndpoint } from "../store/webhook-store.js";

/**
 * What the audit trail keeps of each kind of record. Each function lists the members it copies, one by
 * one, so that a secret or a hash added to a record later can never slip into the trail by spreading.
 */
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A key's configuration and identity; never its secret hash. Permissions as stored, not as expanded. */
export function keySnapshot(key: ApiKeyRecord): AuditSnapshot {
  return {
    id: key.id,
    api_id: key.apiId,
    name: key.name,
    description: key.description,
    enabled: key.enabled,
    permissions: [...key.permissions],
    all_future_permissions: key.allFuturePermissions,
    ...(key.leakedAt === null ? {} : { leaked_at: iso(key.leakedAt) }),
    allowed_cidrs: key.allowedCidrs === null ? null : [...key.allowedCidrs],
    metadata: key.metadata === null ? null : { ...key.metadata },
    expires_at: iso(key.expiresAt),
  };
}

export function organizationSnapshot(org: Organization): AuditSnapshot {
  return { id: org.id, name: org.name };
}

/** A credit grant as made. */
export function creditGrantSnapshot(grant: CreditGrant): AuditSnapshot {
  return {
    id: grant.id,
    credits: grant.credits,
    expires_at: iso(grant.expiresAt),
    reason: grant.reason,
  };
}

/** An organization as the provisioning API changes it. */
export function organizationRecordSnapshot(org: OrganizationRecord): AuditSnapshot {
  return { id: org.id, name: org.name, external_id: org.externalId, enabled: org.disabledAt === null };
}

/** The operator's overrides as stored; null (or an absent group) means the default. */
export function limitsSnapshot(limits: OrganizationLimits): AuditSnapshot {
  return {
    max_keys: limits.maxKeys,
    quotas: { ...limits.quotas },
    max_key_lifetime_days: limits.maxKeyLifetimeDays ?? null,
    // The admin API's overrides (windows of their own, the platform's groups), when there are any.
    ...policyOverrides(limits),
  };
}

function policyOverrides(limits: OrganizationLimits): AuditSnapshot {
  const entries = Object.entries(limits.overrides ?? {}).filter(([, override]) => override.policies !== null);
  if (entries.length === 0) return {};
  const windows = (policies: readonly { quota: number; windowSeconds: number }[]) =>
    policies.map((p) => ({ quota: p.quota, window_seconds: p.windowSeconds }));
  return {
    overrides: Object.fromEntries(
      entries.map(([group, o]) => [group, { policies: windows(o.policies ?? []), per: o.per }]),
    ),
  };
}

/** The plan as stored; null means the deployment's default. */
export function planSnapshot(plan: StoredPlan): AuditSnapshot {
  return {
    image_credits: plan.imageCredits,
    overages: plan.overages,
    period_anchor: iso(plan.periodAnchor),
    max_batch_size: plan.maxBatchSize,
    proxies: plan.proxies,
    storage_destinations: plan.storageDestinations,
  };
}

/** A service token's name and state; never the token or its hash. */
export function serviceTokenSnapshot(token: ServiceTokenRecord): AuditSnapshot {
  return { id: token.id, name: token.name, scopes: [...token.scopes], revoked_at: iso(token.revokedAt) };
}

/**
 * A proxy, storage destination or OG configuration. The settings' values are left out on purpose: they
 * are free-form and a storage destination's may well hold a customer's credentials, which the trail
 * would then keep forever; the names of their top-level members are kept, to show what was configured.
 */
export function resourceSnapshot(resource: StoredResource): AuditSnapshot {
  return {
    id: resource.id,
    name: resource.name,
    enabled: resource.enabled,
    settings_members: Object.keys(resource.settings).sort(),
  };
}

/** A console user's identity; never the password hash. */
export function userSnapshot(user: { id: string; email: string }): AuditSnapshot {
  return { id: user.id, email: user.email };
}

/** A membership: who, where, which role. */
export function membershipSnapshot(membership: {
  userId: string;
  orgId: string;
  role: string;
}): AuditSnapshot {
  return { user_id: membership.userId, org_id: membership.orgId, role: membership.role };
}

/**
 * A webhook endpoint's subscription; never its signing secrets. A rotation shows as the time the
 * replaced secret stops signing.
 */
export function webhookEndpointSnapshot(endpoint: WebhookEndpoint): AuditSnapshot {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: [...endpoint.events],
    description: endpoint.description,
    enabled: endpoint.enabled,
    previous_secret_expires_at: iso(endpoint.previousSecretExpiresAt),
  };
}

/** A message queued by a test or a resend: which, to which endpoint (null: every one that had it). */
export function webhookMessageSnapshot(queued: QueuedWebhookMessage): AuditSnapshot {
  return {
    message_id: queued.messageId,
    type: queued.type,
    endpoint_id: queued.endpointId,
    queued: queued.queued,
  };
}
