import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import type { AccessControl } from "../../services/access-decision.js";
import type { GroupCatalog } from "../../services/rate-limit-groups.js";
import type { ServiceTokenService } from "../../services/service-tokens.js";
import { authorizeQuestion, renderDecision } from "../authorize-decision.js";
import { rejectOtherMethods } from "../method-not-allowed.js";
import { sendNoStore } from "../no-store.js";
import { AuthorizeBody, AuthorizeDecision } from "../platform-schemas.js";
import { errorResponses } from "../schemas.js";
import { serviceTokenGuard, takePremise } from "../service-token-guard.js";

export interface AuthorizeRouteOptions {
  access: AccessControl;
  serviceTokens: ServiceTokenService;
  /** The groups a request may name: management groups and the platform's own. */
  groups: GroupCatalog;
}

/** `POST /v1/authorize`: the platform's services ask whether their caller may do something. */
export async function authorizeRoutes(
  app: FastifyInstance,
  { access, serviceTokens, groups }: AuthorizeRouteOptions,
): Promise<void> {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  sendNoStore(routes);
  routes.post(
    "/v1/authorize",
    {
      onRequest: serviceTokenGuard(app, serviceTokens),
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
            "missing_scope",
            "payload_too_large",
            "unsupported_media_type",
            "database_unavailable",
          ),
        },
      },
    },
    async (request) => {
      const question = authorizeQuestion(request.body);
      if (question.request.group !== undefined) await groups.assertKnown(question.request.group, "/group");
      const decision = await access.decide({ ...question.request, premise: takePremise(request) });
      request.caller = decision.caller;
      return renderDecision(decision, question.protocol);
    },
  );
  rejectOtherMethods(routes, "/v1/authorize", ["POST"]);
}
