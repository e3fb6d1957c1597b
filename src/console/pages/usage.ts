import type { FastifyInstance } from "fastify";
import { html } from "../html.js";
import { organizationPage } from "../layout.js";
import { type Memberships, pageContext } from "../page-context.js";
import { barChart, barTable, series } from "./usage-chart.js";
import type { Clock } from "../../domain/clock.js";
import type { UsageService } from "../../services/usage.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const hour = (ms: number) => new Date(ms).toISOString().slice(0, 13).replace("T", " ") + ":00";

/** Usage: the current billing period against the allowance, then the last 72 hours and 60 days. */
export async function usagePages(
  app: FastifyInstance,
  services: { usage: UsageService; users: Memberships; clock: Clock },
): Promise<void> {
  app.get<{ Params: { orgId: string } }>("/orgs/:orgId/usage", async (request, reply) => {
    const context = await pageContext(request, services.users, request.params.orgId);
    const orgId = context.current.orgId;
    const [report, period] = await Promise.all([
      services.usage.report(orgId),
      services.usage.currentPeriod(orgId),
    ]);
    const now = services.clock.now();
    const hours = series(report.hour, now, 72, HOUR_MS, hour);
    const days = series(report.day, now, 60, DAY_MS, day);
    const current = report.perBillingPeriod[report.perBillingPeriod.length - 1];
    const percent = period.allowed === 0 ? 100 : Math.round((100 * period.used) / period.allowed);
    const content = html`<section aria-labelledby="period">
        <h2 id="period">This billing period</h2>
        <p>
          <strong>${period.used}</strong> of <strong>${period.allowed}</strong> image credits used
          (${percent}%)${period.overages ? ", overages allowed" : ""}; the period
          ${current ? html`began ${day(current.start)} and ` : ""}ends ${day(period.resetsAt)}.
        </p>
        <meter
          min="0"
          max="${Math.max(1, period.allowed)}"
          low="${Math.round(period.allowed * 0.8)}"
          high="${Math.round(period.allowed * 0.95)}"
          optimum="0"
          value="${Math.min(period.used, period.allowed)}"
          aria-label="Credits used"
        >
          ${period.used} / ${period.allowed}
        </meter>
      </section>
      <div class="charts">
        <section aria-labelledby="hours">
          <h2 id="hours">Last 72 hours</h2>
          ${barChart("Images per hour, last 72 hours", hours, "images")}
          ${barTable("Images per hour, as a table", "Hour (UTC)", hours, "images")}
        </section>
        <section aria-labelledby="days">
          <h2 id="days">Last 60 days</h2>
          ${barChart("Images per day, last 60 days", days, "images")}
          ${barTable("Images per day, as a table", "Day (UTC)", days, "images")}
        </section>
      </div>`;
    return reply.type("text/html").send(organizationPage(context, "usage", "Usage", content).text);
  });
}
