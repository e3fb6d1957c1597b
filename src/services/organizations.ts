import { assertStorableText } from "../domain/text-rules.js";
import { OPERATOR_ACTOR } from "../domain/audit.js";
import type { Clock } from "../domain/clock.js";
import { randomBase62, type SecretHasher } from "../domain/credentials.js";
import type {
  ApiKeyRecord,
  ApiKeyStore,
  LimitStore,
  Organization,
  OrganizationStore,
} from "../store/key-store.js";
import { organizationSnapshot } from "./audit-snapshots.js";
import { auditOf } from "./audit-trail.js";
import { type Caller, createKeyService } from "./key-service.js";

export interface OrganizationWithOwner {
  organization: Organization;
  /** The owner key: all current and future permissions. */
  owner: ApiKeyRecord;
  /** The owner key's secret, shown once. */
  secret: string;
}

/**
 * Creates an organization and its first key. Nobody can hold authority over an empty organization, so
 * the owner key is minted here, for the operator (CLI or first start), as the dashboard would. Both
 * are recorded in the audit trail with `actor` (`operator` or `bootstrap`).
 */
export async function createOrganizationWithOwner(
  deps: {
    store: OrganizationStore & ApiKeyStore & Pick<LimitStore, "getLimits">;
    hasher: SecretHasher;
    clock: Clock;
  },
  name: string,
  actor: string = OPERATOR_ACTOR,
): Promise<OrganizationWithOwner> {
  assertStorableText(name, "/name");
  const organization: Organization = { id: `org_${randomBase62(22)}`, name, createdAt: deps.clock.now() };
  await deps.store.createOrganization(
    organization,
    auditOf<Organization>(deps.clock, {
      actor,
      orgId: organization.id,
      action: "organization.create",
      targetOf: (org) => org.id,
      snapshot: organizationSnapshot,
    }),
  );
  // The founding key is created as if by an all-future caller of the new organization.
  const founder: Caller = { orgId: organization.id, permissions: [], allFuturePermissions: true, actor };
  const { key, secret } = await createKeyService(deps).create(founder, {
    name: "Owner key",
    description: "Created with the organization; holds every current and future permission.",
    permissions: [],
    all_future_permissions: true,
  });
  return { organization, owner: key, secret };
}
