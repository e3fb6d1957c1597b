import type { CreatedKey } from "@latchkey/client";
import type { Command } from "commander";

async function ownerKey(orgId: string, flags: { url?: string; json?: boolean }): Promise<void> {
  const key: CreatedKey = flags.url
    ? await (await import("./admin-connection.js")).adminClient(flags.url).admin.createOwnerKey(orgId)
    : await (await import("./org-owner-key-local.js")).ownerKeyLocally(orgId);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(key, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `Created an owner key for ${orgId} (${key.id}).\n` +
      `Owner key (all current and future permissions); store the secret now, it is not shown again:\n` +
      `  api_id:  ${key.api_id}\n  api_key: ${key.api_key}\n`,
  );
}

/** `latchkey org owner-key`: a new owner key for an organization whose owner lost theirs. */
export function registerOrgOwnerKeyCommand(org: Command): void {
  org
    .command("owner-key")
    .description(
      "Create a new owner key for an organization (recovery) and print it (the secret only this once).",
    )
    .argument("<org>", "organization id (org_...)")
    .option("--url <url>", "create it through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN)")
    .option("--json", "print the key record with api_id and api_key as JSON")
    .action(ownerKey);
}
