import { createHmac, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply } from "fastify";
import QRCode from "qrcode";
import { invalidRequest, LatchkeyError } from "../../domain/errors.js";
import { isTotpSecret, newTotpSecret, totpUri } from "../../domain/totp.js";
import type { ConsoleSessions, SignedIn } from "../../services/console-sessions.js";
import { type Html, html, trusted } from "../html.js";
import { csrfField, plainPage } from "../layout.js";
import { formOf, signedIn } from "../request-guard.js";
import type { ConsoleUserService } from "../../services/console-users.js";
import { requestAddress } from "../../http/client-origin.js";

const NOTICES: Record<string, string> = {
  password: "Your password was changed.",
  "two-factor-on": "Two-factor sign-in is on: from now on, signing in asks for a code from your app.",
  "two-factor-off": "Two-factor sign-in is off.",
};

const problemAndNotice = (problem?: string, notice?: string): Html =>
  html`${problem ? html`<p class="error" role="alert">${problem}</p>` : ""}${
    notice ? html`<p class="notice" role="status">${notice}</p>` : ""
  }`;

const currentPasswordField = (id: string) =>
  html`<label for="${id}">Current password</label>
    <input id="${id}" name="current_password" type="password" autocomplete="current-password" required />`;

function twoFactorSection(signedIn: SignedIn): Html {
  if (signedIn.user.totpSecret === null) {
    return html`<h2>Two-factor sign-in</h2>
      <p>Off. With it on, signing in also asks for a code from an authenticator app on your phone.</p>
      <p><a href="/console/account/two-factor">Turn on two-factor sign-in</a></p>`;
  }
  return html`<h2>Two-factor sign-in</h2>
    <p>On: signing in asks for a code from your authenticator app.</p>
    <form method="post" action="/console/account/two-factor/off">
      ${csrfField(signedIn)} ${currentPasswordField("off-current-password")}
      <p><button type="submit">Turn off two-factor sign-in</button></p>
    </form>`;
}

/** The signed-in user's own account: who they are, their password, their two-factor sign-in. */
function accountPage(signedIn: SignedIn, problem?: string, notice?: string) {
  return plainPage(
    "Your account",
    html`${problemAndNotice(problem, notice)}
      <p>Signed in as <strong>${signedIn.user.email}</strong>. <a href="/console">Back to the console</a></p>
      <h2>Change your password</h2>
      <p class="muted">Every other browser signed in as you is signed out; this one stays signed in.</p>
      <form method="post" action="/console/account/password">
        ${csrfField(signedIn)} ${currentPasswordField("current-password")}
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
      </form>
      ${twoFactorSection(signedIn)}`,
  );
}

/**
 * Setting two-factor up: the secret as a QR code and as text, and a form that sends it back with the
 * app's first code. Nothing is stored until that code matches: a page left halfway changes nothing.
 */
/**
 * Proof that latchkey chose `secret` for this session: an HMAC under a key derived from the session's
 * cookie. The page carries the secret in a hidden field; without the proof a client could send a
 * secret of its own choosing (one an attacker already holds) and have it turned on.
 */
function setupProof(signedIn: SignedIn, secret: string): string {
  return createHmac("sha256", signedIn.handoffKey).update(`totp-setup:${secret}`).digest("base64url");
}

function isOwnProof(signedIn: SignedIn, secret: string, proof: string): boolean {
  const expected = Buffer.from(setupProof(signedIn, secret));
  const given = Buffer.from(proof);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function twoFactorSetupPage(signedIn: SignedIn, secret: string, problem?: string) {
  const qr = await QRCode.toString(totpUri(secret, signedIn.user.email), { type: "svg", margin: 1 });
  return plainPage(
    "Turn on two-factor sign-in",
    html`${problemAndNotice(problem)}
      <ol>
        <li>Scan this code with an authenticator app (any app for TOTP codes), or type the key below it.</li>
        <li>Enter the six-digit code the app shows.</li>
      </ol>
      <div class="qr" role="img" aria-label="QR code of your two-factor key">${trusted(qr)}</div>
      <p>Key: <code class="secret">${secret.replace(/(.{4})/g, "$1 ").trim()}</code></p>
      <form method="post" action="/console/account/two-factor">
        ${csrfField(signedIn)}
        <input type="hidden" name="secret" value="${secret}" />
        <input type="hidden" name="secret_proof" value="${setupProof(signedIn, secret)}" />
        <label for="two-factor-password">Current password</label>
        <input
          id="two-factor-password"
          name="current_password"
          type="password"
          autocomplete="current-password"
          required
        />
        <label for="code">Code from the app</label>
        <input
          id="code"
          name="code"
          type="text"
          inputmode="numeric"
          autocomplete="one-time-code"
          maxlength="8"
          required
        />
        <p><button type="submit">Turn on</button> <a href="/console/account">Cancel</a></p>
      </form>`,
  );
}

const sendPage = (reply: FastifyReply, status: number, page: { text: string }) =>
  reply.code(status).type("text/html").send(page.text);

/** Runs a change of the user's own account; a refused one (400) shows the page again with the reason. */
async function changeAccount(
  reply: FastifyReply,
  work: () => Promise<void>,
  onRefused: (message: string) => Promise<{ text: string }> | { text: string },
  notice: keyof typeof NOTICES,
) {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof LatchkeyError) || error.status !== 400) throw error;
    return sendPage(reply, 400, await onRefused(error.message));
  }
  return reply.redirect(`/console/account?notice=${notice}`, 303);
}

/** `/console/account`: the password and two-factor sign-in of the signed-in user. */
export async function accountPages(
  app: FastifyInstance,
  { users, sessions }: { users: ConsoleUserService; sessions: ConsoleSessions },
): Promise<void> {
  const confirmPassword = (request: Parameters<typeof signedIn>[0]) =>
    sessions.confirmPassword({
      user: signedIn(request).user,
      password: formOf(request).get("current_password") ?? "",
      address: requestAddress(request),
    });

  app.get<{ Querystring: { notice?: string } }>("/account", async (request, reply) =>
    sendPage(reply, 200, accountPage(signedIn(request), undefined, NOTICES[request.query.notice ?? ""])),
  );

  app.post("/account/password", async (request, reply) => {
    const session = signedIn(request);
    const form = formOf(request);
    const password = form.get("password") ?? "";
    return changeAccount(
      reply,
      async () => {
        if (password !== (form.get("password_again") ?? "")) {
          throw new LatchkeyError("invalid_request", "The two new passwords differ; nothing was changed.");
        }
        await confirmPassword(request);
        await users.changePassword({
          user: session.user,
          password,
          keepSession: session.session.tokenHash,
        });
      },
      (message) => accountPage(session, message),
      "password",
    );
  });

  app.get("/account/two-factor", async (request, reply) =>
    sendPage(reply, 200, await twoFactorSetupPage(signedIn(request), newTotpSecret())),
  );

  app.post("/account/two-factor", async (request, reply) => {
    const session = signedIn(request);
    const form = formOf(request);
    const secret = form.get("secret") ?? "";
    return changeAccount(
      reply,
      async () => {
        if (!isOwnProof(session, secret, form.get("secret_proof") ?? "")) {
          throw invalidRequest(
            "That two-factor secret is not one latchkey made for this session.",
            "/secret",
          );
        }
        await confirmPassword(request);
        await users.enableTwoFactor({ user: session.user, secret, code: form.get("code") ?? "" });
      },
      // Same secret again: the app has it already.
      (message) =>
        twoFactorSetupPage(
          session,
          isTotpSecret(secret) && isOwnProof(session, secret, form.get("secret_proof") ?? "")
            ? secret
            : newTotpSecret(),
          message,
        ),
      "two-factor-on",
    );
  });

  app.post("/account/two-factor/off", async (request, reply) => {
    const session = signedIn(request);
    return changeAccount(
      reply,
      async () => {
        await confirmPassword(request);
        await users.disableTwoFactor(session.user);
      },
      (message) => accountPage(session, message),
      "two-factor-off",
    );
  });
}
