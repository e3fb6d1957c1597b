import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { serviceTokenActor } from "../domain/audit.js";
import { LatchkeyError } from "../domain/errors.js";
import type { IdempotentCreates, RecordResponse } from "../services/idempotency.js";
import { SERVICE_TOKEN_HEADER, type ServiceTokenService } from "../services/service-tokens.js";
import type { ServiceTokenRecord } from "../store/service-token-store.js";
import { runIdempotentCreate } from "./idempotency-key.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The platform's service token of a `/v1/admin` request, once the admin guard accepted it. */
    adminToken: ServiceTokenRecord | null;
  }
}

/**
 * The `/v1/admin` routes' guard (docs/provisioning.md): every request carries a service token with
 * the `provision` scope (401 `invalid_service_token`, 403 `missing_scope`), checked in `onRequest`
 * before the body is read. These routes are the platform's, not a customer's: no organization's
 * group counts them. Registered inside the admin plugins only.
 */
export function registerAdminGuard(app: FastifyInstance, tokens: ServiceTokenService): void {
  if (!app.hasRequestDecorator("adminToken")) app.decorateRequest("adminToken", null);
  app.addHook("onRequest", async (request: FastifyRequest) => {
    request.adminToken = await tokens.verify(request.headers[SERVICE_TOKEN_HEADER], "provision");
  });
}

/** The audit actor of an admin request: `service_token:<id>`. */
export function adminActor(request: FastifyRequest): string {
  if (!request.adminToken)
    throw new LatchkeyError("internal", "Admin route reached without a service token.");
  return serviceTokenActor(request.adminToken.id);
}

/**
 * An admin POST run once per `Idempotency-Key`, scoped to the calling service token (never shared
 * with another token or with an organization's keys).
 */
export function adminIdempotentCreate<T>(
  idempotency: IdempotentCreates,
  request: FastifyRequest,
  reply: FastifyReply,
  secret: boolean,
  create: (record?: RecordResponse<T>) => Promise<T>,
): Promise<T> {
  return runIdempotentCreate(idempotency, request, reply, adminActor(request), secret, create);
}
