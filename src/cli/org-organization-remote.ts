import type { Organization, UpdateOrganizationRequest, UsageReport } from "@latchkey/client";
import { adminClient } from "./admin-connection.js";

/** `org show --url`: `GET /v1/admin/organizations/{org}`. */
export function showRemotely(url: string, orgId: string): Promise<Organization> {
  return adminClient(url).admin.getOrganization(orgId);
}

/** `org update --url`: `PATCH /v1/admin/organizations/{org}` with the members the flags name. */
export function updateRemotely(
  url: string,
  orgId: string,
  changes: UpdateOrganizationRequest,
): Promise<Organization> {
  return adminClient(url).admin.updateOrganization(orgId, changes);
}

/** `org usage --url`: `GET /v1/admin/organizations/{org}/usage`. */
export function usageRemotely(url: string, orgId: string): Promise<UsageReport> {
  return adminClient(url).admin.getUsage(orgId);
}
