import type { FastifyInstance } from "fastify";
import { invalidRequest } from "../../domain/errors.js";
import { html } from "../html.js";
import { organizationPage } from "../layout.js";
import { type Memberships, pageContext } from "../page-context.js";
import type { AuditLog } from "../../services/audit-log.js";

type AuditQuery = { actor?: string; target?: string; since?: string; until?: string; page?: string };

/** A `datetime-local` value, read as UTC (the page says so); empty means no bound. */
function parseTime(value: string | undefined, name: string): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(/Z$/.test(value) ? value : `${value}Z`);
  if (Number.isNaN(ms)) throw invalidRequest(`"${value}" is not a date and time.`, `/query/${name}`);
  return ms;
}

const localValue = (ms: number | undefined) =>
  ms === undefined ? "" : new Date(ms).toISOString().slice(0, 16);

/** The organization's audit trail, newest first, filtered by actor, target and time, 50 a page. */
export async function auditPages(
  app: FastifyInstance,
  services: { audit: AuditLog; users: Memberships },
): Promise<void> {
  app.get<{ Params: { orgId: string }; Querystring: AuditQuery }>(
    "/orgs/:orgId/audit",
    async (request, reply) => {
      const context = await pageContext(request, services.users, request.params.orgId);
      const query = request.query;
      const since = parseTime(query.since, "since");
      const until = parseTime(query.until, "until");
      const actor = query.actor?.trim() || undefined;
      const target = query.target?.trim() || undefined;
      const page = await services.audit.list({
        orgId: context.current.orgId,
        count: 50,
        pageStart: query.page || undefined,
        since,
        until,
        actor,
        targetId: target,
      });
      const next = page.nextPageStart
        ? `?${new URLSearchParams({ actor: actor ?? "", target: target ?? "", since: query.since ?? "", until: query.until ?? "", page: page.nextPageStart }).toString()}`
        : undefined;
      const content = html`<search aria-label="Filter the audit trail">
          <form class="filters" method="get" action="/console/orgs/${context.current.orgId}/audit">
            <div>
              <label for="actor">Actor</label
              ><input
                id="actor"
                name="actor"
                type="text"
                value="${actor ?? ""}"
                placeholder="key_…, user:usr_…, operator"
              />
            </div>
            <div>
              <label for="target">Target</label
              ><input
                id="target"
                name="target"
                type="text"
                value="${target ?? ""}"
                placeholder="key_…, usr_…"
              />
            </div>
            <div>
              <label for="since">From (UTC)</label
              ><input id="since" name="since" type="datetime-local" value="${localValue(since)}" />
            </div>
            <div>
              <label for="until">Until (UTC)</label
              ><input id="until" name="until" type="datetime-local" value="${localValue(until)}" />
            </div>
            <div><button type="submit">Filter</button></div>
          </form>
        </search>
        ${
          page.entries.length === 0
            ? html`<p>No entries match.</p>`
            : html`<table data-cards>
                <thead>
                  <tr>
                    <th scope="col">When (UTC)</th>
                    <th scope="col">Actor</th>
                    <th scope="col">Action</th>
                    <th scope="col">Target</th>
                  </tr>
                </thead>
                <tbody>
                  ${page.entries.map(
                    (entry) =>
                      html`<tr>
                        <td data-label="When (UTC)">
                          ${new Date(entry.at).toISOString().replace("T", " ").slice(0, 19)}
                        </td>
                        <td data-label="Actor"><code>${entry.actor}</code></td>
                        <td data-label="Action">${entry.action}</td>
                        <td data-label="Target"><code>${entry.targetId}</code></td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
        ${next ? html`<p><a href="${next}">Older entries</a></p>` : ""}`;
      return reply.type("text/html").send(organizationPage(context, "audit", "Audit", content).text);
    },
  );
}
