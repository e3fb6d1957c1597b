import type { EffectiveLimit, OrganizationLimits } from "@latchkey/client";
import { type Command, InvalidArgumentError } from "commander";
import { defaultQuota, isRateLimitGroup, RATE_LIMIT_GROUPS } from "../domain/rate-limit-groups.js";
import { UsageError } from "./exit-codes.js";
import type { GroupChange } from "./org-limits-change.js";
import { parseInteger } from "./parse.js";
import { formatWindows, parsePer, parseWindows, type WindowFlag } from "./rate-limit-windows.js";

const LIMITS_HELP = `
--quota sets one window of the deployment's length for a management group (as before stacked limits);
--policy sets a group's whole list of windows, for any group the deployment knows (the management
groups, LATCHKEY_GROUPS and those declared through the admin API), in the syntax of keys --rate-limit:
  latchkey org limits --org org_... --group render --policy 10/1,1000/3600,20000/86400 --per key
Up to 5 windows of 1 s to 31 days each. --per says whether each key of the organization counts on its
own (key) or all of them together (organization); without it the group keeps how it counts now.
'default' (for --quota or --policy) removes the organization's override of the group. Beside the
database, or with --url through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN), with the
same output. See docs/rate-limits.md.`;

interface LimitsFlags {
  org: string;
  group?: string;
  quota?: number | "default";
  policy?: WindowFlag[] | "default";
  per?: "organization" | "key";
  maxKeys?: number | "default";
  url?: string;
  json?: boolean;
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

function parsePolicy(value: string): WindowFlag[] | "default" {
  if (value === "default") return "default";
  const windows = parseWindows(value);
  if (!windows)
    throw new InvalidArgumentError("takes <quota>/<seconds>[,<quota>/<seconds>...] or 'default'.");
  return windows;
}

/** The group change the flags ask for, if any; a refusal for flags that do not go together. */
function groupChange(flags: LimitsFlags): GroupChange | undefined {
  const { group, quota, policy, per } = flags;
  if (quota !== undefined && policy !== undefined) throw new UsageError("--quota and --policy: give one.");
  if (per !== undefined && (policy === undefined || policy === "default"))
    throw new UsageError("--per goes with --policy <windows>.");
  if ((group === undefined) !== (quota === undefined && policy === undefined))
    throw new UsageError("--group goes with --quota or --policy.");
  if (group === undefined) return undefined;
  if (quota === "default" || policy === "default") return { type: "remove", group };
  if (quota !== undefined) {
    if (!isRateLimitGroup(group))
      throw new UsageError(`--quota is for ${RATE_LIMIT_GROUPS.join(", ")}; use --policy for ${group}.`);
    return { type: "quota", group, quota };
  }
  return { type: "windows", group, policies: policy ?? [], ...(per ? { per } : {}) };
}

/** What `org limits` prints, beside the database or through `--url`: one shape for both. */
function printLimits(orgId: string, limits: OrganizationLimits, windowSeconds: number, json: boolean): void {
  const management = RATE_LIMIT_GROUPS.map((group) => [group, limits.data[group]] as const);
  if (json) {
    const output = {
      organization: orgId,
      max_keys: limits.max_keys,
      window_seconds: windowSeconds,
      // The management groups' first window, as before stacked limits (scripts read it).
      quotas: Object.fromEntries(
        management.map(([group, limit]) => [group, limit?.policies[0]?.quota ?? defaultQuota(group)]),
      ),
      limits: limits.data,
    };
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    return;
  }
  const line = (group: string, limit: EffectiveLimit) =>
    `  ${group.padEnd(26)} ${formatWindows(limit.policies)} per ${limit.per}` +
    `${limit.source === "override" ? " (override)" : ""}\n`;
  process.stdout.write(
    `Limits of ${orgId} (window ${windowSeconds}s):\n  max keys: ${limits.max_keys}\n` +
      Object.entries(limits.data)
        .map(([group, limit]) => line(group, limit))
        .join(""),
  );
}

/** The window length of the management groups' defaults (the deployment's LATCHKEY_RATE_WINDOW_SECONDS). */
function defaultWindow(limits: OrganizationLimits, fallback: number): number {
  const byDefault = RATE_LIMIT_GROUPS.map((group) => limits.data[group]).find((l) => l?.source === "default");
  return byDefault?.policies[0]?.window_seconds ?? fallback;
}

async function run(flags: LimitsFlags): Promise<void> {
  const change = groupChange(flags);
  if (flags.url) {
    if (flags.maxKeys !== undefined)
      throw new UsageError("--max-keys is changed beside the database, not with --url.");
    const { limitsRemotely } = await import("./org-limits-remote.js");
    const limits = await limitsRemotely(flags.url, flags.org, change);
    printLimits(flags.org, limits, defaultWindow(limits, 60), flags.json === true);
    return;
  }
  const { limitsLocally } = await import("./org-limits-local.js");
  const { limits, windowSeconds } = await limitsLocally(flags.org, change, flags.maxKeys);
  printLimits(flags.org, limits, defaultWindow(limits, windowSeconds), flags.json === true);
}

/** `latchkey org limits`: show or override an organization's limits, beside the database or with --url. */
export function registerOrgLimitsCommand(org: Command): void {
  org
    .command("limits")
    .description("Show or override an organization's limits; running nodes apply changes within 2 seconds.")
    .requiredOption("--org <id>", "organization id (org_...)")
    .option("--group <group>", "group to override, with --quota or --policy")
    .option("--quota <n>", "requests per window for a management --group, or 'default'", parseQuota)
    .option("--policy <windows>", "the group's windows, e.g. 10/1,1000/3600, or 'default'", parsePolicy)
    .option("--per <per>", "with --policy: organization (all keys together) or key (each key)", parsePer)
    .option("--max-keys <n>", "key quota, or 'default'", parseQuota)
    .option(
      "--url <url>",
      "show or change them through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN)",
    )
    .option("--json", "print the resulting limits as JSON")
    .addHelpText("after", LIMITS_HELP)
    .action(run);
}
