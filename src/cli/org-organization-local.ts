import type { Organization, UpdateOrganizationRequest, UsageReport } from "@latchkey/client";
import { OPERATOR_ACTOR } from "../domain/audit.js";
import { organizationJson, usageJson } from "../http/admin-responses.js";
import { UpdateOrganizationBody } from "../http/admin-schemas.js";
import { validateInput } from "../services/validate-input.js";
import { withProvisioning } from "./with-provisioning.js";

/** `org show` beside the database, in the shape `GET /v1/admin/organizations/{org}` answers. */
export function showLocally(orgId: string): Promise<Organization> {
  return withProvisioning(async ({ provisioning }) => organizationJson(await provisioning.get(orgId)));
}

/**
 * `org update` beside the database: the changes checked against the route's schema (its refusals word
 * for word), then the route's service, audited as `operator` (organization.update). Disabling refuses
 * the organization's keys on every node from the next request, as through the route.
 */
export function updateLocally(orgId: string, changes: UpdateOrganizationRequest): Promise<Organization> {
  return withProvisioning(async ({ provisioning }) => {
    const input = validateInput(UpdateOrganizationBody, changes);
    return organizationJson(await provisioning.update(orgId, input, OPERATOR_ACTOR));
  });
}

/** `org usage` beside the database, in the shape `GET .../usage` answers. */
export function usageLocally(orgId: string): Promise<UsageReport> {
  return withProvisioning(async ({ provisioning, usage }) => {
    await provisioning.get(orgId);
    return usageJson(await usage.report(orgId));
  });
}
