import type { CreditGrant, CreditGrantRequest } from "@latchkey/client";
import { OPERATOR_ACTOR } from "../domain/audit.js";
import { systemClock } from "../domain/clock.js";
import { CreditGrantBody } from "../http/admin-schemas.js";
import { creditGrantJson } from "../http/admin-responses.js";
import { validateInput } from "../services/validate-input.js";
import { withProvisioning } from "./with-provisioning.js";

/**
 * `org credits grant` beside the database: the request checked against the route's own schema (the
 * same refusal, word for word), then the same service, audited as `operator`; answered in the shape
 * `POST .../credit-grants` answers, so both modes print alike.
 */
export function grantLocally(orgId: string, request: CreditGrantRequest): Promise<CreditGrant> {
  return withProvisioning(async ({ provisioning, creditGrants }) => {
    const body = validateInput(CreditGrantBody, request);
    await provisioning.get(orgId);
    const grant = await creditGrants.grant(orgId, body, OPERATOR_ACTOR);
    return creditGrantJson(grant, systemClock.now());
  });
}

/** `org credits list` beside the database: every grant, newest first, page after page. */
export function listLocally(orgId: string): Promise<CreditGrant[]> {
  return withProvisioning(async ({ provisioning, creditGrants }) => {
    await provisioning.get(orgId);
    const grants: CreditGrant[] = [];
    let pageStart: string | undefined;
    do {
      const page = await creditGrants.list(orgId, { count: 100, pageStart });
      const now = systemClock.now();
      grants.push(...page.grants.map((grant) => creditGrantJson(grant, now)));
      pageStart = page.nextPageStart ?? undefined;
    } while (pageStart !== undefined);
    return grants;
  });
}
