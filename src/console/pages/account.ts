import type { FastifyInstance, FastifyReply } from "fastify";
import type { Services } from "../../app.js";
import { LatchkeyError } from "../../domain/errors.js";
import type { ConsoleSessions, SignedIn } from "../../services/console-sessions.js";
import { html } from "../html.js";
import { csrfField, plainPage } from "../layout.js";
import { formOf, signedIn } from "../request-guard.js";

/** The signed-in user's own account: who they are, and a form to change their password. */
function accountPage(signedIn: SignedIn, problem?: string, notice?: string) {
  return plainPage(
    "Your account",
    html`${problem ? html`<p class="error" role="alert">${problem}</p>` : ""}${
        notice ? html`<p class="notice" role="status">${notice}</p>` : ""
      }
      <p>Signed in as <strong>${signedIn.user.email}</strong>. <a href="/console">Back to the console</a></p>
      <h2>Change your password</h2>
      <p class="muted">Every other browser signed in as you is signed out; this one stays signed in.</p>
      <form method="post" action="/console/account/password">
        ${csrfField(signedIn)}
        <label for="current-password">Current password</label>
        <input
          id="current-password"
          name="current_password"
          type="password"
          autocomplete="current-password"
          required
        />
        <label for="new-password">New password (at least 12 characters)</label>
        <input id="new-password" name="password" type="password" autocomplete="new-password" required />
        <label for="new-password-again">New password again</label>
        <input
          id="new-password-again"
          name="password_again"
          type="password"
          autocomplete="new-password"
          required
        />
        <p><button type="submit">Change password</button></p>
      </form>`,
  );
}

const sendPage = (reply: FastifyReply, status: number, page: { text: string }) =>
  reply.code(status).type("text/html").send(page.text);

/** `GET /console/account` and `POST /console/account/password`. */
export async function accountPages(
  app: FastifyInstance,
  { services, sessions }: { services: Services; sessions: ConsoleSessions },
): Promise<void> {
  app.get<{ Querystring: { notice?: string } }>("/account", async (request, reply) => {
    const notice = request.query.notice === "password" ? "Your password was changed." : undefined;
    return sendPage(reply, 200, accountPage(signedIn(request), undefined, notice));
  });

  app.post("/account/password", async (request, reply) => {
    const session = signedIn(request);
    const form = formOf(request);
    const password = form.get("password") ?? "";
    try {
      if (password !== (form.get("password_again") ?? "")) {
        throw new LatchkeyError("invalid_request", "The two new passwords differ; nothing was changed.");
      }
      await sessions.confirmPassword({
        user: session.user,
        password: form.get("current_password") ?? "",
        address: request.ip,
      });
      await services.consoleUsers.changePassword({
        user: session.user,
        password,
        keepSession: session.session.tokenHash,
      });
    } catch (error) {
      if (!(error instanceof LatchkeyError) || error.status !== 400) throw error;
      return sendPage(reply, 400, accountPage(session, error.message));
    }
    return reply.redirect("/console/account?notice=password", 303);
  });
}
