import { type Command, InvalidArgumentError } from "commander";
import { systemClock } from "../domain/clock.js";
import { LatchkeyError } from "../domain/errors.js";
import { changeOrganizationLimits } from "../services/organization-limits.js";
import { parseInteger } from "./parse.js";
import { withStores } from "./with-stores.js";

/** The longest lifetime the CLI accepts: about a hundred years. */
const MAX_LIFETIME_DAYS = 36_500;

// `none` removes the limit. It stays a string until used: commander turns a parser's null into "".
function parseLifetime(value: string): number | "none" {
  if (value === "none") return "none";
  const days = parseInteger(value);
  if (days < 1 || days > MAX_LIFETIME_DAYS) {
    throw new InvalidArgumentError(`must be a number of days from 1 to ${MAX_LIFETIME_DAYS}, or 'none'.`);
  }
  return days;
}

/**
 * `latchkey org policy`: shows an organization's key policy and, with `--max-key-lifetime`, changes it
 * (docs/key-lifecycle.md). The longest lifetime applies to keys created from then on: a create without
 * `expires_at` gets one, a later `expires_at` is refused. Existing keys keep their expiry.
 */
export function registerOrgPolicyCommand(org: Command): void {
  org
    .command("policy")
    .description("Show or change an organization's key policy (the longest lifetime of a new key).")
    .requiredOption("--org <id>", "organization id (org_...)")
    .option("--max-key-lifetime <days>", "longest lifetime of a new key in days, or 'none'", parseLifetime)
    .option("--json", "print the policy as JSON")
    .action(async (options: { org: string; maxKeyLifetime?: number | "none"; json?: boolean }) => {
      const limits = await withStores(async ({ keys: store }) => {
        if (options.maxKeyLifetime !== undefined) {
          const days = options.maxKeyLifetime === "none" ? null : options.maxKeyLifetime;
          return changeOrganizationLimits({ store, clock: systemClock }, options.org, {
            maxKeyLifetimeDays: days,
          });
        }
        if (!(await store.findOrganization(options.org)))
          throw new LatchkeyError("not_found", `No organization ${options.org}.`);
        return store.getLimits(options.org);
      });
      const days = limits.maxKeyLifetimeDays ?? null;
      if (options.json) {
        process.stdout.write(
          `${JSON.stringify({ organization: options.org, max_key_lifetime_days: days }, null, 2)}\n`,
        );
        return;
      }
      process.stdout.write(
        `Key policy of ${options.org}:\n  max key lifetime: ${days === null ? "none" : `${days} days`}\n`,
      );
    });
}
