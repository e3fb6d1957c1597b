import type { Command } from "commander";
import { systemClock } from "../domain/clock.js";
import { toKeyResponse } from "../http/key-response.js";
import { createOrganizationWithOwner } from "../services/organizations.js";
import type { KeyStore } from "../store/key-store.js";
import { agreedHasher } from "./agreed-hasher.js";
import type { OrganizationRow } from "./org-list-remote.js";
import { registerOrgCreditsCommand } from "./org-credits-command.js";
import { registerOrgOrganizationCommands } from "./org-organization-command.js";
import { registerOrgOwnerKeyCommand } from "./org-owner-key-command.js";
import { registerOrgUsageCommand } from "./org-usage-command.js";
import { registerOrgLimitsCommand } from "./org-limits-command.js";
import { registerOrgPlanCommand } from "./org-plan-command.js";
import { registerOrgPolicyCommand } from "./org-policy-command.js";
import { formatTable, printable } from "./text-table.js";
import { withStores } from "./with-stores.js";

/** The key store alone, for the commands that need nothing else. */
function withStore<T>(work: (store: KeyStore) => Promise<T>): Promise<T> {
  return withStores((stores) => work(stores.keys));
}

/** `org create` beside the database: the organization and its owner key, as `--json` prints them. */
async function createBesideTheDatabase(name: string) {
  const created = await withStores(async (stores) =>
    createOrganizationWithOwner(
      { store: stores.keys, hasher: await agreedHasher(stores), clock: systemClock },
      name,
    ),
  );
  return {
    organization: { id: created.organization.id, name: created.organization.name },
    key: { ...toKeyResponse(created.owner, systemClock.now()), api_key: created.secret },
  };
}

/** `org create --url`: the same, through the provisioning API of a running server. */
async function createRemotely(url: string, name: string) {
  const { adminClient } = await import("./admin-connection.js");
  const { organization, key } = await adminClient(url).admin.createOrganization({ name });
  return { organization: { id: organization.id, name: organization.name }, key };
}

export function registerOrgCommands(program: Command): void {
  const org = program
    .command("org")
    .description("Manage organizations (operator commands, run beside the database).");
  registerOrgPlanCommand(org);
  registerOrgPolicyCommand(org);

  org
    .command("create")
    .description("Create an organization and its owner key, and print them (the secret only this once).")
    .requiredOption("--name <name>", "organization name")
    .option("--url <url>", "create through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN)")
    .option("--json", "print {organization, key} as JSON")
    .action(async (options: { name: string; url?: string; json?: boolean }) => {
      const { organization, key } = options.url
        ? await createRemotely(options.url, options.name)
        : await createBesideTheDatabase(options.name);
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ organization, key }, null, 2)}\n`);
        return;
      }
      process.stdout.write(
        `Created organization ${organization.name} (${organization.id}).\n` +
          `Owner key (all current and future permissions); store the secret now, it is not shown again:\n` +
          `  api_id:  ${key.api_id}\n  api_key: ${key.api_key}\n`,
      );
    });

  org
    .command("list")
    .description("List the organizations of this database, oldest first.")
    .option("--url <url>", "list through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN)")
    .option("--json", "print [{id, name, created_at, key_count}] as JSON (key_count null with --url)")
    .action(async (options: { url?: string; json?: boolean }) => {
      const rows: OrganizationRow[] = options.url
        ? await (await import("./org-list-remote.js")).listRemotely(options.url)
        : (await withStore((store) => store.listOrganizations())).map((org) => ({
            id: org.id,
            name: org.name,
            created_at: new Date(org.createdAt).toISOString(),
            key_count: org.keyCount,
          }));
      if (options.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      const table = rows.map((row) => [
        row.id,
        printable(row.name),
        String(row.key_count ?? "-"),
        row.created_at,
      ]);
      const count = `${rows.length} organization${rows.length === 1 ? "" : "s"}`;
      process.stdout.write(formatTable(["ID", "NAME", "KEYS", "CREATED"], table, count));
    });
  registerOrgLimitsCommand(org);
  registerOrgCreditsCommand(org);
  registerOrgOrganizationCommands(org);
  registerOrgOwnerKeyCommand(org);
  registerOrgUsageCommand(org);
}
