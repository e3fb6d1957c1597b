import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { invalidRequest } from "../../domain/errors.js";
import { effectivePermissions, isPermission } from "../../domain/permissions.js";
import { isRateLimitGroup } from "../../domain/rate-limit-groups.js";
import type { AccessControl, AccessDecision } from "../../services/access-decision.js";
import type { ServiceTokenService } from "../../services/service-tokens.js";
import { decisionHeaders, type Protocol } from "../decision-headers.js";
import { errorBody } from "../error-handler.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { AuthorizeBody, AuthorizeDecision, GROUP_NAMES } from "../platform-schemas.js";
import { errorResponses } from "../schemas.js";
import { serviceTokenGuard } from "../service-token-guard.js";

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

/** Checks the names in an authorize body: an unknown one is the platform's bug, so a 400 naming it. */
function parseAuthorizeBody(body: AuthorizeBody) {
  const { permission, group } = body;
  if (!isPermission(permission)) {
    throw invalidRequest(`permission "${permission}" is not a known permission.`, "/permission");
  }
  if (group !== undefined && !isRateLimitGroup(group)) {
    throw invalidRequest(
      `group "${group}" is not a known operation group (one of ${GROUP_NAMES}).`,
      "/group",
    );
  }
  return { permission, group, credits: body.credits, protocol: body.protocol ?? "rest" };
}

/** `POST /v1/authorize`: the platform's services ask whether their caller may do something. */
export async function authorizeRoutes(
  app: FastifyInstance,
  { access, serviceTokens }: { access: AccessControl; serviceTokens: ServiceTokenService },
): Promise<void> {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  sendNoStore(routes);
  routes.post(
    "/v1/authorize",
    {
      onRequest: serviceTokenGuard(serviceTokens),
      schema: {
        operationId: "authorize",
        summary: "Decide whether a platform caller may perform an operation",
        description:
          "Answers 200 whenever the service token and the body are valid; the decision is inside. Order: " +
          "credentials (401) -> permission (403) -> plan feature (403) -> group rate limit (429) -> credits (429).",
        tags: ["Platform"],
        security: [{ serviceToken: [] }],
        body: AuthorizeBody,
        response: {
          200: AuthorizeDecision,
          ...errorResponses(
            "invalid_request",
            "invalid_service_token",
            "payload_too_large",
            "unsupported_media_type",
          ),
        },
      },
    },
    async (request) => {
      const { permission, group, credits, protocol } = parseAuthorizeBody(request.body);
      const decision = await access.decide({
        authorization: request.body.authorization,
        permission,
        group,
        credits,
      });
      return renderDecision(decision, protocol);
    },
  );
  rejectOtherMethods(routes, "/v1/authorize", ["POST"]);
}
