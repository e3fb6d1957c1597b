import type { AuditOf } from "../domain/audit.js";
import type { GroupLimit } from "../domain/rate-limit-policies.js";

/** A platform group as declared through the admin API. */
export interface DeclaredGroup extends GroupLimit {
  name: string;
}

/** The platform's groups declared with `PUT /v1/admin/groups/{group}` (docs/rate-limits.md). */
export interface RateLimitGroupStore {
  /** Creates or replaces a group's definition and records `audit` in the same transaction. */
  putGroup(group: DeclaredGroup, at: number, audit?: AuditOf<DeclaredGroup>): Promise<void>;
  /** Every declared group. */
  listGroups(): Promise<DeclaredGroup[]>;
}
