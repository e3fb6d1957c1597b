import type { FastifyInstance, FastifyRequest } from "fastify";
import { canManageKeys } from "../../domain/console-roles.js";
import { LatchkeyError } from "../../domain/errors.js";
import {
  type AuthorizationRequest,
  CONNECTION_PERMISSIONS,
  type McpOauth,
} from "../../services/mcp-oauth.js";
import { mcpResourceOf, originOf } from "../../oauth/routes.js";
import { html } from "../html.js";
import { csrfField, plainPage } from "../layout.js";
import { formOf, signedIn } from "../request-guard.js";
import { allowFormRedirectTo } from "../security-headers.js";
import type { Memberships } from "../page-context.js";

/** The request's parameters, carried through the consent form unchanged. */
const CARRIED = [
  "client_id",
  "redirect_uri",
  "response_type",
  "code_challenge",
  "code_challenge_method",
  "state",
  "resource",
  "scope",
];

function paramsOf(source: Record<string, unknown> | URLSearchParams): Record<string, string | undefined> {
  const get = (name: string) =>
    source instanceof URLSearchParams
      ? (source.get(name) ?? undefined)
      : (source[name] as string | undefined);
  return Object.fromEntries(CARRIED.map((name) => [name, get(name)]));
}

function redirectWith(request: AuthorizationRequest, issuer: string, fields: Record<string, string>): string {
  const url = new URL(request.redirectUri);
  for (const [name, value] of Object.entries(fields)) url.searchParams.set(name, value);
  if (request.state !== undefined) url.searchParams.set("state", request.state);
  url.searchParams.set("iss", issuer);
  return url.toString();
}

/** The consent page: which organization and which permissions this MCP client's connection gets. */
export async function consentPages(
  app: FastifyInstance,
  { oauth, users }: { oauth: McpOauth; users: Memberships },
): Promise<void> {
  async function organizations(request: FastifyRequest) {
    const all = await users.membershipsOf(signedIn(request).user.id);
    return all.filter((m) => canManageKeys(m.role));
  }

  app.get<{ Querystring: Record<string, string> }>("/oauth/authorize", async (request, reply) => {
    const params = paramsOf(request.query);
    const checked = await oauth.checkAuthorization(params, mcpResourceOf(request));
    const orgs = await organizations(request);
    if (orgs.length === 0) {
      throw new LatchkeyError(
        "missing_permission",
        "Connecting an MCP client takes the owner or admin role in an organization.",
      );
    }
    const redirect = new URL(checked.redirectUri);
    allowFormRedirectTo(reply, redirect.origin);
    // The name is the client's own choice, so it never stands alone: the host the browser will be
    // sent to is beside it, and that is what the user should recognise.
    const page = plainPage(
      `Connect ${checked.client.clientName} (${redirect.host})`,
      html`<p>
          <strong>${checked.client.clientName}</strong> at <strong>${redirect.host}</strong> asks to use
          latchkey's MCP tools on your behalf. The client chose that name itself when it registered; latchkey
          has not checked it. After your answer the browser goes to <code>${redirect.origin}</code>: allow
          only if you started this connection from a client you know there.
        </p>
        <form method="post" action="/console/oauth/authorize">
          ${csrfField(signedIn(request))}
          ${CARRIED.map((name) => (params[name] === undefined ? "" : html`<input type="hidden" name="${name}" value="${params[name]}" />`))}
          <label for="consent-org">Organization</label>
          <select id="consent-org" name="org">
            ${orgs.map((m) => html`<option value="${m.orgId}">${m.orgName}</option>`)}
          </select>
          <fieldset>
            <legend>Permissions of this connection</legend>
            ${CONNECTION_PERMISSIONS.map(
              (p) =>
                html`<label for="grant-${p.replace(/[^a-z_]/g, "-")}"
                  ><input
                    id="grant-${p.replace(/[^a-z_]/g, "-")}"
                    type="checkbox"
                    name="permissions"
                    value="${p}"
                    ${p.endsWith(":read") ? html` checked` : ""}
                  />
                  ${p}</label
                >`,
            )}
          </fieldset>
          <p class="muted">
            The connection shares the organization's rate limits with its keys. You can revoke it any time
            under Connections.
          </p>
          <p>
            <button type="submit" name="decision" value="allow">Allow</button>
            <button type="submit" name="decision" value="deny">Deny</button>
          </p>
        </form>`,
    );
    return reply.type("text/html").send(page.text);
  });

  app.post("/oauth/authorize", async (request, reply) => {
    const form = formOf(request);
    const checked = await oauth.checkAuthorization(paramsOf(form), mcpResourceOf(request));
    const issuer = originOf(request);
    if (form.get("decision") !== "allow") {
      return reply.redirect(redirectWith(checked, issuer, { error: "access_denied" }), 303);
    }
    const orgId = form.get("org") ?? "";
    if (!(await organizations(request)).some((m) => m.orgId === orgId)) {
      throw new LatchkeyError("not_found", "No such organization among those you can connect.");
    }
    const code = await oauth.issueCode(checked, {
      userId: signedIn(request).user.id,
      orgId,
      permissions: form.getAll("permissions"),
    });
    return reply.redirect(redirectWith(checked, issuer, { code }), 303);
  });
}
