import type { UsageReport } from "@latchkey/client";
import type { Command } from "commander";
import { formatTable } from "./text-table.js";

function printUsage(orgId: string, report: UsageReport, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const rows = report.per_billing_period.map((period) => [
    period.start,
    period.end,
    String(period.total_images),
  ]);
  const count = `${rows.length} billing period${rows.length === 1 ? "" : "s"} of ${orgId}, the current one last`;
  process.stdout.write(formatTable(["START", "END", "IMAGES"], rows, count));
}

async function usage(orgId: string, flags: { url?: string; json?: boolean }): Promise<void> {
  const report = flags.url
    ? await (await import("./org-organization-remote.js")).usageRemotely(flags.url, orgId)
    : await (await import("./org-organization-local.js")).usageLocally(orgId);
  printUsage(orgId, report, flags.json === true);
}

/** `latchkey org usage`: an organization's usage, as its own `GET /v1/usage` shows it. */
export function registerOrgUsageCommand(org: Command): void {
  org
    .command("usage")
    .description("Show an organization's images per billing period (--json: per hour, day and month too).")
    .argument("<org>", "organization id (org_...)")
    .option("--url <url>", "read it through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN)")
    .option("--json", "print the usage report as the API answers it")
    .action(usage);
}
