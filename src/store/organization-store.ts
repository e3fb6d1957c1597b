import type { AuditOf } from "../domain/audit.js";
import type { GroupLimit } from "../domain/rate-limit-policies.js";
import type { ListPosition } from "./key-store.js";
import type { PlanChanges } from "./plan-store.js";

/** An organization as the provisioning API sees it (docs/provisioning.md). */
export interface OrganizationRecord {
  /** `org_...` identifier. */
  id: string;
  /** Unique name, ignoring case. */
  name: string;
  /** The platform's own id of this customer, unique; null: none. */
  externalId: string | null;
  /** Epoch milliseconds the platform disabled it; null while enabled. */
  disabledAt: number | null;
  /** Epoch milliseconds of creation. */
  createdAt: number;
  /** Epoch milliseconds of the last change of the members above. */
  updatedAt: number;
}

/** What an organization starts with besides its record: a plan and rate-limit overrides. */
export interface OrganizationSetup {
  /** Plan settings; absent members keep the deployment's defaults. */
  plan?: PlanChanges;
  /** Overrides per group, written in the same transaction. */
  limits?: Readonly<Record<string, GroupLimit>>;
}

/** A change of the members an admin may patch; absent members stay. */
export interface OrganizationChanges {
  name?: string;
  /** null removes it. */
  externalId?: string | null;
  disabled?: boolean;
}

export interface ListOrganizationsQuery {
  limit: number;
  /** Continue after this position (exclusive), newest first. */
  after?: ListPosition | undefined;
  /** Names must start with this text (case-sensitive). */
  namePrefix?: string | undefined;
  /** Only the organization with this external id. */
  externalId?: string | undefined;
}

/** The organizations of the deployment, for the provisioning API. */
export interface OrganizationStore {
  /**
   * Inserts the organization with its setup and records `audit`, in one transaction; throws
   * `organization_name_taken` or `external_id_taken` (409) and writes nothing then.
   */
  insertOrganization(
    org: OrganizationRecord,
    setup: OrganizationSetup,
    audit?: AuditOf<OrganizationRecord>,
  ): Promise<void>;
  getOrganization(id: string): Promise<OrganizationRecord | undefined>;
  /** One page, newest first (created_at, then id, descending). */
  listOrganizations(query: ListOrganizationsQuery): Promise<OrganizationRecord[]>;
  /**
   * Applies `changes` at `at` with the row locked and records `audit`; undefined when there is no such
   * organization. Throws `organization_name_taken` or `external_id_taken`, writing nothing.
   */
  updateOrganization(
    id: string,
    changes: OrganizationChanges,
    at: number,
    audit?: AuditOf<OrganizationRecord>,
  ): Promise<OrganizationRecord | undefined>;
}
