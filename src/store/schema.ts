/**
 * Table shapes as Kysely sees them. Only portable column types are used (text, integer, bigint, with
 * 0/1 for booleans and epoch milliseconds for times) so one set of queries serves SQLite and PostgreSQL.
 */
export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: number;
  /** Keys ever created in the organization; disabling does not free a slot. */
  key_count: number;
  /** Operator override of the key quota; null means the default. */
  max_keys: number | null;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  api_id: string;
  secret_hash: string;
  name: string;
  description: string | null;
  enabled: number;
  /** Granted names in catalogue order, each wrapped in commas (`,a,b,`) so LIKE can match one exactly. */
  permissions: string;
  all_future: number;
  created_at: number;
  updated_at: number;
}

export interface RateLimitOverridesTable {
  org_id: string;
  group_name: string;
  quota: number;
}

export interface Database {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  rate_limit_overrides: RateLimitOverridesTable;
}
