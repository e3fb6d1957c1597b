import type { OrganizationLimits } from "@latchkey/client";
import { adminClient } from "./admin-connection.js";
import { type GroupChange, overrideOf } from "./org-limits-change.js";

/**
 * `org limits --url`: the change through the provisioning API (`PUT|DELETE
 * /v1/admin/organizations/{org}/limits/{group}`), then the limits as they stand.
 */
export async function limitsRemotely(
  url: string,
  orgId: string,
  change: GroupChange | undefined,
): Promise<OrganizationLimits> {
  const { admin } = adminClient(url);
  if (change?.type === "remove") await admin.removeLimit(orgId, change.group);
  if (change?.type === "quota") {
    // One window, of the length the group has now, as a quota set beside the database has.
    const current = (await admin.getLimits(orgId)).data[change.group];
    const window = current?.policies[0]?.window_seconds ?? 60;
    await admin.setLimit(orgId, change.group, {
      policies: [{ quota: change.quota, window_seconds: window }],
      per: current?.per ?? "organization",
    });
  }
  if (change?.type === "windows") {
    await admin.setLimit(orgId, change.group, overrideOf(change, await admin.getLimits(orgId)));
  }
  return admin.getLimits(orgId);
}
