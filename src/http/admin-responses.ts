import type { Plan } from "../domain/plan.js";
import type { UsageReport } from "../services/usage.js";
import type { CreditGrant } from "../store/credit-grant-store.js";
import type { OrganizationRecord } from "../store/organization-store.js";

/** The wire forms of what the provisioning API answers (src/http/admin-schemas.ts). */

const iso = (ms: number) => new Date(ms).toISOString();

export function organizationJson(org: OrganizationRecord) {
  return {
    id: org.id,
    name: org.name,
    external_id: org.externalId,
    enabled: org.disabledAt === null,
    created_at: iso(org.createdAt),
    updated_at: iso(org.updatedAt),
  };
}

/** The plan as `PUT .../plan` and `latchkey org plan --json` show it. */
export function planJson(plan: Plan) {
  return {
    image_credits: plan.imageCredits,
    overages: plan.overages,
    period_anchor: iso(plan.periodAnchor),
    max_batch_size: plan.maxBatchSize,
    proxies: plan.proxies,
    storage_destinations: plan.storageDestinations,
    credit_thresholds: [...plan.creditThresholds],
  };
}

/** `GET /v1/usage` and the platform's `GET /v1/admin/organizations/{org}/usage`. */
export function usageJson(report: UsageReport) {
  return {
    data: { hour: report.hour, day: report.day, month: report.month },
    per_billing_period: report.perBillingPeriod.map((period) => ({
      total_images: period.totalImages,
      start: iso(period.start),
      end: iso(period.end),
    })),
  };
}

/** A grant with what is left of it now: nothing once it has expired. */
export function creditGrantJson(grant: CreditGrant, now: number) {
  const expired = grant.expiresAt !== null && grant.expiresAt <= now;
  return {
    id: grant.id,
    credits: grant.credits,
    remaining: expired ? 0 : grant.remaining,
    expires_at: grant.expiresAt === null ? null : iso(grant.expiresAt),
    reason: grant.reason,
    created_at: iso(grant.createdAt),
  };
}
