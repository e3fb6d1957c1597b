import { type GuardOptions, judge } from "./decide.js";

/**
 * The parts of a Fastify request the guard uses. Written out (not imported from fastify) so that the
 * client package depends on nothing; a `FastifyRequest` fits.
 */
export interface FastifyLikeRequest {
  /** The incoming headers; only `authorization` is read, and passed on verbatim. */
  readonly headers: { readonly authorization?: string | undefined };
  /** Fastify's request logger, told when latchkey could not decide (unless `onError` is given). */
  readonly log?: { error(object: unknown, message?: string): void };
  /** The caller's address as Fastify sees it (its `trustProxy` applied), sent as `client_ip`. */
  readonly ip?: string;
}

/** The parts of a Fastify reply the guard uses; a `FastifyReply` fits. */
export interface FastifyLikeReply {
  /** Sets the status of a refusal. */
  code(statusCode: number): unknown;
  /** Sets one of the decision's headers. */
  header(name: string, value: string): unknown;
  /** Sends a refusal's error body (Fastify serializes it as JSON). */
  send(payload?: unknown): unknown;
}

/**
 * A Fastify hook that protects a route with latchkey: it sends the request's `Authorization` header to
 * `/v1/authorize` with the route's permission (and group and credits). Refused: the reply is latchkey's
 * decision as it is (status, headers such as `WWW-Authenticate`, `Retry-After` or `x-renders-*`, and
 * the error body) and the handler never runs. Allowed: the decision's headers are set on the reply and
 * the handler reads the caller with `decisionOf(request)`. If latchkey cannot decide, the caller gets
 * a 503 and `onError` is told why.
 *
 * Use it as `onRequest` (refuses before the body is read) or, when `credits` depends on the body, as
 * `preHandler`:
 *
 * ```ts
 * app.post("/v1/image", { onRequest: latchkeyGuard({ client, permission: "images:create", credits: 1 }) },
 *   async (request) => ({ organization: decisionOf(request)?.organization_id }));
 * ```
 */
export function latchkeyGuard<Request extends FastifyLikeRequest>(
  options: GuardOptions<Request>,
): (request: Request, reply: FastifyLikeReply) => Promise<FastifyLikeReply | undefined> {
  return async (request, reply) => {
    const verdict = await judge(
      options,
      request,
      request.headers.authorization,
      (error, failed) => failed.log?.error({ err: error }, "latchkey could not decide; answered 503"),
      request.ip,
    );
    if (verdict.allowed) {
      for (const [name, value] of Object.entries(verdict.decision.headers)) reply.header(name, value);
      return undefined;
    }
    const { status, headers, body } = verdict.refusal;
    reply.code(status);
    for (const [name, value] of Object.entries(headers)) reply.header(name, value);
    reply.send(body);
    // Returning the reply after send tells Fastify the hook answered: the handler does not run.
    return reply;
  };
}
