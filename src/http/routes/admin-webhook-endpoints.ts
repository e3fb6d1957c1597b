import type { FastifyInstance } from "fastify";
import type { IdempotentCreates } from "../../services/idempotency.js";
import type { ServiceTokenService } from "../../services/service-tokens.js";
import type { WebhookEndpoints } from "../../services/webhook-endpoints.js";
import { adminActor, adminIdempotentCreate, registerAdminGuard } from "../admin-guard.js";
import { ADMIN_REFUSALS, adminSecurity } from "./admin-organizations.js";
import { registerWebhookRoutes } from "./webhook-route-set.js";

/**
 * `/v1/admin/webhook-endpoints` and `/v1/admin/webhook-messages`: the platform's endpoints, which
 * receive every organization's events and the organization events (`provision` scope).
 */
export async function adminWebhookEndpointRoutes(
  app: FastifyInstance,
  options: {
    webhooks: WebhookEndpoints;
    serviceTokens: ServiceTokenService;
    idempotency: IdempotentCreates;
  },
): Promise<void> {
  registerAdminGuard(app, options.serviceTokens);
  registerWebhookRoutes(app, options.webhooks, {
    base: "/v1/admin",
    callerOf: (request) => ({ owner: null, actor: adminActor(request) }),
    idempotent: (request, reply, secret, create) =>
      adminIdempotentCreate(options.idempotency, request, reply, secret, create),
    security: adminSecurity,
    refusals: ADMIN_REFUSALS,
    idPrefix: "admin",
    tags: ["Provisioning"],
  });
}
