import type { IdempotentResponse } from "../store/idempotency-store.js";
import { assertStorableText } from "../domain/text-rules.js";
import { assertCanCreate, assertCanDisable, assertCanRoll, assertCanUpdate } from "../domain/authority.js";
import type { Clock } from "../domain/clock.js";
import { newApiId, newKeyId, newSecret, type SecretHasher } from "../domain/credentials.js";
import { invalidRequest, LatchkeyError } from "../domain/errors.js";
import {
  DEFAULT_MAX_KEYS,
  type KeyConfigurationInput,
  parseKeyConfiguration,
  withDefaultName,
} from "../domain/key-configuration.js";
import { type NetworksAndMetadataInput, parseNetworksAndMetadata } from "../domain/networks-and-metadata.js";
import {
  type KeyRateLimitsInput,
  type OrganizationGroupLimits,
  parseKeyRateLimits,
} from "./key-rate-limits.js";
import {
  expiryOnCreate,
  expiryOnUpdate,
  DEFAULT_OVERLAP_SECONDS,
  MAX_OVERLAP_SECONDS,
  parseRequestedExpiry,
  rolledSecrets,
} from "../domain/key-lifecycle.js";
import type { Grant, Permission } from "../domain/permissions.js";
import type { ApiKeyRecord, ApiKeyStore, LimitStore } from "../store/key-store.js";
import { keySnapshot } from "./audit-snapshots.js";
import { actorOf, auditOf } from "./audit-trail.js";
import { decodeCursor, encodeCursor } from "./list-cursor.js";

/**
 * Who performs an operation: the organization it acts in and the authority it holds. An authenticated
 * key is one; so is the operator minting an organization's first key.
 */
export interface Caller extends Grant {
  /** Organization the operation acts in. */
  orgId: string;
  /** The calling key's id, which the audit trail records as the actor. */
  id?: string;
  /** The audit trail's actor when no key calls: `operator` (CLI) or `bootstrap` (first start). */
  actor?: string;
}

/** A list request after its query string was validated. */
export interface ListKeysRequest {
  count: number;
  pageStart?: string | undefined;
  includeDisabled: boolean;
  withPermission: readonly Permission[];
  /** `metadata[<name>]=<value>` filters: keys must hold every one of these members. */
  withMetadata?: Readonly<Record<string, string>> | undefined;
  /** `name_prefix`: keys whose name starts with this text. */
  namePrefix?: string | undefined;
}

/** The body of create and update: the spec's configuration and latchkey's own members. */
export type KeyInput = KeyConfigurationInput & NetworksAndMetadataInput & KeyRateLimitsInput;
/** The body of a roll: how long the replaced secret keeps working, in seconds (default 0). */
export interface RollInput {
  overlap_seconds?: number | undefined;
}

/** A rolled key: its new secret, shown once, and until when the replaced one works. */
export interface RolledKey {
  key: ApiKeyRecord;
  secret: string;
  /** Epoch milliseconds from which the previous secret is refused (the roll's time with no overlap). */
  previousSecretExpiresAt: number;
}

export interface KeyPage {
  keys: ApiKeyRecord[];
  /** Cursor of the next page, or null when this was the last. */
  nextPageStart: string | null;
}

/**
 * The key-management use cases. The caller has already been authenticated, checked for the operation's
 * permission and counted by the rate limiter; what remains is validation, lookup, authority, quota, effect.
 */
export interface KeyService {
  /** Creates a key; the secret is returned here and never again. */
  create(
    caller: Caller,
    input: KeyInput,
    /** The first response of a create sent with an `Idempotency-Key`, committed with the key. */
    respond?: (created: { key: ApiKeyRecord; secret: string }) => IdempotentResponse,
  ): Promise<{ key: ApiKeyRecord; secret: string }>;
  /**
   * The authority check of a create alone (403 `insufficient_authority`): run before an
   * `Idempotency-Key` replay too, so a kept answer never reaches a caller who could not have created it.
   */
  assertMayCreate(caller: Caller, input: KeyInput): void;
  list(caller: Caller, request: ListKeysRequest): Promise<KeyPage>;
  /** `seenVersion`: the organization's record version this request's decision observed (ApiKeyStore.findKey). */
  get(caller: Caller, id: string, seenVersion?: number): Promise<ApiKeyRecord>;
  /**
   * Replaces the spec's configuration; latchkey's own members (`allowed_cidrs`, `metadata`, `rate_limits`) change only
   * when given. The secret is neither rotated nor returned.
   */
  update(caller: Caller, id: string, input: KeyInput): Promise<ApiKeyRecord>;
  /** Disables the key; repeating it succeeds. Keys are never removed. */
  disable(caller: Caller, id: string): Promise<void>;
  /** Gives the key a new secret; the previous one works for the overlap (docs/key-lifecycle.md). */
  roll(caller: Caller, id: string, input: RollInput): Promise<RolledKey>;
}

export interface KeyServiceOptions {
  store: ApiKeyStore & Pick<LimitStore, "getLimits">;
  hasher: SecretHasher;
  clock: Clock;
  /** Every group's limit for an organization, which a key's own `rate_limits` must stay within. */
  groupLimits?: OrganizationGroupLimits;
}

function notFound(id: string): LatchkeyError {
  return new LatchkeyError("not_found", `No API key with id "${id}" exists in this organization.`);
}

export function createKeyService({ store, hasher, clock, groupLimits }: KeyServiceOptions): KeyService {
  /** The audit entry of a key change, written by the store in the change's transaction. */
  const audit = (
    caller: Caller,
    action: "api_key.create" | "api_key.update" | "api_key.disable" | "api_key.roll",
  ) =>
    auditOf<ApiKeyRecord>(clock, {
      actor: actorOf(caller),
      orgId: caller.orgId,
      action,
      targetOf: (key) => key.id,
      snapshot: keySnapshot,
    });

  async function change(
    caller: Caller,
    id: string,
    action: "api_key.update" | "api_key.disable" | "api_key.roll",
    decide: (current: ApiKeyRecord) => ApiKeyRecord,
  ) {
    const changed = await store.changeKey(caller.orgId, id, decide, audit(caller, action));
    if (!changed) throw notFound(id);
    return changed;
  }

  return {
    assertMayCreate(caller, input) {
      assertCanCreate(caller, parseKeyConfiguration(input));
    },
    async create(caller, input, respond) {
      assertStorableText(input);
      const now = clock.now();
      const configuration = withDefaultName(parseKeyConfiguration(input), now);
      const own = parseNetworksAndMetadata(input);
      const requestedExpiry = parseRequestedExpiry(input.expires_at, now);
      const rateLimits = await parseKeyRateLimits(input, caller.orgId, groupLimits);
      assertCanCreate(caller, configuration);
      const { maxKeyLifetimeDays } = await store.getLimits(caller.orgId);
      const expiresAt = expiryOnCreate(requestedExpiry, now, maxKeyLifetimeDays ?? null);
      const secret = newSecret();
      const key: ApiKeyRecord = {
        ...configuration,
        id: newKeyId(),
        orgId: caller.orgId,
        apiId: newApiId(),
        secretHash: hasher.hash(secret),
        secretScheme: "server",
        createdAt: now,
        updatedAt: now,
        lastUsedAt: null,
        leakedAt: null,
        allowedCidrs: own.allowedCidrs ?? null,
        metadata: own.metadata ?? null,
        expiresAt,
        previousSecretHash: null,
        previousSecretScheme: "server",
        previousSecretExpiresAt: null,
        rateLimits: rateLimits ?? null,
      };
      const result = await store.insertKey(
        key,
        DEFAULT_MAX_KEYS,
        audit(caller, "api_key.create"),
        respond?.({ key, secret }),
      );
      if (result.type === "quota_exceeded") {
        throw new LatchkeyError(
          "key_quota_exceeded",
          `This organization already has its quota of ${result.maxKeys} API keys (disabled keys count too). ` +
            "Disabling a key does not free a slot; contact support for a higher quota.",
        );
      }
      return { key, secret };
    },

    async list(caller, request) {
      const after = request.pageStart === undefined ? undefined : decodeCursor(request.pageStart);
      const rows = await store.listKeys(caller.orgId, {
        limit: request.count + 1,
        after,
        includeDisabled: request.includeDisabled,
        withPermissions: request.withPermission,
        withMetadata: request.withMetadata,
        namePrefix: request.namePrefix,
      });
      const keys = rows.slice(0, request.count);
      const last = keys[keys.length - 1];
      return { keys, nextPageStart: rows.length > request.count && last ? encodeCursor(last) : null };
    },

    async get(caller, id, seenVersion) {
      const key = await store.findKey(caller.orgId, id, seenVersion);
      if (!key) throw notFound(id);
      return key;
    },

    async update(caller, id, input) {
      // Validation comes before the lookup (the order of checks, docs/authority.md): a bad body is 400 even for an
      // unknown id.
      assertStorableText(input);
      const requested = parseKeyConfiguration(input);
      const own = parseNetworksAndMetadata(input);
      const requestedExpiry = parseRequestedExpiry(input.expires_at, clock.now());
      const rateLimits = await parseKeyRateLimits(input, caller.orgId, groupLimits);
      return change(caller, id, "api_key.update", (current) => {
        assertCanUpdate(caller, current, requested);
        return {
          ...current,
          ...withDefaultName(requested, current.createdAt),
          ...own,
          // latchkey's own field: kept when omitted, so a client that does not know it keeps it.
          expiresAt: expiryOnUpdate(current.expiresAt, requestedExpiry),
          // Also latchkey's own: kept when omitted, null clears; set only under the authority checked above.
          rateLimits: rateLimits === undefined ? (current.rateLimits ?? null) : rateLimits,
          updatedAt: Math.max(clock.now(), current.updatedAt),
        };
      });
    },

    async disable(caller, id) {
      await change(caller, id, "api_key.disable", (current) => {
        assertCanDisable(caller, current);
        return { ...current, enabled: false, updatedAt: Math.max(clock.now(), current.updatedAt) };
      });
    },

    async roll(caller, id, input) {
      const overlap = input.overlap_seconds ?? DEFAULT_OVERLAP_SECONDS;
      if (!Number.isInteger(overlap) || overlap < 0 || overlap > MAX_OVERLAP_SECONDS) {
        throw invalidRequest(
          `/overlap_seconds must be a whole number of seconds from 0 to ${MAX_OVERLAP_SECONDS}.`,
          "/overlap_seconds",
        );
      }
      const secret = newSecret();
      const secretHash = hasher.hash(secret);
      let rolledAt = 0;
      const key = await change(caller, id, "api_key.roll", (current) => {
        assertCanRoll(caller, current);
        rolledAt = Math.max(clock.now(), current.updatedAt);
        return {
          ...current,
          ...rolledSecrets(current, secretHash, rolledAt, overlap),
          updatedAt: rolledAt,
        };
      });
      return { key, secret, previousSecretExpiresAt: rolledAt + overlap * 1000 };
    },
  };
}
