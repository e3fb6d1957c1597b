import type { IncomingMessage } from "node:http";
import type { AccessDecision } from "../services/access-decision.js";

/** What deciding a request gave: the decision, or the error deciding threw. */
export type Decided = { decision: AccessDecision } | { failure: unknown };

/**
 * Decisions made in front of Fastify (fast-key-read.ts, fast-authorize.ts) for requests then handed
 * to Fastify to answer: the management guard and the authorize route take the request's decision from
 * here instead of deciding again, which would count the request twice against its group and credits.
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

/**
 * The decision handed over for `request`, or a new one from `decide`: a request decided in front of
 * Fastify is not decided, and counted, again. A handed failure is thrown, to be answered and logged.
 */
export async function decisionFor(
  handover: DecisionHandover,
  request: IncomingMessage,
  decide: () => Promise<AccessDecision>,
): Promise<AccessDecision> {
  const decided = handover.take(request);
  if (!decided) return decide();
  if ("failure" in decided) throw decided.failure;
  return decided.decision;
}
