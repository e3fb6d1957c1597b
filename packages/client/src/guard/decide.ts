import type { LatchkeyClient } from "../client.js";
import type { AllowedDecision, ErrorBody, Permission } from "../types.js";

/** What a guard asks latchkey for every request it protects. */
export interface GuardOptions<Request> {
  /** A client built with the `serviceToken` option. */
  client: Pick<LatchkeyClient, "authorize">;
  /** The permission the route needs, e.g. `images:create`. */
  permission: Permission;
  /** A management operation group to count each request against, e.g. `proxy:read`. */
  group?: string;
  /**
   * Image credits each request consumes (a whole number >= 1), or a function of the request that says
   * how many (e.g. the size of a batch); `undefined` consumes none.
   */
  credits?: number | ((request: Request) => number | undefined);
  /**
   * Slots each request takes in every window of `group` (1 to 1,000; default 1), or a function of the
   * request that says how many (e.g. a batch's size); needs `group`.
   */
  cost?: number | ((request: Request) => number | undefined);
  /**
   * The caller's IP address, sent as `client_ip` for keys limited to networks (`allowed_cidrs`).
   * Default: Fastify's `request.ip` (which follows Fastify's own `trustProxy`), the socket's peer for
   * `node:http`. Behind a proxy of your own, return the client's address from its header instead.
   */
  clientIp?: (request: Request) => string | undefined;
  /**
   * Told when latchkey could not decide (unreachable, a 5xx, or a refused service token or guard
   * configuration: 401 `invalid_service_token`, 400); the caller then gets a 503. Default: the Fastify
   * guard logs it with `request.log.error`, the Node guard with `console.error`.
   */
  onError?: (error: unknown, request: Request) => void;
}

/** What the guard answers a refused caller: latchkey's decision, relayed as it is. */
export interface Refusal {
  /** The status to answer with: the decision's 401, 403 or 429, or 503 when latchkey could not decide. */
  status: number;
  /** Headers to set: `WWW-Authenticate`, `Retry-After`, `RateLimit-*`, `x-renders-*` as the decision says. */
  headers: Record<string, string>;
  /** The JSON error body to send, in latchkey's documented shape. */
  body: ErrorBody;
}

/** The guard's verdict on one request. */
export type Verdict = { allowed: true; decision: AllowedDecision } | { allowed: false; refusal: Refusal };

/**
 * The body a caller gets when latchkey could not decide. It says nothing about why: the reason (a
 * misconfigured service token, an unreachable server) is the platform's business, given to `onError`.
 */
export const UNAVAILABLE: Refusal = {
  status: 503,
  headers: {},
  body: {
    statusCode: 503,
    error: "Service Unavailable",
    message: "Authorization could not be checked right now; try again later.",
    code: "authorization_unavailable",
  },
};

const decisions = new WeakMap<object, AllowedDecision>();

/**
 * The decision that let `request` through a guard: the caller's `organization_id` and `key`, and the
 * `headers` already set on the reply. `undefined` when no guard allowed this request.
 */
export function decisionOf(request: object): AllowedDecision | undefined {
  return decisions.get(request);
}

/** Asks latchkey about one request; never throws (a failure to decide is the 503 refusal). */
export async function judge<Request extends object>(
  options: GuardOptions<Request>,
  request: Request,
  authorization: string | undefined,
  reportError: (error: unknown, request: Request) => void,
  peer?: string,
): Promise<Verdict> {
  try {
    const credits = typeof options.credits === "function" ? options.credits(request) : options.credits;
    const cost = typeof options.cost === "function" ? options.cost(request) : options.cost;
    const clientIp = options.clientIp ? options.clientIp(request) : peer;
    const decision = await options.client.authorize({
      authorization,
      permission: options.permission,
      ...(options.group !== undefined ? { group: options.group } : {}),
      ...(cost !== undefined ? { cost } : {}),
      ...(credits !== undefined ? { credits } : {}),
      ...(clientIp ? { client_ip: clientIp } : {}),
    });
    if (decision.allowed && decision.organization_id !== null && decision.key !== null) {
      const allowed = decision as AllowedDecision;
      decisions.set(request, allowed);
      return { allowed: true, decision: allowed };
    }
    if (decision.error === null) throw new Error("latchkey refused without an error body.");
    return {
      allowed: false,
      refusal: { status: decision.status, headers: decision.headers, body: decision.error },
    };
  } catch (error) {
    (options.onError ?? reportError)(error, request);
    return { allowed: false, refusal: UNAVAILABLE };
  }
}
