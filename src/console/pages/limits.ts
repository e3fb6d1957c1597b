import type { FastifyInstance } from "fastify";
import { defaultQuota } from "../../domain/rate-limit-groups.js";
import type { OrganizationLimitsView } from "../../services/organization-limits.js";
import { html } from "../html.js";
import { organizationPage } from "../layout.js";
import { type Memberships, pageContext } from "../page-context.js";

/**
 * Rate limits: each management group's quota per window, what is left of it now (read from the
 * limiter without counting), and whether an operator override applies. Overrides are set with
 * `latchkey org limits`; the console shows them.
 */
export async function limitPages(
  app: FastifyInstance,
  { users, limits: view }: { users: Memberships; limits: OrganizationLimitsView },
): Promise<void> {
  app.get<{ Params: { orgId: string } }>("/orgs/:orgId/limits", async (request, reply) => {
    const context = await pageContext(request, users, request.params.orgId);
    const { overrides: limits, groups: rows } = await view.read(context.current.orgId);
    const window = rows[0]?.windowSeconds ?? 60;
    const content = html`<p>
        Requests per ${window === 60 ? "minute" : `${window} seconds`} per organization, shared by every key
        and connection. Console actions are not counted here: they have their own allowance per user.
      </p>
      <table data-cards>
        <thead>
          <tr>
            <th scope="col">Group</th>
            <th scope="col">Quota</th>
            <th scope="col">Left now</th>
            <th scope="col">Override</th>
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (row) =>
              html`<tr>
                <th scope="row"><code>${row.group}</code></th>
                <td data-label="Quota">${row.quota}</td>
                <td data-label="Left now">
                  ${row.remaining}
                  <meter
                    min="0"
                    max="${row.quota}"
                    low="${Math.ceil(row.quota / 4)}"
                    high="${Math.ceil(row.quota / 2)}"
                    optimum="${row.quota}"
                    value="${row.remaining}"
                    aria-label="Left of ${row.group}"
                  >
                    ${row.remaining} / ${row.quota}
                  </meter>
                </td>
                <td data-label="Override">
                  ${limits.quotas[row.group] === undefined ? "default" : `override (default ${defaultQuota(row.group)})`}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      <p>
        Key quota: ${limits.maxKeys ?? 100} keys${limits.maxKeys === null ? " (default)" : " (override)"}.
      </p>`;
    return reply.type("text/html").send(organizationPage(context, "limits", "Rate limits", content).text);
  });
}
