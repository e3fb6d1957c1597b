import type { FastifyInstance, FastifyRequest } from "fastify";
import { sameStringInConstantTime } from "../domain/credentials.js";
import { LatchkeyError } from "../domain/errors.js";
import type { ConsoleSessions, SignedIn } from "../services/console-sessions.js";
import { sessionToken } from "./session-cookie.js";

const signedInOf = new WeakMap<FastifyRequest, SignedIn>();

/** The signed-in user of a request that passed the guard. */
export function signedIn(request: FastifyRequest): SignedIn {
  const found = signedInOf.get(request);
  if (!found) throw new Error("The console guard did not run for this route.");
  return found;
}

const csrfFailed = (message: string) => new LatchkeyError("csrf_failed", message);

/** A form field of a console request body (bodies are parsed into URLSearchParams). */
export function formOf(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

/**
 * A state-changing request must come from a page of this very origin: browsers send `Origin` on
 * every POST, and another site's page cannot forge it. Checked before anything else is read.
 */
export function assertSameOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin !== request.publicOrigin) {
    throw csrfFailed("This form was not sent from a latchkey console page; nothing was changed.");
  }
}

/** The session's CSRF token must come back in the form: a second proof, beside `Origin`. */
function assertCsrfToken(request: FastifyRequest, session: SignedIn): void {
  const sent = formOf(request).get("_csrf") ?? "";
  if (!sameStringInConstantTime(sent, session.csrfToken)) {
    throw csrfFailed("This form's security token is missing or out of date: reload the page and try again.");
  }
}

/**
 * The hooks of every signed-in console route: the session from its cookie (else to the sign-in page,
 * or a 401 for a form), `Origin` and the CSRF token on every POST, and the user's own allowance of
 * console requests (not the organization's management groups).
 */
export function guardSignedInRoutes(scope: FastifyInstance, sessions: ConsoleSessions): void {
  scope.addHook("preHandler", async (request, reply) => {
    const changing = request.method !== "GET" && request.method !== "HEAD";
    if (changing) assertSameOrigin(request);
    const session = await sessions.resolve(sessionToken(request));
    if (!session) {
      if (changing) throw new LatchkeyError("unauthorized", "Your session has ended: sign in again.");
      return reply.redirect(`/console/sign-in?next=${encodeURIComponent(request.url)}`, 303);
    }
    if (changing) assertCsrfToken(request, session);
    await sessions.countAction(session.user.id);
    signedInOf.set(request, session);
  });
}
