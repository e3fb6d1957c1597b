import type { CreditGrant, CreditGrantRequest } from "@latchkey/client";
import type { Command } from "commander";
import { formatTable, printable } from "./text-table.js";

const CREDITS_HELP = `
A grant (a top-up) adds image credits consumed after the billing period's allowance, soonest expiry
first, until used or expired; every node uses it from the next request on. Beside the database, or with
--url through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN), with the same checks and
output: --credits is a whole number from 1 to 1000000000, --expires-at an RFC 3339 time in the future.
See docs/provisioning.md.`;

/**
 * `--credits` as given: a number when it reads as one, the text otherwise, so that the route's schema
 * (beside the database, or the server's with --url) refuses 0, -5, 2.5 or "many" with its own message.
 */
function creditsValue(value: string): number | string {
  return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
}

interface GrantFlags {
  credits: number | string;
  expiresAt?: string;
  reason?: string;
  url?: string;
  json?: boolean;
}

function printGrants(grants: CreditGrant[], json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(grants, null, 2)}\n`);
    return;
  }
  const rows = grants.map((grant) => [
    grant.id,
    String(grant.credits),
    String(grant.remaining),
    grant.expires_at ?? "never",
    grant.created_at,
    printable(grant.reason ?? ""),
  ]);
  const count = `${grants.length} credit grant${grants.length === 1 ? "" : "s"}`;
  process.stdout.write(
    formatTable(["ID", "CREDITS", "REMAINING", "EXPIRES", "CREATED", "REASON"], rows, count),
  );
}

async function grant(orgId: string, flags: GrantFlags): Promise<void> {
  // The route's body as the API takes it; the type says number, the schema decides (creditsValue).
  const request = {
    credits: flags.credits,
    ...(flags.expiresAt !== undefined ? { expires_at: flags.expiresAt } : {}),
    ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
  } as CreditGrantRequest;
  const made = flags.url
    ? await (await import("./org-credits-remote.js")).grantRemotely(flags.url, orgId, request)
    : await (await import("./org-credits-local.js")).grantLocally(orgId, request);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(made, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `Granted ${made.credits} credits to ${orgId} (${made.id}), ` +
      `${made.expires_at === null ? "never expiring" : `expiring ${made.expires_at}`}.\n`,
  );
}

async function list(orgId: string, flags: { url?: string; json?: boolean }): Promise<void> {
  const grants = flags.url
    ? await (await import("./org-credits-remote.js")).listRemotely(flags.url, orgId)
    : await (await import("./org-credits-local.js")).listLocally(orgId);
  printGrants(grants, flags.json === true);
}

const URL_HELP = "through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN)";

/** `latchkey org credits grant|list`: an organization's credit grants, beside the database or with --url. */
export function registerOrgCreditsCommand(org: Command): void {
  const credits = org.command("credits").description("Grant image credits (top-ups) and list them.");
  credits
    .command("grant")
    .description("Grant image credits to an organization, consumed after its period's allowance.")
    .argument("<org>", "organization id (org_...)")
    .requiredOption("--credits <n>", "credits to add, 1 to 1000000000", creditsValue)
    .option("--expires-at <time>", "RFC 3339 time (in the future) when what is left stops counting")
    .option("--reason <text>", "why, e.g. an invoice number (kept in the grant and the audit log)")
    .option("--url <url>", `grant ${URL_HELP}`)
    .option("--json", "print the grant as JSON")
    .addHelpText("after", CREDITS_HELP)
    .action(grant);
  credits
    .command("list")
    .description("List an organization's credit grants, newest first, with what is left of each.")
    .argument("<org>", "organization id (org_...)")
    .option("--url <url>", `list ${URL_HELP}`)
    .option("--json", "print a JSON array of grants")
    .action(list);
}
