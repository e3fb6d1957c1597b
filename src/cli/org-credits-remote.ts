import type { CreditGrant, CreditGrantRequest } from "@latchkey/client";
import { adminClient } from "./admin-connection.js";

/** `org credits grant --url`: `POST /v1/admin/organizations/{org}/credit-grants`. */
export function grantRemotely(url: string, orgId: string, request: CreditGrantRequest): Promise<CreditGrant> {
  return adminClient(url).admin.grantCredits(orgId, request);
}

/** `org credits list --url`: every page of `GET .../credit-grants`, newest first. */
export async function listRemotely(url: string, orgId: string): Promise<CreditGrant[]> {
  const { admin } = adminClient(url);
  const grants: CreditGrant[] = [];
  let pageStart: string | undefined;
  do {
    const page = await admin.listCreditGrants(orgId, { count: 100, ...(pageStart ? { pageStart } : {}) });
    grants.push(...page.data);
    pageStart = page.pagination.next_page_start ?? undefined;
  } while (pageStart !== undefined);
  return grants;
}
