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
  /** Plan: image credits per billing period; null means the deployment default. */
  image_credits: number | null;
  /** Plan: 1 when consumption past the allowance is allowed; null means off. */
  overages: number | null;
  /** Plan: epoch milliseconds the monthly periods are anchored at; null means created_at. */
  period_anchor: number | null;
  /** Plan: largest batch; null means 0 (no batching). */
  max_batch_size: number | null;
  /** Plan: 0 when proxies are switched off; null means on. */
  proxies_enabled: number | null;
  /** Plan: 0 when storage destinations are switched off; null means on. */
  storage_destinations_enabled: number | null;
  /** Plan: JSON array of the credit alert percentages (migration 023); null means [80, 100]. */
  credit_thresholds?: string | null;
  /** Policy: days a key may live at most (migration 007); null means no limit. */
  max_key_lifetime_days?: number | null;
  /** The platform's own id of this customer (migration 015), unique; null: none. */
  external_id?: string | null;
  /** Epoch milliseconds the platform disabled the organization (migration 015); null: enabled. */
  disabled_at?: number | null;
  /** Epoch milliseconds of the last change through the admin API (migration 015); null: never. */
  updated_at?: number | null;
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
  /** Epoch milliseconds of the last successful authentication (to the minute); null until then. */
  last_used_at: number | null;
  /** Epoch milliseconds a secret scanner reported the secret public; null otherwise (migration 009). */
  leaked_at: number | null;
  /** How `secret_hash` was made: `server` (the server's hashing) or `sha256` (imported; migration 009). */
  secret_scheme: string;
  /** JSON array of CIDRs the key may be used from (migration 008); null: any address. */
  allowed_cidrs: string | null;
  /** JSON object of the key's metadata, read with the record (migration 008); null: none. */
  metadata: string | null;
  /** Epoch milliseconds from which the key no longer authenticates (migration 007); null: never. */
  expires_at: number | null;
  /** Hash of the secret a roll replaced, while it still works; null otherwise. */
  previous_secret_hash: string | null;
  /** How `previous_secret_hash` was made, like `secret_scheme` (migration 009). */
  previous_secret_scheme: string;
  /** Epoch milliseconds from which `previous_secret_hash` no longer authenticates. */
  previous_secret_expires_at: number | null;
  /** Epoch milliseconds at which the key's expiry was recorded (audit, metric); null until then. */
  expiry_recorded_at?: number | null;
  /** JSON object of the key's own limits, group -> policies (migration 015); null: none. */
  rate_limits?: string | null;
}

/**
 * One metadata member of one key (migration 008): the searchable copy of `api_keys.metadata`, written
 * in the same transaction, so that `metadata[<name>]=<value>` is an index lookup on both databases.
 */
export interface KeyMetadataTable {
  key_id: string;
  org_id: string;
  name: string;
  value: string;
  /** The key's `created_at` (which never changes), so the index keeps the list's order. */
  created_at: number;
}

export interface RateLimitOverridesTable {
  org_id: string;
  group_name: string;
  /** Requests per window of the deployment's length; with `policies`, its first policy's quota. */
  quota: number;
  /** JSON array of `{quota, window_seconds}` (migration 015); null: `quota` per the default window. */
  policies?: string | null;
  /** `organization` or `key` (migration 015); null: the group's own. */
  per?: string | null;
}

/** A rate-limit group the platform declared through the admin API (migration 015). */
export interface RateLimitGroupsTable {
  name: string;
  /** JSON array of `{quota, window_seconds}`. */
  policies: string;
  per: string;
  updated_at: number;
}

/** A top-up of image credits (migration 015). */
export interface CreditGrantsTable {
  id: string;
  org_id: string;
  credits: number;
  /** What is left; only ever lowered by one conditional update. */
  remaining: number;
  /** Epoch milliseconds from which what is left no longer counts; null: never. */
  expires_at: number | null;
  reason: string | null;
  created_at: number;
  /** Epoch milliseconds its expiry was announced to webhooks (migration 018); null: not yet. */
  expiry_announced_at?: number | null;
}

/** A webhook endpoint (migration 018): an organization's (org_id) or the platform's (org_id null). */
export interface WebhookEndpointsTable {
  id: string;
  org_id: string | null;
  url: string;
  /** JSON array of event types. */
  events: string;
  description: string | null;
  enabled: number;
  /** The signing secret (`whsec_...`); the sender needs it as it is. */
  secret: string;
  /** The secret a rotation replaced, signing beside the new one until `previous_secret_expires_at`. */
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  /** Epoch milliseconds of the first failed attempt since the last success; null: not failing. */
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

/** The outbox: one row per event, written in the transaction of the change that caused it. */
export interface WebhookMessagesTable {
  id: string;
  org_id: string | null;
  type: string;
  at: number;
  /** JSON object. */
  data: string;
  dedupe_key: string | null;
}

/** One message to one endpoint: the queue nodes claim attempts from. */
export interface WebhookDeliveriesTable {
  id: string;
  message_id: string;
  endpoint_id: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  next_attempt_at: number;
  created_at: number;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  message_id: string;
  endpoint_id: string;
  status: "succeeded" | "failed";
  response_status: number | null;
  duration_ms: number;
  at: number;
  response_excerpt: string | null;
}

export interface ServiceTokensTable {
  id: string;
  name: string;
  token_hash: string;
  created_at: number;
  /** Epoch milliseconds of revocation; null while the token is valid. */
  revoked_at: number | null;
  /** Comma-separated scopes, e.g. `authorize,provision` (migration 015). */
  scopes: string;
}

export interface CreditPeriodsTable {
  org_id: string;
  period_start: number;
  period_end: number;
  used: number;
}

export interface UsageHoursTable {
  org_id: string;
  hour_start: number;
  images: number;
}

/** Decisions of authorize and forward-auth per organization and UTC hour (services/decision-tally.ts). */
export interface DecisionHoursTable {
  org_id: string;
  hour_start: number;
  allowed: number;
  refused: number;
}

/** One recorded change; the snapshots are JSON text. */
export interface AuditEventsTable {
  id: string;
  at: number;
  actor: string;
  org_id: string | null;
  action: string;
  target_id: string;
  before_json: string | null;
  after_json: string | null;
}

export interface ResourcesTable {
  id: string;
  org_id: string;
  /** The resource family (`proxies`, `storage_destinations`, `og_configs`). */
  family: string;
  name: string;
  enabled: number;
  /** The settings object as JSON text. */
  settings: string;
  created_at: number;
  updated_at: number;
}

export interface ResourceCountsTable {
  org_id: string;
  family: string;
  /** Live records of the family in the organization; deletes free slots. */
  count: number;
}

export interface DeletedResourcesTable {
  id: string;
  org_id: string;
  family: string;
  deleted_at: number;
}

export interface AwsExternalIdsTable {
  org_id: string;
  external_id: string;
}

/** One `Idempotency-Key` of one organization (migration 005). */
/** A secret scanning report already processed (017-leaks-and-invitations.ts), kept 30 days. */
export interface LeakReportsTable {
  /** SHA-256 (hex) of the token and the URL. */
  fingerprint: string;
  /** What the report was answered: `true_positive` or `false_positive`. */
  label: string;
  processed_at: number;
}

/** One row (`id` = `deployment`): how the servers hash secrets (store/secret-hashing-store.ts). */
export interface SecretHashingTable {
  id: string;
  /** `sha256` or `hmac-sha256`. */
  scheme: string;
  /** First 8 hex digits of HMAC-SHA-256(pepper, a fixed label); null without a pepper. */
  pepper_fingerprint: string | null;
  recorded_at: number;
}

export interface IdempotencyKeysTable {
  org_id: string;
  idempotency_key: string;
  /** SHA-256 (hex) of the route and the canonical request body. */
  fingerprint: string;
  /** Random token of the request that holds the key while its create runs. */
  claim: string;
  /** Epoch milliseconds until which that request holds it. */
  claimed_until: number;
  /** The first response's status; null until the create commits. */
  status: number | null;
  /** The first response's body: JSON, or sealed (AES-256-GCM) where it holds a secret. */
  response: string | null;
  /** Epoch milliseconds after which the row is ignored and swept. */
  expires_at: number;
}

/** A person who signs in to the console (migration 010). */
export interface ConsoleUsersTable {
  id: string;
  email: string;
  /** scrypt parameters, salt and hash (src/domain/passwords.ts). */
  password_hash: string;
  created_at: number;
  /** Base32 TOTP secret; null while two-factor is off. */
  totp_secret: string | null;
  /** The last time step a code was accepted at (a code works once). */
  totp_last_step: number | null;
}

/** A user's role in one organization. */
export interface MembershipsTable {
  user_id: string;
  org_id: string;
  /** `owner`, `admin` or `member`. */
  role: string;
  created_at: number;
}

/** An invitation to an organization, waiting for the person to accept it after signing in. */
export interface ConsoleInvitationsTable {
  org_id: string;
  /** Lower case. */
  email: string;
  role: string;
  /** The audit actor who invited (`user:<id>`). */
  invited_by: string;
  created_at: number;
}

/** One signed-in browser; only the SHA-256 of its cookie is kept. */
export interface ConsoleSessionsTable {
  token_hash: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  revoked_at: number | null;
}

/** A client registered at `/oauth/register` (migration 011). */
export interface OauthClientsTable {
  client_id: string;
  client_name: string;
  redirect_uris: string;
  created_at: number;
  /** When a user first consented to it (migration 016); null: deleted a day after `created_at`. */
  consented_at: number | null;
}

/** An authorization code, kept hashed until its one exchange. */
export interface OauthCodesTable {
  code_hash: string;
  client_id: string;
  user_id: string;
  org_id: string;
  permissions: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  expires_at: number;
  used_at: number | null;
  /** The connection its one exchange created, revoked if the code comes again (migration 016). */
  connection_id: string | null;
}

/** A connection a user granted an MCP client, with its current tokens' hashes. */
export interface McpConnectionsTable {
  id: string;
  org_id: string;
  user_id: string;
  client_id: string;
  client_name: string;
  permissions: string;
  resource: string;
  access_hash: string;
  access_expires_at: number;
  refresh_hash: string;
  created_at: number;
  revoked_at: number | null;
}

/** A refresh token a rotation replaced: presented again, it revokes its connection (migration 016). */
export interface McpRotatedRefreshTokensTable {
  refresh_hash: string;
  connection_id: string;
  rotated_at: number;
}

/** A secret on its way to the one console page that shows it, sealed for one session. */
export interface ConsoleSecretHandoffsTable {
  id: string;
  session_hash: string;
  sealed: string;
  created_at: number;
}

export interface Database {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  key_metadata: KeyMetadataTable;
  rate_limit_overrides: RateLimitOverridesTable;
  rate_limit_groups: RateLimitGroupsTable;
  credit_grants: CreditGrantsTable;
  service_tokens: ServiceTokensTable;
  credit_periods: CreditPeriodsTable;
  usage_hours: UsageHoursTable;
  decision_hours: DecisionHoursTable;
  audit_events: AuditEventsTable;
  resources: ResourcesTable;
  resource_counts: ResourceCountsTable;
  deleted_resources: DeletedResourcesTable;
  aws_external_ids: AwsExternalIdsTable;
  idempotency_keys: IdempotencyKeysTable;
  console_users: ConsoleUsersTable;
  memberships: MembershipsTable;
  console_sessions: ConsoleSessionsTable;
  oauth_clients: OauthClientsTable;
  oauth_codes: OauthCodesTable;
  mcp_connections: McpConnectionsTable;
  mcp_rotated_refresh_tokens: McpRotatedRefreshTokensTable;
  console_secret_handoffs: ConsoleSecretHandoffsTable;
  leak_reports: LeakReportsTable;
  secret_hashing: SecretHashingTable;
  console_invitations: ConsoleInvitationsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_messages: WebhookMessagesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
