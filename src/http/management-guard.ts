import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { LatchkeyError } from "../domain/errors.js";
import type { ManagementDecision } from "../ratelimit/management-rate-limit.js";
import type { AccessControl } from "../services/access-decision.js";
import type { OperationPolicy } from "../services/operations.js";
import type { ApiKeyRecord } from "../store/key-store.js";
import { type DecisionHandover, decisionFor } from "./decision-handover.js";
import { rateLimitHeaders } from "./decision-headers.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Marks a route that customers' keys call: who may call it and which group it counts against. */
    operation?: OperationPolicy;
  }
  interface FastifyRequest {
    /** The authenticated key, set on management routes once every guard has passed. */
    caller: ApiKeyRecord | null;
    /** The rate-limit outcome, kept so every later response (even an error) carries the headers. */
    rateLimitDecision: ManagementDecision | null;
  }
}

/**
 * The first steps of every request a customer's key makes, through the one access decision:
 * authentication (401), permission (403), plan feature (403), rate limit (429, counted here when
 * admitted). They run in `onRequest`, before the body is even parsed, so an anonymous or over-limit
 * client never gets its input validated. A request decided in front of Fastify and handed over is
 * not decided again.
 */
export function registerManagementGuard(
  app: FastifyInstance,
  access: AccessControl,
  handover: DecisionHandover,
): void {
  app.decorateRequest("caller", null);
  app.decorateRequest("rateLimitDecision", null);

  app.addHook("onRequest", async (request: FastifyRequest) => {
    const policy = request.routeOptions.config.operation;
    if (!policy) return;
    // Decided already, in front of Fastify (fast-key-read.ts), when the request was handed over.
    const decision = await decisionFor(handover, request.raw, () =>
      access.decide({
        authorization: request.headers.authorization,
        permission: policy.permission,
        group: policy.group,
        connection: request.raw.socket,
      }),
    );
    request.rateLimitDecision = decision.rateLimit;
    if (!decision.allowed) throw decision.error;
    request.caller = decision.caller;
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
