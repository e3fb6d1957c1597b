import type { Organization, UpdateOrganizationRequest } from "@latchkey/client";
import type { Command } from "commander";
import { UsageError } from "./exit-codes.js";
import { printable } from "./text-table.js";

const UPDATE_HELP = `
Changes only the members given. --disable refuses the organization's keys, connections and console
users (403 organization_disabled) on every node from the next request, keeping everything; --enable
lets them in again. --no-external-id removes the platform's id. Beside the database, or with --url
through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN), with the same checks (the route's
messages) and output. See docs/provisioning.md.`;

interface UpdateFlags {
  name?: string;
  /** A string sets it; false (--no-external-id) removes it. */
  externalId?: string | false;
  disable?: boolean;
  enable?: boolean;
  url?: string;
  json?: boolean;
}

/** What `org show` and `org update` print, beside the database or through `--url`: one shape for both. */
function printOrganization(org: Organization, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(org, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `Organization ${org.id}:\n` +
      `  name:        ${printable(org.name)}\n` +
      `  external id: ${org.external_id === null ? "none" : printable(org.external_id)}\n` +
      `  state:       ${org.enabled ? "enabled" : "disabled"}\n` +
      `  created:     ${org.created_at}\n` +
      `  updated:     ${org.updated_at}\n`,
  );
}

/** The `PATCH` body the flags ask for; a refusal for flags that do not go together, or none at all. */
function changesOf(flags: UpdateFlags): UpdateOrganizationRequest {
  if (flags.disable && flags.enable) throw new UsageError("--disable and --enable: give one.");
  const changes: UpdateOrganizationRequest = {};
  if (flags.name !== undefined) changes.name = flags.name;
  if (flags.externalId !== undefined)
    changes.external_id = flags.externalId === false ? null : flags.externalId;
  if (flags.disable || flags.enable) changes.disabled = flags.disable === true;
  if (Object.keys(changes).length === 0)
    throw new UsageError(
      "Nothing to change: give --name, --external-id, --no-external-id, --disable or --enable.",
    );
  return changes;
}

async function show(orgId: string, flags: { url?: string; json?: boolean }): Promise<void> {
  const org = flags.url
    ? await (await import("./org-organization-remote.js")).showRemotely(flags.url, orgId)
    : await (await import("./org-organization-local.js")).showLocally(orgId);
  printOrganization(org, flags.json === true);
}

async function update(orgId: string, flags: UpdateFlags): Promise<void> {
  const changes = changesOf(flags);
  const org = flags.url
    ? await (await import("./org-organization-remote.js")).updateRemotely(flags.url, orgId, changes)
    : await (await import("./org-organization-local.js")).updateLocally(orgId, changes);
  printOrganization(org, flags.json === true);
}

const URL_HELP = "through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN)";

/** `latchkey org show|update`: one organization, beside the database or with --url. */
export function registerOrgOrganizationCommands(org: Command): void {
  org
    .command("show")
    .description("Show an organization: its name, external id and whether it is enabled.")
    .argument("<org>", "organization id (org_...)")
    .option("--url <url>", `show it ${URL_HELP}`)
    .option("--json", "print the organization as the API answers it")
    .action(show);
  org
    .command("update")
    .description("Rename an organization, set its external id, or disable or enable it.")
    .argument("<org>", "organization id (org_...)")
    .option("--name <name>", "the new name (unique, ignoring case)")
    .option("--external-id <id>", "the platform's own id of this customer (unique)")
    .option("--no-external-id", "remove the external id")
    .option("--disable", "refuse the organization's keys, connections and users from the next request")
    .option("--enable", "let them in again")
    .option("--url <url>", `change it ${URL_HELP}`)
    .option("--json", "print the resulting organization as JSON")
    .addHelpText("after", UPDATE_HELP)
    .action(update);
}
