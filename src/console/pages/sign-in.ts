import type { FastifyInstance } from "fastify";
import { LatchkeyError } from "../../domain/errors.js";
import type { LatchkeyMetrics } from "../../metrics/metrics.js";
import type { ConsoleSessions } from "../../services/console-sessions.js";
import { html } from "../html.js";
import { plainPage } from "../layout.js";
import { assertSameOrigin, formOf } from "../request-guard.js";
import { clearSessionCookie, sessionToken, setSessionCookie } from "../session-cookie.js";
import { requestAddress } from "../../http/client-origin.js";

/** Only a path of the console itself is followed after sign-in: never another site (open redirect). */
function safeNext(next: string | undefined): string {
  return next && /^\/console(\/[^\\]*)?$/.test(next) && !next.startsWith("//") ? next : "/console";
}

function signInForm(next: string, problem?: string, email = "") {
  return plainPage(
    "Sign in",
    html`${problem ? html`<p class="error" role="alert">${problem}</p>` : ""}
      <form method="post" action="/console/sign-in">
        <input type="hidden" name="next" value="${next}" />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${email}" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <label for="code">Two-factor code (only if you turned it on)</label>
        <input
          id="code"
          name="code"
          type="text"
          inputmode="numeric"
          autocomplete="one-time-code"
          maxlength="8"
        />
        <p><button type="submit">Sign in</button></p>
      </form>`,
  );
}

/**
 * The email of a refused sign-in as the log may show it: only something shaped like an address, since a
 * password typed into the wrong field must never reach a log line.
 */
function loggableEmail(typed: string): string {
  const email = typed.trim();
  return /^[^\s@]{1,64}@[^\s@]{1,190}$/.test(email) ? email : "(not an email address)";
}

/** The sessions to open, and the metrics that count every attempt's outcome. */
interface SignInOptions {
  sessions: ConsoleSessions;
  metrics: LatchkeyMetrics | null;
}

/** `GET|POST /console/sign-in` and `POST /console/sign-out`. */
export async function signInRoutes(
  app: FastifyInstance,
  { sessions, metrics }: SignInOptions,
): Promise<void> {
  const count = (outcome: "signed_in" | "refused" | "throttled") => metrics?.consoleSignIns.inc({ outcome });

  app.get<{ Querystring: { next?: string } }>("/sign-in", async (request, reply) =>
    reply.type("text/html").send(signInForm(safeNext(request.query.next)).text),
  );

  app.post("/sign-in", async (request, reply) => {
    // Origin alone guards this form: there is no session yet to bind a token to, and SameSite=Lax
    // keeps another site from reading the result.
    assertSameOrigin(request);
    const form = formOf(request);
    const email = form.get("email") ?? "";
    const next = safeNext(form.get("next") ?? undefined);
    try {
      const { token } = await sessions.signIn({
        email,
        password: form.get("password") ?? "",
        code: form.get("code") ?? "",
        address: requestAddress(request),
      });
      setSessionCookie(request, reply, token);
      count("signed_in");
      return reply.redirect(next, 303);
    } catch (error) {
      if (error instanceof LatchkeyError && error.code === "rate_limited") count("throttled");
      if (!(error instanceof LatchkeyError) || error.code !== "unauthorized") throw error;
      count("refused");
      // A guess is visible to the operator (the limiter bounds these lines: 5 per account, 30 per
      // address in 15 minutes); the password typed never is.
      request.log.warn(
        { email: loggableEmail(email), address: requestAddress(request) },
        "console sign-in refused",
      );
      return reply
        .code(401)
        .type("text/html")
        .send(signInForm(next, error.message, email).text);
    }
  });

  app.post("/sign-out", async (request, reply) => {
    assertSameOrigin(request);
    const token = sessionToken(request);
    if (token) await sessions.signOut(token);
    clearSessionCookie(request, reply);
    return reply.redirect("/console/sign-in", 303);
  });
}
