import type { FastifyInstance, FastifyReply } from "fastify";
import { CONSOLE_ROLES, userActor } from "../../domain/console-roles.js";
import { LatchkeyError } from "../../domain/errors.js";
import { html } from "../html.js";
import { confirmedActionForm, csrfField, organizationPage, type PageContext } from "../layout.js";
import { assertCanManageMembers, pageContext } from "../page-context.js";
import { formOf } from "../request-guard.js";
import type { ConsoleUserService } from "../../services/console-users.js";

type OrgParams = { orgId: string };

const NOTICES: Record<string, string> = {
  saved: "Members updated.",
  invited: "Invitation recorded. The person sees it after signing in to the console.",
};
type MemberParams = { orgId: string; userId: string };

const roleOptions = (selected: string) =>
  CONSOLE_ROLES.map(
    (role) => html`<option value="${role}" ${role === selected ? html` selected` : ""}>${role}</option>`,
  );

async function membersPage(
  users: ConsoleUserService,
  context: PageContext,
  problem?: string,
  notice?: string,
) {
  const org = context.current.orgId;
  const members = await users.list(org);
  const invitations = await users.invitationsOf(org);
  const csrf = csrfField(context.signedIn);
  return organizationPage(
    context,
    "members",
    "Members",
    html`${problem ? html`<p class="error" role="alert">${problem}</p>` : ""}${notice ? html`<p class="notice" role="status">${notice}</p>` : ""}
      <table data-cards>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Two-factor</th>
            <th scope="col">Role</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          ${members.map(
            (m) =>
              html`<tr>
                <td data-label="Email">${m.email}</td>
                <td data-label="Two-factor">${m.twoFactor ? "on" : "off"}</td>
                <td data-label="Role">
                  <form class="inline" method="post" action="/console/orgs/${org}/members/${m.userId}">
                    ${csrf}
                    <label class="inline" for="role-${m.userId}">Role of ${m.email}</label>
                    <select id="role-${m.userId}" name="role">
                      ${roleOptions(m.role)}
                    </select>
                    <button type="submit" aria-label="Save role of ${m.email}">Save</button>
                  </form>
                </td>
                <td data-label="Actions">
                  ${confirmedActionForm(context.signedIn, {
                    action: `/console/orgs/${org}/members/${m.userId}/remove`,
                    confirm: `Remove ${m.email} from this organization?`,
                    label: "Remove",
                    subject: m.email,
                  })}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      <h2>Invitations</h2>
      ${
        invitations.length === 0
          ? html`<p>No invitation is waiting.</p>`
          : html`<table data-cards>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                ${invitations.map(
                  (invitation) =>
                    html`<tr>
                      <td data-label="Email">${invitation.email}</td>
                      <td data-label="Role">${invitation.role}</td>
                      <td data-label="Actions">
                        <form class="inline" method="post" action="/console/orgs/${org}/invitations/remove">
                          ${csrf}<input type="hidden" name="email" value="${invitation.email}" />
                          <button type="submit" aria-label="Withdraw invitation of ${invitation.email}">
                            Withdraw
                          </button>
                        </form>
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
      <h2>Invite a member</h2>
      <p>
        The person becomes a member when they accept, after signing in to the console. Whether the email
        already has an account is not shown here.
      </p>
      <form method="post" action="/console/orgs/${org}/members">
        ${csrf}
        <label for="member-email">Email</label><input id="member-email" name="email" type="email" required />
        <label for="member-role">Role</label
        ><select id="member-role" name="role">
          ${roleOptions("member")}
        </select>
        <label for="member-password"
          >Initial password (used only if the email has no account yet; at least 12 characters)</label
        >
        <input id="member-password" name="password" type="password" autocomplete="new-password" />
        <p><button type="submit">Invite</button></p>
      </form>`,
  );
}

/** Members: owners only. Each change goes through the user service, audited as `user:<id>`. */
export async function memberPages(
  app: FastifyInstance,
  { users }: { users: ConsoleUserService },
): Promise<void> {
  const ownerContext = async (request: Parameters<typeof pageContext>[0], orgId: string) => {
    const context = await pageContext(request, users, orgId);
    assertCanManageMembers(context);
    return context;
  };
  const html200 = (reply: FastifyReply, status: number, page: { text: string }) =>
    reply.code(status).type("text/html").send(page.text);

  app.get<{ Params: OrgParams; Querystring: { notice?: string } }>(
    "/orgs/:orgId/members",
    async (request, reply) => {
      const context = await ownerContext(request, request.params.orgId);
      const notice = NOTICES[request.query.notice ?? ""];
      return html200(reply, 200, await membersPage(users, context, undefined, notice));
    },
  );

  /** Runs a change; a refused one (bad input, the last owner) re-renders the page with the reason. */
  async function change(
    request: Parameters<typeof pageContext>[0],
    reply: FastifyReply,
    orgId: string,
    work: (actor: string) => Promise<unknown>,
    notice = "saved",
  ) {
    const context = await ownerContext(request, orgId);
    try {
      await work(userActor(context.signedIn.user.id));
    } catch (error) {
      if (!(error instanceof LatchkeyError) || error.status !== 400) throw error;
      return html200(reply, 400, await membersPage(users, context, error.message));
    }
    return reply.redirect(`/console/orgs/${orgId}/members?notice=${notice}`, 303);
  }

  app.post<{ Params: OrgParams }>("/orgs/:orgId/members", async (request, reply) => {
    const form = formOf(request);
    const password = form.get("password") || undefined;
    return change(
      request,
      reply,
      request.params.orgId,
      (actor) =>
        users.invite(
          {
            email: form.get("email") ?? "",
            role: form.get("role") ?? "",
            orgId: request.params.orgId,
            ...(password ? { password } : {}),
          },
          actor,
        ),
      "invited",
    );
  });

  app.post<{ Params: OrgParams }>("/orgs/:orgId/invitations/remove", async (request, reply) =>
    change(request, reply, request.params.orgId, (actor) =>
      users.revokeInvitation(
        { orgId: request.params.orgId, email: formOf(request).get("email") ?? "" },
        actor,
      ),
    ),
  );

  app.post<{ Params: MemberParams }>("/orgs/:orgId/members/:userId", async (request, reply) =>
    change(request, reply, request.params.orgId, (actor) =>
      users.setRole({ ...request.params, role: formOf(request).get("role") ?? "" }, actor),
    ),
  );

  app.post<{ Params: MemberParams }>("/orgs/:orgId/members/:userId/remove", async (request, reply) =>
    change(request, reply, request.params.orgId, (actor) => users.removeMember(request.params, actor)),
  );
}
