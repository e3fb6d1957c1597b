import { type Command, InvalidArgumentError } from "commander";
import { loadConfig } from "../config.js";
import { billingPeriodAt } from "../domain/billing-period.js";
import type { PlanSettings } from "@latchkey/client";
import { LatchkeyError } from "../domain/errors.js";
import { creditThresholdsOf, type Plan } from "../domain/plan.js";
import { planJson } from "../http/admin-responses.js";
import { createPlanService } from "../services/plans.js";
import type { PlanChanges } from "../store/plan-store.js";
import { parsePlanNumber, parseRfc3339 } from "./parse.js";
import { withStores } from "./with-stores.js";

function parseOnOff(value: string): boolean {
  if (value !== "on" && value !== "off") throw new InvalidArgumentError("must be on or off.");
  return value === "on";
}

// `default` clears a value. It stays a string until used: commander turns a parser's null into "",
// which once set 0 image credits and a 1970 anchor.
type OrDefault = number | "default";

function parseCount(value: string): OrDefault {
  return value === "default" ? "default" : parsePlanNumber(value);
}

function parseAnchor(value: string): OrDefault {
  if (value === "default") return "default";
  const ms = parseRfc3339(value);
  if (Number.isNaN(ms))
    throw new InvalidArgumentError("must be an RFC 3339 time such as 2026-01-31T00:00:00Z.");
  return ms;
}

const orNull = (value: OrDefault): number | null => (value === "default" ? null : value);

/** `50,80,100`, `none` (no alerts) or `default` (80 and 100). */
function parseThresholds(value: string): number[] | "default" {
  if (value === "default") return "default";
  if (value === "none") return [];
  const numbers = value.split(",").map((part) => (part.trim() === "" ? Number.NaN : Number(part)));
  try {
    return creditThresholdsOf(numbers, "--credit-thresholds");
  } catch (error) {
    if (error instanceof LatchkeyError) throw new InvalidArgumentError(error.message);
    throw error;
  }
}

interface PlanOptions {
  org: string;
  url?: string;
  imageCredits?: OrDefault;
  overages?: boolean;
  periodAnchor?: OrDefault;
  maxBatchSize?: OrDefault;
  proxies?: boolean;
  storageDestinations?: boolean;
  creditThresholds?: number[] | "default";
  json?: boolean;
}

/** `latchkey org plan`: shows an organization's plan and, with flags, changes it. */
export function registerOrgPlanCommand(org: Command): void {
  org
    .command("plan")
    .description("Show or change an organization's plan; the next request on every node uses the change.")
    .requiredOption("--org <id>", "organization id (org_...)")
    .option("--image-credits <n>", "image credits per billing period, or 'default'", parseCount)
    .option("--overages <on|off>", "allow and record consumption past the allowance", parseOnOff)
    .option("--period-anchor <time>", "RFC 3339 anchor of the monthly periods, or 'default'", parseAnchor)
    .option("--max-batch-size <n>", "largest batch (0 = no batching), or 'default'", parseCount)
    .option("--proxies <on|off>", "whether the plan includes proxies", parseOnOff)
    .option("--storage-destinations <on|off>", "whether the plan includes storage destinations", parseOnOff)
    .option(
      "--credit-thresholds <list>",
      "percentages of the allowance that send credits.threshold_reached (e.g. 50,80,100), 'none' or 'default'",
      parseThresholds,
    )
    .option(
      "--url <url>",
      "show or change it through a running server's provisioning API (LATCHKEY_SERVICE_TOKEN)",
    )
    .option("--json", "print the resulting plan as JSON")
    .action(async (options: PlanOptions) => {
      const plan = options.url
        ? await planRemotely(options.url, options)
        : await planBesideTheDatabase(options);
      const json = planJson(plan);
      if (options.json) {
        process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
        return;
      }
      const period = billingPeriodAt(plan.periodAnchor, Date.now());
      const onOff = (value: boolean) => (value ? "on" : "off");
      process.stdout.write(
        `Plan of ${options.org}:\n` +
          `  image credits:        ${json.image_credits} per billing period (overages ${onOff(plan.overages)})\n` +
          `  period anchor:        ${json.period_anchor}\n` +
          `  current period:       ${new Date(period.start).toISOString()} to ${new Date(period.end).toISOString()}\n` +
          `  max batch size:       ${json.max_batch_size}\n` +
          `  proxies:              ${onOff(plan.proxies)}\n` +
          `  storage destinations: ${onOff(plan.storageDestinations)}\n` +
          `  credit alerts:        ${plan.creditThresholds.length ? plan.creditThresholds.map((p) => `${p}%`).join(", ") : "none"}\n`,
      );
    });
}

/** The flags' changes, applied beside the database. */
async function planBesideTheDatabase(options: PlanOptions): Promise<Plan> {
  const config = loadConfig();
  const changes: PlanChanges = {};
  if (options.imageCredits !== undefined) changes.imageCredits = orNull(options.imageCredits);
  if (options.overages !== undefined) changes.overages = options.overages;
  if (options.periodAnchor !== undefined) changes.periodAnchor = orNull(options.periodAnchor);
  if (options.maxBatchSize !== undefined) changes.maxBatchSize = orNull(options.maxBatchSize);
  if (options.proxies !== undefined) changes.proxies = options.proxies;
  if (options.storageDestinations !== undefined) changes.storageDestinations = options.storageDestinations;
  if (options.creditThresholds !== undefined) {
    changes.creditThresholds = options.creditThresholds === "default" ? null : options.creditThresholds;
  }
  return withStores((stores) =>
    createPlanService(stores.plans, { imageCredits: config.defaultImageCredits }).change(
      options.org,
      changes,
    ),
  );
}

/**
 * The flags' changes through the provisioning API, whose `PUT .../plan` replaces the whole plan: the
 * members no flag names are sent as they are now, and `default` leaves a member out (its default).
 */
async function planRemotely(url: string, options: PlanOptions): Promise<Plan> {
  const { adminClient } = await import("./admin-connection.js");
  const { admin } = adminClient(url);
  const current = await admin.getPlan(options.org);
  const flags = [
    options.imageCredits,
    options.overages,
    options.periodAnchor,
    options.maxBatchSize,
    options.proxies,
    options.storageDestinations,
    options.creditThresholds,
  ];
  const changed = flags.some((flag) => flag !== undefined);
  const settings: PlanSettings = { ...current };
  const set = <K extends keyof PlanSettings>(name: K, value: PlanSettings[K] | "default" | undefined) => {
    if (value === "default") delete settings[name];
    else if (value !== undefined) settings[name] = value;
  };
  set("image_credits", options.imageCredits);
  set("overages", options.overages);
  set(
    "period_anchor",
    typeof options.periodAnchor === "number"
      ? new Date(options.periodAnchor).toISOString()
      : options.periodAnchor,
  );
  set("max_batch_size", options.maxBatchSize);
  set("proxies", options.proxies);
  set("storage_destinations", options.storageDestinations);
  set("credit_thresholds", options.creditThresholds);
  const plan = changed ? await admin.replacePlan(options.org, settings) : current;
  return {
    imageCredits: plan.image_credits,
    overages: plan.overages,
    periodAnchor: Date.parse(plan.period_anchor),
    maxBatchSize: plan.max_batch_size,
    proxies: plan.proxies,
    storageDestinations: plan.storage_destinations,
    creditThresholds: plan.credit_thresholds,
  };
}
