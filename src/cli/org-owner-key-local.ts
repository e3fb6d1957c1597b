import type { CreatedKey } from "@latchkey/client";
import { OPERATOR_ACTOR } from "../domain/audit.js";
import { systemClock } from "../domain/clock.js";
import { toKeyResponse } from "../http/key-response.js";
import { withProvisioning } from "./with-provisioning.js";

/**
 * `org owner-key` beside the database: the route's service (audited as `operator`), hashing as the
 * servers do (with-provisioning.ts refuses another pepper), answered as `POST .../owner-keys` answers.
 */
export function ownerKeyLocally(orgId: string): Promise<CreatedKey> {
  return withProvisioning(
    async ({ provisioning }) => {
      const { key, secret } = await provisioning.createOwnerKey(orgId, {}, OPERATOR_ACTOR);
      return { ...toKeyResponse(key, systemClock.now()), api_key: secret };
    },
    { makesSecrets: true },
  );
}
