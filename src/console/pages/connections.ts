import type { FastifyInstance } from "fastify";
import { canManageKeys, userActor } from "../../domain/console-roles.js";
import { html } from "../html.js";
import { confirmedActionForm, organizationPage } from "../layout.js";
import { assertCanManageKeys, type Memberships, pageContext } from "../page-context.js";
import { when } from "../times.js";
import type { McpOauth } from "../../services/mcp-oauth.js";

/** MCP connections made over OAuth: listed for every member, revoked by owners and admins. */
export async function connectionPages(
  app: FastifyInstance,
  { oauth, users }: { oauth: McpOauth; users: Memberships },
): Promise<void> {
  app.get<{ Params: { orgId: string }; Querystring: { notice?: string } }>(
    "/orgs/:orgId/connections",
    async (request, reply) => {
      const context = await pageContext(request, users, request.params.orgId);
      const org = context.current.orgId;
      const connections = await oauth.list(org);
      const manager = canManageKeys(context.current.role);
      const content = html`${request.query.notice === "revoked" ? html`<p class="notice" role="status">Connection revoked.</p>` : ""}
      ${
        connections.length === 0
          ? html`<p>
              No MCP client is connected. Clients connect to <code>/mcp</code> and ask you to sign in here.
            </p>`
          : html`<table data-cards>
              <thead>
                <tr>
                  <th scope="col">Client</th>
                  <th scope="col">Permissions</th>
                  <th scope="col">Created</th>
                  <th scope="col">Status</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                ${connections.map(
                  (c) =>
                    html`<tr>
                      <td data-label="Client">${c.clientName} <span class="muted">${c.id}</span></td>
                      <td data-label="Permissions">${c.permissions.join(", ")}</td>
                      <td data-label="Created">${when(c.createdAt)}</td>
                      <td data-label="Status">
                        ${c.revokedAt === null ? "active" : `revoked ${when(c.revokedAt)}`}
                      </td>
                      <td data-label="Actions">
                        ${
                          manager && c.revokedAt === null
                            ? confirmedActionForm(context.signedIn, {
                                action: `/console/orgs/${org}/connections/${c.id}/revoke`,
                                confirm: "Revoke this connection?",
                                label: "Revoke",
                                subject: c.clientName,
                              })
                            : ""
                        }
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }`;
      return reply
        .type("text/html")
        .send(organizationPage(context, "connections", "MCP connections", content).text);
    },
  );

  app.post<{ Params: { orgId: string; connectionId: string } }>(
    "/orgs/:orgId/connections/:connectionId/revoke",
    async (request, reply) => {
      const context = await pageContext(request, users, request.params.orgId);
      assertCanManageKeys(context);
      await oauth.revoke(
        context.current.orgId,
        request.params.connectionId,
        userActor(context.signedIn.user.id),
      );
      return reply.redirect(`/console/orgs/${context.current.orgId}/connections?notice=revoked`, 303);
    },
  );
}
