import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { LatchkeyError } from "../domain/errors.js";
import type { ManagementDecision } from "../ratelimit/management-rate-limit.js";
import type { AccessControl } from "../services/access-decision.js";
import type { OperationPolicy } from "../services/operations.js";
import type { ApiKeyRecord } from "../store/key-store.js";
import { peerOrigin } from "./client-origin.js";
import { rateLimitHeaders } from "./decision-headers.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Marks a route that customers' keys call: who may call it and which group it counts against. */
    operation?: OperationPolicy;
  }
  interface FastifyRequest {
    /**
     * The key the request was decided for, once authenticated (the access log names its organization);
     * a management route's handler runs only once every guard has passed.
     */
    caller: ApiKeyRecord | null;
    /** The rate-limit outcome, kept so every later response (even an error) carries the headers. */
    rateLimitDecision: ManagementDecision | null;
  }
}

/**
 * The first steps of every request a customer's key makes, through the one access decision:
 * authentication (401), permission (403), plan feature (403), rate limit (429, counted here when
 * admitted). They run in `onRequest`, before the body is even parsed, so an anonymous or over-limit
 * client never gets its input validated.
 */
export function registerManagementGuard(app: FastifyInstance, access: AccessControl): void {
  app.decorateRequest("caller", null);
  app.decorateRequest("rateLimitDecision", null);

  app.addHook("onRequest", async (request: FastifyRequest) => {
    const policy = request.routeOptions.config.operation;
    if (!policy) return;
    const decision = await access.decide({
      authorization: request.headers.authorization,
      permission: policy.permission,
      group: policy.group,
      client: peerOrigin(request),
    });
    request.rateLimitDecision = decision.rateLimit;
    request.caller = decision.caller;
    if (!decision.allowed) throw decision.error;
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
