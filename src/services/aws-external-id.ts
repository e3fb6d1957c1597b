import { randomUUID } from "node:crypto";
import type { AwsExternalId } from "../domain/resource-schemas.js";
import type { ResourceStore } from "../store/resource-store.js";
import type { ResourceCaller } from "./resource-service.js";

/**
 * The organization's AWS external id, which a customer puts in the trust policy of the IAM role a
 * storage destination lets the platform assume (AWS's confused-deputy protection). It is made on first
 * request and never changes, so a role configured once keeps working; it is not a secret, but it must
 * differ between organizations.
 */
export interface AwsExternalIdService {
  /** `{external_id}` of the caller's organization; the same on every call and every node. */
  get(caller: ResourceCaller): Promise<AwsExternalId>;
}

export function createAwsExternalIdService(store: ResourceStore): AwsExternalIdService {
  return {
    async get(caller) {
      return { external_id: await store.awsExternalId(caller.orgId, randomUUID()) };
    },
  };
}
