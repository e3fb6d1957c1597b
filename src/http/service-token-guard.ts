import type { FastifyInstance, FastifyRequest } from "fastify";
import type { CachedPremise } from "../cache/coherence.js";
import { LatchkeyError } from "../domain/errors.js";
import { SERVICE_TOKEN_HEADER, type ServiceTokenService } from "../services/service-tokens.js";

declare module "fastify" {
  interface FastifyRequest {
    /**
     * A service token the guard admitted from a cache only Redis can confirm: the access decision
     * confirms it in its own Redis call (src/cache/README.md). Undefined when it was read from the
     * database.
     */
    servicePremise: CachedPremise | undefined;
  }
}

/**
 * An `onRequest` hook for the platform's endpoints (authorize, forward-auth): a missing, wrong or
 * revoked service token is a 401 `invalid_service_token`, and a token without the `authorize` scope a
 * 403 `missing_scope`, before the body is read. It is a separate
 * check from the customer's credentials, so the two 401s are never confused. A token served from
 * the cache (PostgreSQL + Redis) rides on the decision's Redis call: the route passes
 * `request.servicePremise` to the access decision, which refuses with the same 401 when the token
 * turns out revoked.
 */
export function serviceTokenGuard(app: FastifyInstance, tokens: ServiceTokenService) {
  if (!app.hasRequestDecorator("servicePremise")) app.decorateRequest("servicePremise", undefined);
  return async (request: FastifyRequest): Promise<void> => {
    const { premise } = await tokens.admit(request.headers[SERVICE_TOKEN_HEADER], "authorize");
    request.servicePremise = premise;
  };
}

/**
 * The premise of `request`, taken over by the access decision (which confirms it): none is left for
 * `premiseRefusal` to check.
 */
export function takePremise(request: FastifyRequest): CachedPremise | undefined {
  const premise = request.servicePremise;
  request.servicePremise = undefined;
  return premise;
}

/**
 * Before an error answers a request admitted on a cached token that no decision confirmed (a malformed
 * body, an unknown group, forward-auth's 404): the token is read from the database, and a revoked one
 * gets its own 401 instead, as it would have before the body was read.
 */
export async function premiseRefusal(request: FastifyRequest): Promise<LatchkeyError | undefined> {
  const premise = takePremise(request);
  if (!premise) return undefined;
  try {
    await premise.recheck();
    return undefined;
  } catch (error) {
    if (error instanceof LatchkeyError) return error;
    throw error;
  }
}
