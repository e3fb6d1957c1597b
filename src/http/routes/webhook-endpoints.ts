import type { FastifyInstance } from "fastify";
import { WEBHOOK_OPERATIONS } from "../../services/operations.js";
import type { IdempotentCreates } from "../../services/idempotency.js";
import type { WebhookEndpoints } from "../../services/webhook-endpoints.js";
import { idempotentCreate } from "../idempotency-key.js";
import { callerOf } from "../management-guard.js";
import { registerWebhookRoutes } from "./webhook-route-set.js";

/** `/v1/webhook-endpoints` and `/v1/webhook-messages`: an organization's own webhooks. */
export async function webhookEndpointRoutes(
  app: FastifyInstance,
  { webhooks, idempotency }: { webhooks: WebhookEndpoints; idempotency: IdempotentCreates },
): Promise<void> {
  registerWebhookRoutes(app, webhooks, {
    base: "/v1",
    callerOf: (request) => {
      const caller = callerOf(request);
      return { owner: caller.orgId, actor: caller.id };
    },
    idempotent: (request, reply, secret, create) =>
      idempotentCreate(idempotency, request, reply, secret, create),
    operation: WEBHOOK_OPERATIONS,
    security: [{ basicAuth: [] }],
    refusals: ["unauthorized", "missing_permission", "rate_limited", "database_unavailable"],
    idPrefix: "",
    tags: ["Webhooks"],
  });
}
