import { assertStorableText } from "../domain/text-rules.js";
import { OPERATOR_ACTOR } from "../domain/audit.js";
import type { Clock } from "../domain/clock.js";
import { randomBase62, type SecretHasher } from "../domain/credentials.js";
import type { IdempotentResponse } from "../store/idempotency-store.js";
import type {
  ApiKeyRecord,
  ApiKeyStore,
  LimitStore,
  Organization,
  OrganizationDirectory,
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
    store: OrganizationDirectory & ApiKeyStore & Pick<LimitStore, "getLimits">;
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
  const { key, secret } = await mintOwnerKey(deps, organization.id, actor);
  return { organization, owner: key, secret };
}

/**
 * An owner key (all current and future permissions) of `orgId`, created as if by an all-future
 * caller of that organization: at its creation, or to recover one (docs/provisioning.md). Audited as
 * `api_key.create` by `actor`. Null or blank `name` and `description` take the defaults.
 */
export async function mintOwnerKey(
  deps: { store: ApiKeyStore & Pick<LimitStore, "getLimits">; hasher: SecretHasher; clock: Clock },
  orgId: string,
  actor: string,
  text: { name?: string | null | undefined; description?: string | null | undefined } = {},
  respond?: (created: { key: ApiKeyRecord; secret: string }) => IdempotentResponse,
): Promise<{ key: ApiKeyRecord; secret: string }> {
  const founder: Caller = { orgId, permissions: [], allFuturePermissions: true, actor };
  const blank = (value: string | null | undefined) =>
    value === undefined || value === null || value.trim() === "";
  return createKeyService(deps).create(
    founder,
    {
      name: blank(text.name) ? "Owner key" : text.name,
      description: blank(text.description)
        ? "Created with the organization; holds every current and future permission."
        : text.description,
      permissions: [],
      all_future_permissions: true,
    },
    respond,
  );
}
