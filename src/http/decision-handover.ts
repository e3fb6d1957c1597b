import type { IncomingMessage } from "node:http";
import type { AccessDecision } from "../services/access-decision.js";

/** What deciding a request gave: the decision, or the error deciding threw. */
export type Decided = { decision: AccessDecision } | { failure: unknown };

/**
 * Decisions made in front of Fastify (src/http/fast-key-read.ts) for requests then handed to Fastify
 * to answer: the management guard takes the request's decision from here instead of deciding again,
 * which would count the request twice against its group.
 */
export interface DecisionHandover {
  give(request: IncomingMessage, decided: Decided): void;
  /** The decision given for this request, once; undefined when none was. */
  take(request: IncomingMessage): Decided | undefined;
}

export function decisionHandover(): DecisionHandover {
  // Weak: a request Fastify never routes to the guard (it answers 503 while closing) leaves nothing.
  const given = new WeakMap<IncomingMessage, Decided>();
  return {
    give(request, decided) {
      given.set(request, decided);
    },
    take(request) {
      const decided = given.get(request);
      if (decided) given.delete(request);
      return decided;
    },
  };
}
