import { OPERATOR_ACTOR } from "../domain/audit.js";
import type { Clock } from "../domain/clock.js";
import {
  hasValidServiceTokenChecksum,
  newServiceToken,
  newServiceTokenId,
  type SecretHasher,
} from "../domain/credentials.js";
import { LatchkeyError } from "../domain/errors.js";
import {
  DEFAULT_SERVICE_TOKEN_SCOPES,
  missingScope,
  type ServiceTokenScope,
} from "../domain/service-token-scopes.js";
import type { CachedPremise, ServiceTokenCache } from "../cache/coherence.js";
import type { IdempotentResponse } from "../store/idempotency-store.js";
import type { ServiceTokenRecord, ServiceTokenStore } from "../store/service-token-store.js";
import { serviceTokenSnapshot } from "./audit-snapshots.js";
import { auditOf } from "./audit-trail.js";

/** The header platform services send their token in. */
export const SERVICE_TOKEN_HEADER = "x-latchkey-service-token";

export function invalidServiceToken(): LatchkeyError {
  return new LatchkeyError(
    "invalid_service_token",
    "This endpoint is for the platform's services: send a valid, unrevoked service token in X-Latchkey-Service-Token.",
  );
}

// A value no token hash can equal: a well-formed but unknown token still pays for one comparison.
const DECOY_HASH = "0".repeat(64);

/** Service tokens: created and revoked by the operator, checked on every authorize and forward-auth. */
export interface ServiceTokenService {
  /**
   * Creates a token with `scopes` (default `authorize`), audited as `actor`; the token itself is
   * returned here and never again.
   */
  create(
    name: string,
    actor?: string,
    scopes?: readonly ServiceTokenScope[],
    /** The first answer to an `Idempotency-Key` (it holds the token), committed with the token. */
    respond?: (created: { record: ServiceTokenRecord; token: string }) => IdempotentResponse,
  ): Promise<{ record: ServiceTokenRecord; token: string }>;
  list(): Promise<ServiceTokenRecord[]>;
  /** Revokes a token (audited as `actor`); throws not_found for an unknown id. Effective everywhere at once. */
  revoke(id: string, actor?: string): Promise<void>;
  /**
   * Resolves the token presented in the header, or throws `invalid_service_token`; with `scope`, a
   * valid token without it throws `missing_scope` (403).
   */
  verify(presented: string | string[] | undefined, scope?: ServiceTokenScope): Promise<ServiceTokenRecord>;
  /**
   * `verify` for a request whose access decision makes a Redis call anyway (authorize, forward-auth):
   * a token cached at its version (PostgreSQL + Redis) is admitted with a `premise` that the decision
   * confirms in that call, or reads from the database (src/cache/README.md); otherwise as `verify`.
   */
  admit(
    presented: string | string[] | undefined,
    scope: ServiceTokenScope,
  ): Promise<{ record: ServiceTokenRecord; premise?: CachedPremise }>;
}

export function createServiceTokenService(deps: {
  store: ServiceTokenStore;
  hasher: SecretHasher;
  clock: Clock;
  /** Tokens cached at their version (PostgreSQL + Redis with the record cache); absent elsewhere. */
  cache?: ServiceTokenCache | undefined;
}): ServiceTokenService {
  const { store, hasher, clock, cache } = deps;
  // Service tokens belong to the deployment, not to an organization: their entries have no organization.
  const audit = (actor: string, action: "service_token.create" | "service_token.revoke") =>
    auditOf<ServiceTokenRecord>(clock, {
      actor,
      orgId: null,
      action,
      targetOf: (token) => token.id,
      snapshot: serviceTokenSnapshot,
    });
  return {
    async create(name, actor = OPERATOR_ACTOR, scopes = DEFAULT_SERVICE_TOKEN_SCOPES, respond) {
      const token = newServiceToken();
      const record: ServiceTokenRecord = {
        id: newServiceTokenId(),
        name,
        tokenHash: hasher.hash(token),
        createdAt: clock.now(),
        revokedAt: null,
        scopes: [...scopes],
      };
      await store.insertServiceToken(
        record,
        audit(actor, "service_token.create"),
        respond?.({ record, token }),
      );
      return { record, token };
    },

    list: () => store.listServiceTokens(),

    async revoke(id, actor = OPERATOR_ACTOR) {
      if (!(await store.revokeServiceToken(id, clock.now(), audit(actor, "service_token.revoke")))) {
        throw new LatchkeyError("not_found", `No service token with id "${id}".`);
      }
    },

    async verify(presented, scope) {
      const presentedHash = presentedHashOf(presented);
      return checked(presentedHash, await store.findServiceTokenByHash(presentedHash), scope);
    },

    async admit(presented, scope) {
      const presentedHash = presentedHashOf(presented);
      if (!cache)
        return { record: checked(presentedHash, await store.findServiceTokenByHash(presentedHash), scope) };
      const cached = cache.peek(presentedHash);
      if (cached) {
        const record = checked(presentedHash, cached.record, scope);
        const check = { ...cache.keys, expected: cached.version };
        // Unconfirmed (a revocation, or Redis slow or away): read again, as a miss, until a version is seen.
        const recheck = async () => {
          cache.forget(presentedHash);
          checked(presentedHash, await store.findServiceTokenByHash(presentedHash), scope);
        };
        return { record, premise: { check, recheck } };
      }
      return { record: checked(presentedHash, await cache.read(presentedHash), scope) };
    },
  };

  /** The hash of a well-formed token; the checksum rejects typos and customer secrets (lksk_...) unread. */
  function presentedHashOf(presented: string | string[] | undefined): string {
    if (typeof presented !== "string" || !hasValidServiceTokenChecksum(presented))
      throw invalidServiceToken();
    return hasher.hash(presented);
  }

  /**
   * The token found for `presentedHash` (read from the database, or from a cache a Redis call then
   * confirms, so a revocation is seen on the next request on every node), compared in constant time.
   */
  function checked(
    presentedHash: string,
    record: ServiceTokenRecord | undefined,
    scope: ServiceTokenScope | undefined,
  ): ServiceTokenRecord {
    const matches = hasher.sameHash(presentedHash, record?.tokenHash ?? DECOY_HASH);
    if (!record || !matches || record.revokedAt !== null) throw invalidServiceToken();
    if (scope && !record.scopes.includes(scope)) throw missingScope(scope);
    return record;
  }
}
