import type { FastifyInstance } from "fastify";
import { html } from "../html.js";
import { csrfField, plainPage } from "../layout.js";
import { signedIn } from "../request-guard.js";
import type { ConsoleUserService } from "../../services/console-users.js";

type InvitationParams = { orgId: string };

/**
 * `/console/invitations`: the organizations that invited the signed-in user. Membership of an
 * organization is the person's choice: an owner elsewhere only ever makes an invitation.
 */
export async function invitationPages(
  app: FastifyInstance,
  { users }: { users: ConsoleUserService },
): Promise<void> {
  app.get("/invitations", async (request, reply) => {
    const session = signedIn(request);
    const invitations = await users.invitationsFor(session.user);
    const csrf = csrfField(session);
    const page = plainPage(
      "Invitations",
      invitations.length === 0
        ? html`<p>No invitation is waiting for you. <a href="/console/">Back to the console</a>.</p>`
        : html`<table data-cards>
            <thead>
              <tr>
                <th scope="col">Organization</th>
                <th scope="col">Role</th>
                <th scope="col">Answer</th>
              </tr>
            </thead>
            <tbody>
              ${invitations.map(
                (invitation) =>
                  html`<tr>
                    <td data-label="Organization">${invitation.orgName}</td>
                    <td data-label="Role">${invitation.role}</td>
                    <td data-label="Answer">
                      <form
                        class="inline"
                        method="post"
                        action="/console/invitations/${invitation.orgId}/accept"
                      >
                        ${csrf}<button type="submit" aria-label="Accept invitation to ${invitation.orgName}">
                          Accept
                        </button>
                      </form>
                      <form
                        class="inline"
                        method="post"
                        action="/console/invitations/${invitation.orgId}/decline"
                      >
                        ${csrf}<button type="submit" aria-label="Decline invitation to ${invitation.orgName}">
                          Decline
                        </button>
                      </form>
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`,
    );
    return reply.type("text/html").send(page.text);
  });

  app.post<{ Params: InvitationParams }>("/invitations/:orgId/accept", async (request, reply) => {
    await users.acceptInvitation(signedIn(request).user, request.params.orgId);
    return reply.redirect(`/console/orgs/${request.params.orgId}/keys`, 303);
  });

  app.post<{ Params: InvitationParams }>("/invitations/:orgId/decline", async (request, reply) => {
    await users.declineInvitation(signedIn(request).user, request.params.orgId);
    return reply.redirect("/console/invitations", 303);
  });
}
