import type { IncomingMessage, ServerResponse } from "node:http";
import type { AllowedDecision } from "../types.js";
import { type GuardOptions, judge } from "./decide.js";

/**
 * A guard for a plain `node:http` server: it sends the request's `Authorization` header to
 * `/v1/authorize` with the route's permission (and group and credits). Refused: it writes latchkey's
 * decision to `res` itself (status, headers such as `WWW-Authenticate`, `Retry-After` or `x-renders-*`,
 * and the error body) and resolves to `undefined`; the handler must then stop. Allowed: it sets the
 * decision's headers on `res` and resolves to the decision (`organization_id`, `key`), also available
 * as `decisionOf(req)`. If latchkey cannot decide, the caller gets a 503 and `onError` is told why.
 *
 * ```ts
 * const guard = latchkeyNodeGuard({ client, permission: "images:create", credits: 1 });
 * http.createServer(async (req, res) => {
 *   const decision = await guard(req, res);
 *   if (!decision) return;
 *   res.end(`made an image for ${decision.organization_id}`);
 * });
 * ```
 */
export function latchkeyNodeGuard<Request extends IncomingMessage = IncomingMessage>(
  options: GuardOptions<Request>,
): (req: Request, res: ServerResponse) => Promise<AllowedDecision | undefined> {
  return async (req, res) => {
    const verdict = await judge(
      options,
      req,
      req.headers.authorization,
      (error) => console.error("latchkey could not decide; answered 503:", error),
      req.socket.remoteAddress,
    );
    if (verdict.allowed) {
      for (const [name, value] of Object.entries(verdict.decision.headers)) res.setHeader(name, value);
      return verdict.decision;
    }
    const { status, headers, body } = verdict.refusal;
    res.statusCode = status;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.setHeader("content-type", "application/json; charset=utf-8");
    res.end(JSON.stringify(body));
    return undefined;
  };
}
