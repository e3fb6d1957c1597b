import { loadConfig } from "../config.js";
import { systemClock } from "../domain/clock.js";
import { createSecretHasher } from "../domain/credentials.js";
import { createCreditGrants, type CreditGrants } from "../services/credit-grants.js";
import { createPlanService } from "../services/plans.js";
import { createProvisioning, type Provisioning } from "../services/provisioning.js";
import { createUsageService, type UsageService } from "../services/usage.js";
import { agreedHasher } from "./agreed-hasher.js";
import { withLimitServices } from "./with-limit-services.js";

/** The provisioning API's services, over the database beside an operator command. */
export interface ProvisioningServices {
  provisioning: Provisioning;
  creditGrants: CreditGrants;
  usage: UsageService;
}

/**
 * Runs `work` with the services the provisioning API's organization routes use (`org credits`, `org
 * update`, `org show`, `org owner-key`, `org usage` beside the database), so both modes check, write and
 * audit alike; input refusals are exit 2 (with-limit-services.ts). `makesSecrets` for a command that
 * prints a new secret: its hashing must agree with the servers' first (agreed-hasher.ts).
 */
export function withProvisioning<T>(
  work: (services: ProvisioningServices) => Promise<T>,
  options: { makesSecrets?: boolean } = {},
): Promise<T> {
  const config = loadConfig();
  return withLimitServices(async ({ stores, groups }) => {
    const plans = createPlanService(stores.plans, { imageCredits: config.defaultImageCredits });
    const hasher = options.makesSecrets
      ? await agreedHasher(stores)
      : createSecretHasher(config.secretPepper);
    return work({
      provisioning: createProvisioning({
        organizations: stores.organizations,
        keys: stores.keys,
        plans,
        hasher,
        clock: systemClock,
        knownGroups: async () => new Set(Object.keys(await groups.all())),
      }),
      creditGrants: createCreditGrants({ store: stores.creditGrants, clock: systemClock }),
      usage: createUsageService({ store: stores.plans, plans, clock: systemClock }),
    });
  });
}
