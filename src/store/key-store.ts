import type { IdempotentResponse } from "./idempotency-store.js";
import type { AuditOf } from "../domain/audit.js";
import type { SecretScheme } from "../domain/credentials.js";
import type { KeyConfiguration } from "../domain/key-configuration.js";
import type { KeyMetadata } from "../domain/key-metadata.js";
import type { RateLimitGroup } from "../domain/rate-limit-groups.js";
import type { CountedPer, GroupLimit, KeyRateLimits, RatePolicy } from "../domain/rate-limit-policies.js";

/** An API key as stored: its configuration plus identity, secret hash and times. */
export interface ApiKeyRecord extends KeyConfiguration {
  /** Resource identifier (`key_...`), used in management paths. */
  id: string;
  /** Organization that owns the key. */
  orgId: string;
  /** Public Basic-authentication username (`lkid_...`). */
  apiId: string;
  /** Hash of the secret; the secret itself is never stored. */
  secretHash: string;
  /** How `secretHash` was made: the server's hashing, or a plain SHA-256 brought by an import. */
  secretScheme: SecretScheme;
  /** Epoch milliseconds of creation. */
  createdAt: number;
  /** Epoch milliseconds of the last change. */
  updatedAt: number;
  /** Epoch milliseconds of the last successful authentication, approximate to the minute; null until then. */
  lastUsedAt: number | null;
  /** Epoch milliseconds a secret scanner reported the secret public; null otherwise. */
  leakedAt: number | null;
  /** Networks (CIDRs) the key may be used from; null: any address. */
  allowedCidrs: readonly string[] | null;
  /** String members the key is searched by (`metadata[<name>]=<value>`); null: none. */
  metadata: KeyMetadata | null;
  /** Epoch milliseconds from which the key no longer authenticates; null: it never expires. */
  expiresAt: number | null;
  /** Hash of the secret the last roll replaced, while its overlap lasts; null otherwise. */
  previousSecretHash: string | null;
  /** How `previousSecretHash` was made: an imported key rolled keeps its old scheme for the overlap. */
  previousSecretScheme: SecretScheme;
  /** Epoch milliseconds from which the previous secret no longer authenticates; null without one. */
  previousSecretExpiresAt: number | null;
  /** The key's own limits of groups counted per key (docs/rate-limits.md); null or absent: none. */
  rateLimits?: KeyRateLimits | null;
  /**
   * Whether the platform has the key's organization disabled (docs/provisioning.md), read with the key
   * by the reads that authenticate (`findKeyByApiId`, `findKey`), and set only then (true).
   */
  organizationDisabled?: boolean;
}

/** Which key a last-use write is for: the id it updates, and what a cache finds the key under. */
export type LastUseTarget = Pick<ApiKeyRecord, "id" | "orgId" | "apiId">;

export interface Organization {
  /** `org_...` identifier. */
  id: string;
  /** Human name given at creation. */
  name: string;
  /** Epoch milliseconds of creation. */
  createdAt: number;
}

/** One group's override as stored: stacked policies, or a quota per the deployment's window. */
export interface StoredOverride {
  /** Requests per window of the deployment's length, when `policies` is null. */
  quota: number;
  /** The override's windows (docs/rate-limits.md); null: one window of the deployment's length. */
  policies: readonly RatePolicy[] | null;
  /** Whom the override counts; null: as the group says. */
  per: CountedPer | null;
}

/** Operator overrides of one organization; absent members mean the defaults. */
export interface OrganizationLimits {
  /** Key quota override. */
  maxKeys: number | null;
  /** Raised (or lowered) allowances per operation group. */
  quotas: Partial<Record<RateLimitGroup, number>>;
  /** Overrides made through the admin API (stacked policies, the platform's groups); absent: none. */
  overrides?: Readonly<Record<string, StoredOverride>>;
  /** Longest lifetime of a new key, in days; null: keys may live forever. */
  maxKeyLifetimeDays?: number | null;
}

/** Operator changes to an organization's overrides; absent members stay, null restores the default. */
export interface LimitChanges {
  /** New key quota override. */
  maxKeys?: number | null;
  /** New allowance overrides per operation group. */
  quotas?: Partial<Record<RateLimitGroup, number | null>>;
  /** New longest key lifetime in days; null removes the limit. */
  maxKeyLifetimeDays?: number | null;
  /** New overrides of any group (stacked policies); null restores the group's own limit. */
  groupLimits?: Readonly<Record<string, GroupLimit | null>>;
}

/** Where the list continues: strictly older than this (created_at, id) pair. */
export interface ListPosition {
  createdAt: number;
  id: string;
}

export interface ListKeysQuery {
  /** Rows to return at most. */
  limit: number;
  /** Continue after this position (exclusive); first page when absent. */
  after?: ListPosition | undefined;
  /** Whether disabled keys are returned too. */
  includeDisabled: boolean;
  /** Keys must allow every one of these (all-future keys always do). */
  withPermissions: readonly string[];
  /** Keys must hold every one of these metadata members, with exactly these values. */
  withMetadata?: Readonly<Record<string, string>> | undefined;
  /** Keys' names must start with this text (compared character by character, case-sensitive). */
  namePrefix?: string | undefined;
}

/** The outcome of an import of several keys: all stored, or none (quota, or an api_id already taken). */
export type ImportKeysResult =
  | { type: "imported" }
  | { type: "quota_exceeded"; maxKeys: number; keyCount: number }
  | { type: "api_id_taken"; apiIds: string[] }
  | { type: "secret_taken"; index: number };

/** The outcome of an insert that must respect the organization's key quota. */
export type InsertKeyResult = { type: "created" } | { type: "quota_exceeded"; maxKeys: number };

/**
 * Organizations as the key store knows them: created by the operator and the first start, read by the
 * CLI and console. The provisioning API's full records (external id, disabled) are `OrganizationStore`
 * (organization-store.ts).
 */
export interface OrganizationDirectory {
  /**
   * Creates an organization with no keys (and records `audit` in the same transaction); throws
   * `organization_name_taken` when another organization has the same name, ignoring case.
   */
  createOrganization(org: Organization, audit?: AuditOf<Organization>): Promise<void>;
  /** Every organization, oldest first, with its number of keys (disabled ones included). */
  listOrganizations(): Promise<(Organization & { keyCount: number })[]>;
  /** Looks an organization up by id. */
  findOrganization(id: string): Promise<Organization | undefined>;
  /** Whether any organization exists yet (first start detection). */
  hasOrganizations(): Promise<boolean>;
}

/** The operator's overrides of an organization: key quota, group allowances, longest key lifetime. */
export interface LimitStore {
  /** Reads the operator overrides of one organization. */
  getLimits(orgId: string): Promise<OrganizationLimits>;
  /** Sets (or with null, clears) the key quota override; unaudited: operator changes use changeLimits. */
  setMaxKeys(orgId: string, maxKeys: number | null): Promise<void>;
  /** Sets (or with null, clears) one group's allowance override; unaudited, like setMaxKeys. */
  setQuota(orgId: string, group: RateLimitGroup, quota: number | null): Promise<void>;
  /**
   * Changes the overrides and records `audit` (limits before and after) as one transaction. Resolves
   * the resulting limits, or undefined when there is no such organization (nothing is written then).
   */
  changeLimits(
    orgId: string,
    changes: LimitChanges,
    audit?: AuditOf<OrganizationLimits>,
  ): Promise<OrganizationLimits | undefined>;
}

/** The keys: what the key service, imports, leak reports and the access decision read and write. */
export interface ApiKeyStore {
  /**
   * Inserts a key unless the organization already holds its quota of keys, atomically; `audit` is
   * recorded in the same transaction, only when the key is created, and so is `response`, the first
   * response of a create sent with an `Idempotency-Key`.
   */
  insertKey(
    key: ApiKeyRecord,
    defaultMaxKeys: number,
    audit?: AuditOf<ApiKeyRecord>,
    response?: IdempotentResponse,
  ): Promise<InsertKeyResult>;
  /**
   * Inserts every key of one organization, or none, in one transaction: the quota is checked for all
   * of them at once, a taken api_id or a secret hash already stored refuses the whole set, and each
   * key's `audit` entry is recorded. With `dryRun` everything is checked and then rolled back.
   */
  importKeys(
    orgId: string,
    keys: readonly ApiKeyRecord[],
    defaultMaxKeys: number,
    options: { audit?: AuditOf<ApiKeyRecord>; dryRun: boolean },
  ): Promise<ImportKeysResult>;
  /**
   * Keys whose stored secret hash, or previous secret hash (a roll's overlap, ended or not), is one of
   * `hashes`, in any organization (leak reports).
   */
  findKeysBySecretHash(hashes: readonly string[]): Promise<ApiKeyRecord[]>;
  /** Finds a key by its Basic-auth username, in any organization. */
  findKeyByApiId(apiId: string): Promise<ApiKeyRecord | undefined>;
  /**
   * Finds a key by resource id within one organization. `seenVersion`: the organization's record
   * version this request observed after it started, with no write in progress (src/cache/); a cache
   * may serve a record read at exactly that version. Stores without such a cache ignore it.
   */
  findKey(orgId: string, id: string, seenVersion?: number): Promise<ApiKeyRecord | undefined>;
  /** One page of keys, newest first (created_at, then id, descending). */
  listKeys(orgId: string, query: ListKeysQuery): Promise<ApiKeyRecord[]>;
  /**
   * Reads the key, lets `decide` compute its replacement (or throw to refuse), writes it and records
   * `audit`, as one transaction with the row locked. Resolves undefined when there is no such key.
   */
  changeKey(
    orgId: string,
    id: string,
    decide: (current: ApiKeyRecord) => ApiKeyRecord,
    audit?: AuditOf<ApiKeyRecord>,
  ): Promise<ApiKeyRecord | undefined>;
}

/** What using a key leaves behind: its last use, and its expiry recorded once. */
export interface KeyUseStore {
  /**
   * Sets the key's last use to `at` unless another write (from any node) already set it at or after
   * `staleBefore`: one conditional UPDATE, so several nodes write about once a minute between them.
   */
  touchLastUsed(key: LastUseTarget, at: number, staleBefore: number): Promise<void>;
  /**
   * Records that `key` has expired, once: only the first call (from any node) for a key whose expiry
   * is at or before `now` writes, with `audit` in the same transaction. Resolves whether it wrote.
   */
  recordExpiry(key: LastUseTarget, now: number, audit?: AuditOf<ApiKeyRecord>): Promise<boolean>;
  /** Up to `limit` keys, of any organization, expired at `now` whose expiry is not recorded yet. */
  findUnrecordedExpiries(now: number, limit: number): Promise<LastUseTarget[]>;
}

/** The database as a whole, as a node's start and readiness see it. */
export interface DatabaseUse {
  /**
   * Runs `work` while holding a lock that every node on this database shares, so that first-start
   * setup (bootstrap) happens once even when several nodes start together.
   */
  withStartupLock<T>(work: () => Promise<T>): Promise<T>;
  /** Cheap round trip for readiness checks. */
  ping(): Promise<void>;
}

/**
 * Persistence of organizations, keys and operator overrides, as one implementation provides it; each
 * user depends on the part it uses. Implementations must make the quota check and the insert one
 * atomic step, and run each `changeKey` decision against the row it then writes. A store does not own
 * its database connection: whoever opened the database closes it (`Stores.close`, open-database.ts).
 */
export interface KeyStore extends OrganizationDirectory, LimitStore, ApiKeyStore, KeyUseStore, DatabaseUse {}
