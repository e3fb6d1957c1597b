import { loadConfig } from "../config.js";
import { systemClock } from "../domain/clock.js";
import { LatchkeyError } from "../domain/errors.js";
import { loadGroupsFile } from "../services/group-file.js";
import { createLimitOverrides, type LimitOverrides } from "../services/limit-overrides.js";
import { createGroupCatalog, type GroupCatalog } from "../services/rate-limit-groups.js";
import type { Stores } from "../store/open-database.js";
import { UsageError } from "./exit-codes.js";
import { withStores } from "./with-stores.js";

/** What an operator command changing rate limits beside the database works with. */
export interface LimitServices {
  stores: Stores;
  /** Every group the deployment knows: the management groups, LATCHKEY_GROUPS and declared ones. */
  groups: GroupCatalog;
  /** Organizations' overrides, as the provisioning API's routes change them. */
  overrides: LimitOverrides;
  /** LATCHKEY_RATE_WINDOW_SECONDS: the management groups' window. */
  windowSeconds: number;
}

/**
 * Runs `work` with the services the provisioning API's limit routes use, over the database beside the
 * command (`org limits`, `groups put`), so both modes check and write alike. A refusal of the input
 * (windows out of range, an unknown group) is the operator's to fix: exit 2, as a 400 is with --url.
 */
export async function withLimitServices<T>(work: (services: LimitServices) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const windowSeconds = config.rateWindowSeconds;
  try {
    return await withStores((stores) => {
      const groups = createGroupCatalog({
        store: stores.groups,
        fileGroups: loadGroupsFile(config),
        windowSeconds,
        clock: systemClock,
      });
      const overrides = createLimitOverrides({
        keys: stores.keys,
        groups,
        clock: systemClock,
        windowSeconds,
      });
      return work({ stores, groups, overrides, windowSeconds });
    });
  } catch (error) {
    if (error instanceof LatchkeyError && error.code === "invalid_request")
      throw new UsageError(error.message);
    throw error;
  }
}
