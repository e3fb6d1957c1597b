/**
 * The wire shapes the client sends and receives. They are written here, not imported from the server,
 * because the client ships to other programs with no dependencies: keep them in step with
 * `src/http/schemas.ts` and `src/http/platform-schemas.ts` (the server's single source of truth) by hand;
 * `test/client/wire-types.test.ts` fails when the platform shapes drift apart.
 */

/** A permission name from the server's catalogue; any string is accepted so newer names still type-check. */
export type Permission =
  | "images:create"
  | "images:read"
  | "images:delete"
  | "images:store"
  | "templates:read"
  | "templates:create_update"
  | "templates:delete"
  | "proxies:read"
  | "proxies:create_update"
  | "proxies:delete"
  | "storage_destinations:read"
  | "storage_destinations:create_update"
  | "storage_destinations:delete"
  | "og_configs:read"
  | "og_configs:create_update"
  | "og_configs:delete"
  | "api_keys:read"
  | "api_keys:create_update"
  | "api_keys:delete"
  | "usage:read"
  | "audit:read"
  | "webhooks:read"
  | "webhooks:create_update"
  | (string & {});

/**
 * The whole configuration of a key, the body of both create and update. An update replaces all of it:
 * omitted optional members return to their defaults (see {@link configurationOf}).
 */
export interface KeyConfiguration {
  /** Display name, at most 255 characters; omitted, null or blank gives `Key created YYYY-MM-DD HH:mm:ss`. */
  name?: string | null;
  /** Purpose of the key, at most 2,000 characters; omitted, null or blank clears it. */
  description?: string | null;
  /** `true` disables the key (it can no longer authenticate). Default `false`. */
  disabled?: boolean;
  /** The complete list of permissions; must be `[]` when `all_future_permissions` is true. */
  permissions: Permission[];
  /** The key gets every current and future permission. Default `false`. */
  all_future_permissions?: boolean;
  /**
   * Networks the key may be used from: up to 50 IPv4 or IPv6 CIDRs (`203.0.113.0/24`); null allows any
   * address. Unlike the members above, an update that omits it keeps it. From elsewhere, the key is
   * refused with `403 ip_not_allowed`.
   */
  allowed_cidrs?: string[] | null;
  /**
   * Up to 20 string members to find the key by (`list({ metadata: { team: "billing" } })`): names of 1
   * to 40 letters, digits, `_`, `.` or `-`, values up to 500 characters. Null clears it; an update that
   * omits it keeps it.
   */
  metadata?: Record<string, string> | null;
  /**
   * latchkey's own: when the key stops authenticating, RFC 3339, in the future. Omitted on update keeps
   * it; an update may only bring it forward (never later, never `null` once set).
   */
  expires_at?: string | null;
  /**
   * latchkey's own: the key's own windows in groups counted per key (`"per": "key"`), each at most
   * the organization's policy for the group: `{ render: { policies: [{ quota: 5, window_seconds: 1 }] } }`.
   * An update that omits it keeps it; null or `{}` clears it.
   */
  rate_limits?: KeyRateLimits | null;
}

/** One exact sliding window of a key's own limits. */
export interface KeyRatePolicy {
  /** Requests (cost units) admitted in any window. */
  quota: number;
  /** The window's length: 1 second to 31 days. */
  window_seconds: number;
}

/** A key's own limits: group name -> its windows (up to 5). */
export type KeyRateLimits = Record<string, { policies: KeyRatePolicy[] }>;

/** A key as the server returns it from retrieve, list and update: never with its secret. */
export interface KeyRecord {
  /** Resource id (`key_...`), used in management paths. Not the Basic-auth username. */
  id: string;
  /** Basic-authentication username of the key. */
  api_id: string;
  /** Display name. */
  name: string;
  /** Purpose of the key, or null when none was given. */
  description: string | null;
  /** Whether the key can authenticate (the inverse of the request field `disabled`). */
  enabled: boolean;
  /** Permissions currently granted; for an all-future key, the whole current catalogue. */
  permissions: Permission[];
  /** Whether the key also receives permissions added later. */
  all_future_permissions: boolean;
  /** Creation time, RFC 3339 UTC. */
  created_at: string;
  /** Time of the last update, RFC 3339 UTC. */
  updated_at: string;
  /** Last successful authentication, RFC 3339 UTC, approximate to the minute; null until first use. */
  last_used_at: string | null;
  /** When a secret scanner reported the secret public, RFC 3339 UTC; null otherwise. */
  leaked_at: string | null;
  /** Networks (CIDRs) the key may be used from; null: any address. */
  allowed_cidrs: string[] | null;
  /** The key's metadata members; null: none. */
  metadata: Record<string, string> | null;
  /** When the key stops authenticating, RFC 3339 UTC; null when it never expires. */
  expires_at: string | null;
  /** Whether `expires_at` has passed: the key no longer authenticates. */
  expired: boolean;
  /** The key's own limits of groups counted per key; present only when it has some. */
  rate_limits?: KeyRateLimits;
}

/** A key as returned by create (and by rotate): the only time its secret is ever shown. */
export interface CreatedKey extends KeyRecord {
  /** The secret, the Basic-auth password. Store it now: the server keeps only a hash. */
  api_key: string;
}

/** A key as returned by roll: same id and api_id, its new secret, and the end of the old one. */
export interface RolledKey extends CreatedKey {
  /** Until when the previous secret still authenticates, RFC 3339 UTC (the roll's time with no overlap). */
  previous_secret_expires_at: string;
}

/** One page of a key listing, newest first. */
export interface KeyPage {
  /** The keys of this page. */
  data: KeyRecord[];
  /** Where the next page starts. */
  pagination: {
    /** Cursor for `pageStart` of the next request; `null` on the last page. */
    next_page_start: string | null;
  };
}

/** Filters and paging of a key listing. */
export interface ListKeysOptions {
  /** Page size, 1 to 100. Server default 10. */
  count?: number;
  /** Include disabled keys. Default false. */
  includeDisabled?: boolean;
  /** Only keys allowing every one of these permissions (all-future keys included). */
  withPermission?: Permission[];
  /** `pagination.next_page_start` of the previous page; omitted for the first page. */
  pageStart?: string;
  /** Only keys holding every one of these metadata members, with exactly these values. */
  metadata?: Record<string, string>;
  /** Only keys whose name starts with this text (case-sensitive). */
  namePrefix?: string;
}

/** The body of every error the server sends (docs/troubleshooting.md). */
export interface ErrorBody {
  /** HTTP status, repeated. */
  statusCode: number;
  /** Status phrase, e.g. `Too Many Requests` or `Plan limit exceeded`. */
  error: string;
  /** What went wrong, for a person to read. */
  message: string;
  /** Machine-readable code, e.g. `rate_limited`, `missing_permission`, `not_found`. */
  code?: string;
  /** On 400: one entry per offending member of the request. */
  validation_errors?: { path: string; message: string }[];
}

/**
 * The body of `POST /v1/authorize` (docs/platform.md): may the caller who sent `authorization` do
 * this? Mirrors `AuthorizeBody` in `src/http/platform-schemas.ts`.
 */
export interface AuthorizeRequest {
  /**
   * The `Authorization` header the platform received from its caller, verbatim; `null` or `""` when
   * there was none (the decision is then a 401).
   */
  authorization: string | null;
  /** The permission the operation needs, e.g. `images:create`. */
  permission: Permission;
  /** A management operation group to count the request against, e.g. `proxy:read`. */
  group?: string;
  /**
   * Slots the request takes in each window of `group` (1 to 1,000; default 1), atomically: admitted
   * only when every window can hold them all.
   */
  cost?: number;
  /** Image credits the operation consumes: a whole number from 1 to 1,000,000. */
  credits?: number;
  /**
   * The address the caller connected from (IPv4 or IPv6, no port). Required for keys with
   * `allowed_cidrs`, which are refused with `403 ip_not_allowed` without it.
   */
  client_ip?: string;
  /**
   * `mcp` when the decision will be relayed as an MCP tool error: it then carries no rate-limit
   * headers. Default `rest`.
   */
  protocol?: "rest" | "mcp";
}

/** The key a decision was made for. */
export interface DecisionKey {
  /** Resource id (`key_...`). */
  id: string;
  /** Basic-authentication username of the key. */
  api_id: string;
  /** Permissions the key holds now; for an all-future key, the whole current catalogue. */
  permissions: Permission[];
  /** Whether the key also receives permissions added later. */
  all_future_permissions: boolean;
}

/**
 * latchkey's answer to an authorize request. Relay `status`, `headers` and `error` to the caller as
 * they are; mirrors `AuthorizeDecision` in `src/http/platform-schemas.ts`.
 */
export interface AuthorizeDecision {
  /** Whether the caller may go on. */
  allowed: boolean;
  /** The status to answer the caller with: 200 when allowed, else 401, 403 or 429. */
  status: number;
  /** The caller's organization (`org_...`); null when the credentials were not accepted. */
  organization_id: string | null;
  /** The caller's key; null when the credentials were not accepted. */
  key: DecisionKey | null;
  /**
   * Headers to give the caller, allowed or not: `RateLimit-Policy`, `RateLimit` and `Retry-After` when a
   * group was given, `x-renders-allowed`, `x-renders-consumed` and `x-renders-used` when credits were
   * given, `WWW-Authenticate` on a 401.
   */
  headers: Record<string, string>;
  /** The error body to answer the caller with when refused (`missing_permission`, ...); null when allowed. */
  error: ErrorBody | null;
}

/** An allowed decision: the caller's organization and key are known. */
export interface AllowedDecision extends AuthorizeDecision {
  /** Always true. */
  allowed: true;
  /** Always 200. */
  status: 200;
  /** The caller's organization (`org_...`): act on its behalf. */
  organization_id: string;
  /** The caller's key. */
  key: DecisionKey;
  /** Always null. */
  error: null;
}

/** Counts of image credits consumed, keyed by the RFC 3339 start of each interval (UTC). */
export type UsageCounts = Record<string, number>;

/** One billing period of the organization's plan. */
export interface BillingPeriodUsage {
  /** Image credits consumed in the period. */
  total_images: number;
  /** Start of the period, RFC 3339 UTC. */
  start: string;
  /** End of the period (scheduled, for the current one), RFC 3339 UTC. */
  end: string;
}

/** The body of `GET /v1/usage`: what the caller's organization consumed. */
export interface UsageReport {
  /** Consumption per interval; intervals without usage are omitted. */
  data: {
    /** The last 72 hours, keyed by hour start. */
    hour: UsageCounts;
    /** The last 60 days, keyed by day start. */
    day: UsageCounts;
    /** The last 12 calendar months, keyed by month start. */
    month: UsageCounts;
  };
  /** The billing periods, oldest first; the current one last, with its scheduled end. */
  per_billing_period: BillingPeriodUsage[];
}

/**
 * The content of a proxy, storage destination or OG configuration: the body of both create and update.
 * An update replaces all of it: omitted members return to their defaults.
 */
export interface ResourceContent {
  /** Display name, 1 to 255 characters, not blank. */
  name: string;
  /** `true` disables the record. Default `false`. */
  disabled?: boolean;
  /** Free-form JSON object, at most 16 KiB as JSON. Default `{}`. */
  settings?: Record<string, unknown>;
}

/** A proxy, storage destination or OG configuration as the server returns it. */
export interface ResourceRecord {
  /** Record id (`prx_...`, `dst_...`, `ogc_...`), used in paths. */
  id: string;
  /** Display name. */
  name: string;
  /** Whether the record is enabled (the inverse of the request field `disabled`). */
  enabled: boolean;
  /** The settings object, exactly as last written. */
  settings: Record<string, unknown>;
  /** Creation time, RFC 3339 UTC. */
  created_at: string;
  /** Time of the last update, RFC 3339 UTC. */
  updated_at: string;
}

/** One page of a family's listing, newest first, disabled records included. */
export interface ResourcePage {
  /** The records of this page. */
  data: ResourceRecord[];
  /** Where the next page starts. */
  pagination: {
    /** Cursor for `pageStart` of the next request; `null` on the last page. */
    next_page_start: string | null;
  };
}

/** Paging of a family's listing. */
export interface ListResourcesOptions {
  /** Page size, 1 to 100. Server default 10. */
  count?: number;
  /** `pagination.next_page_start` of the previous page; omitted for the first page. */
  pageStart?: string;
}

/** Which usage an export covers (`GET /v1/usage/export`, `GET /v1/admin/usage/export`). */
export interface UsageExportOptions {
  /** Start of the range (inclusive), on a UTC hour: a `Date` or an RFC 3339 string. */
  from: Date | string;
  /** End of the range (exclusive), on a UTC hour, at most 31 days after `from`. */
  to: Date | string;
  /** One row per UTC hour (default) or per UTC day. */
  granularity?: "hour" | "day";
}

/** One interval of one organization's usage: one line of the NDJSON export. */
export interface UsageExportRow {
  /** `org_...` identifier. */
  organization_id: string;
  /** Start of the interval (inclusive), RFC 3339 UTC. */
  start: string;
  /** End of the interval (exclusive), RFC 3339 UTC. */
  end: string;
  /** Image credits consumed. */
  images: number;
  /** Authorize and forward-auth decisions for the organization's callers. */
  decisions: {
    /** Decisions that allowed the caller. */
    allowed: number;
    /** Decisions that refused a caller whose credentials were accepted (403, 429, 503). */
    refused: number;
  };
}

/** One line of the platform's NDJSON export: the organization's row with its `external_id`. */
export interface PlatformUsageExportRow extends UsageExportRow {
  /** The platform's own id of this customer; null: none. */
  external_id: string | null;
}
