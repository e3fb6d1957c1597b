import { isIP } from "node:net";
import { invalidRequest } from "../domain/errors.js";
import { effectivePermissions, isPermission } from "../domain/permissions.js";
import { isRateLimitGroup } from "../domain/rate-limit-groups.js";
import { isGroupName } from "../domain/group-definitions.js";
import type { AccessDecision, AccessRequest } from "../services/access-decision.js";
import { platformOrigin } from "./client-origin.js";
import { decisionHeaders, type Protocol } from "./decision-headers.js";
import { errorBody } from "./error-handler.js";
import { type AuthorizeBody, type AuthorizeDecision, GROUP_NAMES } from "./platform-schemas.js";

/** What `POST /v1/authorize` asks, names checked: the decision's request and where it is relayed. */
export interface AuthorizeQuestion {
  request: AccessRequest;
  /** Where the decision is relayed, which decides its headers (decision-headers.ts). */
  protocol: Protocol;
}

/** Checks the names in an authorize body: an unknown one is the platform's bug, so a 400 naming it. */
export function authorizeQuestion(body: AuthorizeBody): AuthorizeQuestion {
  const { permission, group } = body;
  if (!isPermission(permission)) {
    throw invalidRequest(`permission "${permission}" is not a known permission.`, "/permission");
  }
  // Whether the deployment knows the group is asked of the group catalog (routes/authorize.ts).
  if (group !== undefined && !isRateLimitGroup(group) && !isGroupName(group)) {
    throw invalidRequest(
      `group "${group}" is not a known operation group (one of ${GROUP_NAMES}, or a group of the platform's).`,
      "/group",
    );
  }
  if (body.cost !== undefined && group === undefined) {
    throw invalidRequest("cost counts slots in a group's windows: name the group too.", "/cost");
  }
  const clientIp = body.client_ip;
  if (clientIp !== undefined && (isIP(clientIp) === 0 || clientIp.includes("%"))) {
    throw invalidRequest(
      `client_ip "${clientIp}" is not an IPv4 or IPv6 address (no port, no brackets, no zone).`,
      "/client_ip",
    );
  }
  return {
    request: {
      authorization: body.authorization,
      permission,
      group,
      cost: body.cost,
      credits: body.credits,
      client: platformOrigin(clientIp),
    },
    protocol: body.protocol ?? "rest",
  };
}

/** The decision as the platform relays it: status, headers and error body as they are. */
export function renderDecision(decision: AccessDecision, protocol: Protocol): AuthorizeDecision {
  const caller = decision.caller;
  return {
    allowed: decision.allowed,
    status: decision.allowed ? 200 : decision.error.status,
    organization_id: caller?.orgId ?? null,
    key: caller && {
      id: caller.id,
      api_id: caller.apiId,
      permissions: effectivePermissions(caller),
      all_future_permissions: caller.allFuturePermissions,
    },
    headers: decisionHeaders(decision, protocol),
    error: decision.allowed ? null : errorBody(decision.error),
  };
}
