/**
 * `latchkey/guard`: protect a route of a platform service with latchkey in a few lines, in Fastify
 * (`latchkeyGuard`, a hook) or plain `node:http` (`latchkeyNodeGuard`). It is a separate entry point
 * from `latchkey/client` because it is about serving requests, not making them; like the client it
 * imports nothing but Node's built-ins (Fastify's types are matched structurally, not imported).
 */
export { decisionOf, type GuardOptions, type Refusal, UNAVAILABLE } from "./decide.js";
export { type FastifyLikeReply, type FastifyLikeRequest, latchkeyGuard } from "./fastify.js";
export { latchkeyNodeGuard } from "./node-http.js";
export type { AllowedDecision, AuthorizeDecision } from "../types.js";
