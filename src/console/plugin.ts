import fastifyCookie from "@fastify/cookie";
import type { FastifyError, FastifyInstance, FastifyReply } from "fastify";
import { LatchkeyError } from "../domain/errors.js";
import { toLatchkeyError } from "../http/error-handler.js";
import type { Clock } from "../domain/clock.js";
import type { LatchkeyMetrics } from "../metrics/metrics.js";
import type { AuditLog } from "../services/audit-log.js";
import type { ConsoleSessions } from "../services/console-sessions.js";
import type { ConsoleUserService } from "../services/console-users.js";
import type { KeyService } from "../services/key-service.js";
import type { McpOauth } from "../services/mcp-oauth.js";
import type { OrganizationLimitsView } from "../services/organization-limits.js";
import type { SecretHandoffs } from "../services/secret-handoffs.js";
import type { UsageService } from "../services/usage.js";
import type { WebhookEndpoints } from "../services/webhook-endpoints.js";
import { connectionPages } from "./pages/connections.js";
import { consentPages } from "./pages/oauth-consent.js";
import { type ConsoleAsset, consoleAssets } from "./assets.js";
import { html } from "./html.js";
import { plainPage } from "./layout.js";
import { accountPages } from "./pages/account.js";
import { auditPages } from "./pages/audit.js";
import { invitationPages } from "./pages/invitations.js";
import { keyPages } from "./pages/keys.js";
import { limitPages } from "./pages/limits.js";
import { memberPages } from "./pages/members.js";
import { signInRoutes } from "./pages/sign-in.js";
import { usagePages } from "./pages/usage.js";
import { webhookPages } from "./pages/webhooks.js";
import { guardSignedInRoutes, signedIn } from "./request-guard.js";
import { setConsoleSecurityHeaders } from "./security-headers.js";

/** Forms are small: a key's name, description and permissions fit many times over. */
const FORM_BODY_LIMIT = 64 * 1024;
const YEAR_SECONDS = 31_536_000;

/** Errors as a page: the same codes and statuses as the API, in words, with a way back. */
function renderError(reply: FastifyReply, error: LatchkeyError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) reply.header("Retry-After", String(error.retryAfterSeconds));
  const page = plainPage(
    error.status === 404 ? "Not found" : "That did not work",
    html`<p class="error" role="alert">${error.message}</p>
      <p class="muted">${error.status} ${error.code}</p>
      <p><a href="/console">Back to the console</a></p>`,
  );
  return reply.code(error.status).type("text/html").send(page.text);
}

function serveAsset(app: FastifyInstance, asset: ConsoleAsset): void {
  app.get(asset.path.slice("/console".length), async (_request, reply) =>
    reply
      .header("Cache-Control", `public, max-age=${YEAR_SECONDS}, immutable`)
      .type(asset.type)
      .send(asset.body),
  );
}

/**
 * What the console's pages use, and nothing else: the same services as REST and the CLI (no store:
 * pages never read one directly), each page handed the few it needs.
 */
export interface ConsoleOptions {
  sessions: ConsoleSessions;
  /** Console users and memberships: the members and account pages, and every page's organization. */
  users: ConsoleUserService;
  keys: KeyService;
  /** A new or rolled secret handed from its POST to the page the browser is redirected to, once. */
  secretHandoffs: SecretHandoffs;
  usage: UsageService;
  limits: OrganizationLimitsView;
  audit: AuditLog;
  /** The organization's webhook endpoints, their attempts, test and resend: the webhooks pages. */
  webhooks: WebhookEndpoints;
  /** MCP connections: the connections page and the OAuth consent page. */
  oauth: McpOauth;
  /** Counts sign-in outcomes; null with LATCHKEY_METRICS=off. */
  metrics: LatchkeyMetrics | null;
  clock: Clock;
}

/**
 * The console at `/console` (docs/console.md): server-rendered pages over the same services as
 * REST. Its own body parser (forms), error pages and headers live in this scope only.
 */
export async function consoleRoutes(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const { sessions, users, keys, secretHandoffs, usage, limits, audit, webhooks, oauth, metrics, clock } =
    options;
  // Pages for people, not operations of the API: kept out of the OpenAPI document.
  app.addHook("onRoute", (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  // The session cookie is read by the ecosystem's parser; session-cookie.ts writes its one header.
  await app.register(fastifyCookie);
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => done(null, new URLSearchParams(String(body))),
  );
  app.addHook("onRequest", async (_request, reply) => {
    setConsoleSecurityHeaders(reply);
    reply.header("Cache-Control", "no-store");
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const rendered = error instanceof LatchkeyError ? error : toLatchkeyError(error, request);
    if (rendered.code === "internal") request.log.error({ err: error }, "unhandled console error");
    return renderError(reply, rendered);
  });
  app.setNotFoundHandler((request, reply) =>
    renderError(reply, new LatchkeyError("not_found", `No console page at ${request.url.split("?")[0]}.`)),
  );

  const assets = consoleAssets();
  for (const asset of [assets.style, assets.script, ...assets.icons]) serveAsset(app, asset);
  await app.register(signInRoutes, { sessions, metrics });

  await app.register(async (scope) => {
    guardSignedInRoutes(scope, sessions);
    scope.get("/", async (request, reply) => {
      const { user } = signedIn(request);
      // An invitation waiting comes first: accepting or declining it is the person's to do.
      if ((await users.invitationsFor(user)).length > 0) return reply.redirect("/console/invitations", 303);
      const [first] = await users.membershipsOf(user.id);
      if (first) return reply.redirect(`/console/orgs/${first.orgId}/keys`, 303);
      const page = plainPage(
        "No organization yet",
        html`<p>
          You are not a member of any organization. Ask an owner to invite you, then sign in again.
        </p>`,
      );
      return reply.type("text/html").send(page.text);
    });
    scope.get<{ Querystring: { org?: string } }>("/switch", async (request, reply) => {
      const org = request.query.org ?? "";
      if (!/^org_[0-9A-Za-z]+$/.test(org))
        throw new LatchkeyError("not_found", "No such organization among yours.");
      return reply.redirect(`/console/orgs/${org}/keys`, 303);
    });
    await scope.register(accountPages, { users, sessions });
    await scope.register(keyPages, { keys, users, clock, secretHandoffs });
    await scope.register(usagePages, { usage, users, clock });
    await scope.register(limitPages, { limits, users });
    await scope.register(auditPages, { audit, users });
    await scope.register(webhookPages, { webhooks, users, secretHandoffs, clock });
    await scope.register(memberPages, { users });
    await scope.register(invitationPages, { users });
    await scope.register(connectionPages, { oauth, users });
    await scope.register(consentPages, { oauth, users });
  });
}
