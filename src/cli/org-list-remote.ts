import { adminClient } from "./admin-connection.js";

/** A row of `org list`, in both modes. */
export interface OrganizationRow {
  id: string;
  name: string;
  created_at: string;
  /** null with --url: the provisioning API does not count an organization's keys. */
  key_count: number | null;
}

/**
 * `org list --url`: every page of `GET /v1/admin/organizations` (newest first there), oldest first as
 * beside the database, so both modes print the same rows in the same order.
 */
export async function listRemotely(url: string): Promise<OrganizationRow[]> {
  const rows: OrganizationRow[] = [];
  for await (const org of adminClient(url).admin.listAllOrganizations({ count: 100 })) {
    rows.push({ id: org.id, name: org.name, created_at: org.created_at, key_count: null });
  }
  return rows.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}
