import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { loadConfig } from "../config.js";
import { systemClock } from "../domain/clock.js";
import { createSecretHasher } from "../domain/credentials.js";
import { LatchkeyError } from "../domain/errors.js";
import { DEFAULT_MAX_KEYS } from "../domain/key-configuration.js";
import { defaultQuota, isRateLimitGroup, RATE_LIMIT_GROUPS } from "../domain/rate-limit-groups.js";
import { toKeyResponse } from "../http/key-response.js";
import { changeOrganizationLimits } from "../services/organization-limits.js";
import { createOrganizationWithOwner } from "../services/organizations.js";
import type { KeyStore, LimitChanges } from "../store/key-store.js";
import { UsageError } from "./exit-codes.js";
import { registerOrgPlanCommand } from "./org-plan-command.js";
import { registerOrgPolicyCommand } from "./org-policy-command.js";
import { parseInteger } from "./parse.js";
import { formatTable, printable } from "./text-table.js";
import { withStores } from "./with-stores.js";

/** The key store alone, for the commands that need nothing else. */
function withStore<T>(work: (store: KeyStore) => Promise<T>): Promise<T> {
  return withStores((stores) => work(stores.keys));
}

function parseGroup(value: string): string {
  if (!isRateLimitGroup(value))
    throw new InvalidArgumentError(`must be one of ${RATE_LIMIT_GROUPS.join(", ")}.`);
  return value;
}

/**
 * `--quota default` clears an override; a number sets one. (Commander turns a parser's null into "",
 * so the sentinel stays a string until it is used.)
 */
function parseQuota(value: string): number | "default" {
  if (value === "default") return "default";
  const quota = parseInteger(value);
  if (quota < 1) throw new InvalidArgumentError("must be at least 1 (or 'default').");
  return quota;
}

const orNull = (value: number | "default"): number | null => (value === "default" ? null : value);

/** `org create` beside the database: the organization and its owner key, as `--json` prints them. */
async function createBesideTheDatabase(name: string) {
  const created = await withStore((store) =>
    createOrganizationWithOwner(
      { store, hasher: createSecretHasher(loadConfig().secretPepper), clock: systemClock },
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

/** What `org limits` prints, beside the database or through `--url`. */
interface LimitsOutput {
  organization: string;
  max_keys: number;
  window_seconds: number;
  quotas: Record<string, number>;
}

function printLimits(result: LimitsOutput, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `Limits of ${result.organization} (window ${result.window_seconds}s):\n  max keys: ${result.max_keys}\n`,
  );
  for (const [group, quota] of Object.entries(result.quotas))
    process.stdout.write(`  ${group.padEnd(26)} ${quota}\n`);
}

/**
 * `org limits --url`: through the provisioning API. A quota overrides the group in its current window;
 * `default` removes the override. The key quota is changed beside the database only.
 */
async function limitsRemotely(
  url: string,
  options: {
    org: string;
    group?: string;
    quota?: number | "default";
    maxKeys?: number | "default";
    json?: boolean;
  },
): Promise<void> {
  if (options.maxKeys !== undefined)
    throw new UsageError("--max-keys is changed beside the database, not with --url.");
  if ((options.group === undefined) !== (options.quota === undefined)) {
    throw new UsageError("--group and --quota go together.");
  }
  const { adminClient } = await import("./admin-connection.js");
  const { admin } = adminClient(url);
  const { group, quota } = options;
  if (group !== undefined && quota === "default") await admin.removeLimit(options.org, group);
  if (group !== undefined && typeof quota === "number") {
    const current = (await admin.getLimits(options.org)).data[group];
    const window = current?.policies[0]?.window_seconds ?? 60;
    await admin.setLimit(options.org, group, { policies: [{ quota, window_seconds: window }] });
  }
  const limits = await admin.getLimits(options.org);
  const entries = RATE_LIMIT_GROUPS.map((name) => [name, limits.data[name]] as const);
  const window =
    entries.find(([, limit]) => limit?.source === "default")?.[1]?.policies[0]?.window_seconds ?? 60;
  printLimits(
    {
      organization: options.org,
      max_keys: limits.max_keys,
      window_seconds: window,
      quotas: Object.fromEntries(
        entries.map(([name, limit]) => [name, limit?.policies[0]?.quota ?? defaultQuota(name)]),
      ),
    },
    options.json === true,
  );
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
    .option("--json", "print [{id, name, created_at, key_count}] as JSON")
    .action(async (options: { json?: boolean }) => {
      const organizations = await withStore((store) => store.listOrganizations());
      const rows = organizations.map((org) => ({
        id: org.id,
        name: org.name,
        created_at: new Date(org.createdAt).toISOString(),
        key_count: org.keyCount,
      }));
      if (options.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      const table = rows.map((row) => [row.id, printable(row.name), String(row.key_count), row.created_at]);
      const count = `${rows.length} organization${rows.length === 1 ? "" : "s"}`;
      process.stdout.write(formatTable(["ID", "NAME", "KEYS", "CREATED"], table, count));
    });

  org
    .command("limits")
    .description("Show or override an organization's limits; running nodes apply changes within 2 seconds.")
    .requiredOption("--org <id>", "organization id (org_...)")
    .option("--group <group>", "operation group to override, with --quota", parseGroup)
    .option("--quota <n>", "requests per window for --group, or 'default'", parseQuota)
    .option("--max-keys <n>", "key quota, or 'default'", parseQuota)
    .option(
      "--url <url>",
      "show or change them through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN)",
    )
    .option("--json", "print the resulting limits as JSON")
    .action(
      async (options: {
        org: string;
        group?: string;
        quota?: number | "default";
        maxKeys?: number | "default";
        url?: string;
        json?: boolean;
      }) => {
        if (options.url) {
          await limitsRemotely(options.url, options);
          return;
        }
        if ((options.group === undefined) !== (options.quota === undefined)) {
          throw new UsageError("--group and --quota go together.");
        }
        const changes: LimitChanges = {};
        if (options.group !== undefined && options.quota !== undefined && isRateLimitGroup(options.group)) {
          changes.quotas = { [options.group]: orNull(options.quota) };
        }
        if (options.maxKeys !== undefined) changes.maxKeys = orNull(options.maxKeys);
        const limits = await withStore(async (store) => {
          // Showing writes nothing and records nothing; a change is written with its audit entry.
          if (changes.quotas !== undefined || changes.maxKeys !== undefined) {
            return changeOrganizationLimits({ store, clock: systemClock }, options.org, changes);
          }
          if (!(await store.findOrganization(options.org)))
            throw new LatchkeyError("not_found", `No organization ${options.org}.`);
          return store.getLimits(options.org);
        });
        printLimits(
          {
            organization: options.org,
            max_keys: limits.maxKeys ?? DEFAULT_MAX_KEYS,
            window_seconds: loadConfig().rateWindowSeconds,
            quotas: Object.fromEntries(
              RATE_LIMIT_GROUPS.map((group) => [
                group,
                // An override made through the admin API, else one made here, else the default.
                limits.overrides?.[group]?.policies?.[0]?.quota ??
                  limits.quotas[group] ??
                  defaultQuota(group),
              ]),
            ),
          },
          options.json === true,
        );
      },
    );
}
