import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { SecretHasher } from "../domain/credentials.js";
import { LatchkeyError } from "../domain/errors.js";
import { rateLimitMessage } from "../domain/rate-limit-groups.js";
import type { ManagementDecision, ManagementRateLimit } from "../ratelimit/management-rate-limit.js";
import { authenticate } from "../services/authenticate.js";
import { assertHasPermission, type OperationPolicy } from "../services/operations.js";
import type { ApiKeyRecord, KeyStore } from "../store/key-store.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Marks a management route: who may call it and which group it counts against. */
    operation?: OperationPolicy;
  }
  interface FastifyRequest {
    /** The authenticated key, set on management routes once every guard has passed. */
    caller: ApiKeyRecord | null;
    /** The rate-limit outcome, kept so every later response (even an error) carries the headers. */
    rateLimitDecision: ManagementDecision | null;
  }
}

export interface ManagementGuardOptions {
  store: KeyStore;
  hasher: SecretHasher;
  rateLimit: ManagementRateLimit;
}

function rateLimitHeaders(decision: ManagementDecision): Record<string, string> {
  const remaining = decision.type === "allow" ? decision.remaining : 0;
  const reset = decision.type === "allow" ? decision.resetSeconds : decision.retryAfterSeconds;
  return {
    "RateLimit-Policy": `"${decision.group}";q=${decision.quota};w=${decision.windowSeconds}`,
    RateLimit: `"${decision.group}";r=${remaining};t=${reset}`,
  };
}

/**
 * The first steps of every management request, in DESIGN.md's order: authentication (401), permission
 * (403), rate limit (429, counted here when admitted). They run in `onRequest`, before the body is even
 * parsed, so an anonymous or over-limit client never gets its input validated.
 */
export function registerManagementGuard(app: FastifyInstance, options: ManagementGuardOptions): void {
  const { store, hasher, rateLimit } = options;
  app.decorateRequest("caller", null);
  app.decorateRequest("rateLimitDecision", null);

  app.addHook("onRequest", async (request: FastifyRequest) => {
    const policy = request.routeOptions.config.operation;
    if (!policy) return;
    const caller = await authenticate(request.headers.authorization, store, hasher);
    assertHasPermission(caller, policy.permission);
    const decision = await rateLimit.consume(caller.orgId, policy.group);
    request.rateLimitDecision = decision;
    if (decision.type === "deny") {
      throw new LatchkeyError(
        "rate_limited",
        rateLimitMessage(decision.group, decision.quota, decision.windowSeconds),
        {
          retryAfterSeconds: decision.retryAfterSeconds,
        },
      );
    }
    request.caller = caller;
  });

  app.addHook("onSend", (request: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
    if (request.rateLimitDecision) reply.headers(rateLimitHeaders(request.rateLimitDecision));
    done(null, payload);
  });
}

/** The authenticated caller of a management route; the guard guarantees it is set. */
export function callerOf(request: FastifyRequest): ApiKeyRecord {
  if (!request.caller) throw new LatchkeyError("internal", "Management route reached without a caller.");
  return request.caller;
}
