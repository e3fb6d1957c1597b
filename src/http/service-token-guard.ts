import type { FastifyRequest } from "fastify";
import { SERVICE_TOKEN_HEADER, type ServiceTokenService } from "../services/service-tokens.js";

/**
 * An `onRequest` hook for the platform's endpoints (authorize, forward-auth): a missing, wrong or
 * revoked service token is a 401 `invalid_service_token`, and a token without the `authorize` scope a
 * 403 `missing_scope`, before the body is read. It is a separate
 * check from the customer's credentials, so the two 401s are never confused.
 */
export function serviceTokenGuard(tokens: ServiceTokenService) {
  return async (request: FastifyRequest): Promise<void> => {
    await tokens.verify(request.headers[SERVICE_TOKEN_HEADER], "authorize");
  };
}
