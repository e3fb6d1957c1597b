import type { FastifyInstance, FastifyReply } from "fastify";
import { CONSOLE_ROLES, userActor } from "../../domain/console-roles.js";
import { LatchkeyError } from "../../domain/errors.js";
import { html } from "../html.js";
import { confirmedActionForm, csrfField, organizationPage, type PageContext } from "../layout.js";
import { assertCanManageMembers, pageContext } from "../page-context.js";
import { formOf } from "../request-guard.js";
import type { ConsoleUserService } from "../../services/console-users.js";

type OrgParams = { orgId: string };
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
      <h2>Add a member</h2>
      <form method="post" action="/console/orgs/${org}/members">
        ${csrf}
        <label for="member-email">Email</label><input id="member-email" name="email" type="email" required />
        <label for="member-role">Role</label
        ><select id="member-role" name="role">
          ${roleOptions("member")}
        </select>
        <label for="member-password">Initial password (only for a new account; at least 12 characters)</label>
        <input id="member-password" name="password" type="password" autocomplete="new-password" />
        <p><button type="submit">Add member</button></p>
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
      const notice = request.query.notice === "saved" ? "Members updated." : undefined;
      return html200(reply, 200, await membersPage(users, context, undefined, notice));
    },
  );

  /** Runs a change; a refused one (bad input, the last owner) re-renders the page with the reason. */
  async function change(
    request: Parameters<typeof pageContext>[0],
    reply: FastifyReply,
    orgId: string,
    work: (actor: string) => Promise<unknown>,
  ) {
    const context = await ownerContext(request, orgId);
    try {
      await work(userActor(context.signedIn.user.id));
    } catch (error) {
      if (!(error instanceof LatchkeyError) || error.status !== 400) throw error;
      return html200(reply, 400, await membersPage(users, context, error.message));
    }
    return reply.redirect(`/console/orgs/${orgId}/members?notice=saved`, 303);
  }

  app.post<{ Params: OrgParams }>("/orgs/:orgId/members", async (request, reply) => {
    const form = formOf(request);
    const password = form.get("password") || undefined;
    return change(request, reply, request.params.orgId, (actor) =>
      users.add(
        {
          email: form.get("email") ?? "",
          role: form.get("role") ?? "",
          orgId: request.params.orgId,
          ...(password ? { password } : {}),
        },
        actor,
      ),
    );
  });

  app.post<{ Params: MemberParams }>("/orgs/:orgId/members/:userId", async (request, reply) =>
    change(request, reply, request.params.orgId, (actor) =>
      users.setRole({ ...request.params, role: formOf(request).get("role") ?? "" }, actor),
    ),
  );

  app.post<{ Params: MemberParams }>("/orgs/:orgId/members/:userId/remove", async (request, reply) =>
    change(request, reply, request.params.orgId, (actor) => users.removeMember(request.params, actor)),
  );
}
